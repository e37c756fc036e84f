// HEIC cells (issue 15): the HEIF row source decodes a tile row on several
// threads with the same bytes as on one, and reads the primary's thumbnail
// instead of the tiles when the thumbnail covers what the cell needs.
import CShiying
import CShiyingFixtures
import CShiyingInternal
import Foundation
import Testing

/// A frame as the HEIF row source delivers it (stored orientation, 3 bytes per pixel).
struct SourceFrame: Equatable {
    var width: Int, height: Int, orientation: Int
    var pixels: [UInt8]
}

enum HeifSource {
    /// Opens `path` for at least minWidth x minHeight (stored orientation) and reads every row.
    static func read(_ path: String, minWidth: Int, minHeight: Int, threads: UInt32 = 1,
                     workingBytes: Int = 256 << 20, ctx: Context? = nil) throws -> SourceFrame {
        let context = try ctx ?? Context()
        var means = sy__source_means(threads: threads, working_bytes: workingBytes)
        var src: UnsafeMutablePointer<sy__source>?
        var err = sy_error()
        guard sy__heif_source_open(context.raw, path, UInt32(minWidth), UInt32(minHeight), &means, &src, &err) == SY_OK,
              let src else { throw CTestFailure("open \(path): \(message(err))") }
        defer { src.pointee.close(src) }
        let w = Int(src.pointee.width), h = Int(src.pointee.height)
        var pixels = [UInt8](repeating: 0, count: w * h * 3)
        let status = pixels.withUnsafeMutableBufferPointer { buffer -> sy_status in
            var rows: [UnsafeMutablePointer<UInt8>?] = (0..<h).map { buffer.baseAddress! + $0 * w * 3 }
            return rows.withUnsafeMutableBufferPointer { src.pointee.read_rows(src, $0.baseAddress!, UInt32(h), &err) }
        }
        guard status == SY_OK else { throw CTestFailure("rows of \(path): \(message(err))") }
        return SourceFrame(width: w, height: h, orientation: Int(src.pointee.orientation), pixels: pixels)
    }

    /// The frame turned upright (EXIF orientation definition).
    static func upright(_ f: SourceFrame) -> SourceFrame {
        let turned = f.orientation >= 5
        let uw = turned ? f.height : f.width, uh = turned ? f.width : f.height
        var out = [UInt8](repeating: 0, count: f.pixels.count)
        for y in 0..<f.height {
            for x in 0..<f.width {
                let (ux, uy): (Int, Int)
                switch f.orientation {
                case 2: (ux, uy) = (f.width - 1 - x, y)
                case 3: (ux, uy) = (f.width - 1 - x, f.height - 1 - y)
                case 4: (ux, uy) = (x, f.height - 1 - y)
                case 5: (ux, uy) = (y, x)
                case 6: (ux, uy) = (f.height - 1 - y, x)
                case 7: (ux, uy) = (f.height - 1 - y, f.width - 1 - x)
                case 8: (ux, uy) = (y, f.width - 1 - x)
                default: (ux, uy) = (x, y)
                }
                for c in 0..<3 { out[(uy * uw + ux) * 3 + c] = f.pixels[(y * f.width + x) * 3 + c] }
            }
        }
        return SourceFrame(width: uw, height: uh, orientation: 1, pixels: out)
    }

    /// Area-average resample to width x height (each output pixel averages the
    /// input pixels whose centres fall inside it).
    static func resample(_ f: SourceFrame, width: Int, height: Int) -> SourceFrame {
        var sums = [Int](repeating: 0, count: width * height * 3), counts = [Int](repeating: 0, count: width * height)
        for y in 0..<f.height {
            let oy = min(height - 1, (2 * y + 1) * height / (2 * f.height))
            for x in 0..<f.width {
                let ox = min(width - 1, (2 * x + 1) * width / (2 * f.width)), o = oy * width + ox
                counts[o] += 1
                for c in 0..<3 { sums[o * 3 + c] += Int(f.pixels[(y * f.width + x) * 3 + c]) }
            }
        }
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for i in 0..<pixels.count {
            let n: Int = max(1, counts[i / 3])
            pixels[i] = UInt8((sums[i] + n / 2) / n)
        }
        return SourceFrame(width: width, height: height, orientation: 1, pixels: pixels)
    }

    static func writeSampleHEIC(_ path: String, width: Int, height: Int, seed: UInt64) throws {
        let ctx = try Context()
        var o = sy_sample_options()
        sy_sample_options_init(&o)
        o.width = UInt32(width)
        o.height = UInt32(height)
        o.seed = seed
        var err = sy_error()
        guard sy_sample_write_heic(ctx.raw, &o, path, &err) == SY_OK else { throw CTestFailure("sample: \(message(err))") }
    }

