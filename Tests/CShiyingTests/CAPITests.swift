// The C API called directly (CShiying): context lifecycle, accounting, budget,
// versioned options, sniffing, probing, layout limits — SPEC C12, C13.
import CShiying
import CShiyingFixtures
import Foundation
import Testing

// MARK: - Helpers

/// `char message[256]` of an sy_error as a String.
func message(_ error: sy_error) -> String {
    var copy = error
    return withUnsafeBytes(of: &copy.message) { raw in
        let bytes = raw.bindMemory(to: UInt8.self)
        let end = bytes.firstIndex(of: 0) ?? bytes.count
        return String(decoding: bytes[..<end], as: UTF8.self)
    }
}

func withCStringArray<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    let pointers = copies.map { UnsafePointer($0) }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}

/// An sy_context for one test, destroyed on deinit.
final class Context {
    let raw: OpaquePointer

    init(budget: Int = 0) throws {
        var options = sy_context_options()
        sy_context_options_init(&options)
        options.budget_bytes = budget
        var ctx: OpaquePointer?
        var err = sy_error()
        let status = sy_context_create(&options, &ctx, &err)
        guard status == SY_OK, let ctx else { throw CTestFailure("sy_context_create: \(status) \(message(err))") }
        raw = ctx
    }

    deinit { sy_context_destroy(raw) }

    var stats: sy_memory_stats {
        var s = sy_memory_stats()
        sy_context_memory_stats(raw, &s)
        return s
    }
}

struct CTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

/// A fresh temp folder with `count` small sample photos (sy_sample_write_jpeg).
final class SampleFolder {
    let path: String
    let photos: [String]

    init(count: Int, width: UInt32 = 320, height: UInt32 = 240) throws {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("shiying-ctests-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        path = url.path
        let ctx = try Context()
        var written: [String] = []
        for i in 0..<count {
            var options = sy_sample_options()
            sy_sample_options_init(&options)
            options.width = width
            options.height = height
            options.seed = 4242 + UInt64(i)
            options.orientation = i % 3 == 1 ? 6 : 1
            let file = url.appendingPathComponent(String(format: "c-%02d.jpg", i)).path
            var err = sy_error()
            let status = sy_sample_write_jpeg(ctx.raw, &options, file, &err)
            guard status == SY_OK else { throw CTestFailure("sy_sample_write_jpeg: \(message(err))") }
            written.append(file)
        }
        photos = written
    }

    func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }
    var contents: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

func render(_ ctx: Context, _ inputs: [String], _ options: inout sy_collage_options, _ output: String,
            _ report: inout sy_collage_report, _ err: inout sy_error) -> sy_status {
    withCStringArray(inputs) { sy_collage_render(ctx.raw, $0, UInt32(inputs.count), &options, output, &report, &err) }
}

// MARK: - Tests

@Suite("C API")
struct CAPITests {
    @Test("sy_context_create/destroy; destroy(NULL) is safe; NULL options use defaults; stats start at 0")
    func contextLifecycle() throws {
        sy_context_destroy(nil) // must not crash
        var ctx: OpaquePointer?
        var err = sy_error()
        #expect(sy_context_create(nil, &ctx, &err) == SY_OK, "\(message(err))")
        #expect(ctx != nil)
        var stats = sy_memory_stats(current_bytes: 99, peak_bytes: 99, allocations: 99)
        if let ctx { sy_context_memory_stats(ctx, &stats) }
        #expect(stats.current_bytes == 0 && stats.peak_bytes == 0 && stats.allocations == 0, "\(stats)")
        if let ctx {
            #expect(sy_context_is_cancelled(ctx) == 0)
            sy_context_cancel(ctx)
            #expect(sy_context_is_cancelled(ctx) == 1)
            sy_context_clear_cancel(ctx)
            #expect(sy_context_is_cancelled(ctx) == 0)
        }
        sy_context_destroy(ctx)
        #expect(sy_context_create(nil, nil, &err) == SY_E_USAGE)
        #expect(String(cString: sy_status_name(Int32(SY_E_BUDGET))) == "budget")
    }

