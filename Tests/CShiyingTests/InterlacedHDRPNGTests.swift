// An Adam7-interlaced HDR PNG (PNG 3rd edition cICP PQ / HLG) against the
// same samples written plainly: the same SDR rendition, the same gain map,
// and what the interlaced map costs, charged to the budget and refused by it.
// Fixtures: scripts/hdr_still.py png [--interlace] (libvips reads both files
// as the same 16-bit samples).
import CShiying
import CShiyingInternal
import Foundation
import Testing

private let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

@discardableResult
private func python(_ args: [String]) throws -> String {
    try ExternalTools.check("env", ["python3"] + args)
}

/// The plain and the interlaced PNG of one HDR picture in a temp folder.
private final class PNGPair {
    let dir: String, plain: String, interlaced: String

    init(_ options: [String]) throws {
        dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("shiying-adam7-\(getpid())-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        plain = dir + "/plain.png"
        interlaced = dir + "/adam7.png"
        let script = packageRoot.appendingPathComponent("scripts/hdr_still.py").path
        try python([script, "png", plain] + options)
        try python([script, "png", interlaced] + options + ["--interlace"])
    }

    deinit { try? FileManager.default.removeItem(atPath: dir) }
}

/// Every row of a PNG's SDR rendition (sy__png_source_open), one buffer.
private func sdrRows(_ ctx: Context, _ path: String) throws -> [UInt8] {
    var src: UnsafeMutablePointer<sy__source>?
    var err = sy_error()
    guard sy__png_source_open(ctx.raw, path, &src, &err) == SY_OK, let src else { throw CTestFailure(message(err)) }
    defer { src.pointee.close(src) }
    let stride = Int(src.pointee.width) * 3
    var out = [UInt8](repeating: 0, count: stride * Int(src.pointee.height))
    try out.withUnsafeMutableBufferPointer { buf in
        for y in 0..<Int(src.pointee.height) {
            var row: UnsafeMutablePointer<UInt8>? = buf.baseAddress! + y * stride
            guard src.pointee.read_rows(src, &row, 1, &err) == SY_OK else { throw CTestFailure(message(err)) }
        }
    }
    return out
}

@Suite("Interlaced HDR PNG: gain map")
struct InterlacedHDRPNGTests {
    // Before, an interlaced HDR PNG got its SDR rendition but its probe said "no gain map" (the rows were decoded
    // whole, as SDR, with no signal left to derive one), so every save lost its HDR.
    @Test("Adam7 and plain encodings of one HDR picture: same SDR rendition, same gain map",
          arguments: [["hlg"], ["pq", "--peak", "4000", "--alpha"]])
    func sameAsPlain(_ options: [String]) throws {
        let pair = try PNGPair(options)
        let same = try python(["-c", """
            import pyvips, sys
            a, b = (pyvips.Image.new_from_file(p) for p in sys.argv[1:])
            print(a.format, b.get('interlaced'), a.write_to_memory() == b.write_to_memory())
            """, pair.plain, pair.interlaced])
        #expect(same.hasPrefix("ushort 1 True"), "libvips: \(same)")
        let ctx = try Context()
        #expect(try sdrRows(ctx, pair.plain) == sdrRows(ctx, pair.interlaced), "SDR renditions differ")
        let a = try DecodedGainMap(ctx, pair.plain), b = try DecodedGainMap(ctx, pair.interlaced)
        #expect(b.info.kind == SY_GAINMAP_HDR_SIGNAL && b.width == 160 && b.height == 90, "\(b.info.kind) \(b.width)x\(b.height)")
        #expect(a.info.kind == b.info.kind && a.info.params.max_log2.0 == b.info.params.max_log2.0)
        var off = 0, worst = 0
        for (p, q) in zip(a.pixels, b.pixels) where p != q {
            off += 1
            worst = max(worst, abs(Int(p) - Int(q)))
        }
        print("interlaced vs plain gain map (\(options[0])): \(off) of \(a.pixels.count) codes differ, by \(worst) at most")
        #expect(a.pixels.count == b.pixels.count && worst <= 1 && off * 200 <= a.pixels.count, "\(off) codes off by \(worst)")
        let spread = Set(b.pixels).count
        #expect(spread >= 20, "a photo-like map, not flat: \(spread) distinct codes")
    }