    /// A HEIC of `pixels` (width x height RGB) in tiles of `tile`, stored turned by
    /// `rotation` quarter turns (irot), optionally with an upright `thumbnail`
    /// (thumbWidth x thumbHeight RGB, no irot). The writer makes the thumbnail
    /// as an auxiliary image; its 'auxl' reference becomes 'thmb' (same length).
    static func writeHEIC(_ path: String, pixels: [UInt8], width: Int, height: Int, tile: Int = 512,
                          rotation: UInt8 = 0, thumbnail: [UInt8]? = nil, thumbWidth: Int = 0,
                          thumbHeight: Int = 0) throws {
        let ctx = try Context()
        var o = HW.options(width: width, height: height)
        o.tile_size = UInt32(tile)
        o.rotation = rotation
        o.quality = 92
        o.threads = 1
        var w: OpaquePointer?
        var err = sy_error()
        guard sy_heif_writer_create(ctx.raw, path, &o, &w, &err) == SY_OK else { throw CTestFailure("create: \(message(err))") }
        defer { sy_heif_writer_destroy(w) }
        guard HW.withRows(pixels, width: width, height: height, channels: 3, { sy_heif_writer_write_rows(w, $0, UInt32(height), &err) }) == SY_OK
        else { throw CTestFailure("rows: \(message(err))") }
        if let thumbnail {
            guard HW.withRows(thumbnail, width: thumbWidth, height: thumbHeight, channels: 3, {
                sy_heif_writer_add_auxiliary(w, "urn:example:thumbnail", UInt32(thumbWidth), UInt32(thumbHeight), 3, $0, nil, &err)
            }) == SY_OK else { throw CTestFailure("thumbnail: \(message(err))") }
        }
        guard sy_heif_writer_finish(w, &err) == SY_OK else { throw CTestFailure("finish: \(message(err))") }
        if thumbnail != nil {
            var bytes = HW.readFile(path)
            let auxl = Array("auxl".utf8)
            let hits = (0...(bytes.count - 4)).filter { Array(bytes[$0..<$0 + 4]) == auxl }
            guard hits.count == 1 else { throw CTestFailure("expected one 'auxl' box, found \(hits.count)") }
            bytes.replaceSubrange(hits[0]..<hits[0] + 4, with: Array("thmb".utf8))
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
    }

    /// `pixels` (width x height RGB) turned clockwise by one quarter: what a
    /// camera stores for a picture that irot 1 (anticlockwise) shows upright.
    static func turnClockwise(_ pixels: [UInt8], width: Int, height: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: pixels.count)
        for y in 0..<height {
            for x in 0..<width {
                let (sx, sy) = (height - 1 - y, x) // stored (height x width) pixel of upright (x, y)
                for c in 0..<3 { out[(sy * height + sx) * 3 + c] = pixels[(y * width + x) * 3 + c] }
            }
        }
        return out
    }
}