    @Test("options version mismatch → SY_E_USAGE (context and collage options)")
    func versionMismatch() throws {
        var options = sy_context_options()
        sy_context_options_init(&options)
        #expect(options.version == 1)
        options.version = 2
        var ctx: OpaquePointer?
        var err = sy_error()
        #expect(sy_context_create(&options, &ctx, &err) == SY_E_USAGE)
        #expect(ctx == nil)
        #expect(message(err).contains("version"), "\(message(err))")

        let folder = try SampleFolder(count: 2)
        let good = try Context()
        var collage = sy_collage_options()
        sy_collage_options_init(&collage, SY_LAYOUT_LONG)
        collage.version = 7
        var report = sy_collage_report()
        err = sy_error()
        let out = folder.file("v.jpg")
        #expect(render(good, folder.photos, &collage, out, &report, &err) == SY_E_USAGE)
        #expect(message(err).contains("version"), "\(message(err))")
        #expect(!FileManager.default.fileExists(atPath: out))
        sy_collage_report_free(&report)
    }

    // SPEC C13: every engine allocation is accounted; after a job all of it is released.
    @Test("memory stats return to 0 after a collage job; the peak is the job's")
    func statsReturnToZero() throws {
        let folder = try SampleFolder(count: 3)
        let ctx = try Context()
        #expect(ctx.stats.current_bytes == 0)
        var options = sy_collage_options()
        sy_collage_options_init(&options, SY_LAYOUT_LONG)
        options.width = 480
        var report = sy_collage_report()
        var err = sy_error()
        let out = folder.file("long.jpg")
        let status = render(ctx, folder.photos, &options, out, &report, &err)
        #expect(status == SY_OK, "\(message(err))")
        #expect(report.width == 480 && report.height == 360 + 640 + 360, "\(report.width)x\(report.height)")
        #expect(report.cells == 3 && report.grey_count == 0 && report.scaled_to_fit == 0)
        let stats = ctx.stats
        #expect(stats.current_bytes == 0, "\(stats.current_bytes) bytes still accounted after the job")
        #expect(stats.peak_bytes > 0 && stats.peak_bytes == report.engine_peak_bytes, "\(stats) vs \(report.engine_peak_bytes)")
        #expect(stats.peak_bytes < 12 * 1_048_576, "engine peak \(stats.peak_bytes)")
        sy_collage_report_free(&report)
        sy_collage_report_free(&report) // idempotent
        sy_collage_report_free(nil)
        #expect(FileManager.default.fileExists(atPath: out))
    }

    // SPEC C13: a context budget is a hard cap: 64 KiB cannot hold a cell, so the
    // job fails with SY_E_BUDGET, says so, writes nothing, and releases everything.
    @Test("a 64 KiB budget makes sy_collage_render fail with SY_E_BUDGET")
    func tinyBudget() throws {
        let folder = try SampleFolder(count: 2)
        let ctx = try Context(budget: 64 * 1024)
        var options = sy_collage_options()
        sy_collage_options_init(&options, SY_LAYOUT_LONG)
        var report = sy_collage_report()
        var err = sy_error()
        let out = folder.file("budget.jpg")
        let status = render(ctx, folder.photos, &options, out, &report, &err)
        #expect(status == SY_E_BUDGET, "status \(status): \(message(err))")
        #expect(status == 4)
        #expect(err.code == SY_E_BUDGET)
        #expect(message(err).contains("budget"), "\(message(err))")
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(folder.contents.allSatisfy { !$0.contains(".tmp-") }, "\(folder.contents)")
        #expect(ctx.stats.current_bytes == 0, "\(ctx.stats.current_bytes) bytes leaked in the accounting")
        #expect(ctx.stats.peak_bytes <= 64 * 1024)
        sy_collage_report_free(&report)
    }