    // An interlaced map cannot be finished box row by box row: it holds every box's sum (4 bytes per map pixel)
    // until the last pass. That cost is charged: under a budget that the plain file's decode fits with less than
    // those bytes to spare, the interlaced one is refused, naming the file and why, with no map handed out.
    @Test("the interlaced map's whole-map sums are charged to the budget and refused by it")
    func chargedAndRefused() throws {
        let pair = try PNGPair(["hlg"])
        func decodePeak(_ path: String) throws -> UInt64 {
            let ctx = try Context()
            _ = try DecodedGainMap(ctx, path)
            return ctx.stats.peak_bytes
        }
        let plainPeak = try decodePeak(pair.plain), adam7Peak = try decodePeak(pair.interlaced)
        let sums = UInt64(160 * 90 * 4)
        print("gain map decode peak: plain \(plainPeak) B, interlaced \(adam7Peak) B (sums \(sums) B)")
        #expect(adam7Peak > plainPeak + sums / 2 && adam7Peak <= plainPeak + sums + 4096,
                "interlaced costs its sums, no decoded picture (640x360x3 = 691200 B)")

        let ctx = try Context(budget: Int(plainPeak + sums / 4))
        var info = sy_gainmap_info(), img = sy_gainmap_image(), err = sy_error()
        #expect(sy_gainmap_probe(ctx.raw, pair.plain, &info, &err) == SY_OK)
        print("plain HDR PNG gain map probe peak: \(ctx.stats.peak_bytes) B")
        #expect(ctx.stats.peak_bytes < 16 << 10, "the probe reads the header chunks only, opens no row source")
        #expect(sy_gainmap_decode(ctx.raw, pair.plain, &info, &img, &err) == SY_OK, "\(message(err))")
        sy_gainmap_image_free(ctx.raw, &img)
        #expect(sy_gainmap_probe(ctx.raw, pair.interlaced, &info, &err) == SY_OK)
        let st = sy_gainmap_decode(ctx.raw, pair.interlaced, &info, &img, &err)
        #expect(st == SY_E_BUDGET && img.pixels == nil, "\(st) \(message(err))")
        #expect(message(err).contains(pair.interlaced) && message(err).contains("interlaced (Adam7)"), "\(message(err))")
        #expect(ctx.stats.current_bytes == 0, "nothing left allocated")
    }

    // A 14000 x 14000 interlaced HDR PNG (196 MP, the input limit allows it) in a few hundred bytes: under the
    // 12 MB job budget its map (3500 x 3500) and sums are refused before any row is read; the probe reads its
    // header chunks alone (no rows, no inflate state, a 4 KiB buffer).
    @Test("a huge interlaced HDR PNG is refused cleanly; the probe stays small")
    func hugeRefused() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shiying-adam7-huge-\(getpid()).png").path
        defer { unlink(dir) }
        try python(["-c", """
            import struct, sys, zlib
            def chunk(k, d): return struct.pack('>I', len(d)) + k + d + struct.pack('>I', zlib.crc32(k + d))
            head = struct.pack('>IIBBBBB', 14000, 14000, 16, 2, 0, 0, 1)
            open(sys.argv[1], 'wb').write(b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', head) + chunk(b'cICP', bytes([9, 18, 0, 1]))
                + chunk(b'IDAT', zlib.compress(bytes(4096))) + chunk(b'IEND', b''))
            """, dir])
        let ctx = try Context(budget: 12 << 20)
        var info = sy_gainmap_info(), img = sy_gainmap_image(), err = sy_error()
        #expect(sy_gainmap_probe(ctx.raw, dir, &info, &err) == SY_OK, "\(message(err))")
        let probePeak = ctx.stats.peak_bytes
        print("huge interlaced HDR PNG: probe peak \(probePeak) B")
        #expect(info.kind == SY_GAINMAP_HDR_SIGNAL && info.map_width == 3500 && info.map_height == 3500)
        #expect(probePeak < 16 << 10, "the probe reads the header chunks only: \(probePeak) B")
        let st = sy_gainmap_decode(ctx.raw, dir, &info, &img, &err)
        #expect(st == SY_E_BUDGET && img.pixels == nil, "\(st) \(message(err))")
        #expect(message(err).contains(dir) && message(err).contains("interlaced (Adam7)"), "\(message(err))")
        #expect(ctx.stats.current_bytes == 0 && ctx.stats.peak_bytes < 1 << 20, "refused before allocating: \(ctx.stats.peak_bytes) B")
    }
}