@Suite("HEIF cell source (issue 15)", .serialized)
struct HeifCellSourceTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../shared/corpus/real").standardized

    @Test("tile rows decoded on 1, 2 and 3 threads are the same bytes (averaged planes, and 16-bit sums where boxes straddle tiles)",
          arguments: [(tile: 512, need: 800), (tile: 512, need: 200), (tile: 200, need: 100)])
    func threadsGiveTheSameRows(tile: Int, need: Int) throws {
        let dir = try HW.Folder()
        let path = dir.file("grid.heic")
        try HeifSource.writeHEIC(path, pixels: HW.photo(width: 1600, height: 1200, seed: 21), width: 1600, height: 1200, tile: tile)
        let one = try HeifSource.read(path, minWidth: need, minHeight: need * 3 / 4, threads: 1)
        #expect(one.width >= need && one.width < 2 * need, "delivered \(one.width) for a need of \(need)")
        for threads: UInt32 in [2, 3] {
            let many = try HeifSource.read(path, minWidth: need, minHeight: need * 3 / 4, threads: threads)
            #expect(many == one, "\(threads) threads: \(many.width)x\(many.height) differs from one thread")
        }
        // A budget too small for two decoders at once still gives the same rows (one tile at a time):
        // 4 and 5 MiB refuse a 512x512 tile's second decoder — at 5 MiB inside libavcodec, whose
        // picture the engine refuses (a SY_E_BUDGET, not a codec failure) — and every engine byte is
        // back once the source is closed.
        for mib in [4, 5, 6] {
            let tight = try Context(budget: mib << 20)
            let budgeted = try HeifSource.read(path, minWidth: need, minHeight: need * 3 / 4, threads: 2, ctx: tight)
            #expect(budgeted == one, "\(mib) MiB")
            #expect(tight.stats.current_bytes == 0, "\(mib) MiB: \(tight.stats.current_bytes) engine bytes left after close")
        }
    }

    @Test("a budget too small for one 512x512 tile's decoder fails as a budget error, not a codec one")
    func budgetTooSmallForOneTile() throws {
        let dir = try HW.Folder()
        let path = dir.file("grid.heic")
        try HeifSource.writeHEIC(path, pixels: HW.photo(width: 1600, height: 1200, seed: 21), width: 1600, height: 1200, tile: 512)
        let tiny = try Context(budget: 3 << 20)
        do {
            _ = try HeifSource.read(path, minWidth: 800, minHeight: 600, threads: 2, ctx: tiny)
            Issue.record("a 3 MiB budget decoded a 512x512 tile")
        } catch {
            let text = "\(error)"
            #expect(text.contains("budget") && !text.contains("get_buffer"), "\(text)")
        }
        #expect(tiny.stats.current_bytes == 0, "\(tiny.stats.current_bytes) engine bytes left")
    }

    @Test("a source closed after a few rows stops the tile row its helpers started ahead")
    func closeWhileDecodingAhead() throws {
        let dir = try HW.Folder()
        let path = dir.file("ahead.heic")
        try HeifSource.writeHEIC(path, pixels: HW.photo(width: 1536, height: 1536, seed: 23), width: 1536, height: 1536)
        let ctx = try Context()
        for rowsRead in [1, 300, 700] {
            var means = sy__source_means(threads: 2, working_bytes: 64 << 20)
            var src: UnsafeMutablePointer<sy__source>?
            var err = sy_error()
            #expect(sy__heif_source_open(ctx.raw, path, 768, 768, &means, &src, &err) == SY_OK)
            guard let src else { continue }
            let w = Int(src.pointee.width)
            var row = [UInt8](repeating: 0, count: w * 3)
            for _ in 0..<rowsRead {
                let st = row.withUnsafeMutableBufferPointer { buffer -> sy_status in
                    var rows: [UnsafeMutablePointer<UInt8>?] = [buffer.baseAddress]
                    return rows.withUnsafeMutableBufferPointer { src.pointee.read_rows(src, $0.baseAddress!, 1, &err) }
                }
                #expect(st == SY_OK)
            }
            src.pointee.close(src)
            #expect(ctx.stats.current_bytes == 0, "after \(rowsRead) rows: \(ctx.stats.current_bytes) bytes left")
        }
    }

    @Test("a collage of grid HEICs on 1 and 2 threads is the same file")
    func collageThreadsSameBytes() throws {
        let dir = try HW.Folder()
        var inputs: [String] = []
        for i in 0..<3 {
            let path = dir.file("in\(i).heic")
            try HeifSource.writeSampleHEIC(path, width: 2048, height: 1536, seed: UInt64(40 + i))
            inputs.append(path)
        }
        var outputs: [[UInt8]] = []
        for threads: Int32 in [1, 2] {
            let ctx = try Context()
            var o = sy_collage_options()
            sy_collage_options_init(&o, SY_LAYOUT_LONG)
            o.width = 720
            o.threads = threads
            var report = sy_collage_report()
            var err = sy_error()
            let out = dir.file("long\(threads).jpg")
            let status = render(ctx, inputs, &o, out, &report, &err)
            defer { sy_collage_report_free(&report) }
            #expect(status == SY_OK && report.grey_count == 0, "\(message(err))")
            #expect(report.engine_peak_bytes <= 12 << 20, "engine peak \(report.engine_peak_bytes)")
            outputs.append(HW.readFile(out))
        }
        #expect(!outputs[0].isEmpty && outputs[0] == outputs[1], "1 and 2 threads wrote different collages")
    }

    @Test("thumbnail rule on the real iPhone HEICs: a need the thumbnail covers reads it, a bigger one the tiles; both show the same picture")
    func realThumbnails() throws {
        for (name, thumb) in [("iphoneSE2_grid.heic", (320, 240)), ("iphone15plus_IMG_3853.HEIC", (416, 312))] {
            let path = Self.corpus.appendingPathComponent(name).path
            guard FileManager.default.fileExists(atPath: path) else { continue }
            let fromThumb = try HeifSource.read(path, minWidth: thumb.0, minHeight: thumb.1)
            #expect((fromThumb.width, fromThumb.height) == thumb, "\(name): need = thumbnail gave \(fromThumb.width)x\(fromThumb.height)")
            let half = try HeifSource.read(path, minWidth: thumb.0 / 2, minHeight: thumb.1 / 2)
            #expect((half.width, half.height) == (thumb.0 / 2, thumb.1 / 2), "\(name): half the thumbnail: \(half.width)x\(half.height)")
            let bigger = try HeifSource.read(path, minWidth: thumb.0 + 1, minHeight: thumb.1 + 1)
            #expect(bigger.width > thumb.0 * 3 / 2, "\(name): a need past the thumbnail must read the tiles, got \(bigger.width)x\(bigger.height)")
            // Same picture: against the tiles decoded at 4x the thumbnail, area-averaged to its size.
            let tiles = try HeifSource.read(path, minWidth: thumb.0 * 4, minHeight: thumb.1 * 4)
            let reference = HeifSource.resample(tiles, width: thumb.0, height: thumb.1)
            let p = psnr8(fromThumb.pixels, reference.pixels)
            print("\(name): thumbnail vs tiles PSNR \(String(format: "%.1f", p)) dB")
            #expect(p >= 28, "\(name): thumbnail vs tiles \(p) dB")
            let flipped = HeifSource.upright(SourceFrame(width: fromThumb.width, height: fromThumb.height, orientation: 3, pixels: fromThumb.pixels))
            #expect(psnr8(flipped.pixels, reference.pixels) < p - 6, "\(name): the comparison cannot tell a turned picture")
        }
    }

    @Test("a thumbnail stored upright of a primary stored turned (irot 1) shows the same upright picture; a bigger need decodes the tiles")
    func thumbnailOrientation() throws {
        let dir = try HW.Folder()
        let path = dir.file("turned.heic")
        let upright = HW.photo(width: 640, height: 480, seed: 33)
        let stored = HeifSource.turnClockwise(upright, width: 640, height: 480) // 480 x 640
        let small = HeifSource.resample(SourceFrame(width: 640, height: 480, orientation: 1, pixels: upright), width: 160, height: 120)
        try HeifSource.writeHEIC(path, pixels: stored, width: 480, height: 640, rotation: 1,
                                 thumbnail: small.pixels, thumbWidth: 160, thumbHeight: 120)
        var info = sy_image_info()
        var err = sy_error()
        let ctx = try Context()
        #expect(sy_image_probe(ctx.raw, path, &info, &err) == SY_OK && info.width == 640 && info.height == 480 && info.orientation >= 5)
        // The need is given in the primary's stored orientation (120 wide, 160 tall = upright 160 x 120).
        let thumb = try HeifSource.read(path, minWidth: 120, minHeight: 160)
        #expect((thumb.width, thumb.height, thumb.orientation) == (160, 120, 1), "got \(thumb.width)x\(thumb.height) o\(thumb.orientation)")
        let full = HeifSource.upright(try HeifSource.read(path, minWidth: 121, minHeight: 161))
        #expect((full.width, full.height) == (640, 480) || (full.width, full.height) == (320, 240), "tiles gave \(full.width)x\(full.height)")
        let reference = HeifSource.resample(full, width: 160, height: 120)
        let p = psnr8(thumb.pixels, reference.pixels)
        print("turned primary, upright thumbnail: PSNR \(String(format: "%.1f", p)) dB")
        #expect(p >= 30, "thumbnail vs tiles \(p) dB")
        let wrong = HeifSource.resample(HeifSource.upright(SourceFrame(width: full.width, height: full.height, orientation: 3, pixels: full.pixels)), width: 160, height: 120)
        #expect(psnr8(thumb.pixels, wrong.pixels) < p - 6, "the comparison cannot tell a turned picture")
    }

    @Test("a thumbnail of another shape is never used")
    func thumbnailOfAnotherShape() throws {
        let dir = try HW.Folder()
        let path = dir.file("shape.heic")
        let pixels = HW.photo(width: 640, height: 480, seed: 35)
        let square = HeifSource.resample(SourceFrame(width: 640, height: 480, orientation: 1, pixels: pixels), width: 160, height: 160)
        try HeifSource.writeHEIC(path, pixels: pixels, width: 640, height: 480, thumbnail: square.pixels, thumbWidth: 160, thumbHeight: 160)
        let frame = try HeifSource.read(path, minWidth: 100, minHeight: 75)
        #expect(frame.width == 160 && frame.height == 120, "a 160x160 thumbnail of a 4:3 photo was read: \(frame.width)x\(frame.height)")
    }
}