    @Test("sy_image_sniff: JPEG, PNG, HEIF magic; garbage and short input are unknown")
    func sniff() {
        func sniff(_ bytes: [UInt8]) -> sy_image_format { bytes.withUnsafeBufferPointer { sy_image_sniff($0.baseAddress, $0.count) } }
        #expect(sniff([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10]) == SY_FORMAT_JPEG)
        #expect(sniff([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]) == SY_FORMAT_PNG)
        let ftyp: [UInt8] = [0, 0, 0, 0x18] + Array("ftyp".utf8)
        #expect(sniff(ftyp + Array("heic".utf8) + [0, 0, 0, 0]) == SY_FORMAT_HEIF)
        #expect(sniff(ftyp + Array("mif1".utf8) + [0, 0, 0, 0]) == SY_FORMAT_HEIF)
        #expect(sniff(ftyp + Array("isom".utf8) + [0, 0, 0, 0]) == SY_FORMAT_UNKNOWN) // an MP4 is not an image
        #expect(sniff(Array("GIF89a......".utf8)) == SY_FORMAT_UNKNOWN)
        #expect(sniff([0xFF, 0xD8]) == SY_FORMAT_UNKNOWN)
        #expect(sniff([0x89, 0x50, 0x4E, 0x47]) == SY_FORMAT_UNKNOWN)
        #expect(sniff([]) == SY_FORMAT_UNKNOWN)
        #expect(String(cString: sy_image_format_name(SY_FORMAT_HEIF)) == "heif")
    }

    @Test("sy_image_probe: missing file → SY_E_IO naming the path; a sample photo probes upright")
    func probe() throws {
        let ctx = try Context()
        let folder = try SampleFolder(count: 2)
        let missing = folder.file("nowhere/missing.jpg")
        var info = sy_image_info()
        var err = sy_error()
        #expect(sy_image_probe(ctx.raw, missing, &info, &err) == SY_E_IO)
        #expect(err.code == SY_E_IO)
        #expect(message(err).contains(missing), "\(message(err))")

        err = sy_error()
        #expect(sy_image_probe(ctx.raw, folder.photos[1], &info, &err) == SY_OK, "\(message(err))")
        #expect(info.format == SY_FORMAT_JPEG && info.orientation == 6)
        #expect(info.stored_width == 320 && info.stored_height == 240 && info.width == 240 && info.height == 320)
        #expect(ctx.stats.current_bytes == 0)
    }

    // SPEC C12 (impossible layouts are usage errors): a grid takes 2 to 30 photos.
    @Test("grid with 1 or 31 photos → SY_E_USAGE; 2 and 30 render", arguments: [1, 2, 30, 31])
    func gridLimits(count: Int) throws {
        let folder = try SampleFolder(count: 1, width: 64, height: 48)
        let ctx = try Context()
        var options = sy_collage_options()
        sy_collage_options_init(&options, SY_LAYOUT_GRID)
        options.width = 320
        var report = sy_collage_report()
        var err = sy_error()
        let out = folder.file("grid.jpg")
        let status = render(ctx, Array(repeating: folder.photos[0], count: count), &options, out, &report, &err)
        if count < 2 || count > 30 {
            #expect(status == SY_E_USAGE, "\(count) photos: status \(status) \(message(err))")
            #expect(message(err).contains("\(count)"), "\(message(err))")
            #expect(!FileManager.default.fileExists(atPath: out))
        } else {
            #expect(status == SY_OK, "\(count) photos: \(message(err))")
            #expect(report.cells == UInt32(count) && report.width == 320)
        }
        #expect(ctx.stats.current_bytes == 0)
        sy_collage_report_free(&report)
    }

    @Test("NULL arguments and zero inputs are usage errors, not crashes")
    func nullArguments() throws {
        let ctx = try Context()
        var options = sy_collage_options()
        sy_collage_options_init(&options, SY_LAYOUT_LONG)
        var report = sy_collage_report()
        var err = sy_error()
        #expect(sy_collage_render(nil, nil, 0, &options, "/tmp/x.jpg", &report, &err) == SY_E_USAGE)
        #expect(withCStringArray(["/nonexistent.jpg"]) { sy_collage_render(ctx.raw, $0, 0, &options, "/tmp/x.jpg", &report, &err) } == SY_E_USAGE)
        var info = sy_image_info()
        #expect(sy_image_probe(ctx.raw, nil, &info, nil) == SY_E_USAGE)
    }
}
