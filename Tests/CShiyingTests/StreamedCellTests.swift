// Issue 15 / SPEC C12, C13: a long image's HEIC cell is read by the strip loop
// while its tiles decode (collage/prefetch.c, streamed cells). When its tile
// data turns out damaged partway, the rows already written stay, the rest of
// the cell is neutral grey, and the cell is reported grey with the damage
// named — the same report as a cell that fails before any row.
import CShiying
import CShiyingFixtures
import CShiyingInternal
import Foundation
import Testing

private final class StreamScratch {
    let path: String
    init() throws {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("shiying-streamed-cell-\(getpid())-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// A 1024x1024 sample HEIC (a grid of 2x2 tiles of 512) and the file offset of each tile's data.
private func sampleGridHEIC(_ ctx: Context, _ path: String) throws -> [Int] {
    var opts = sy_sample_options()
    sy_sample_options_init(&opts)
    opts.width = 1024
    opts.height = 1024
    opts.seed = 21
    var err = sy_error()
    guard sy_sample_write_heic(ctx.raw, &opts, path, &err) == SY_OK else { throw CTestFailure("sample: \(message(err))") }
    var file: OpaquePointer?
    guard sy_heif_open(ctx.raw, path, &file, &err) == SY_OK, let file else { throw CTestFailure(message(err)) }
    defer { sy_heif_close(file) }
    var count: UInt32 = 0
    guard let ids = sy_heif_derived(file, sy_heif_primary_id(file), &count), count == 4 else {
        throw CTestFailure("the sample HEIC is not a grid of four tiles")
    }
    let bytes = ExternalTools.readFile(path)
    return try UnsafeBufferPointer(start: ids, count: Int(count)).map { id in
        var data: UnsafeMutablePointer<UInt8>?
        var len = 0
        guard sy_heif_read_item(file, id, &data, &len, &err) == SY_OK, let data else { throw CTestFailure(message(err)) }
        defer { sy_heif_free_data(file, data) }
        let tile = Array(UnsafeBufferPointer(start: data, count: len))
        // The tile's bytes sit once in the file (one extent each in our writer).
        guard let at = (0...(bytes.count - tile.count)).first(where: { bytes[$0] == tile[0] && Array(bytes[$0..<$0 + tile.count]) == tile })
        else { throw CTestFailure("tile \(id) not found in the file") }
        return at + tile.count / 2
    }
}

/// A long-image PNG collage of `inputs` at `width`, on two threads (HEIC cells stream then).
private func longPNG(_ ctx: Context, _ inputs: [String], width: UInt32, output: String) throws -> (RGBImage, sy_collage_report) {
    var options = sy_collage_options()
    sy_collage_options_init(&options, SY_LAYOUT_LONG)
    options.width = width
    options.spacing = 0
    options.margin = 0
    options.threads = 2
    options.format = SY_STILL_PNG
    var report = sy_collage_report()
    var err = sy_error()
    guard render(ctx, inputs, &options, output, &report, &err) == SY_OK else {
        throw CTestFailure("sy_collage_render: \(message(err))")
    }
    let raw = output + ".rgb"
    _ = try ExternalTools.check("convert", [output, "-depth", "8", "rgb:\(raw)"])
    defer { unlink(raw) }
    let bytes = ExternalTools.readFile(raw)
    guard bytes.count == Int(report.width) * Int(report.height) * 3 else { throw CTestFailure("\(output): \(bytes.count) bytes") }
    return (RGBImage(width: Int(report.width), height: Int(report.height), bytes: bytes), report)
}

@Suite("Streamed long-image cells (issue 15)")
struct StreamedCellTests {
    @Test("a HEIC cell damaged partway: its decoded rows stay, the rest is grey, the cell is reported grey")
    func damagedPartwayKeepsItsRowsAndGoesGrey() throws {
        let scratch = try StreamScratch()
        let ctx = try Context()
        let good = scratch.file("good.heic")
        let offsets = try sampleGridHEIC(ctx, good)
        // Tile 2 opens the second tile row: 40 zero bytes in its slice data (damage
        // the decoder names before libavcodec sees it).
        var bytes = ExternalTools.readFile(good)
        for i in offsets[2]..<(offsets[2] + 40) { bytes[i] = 0 }
        let damaged = scratch.file("damaged.heic")
        try ExternalTools.writeFile(damaged, bytes)

        var (expected, intact) = try longPNG(ctx, [good, good], width: 512, output: scratch.file("good.png"))
        sy_collage_report_free(&intact)
        var (out, report) = try longPNG(ctx, [damaged, good], width: 512, output: scratch.file("damaged.png"))
        defer { sy_collage_report_free(&report) }
        #expect(out.width == 512 && out.height == 1024, "\(out.width)x\(out.height)")
        // The damaged cell is reported grey, naming the damage; the other is not.
        #expect(report.grey_count == 1 && report.grey_count > 0 && report.grey[0].index == 0, "grey cells: \(report.grey_count)")
        if report.grey_count > 0 {
            let reason = withUnsafeBytes(of: report.grey[0].reason) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            #expect(reason.contains("damaged"), "\(reason)")
        }
        // The damaged 512x512 cell: its top rows (from the intact first tile row)
        // are the photo, byte for byte; its bottom half is neutral grey. The
        // second cell is the photo whole.
        let top = out.crop(x: 0, y: 0, width: 512, height: 200)
        #expect(top.differingPixels(expected.crop(x: 0, y: 0, width: 512, height: 200)) == 0, "the decoded rows differ")
        #expect(out.crop(x: 0, y: 256, width: 512, height: 256).bytes.allSatisfy { $0 == 128 },
                "the rows after the damage are not grey")
        let second = out.crop(x: 0, y: 512, width: 512, height: 512)
        #expect(second.differingPixels(expected.crop(x: 0, y: 512, width: 512, height: 512)) == 0, "the intact cell differs")
        #expect(!expected.bytes.allSatisfy { $0 == 128 }, "the intact collage is a photo, not grey")
    }
}
