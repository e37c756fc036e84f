// issue 5: sy_edit through the C API — bytes independent of the thread count
// and of whole-image vs streamed rendering, reduced-scale decode only when
// allowed, HEIC input upright, cancellation and bad input without output,
// and the SHA-256 behind the SPEC E7 file identity.
import CShiying
import CShiyingFixtures
import Foundation
import Testing

/// The typical recipe of the issue as the C struct (crop 90 %, straighten 3°, exposure, saturation, film.amber 80 %).
private func withTypicalRecipe<R>(_ body: (UnsafePointer<sy_recipe>) throws -> R) rethrows -> R {
    var r = sy_recipe()
    sy_recipe_init(&r)
    r.crop = sy_recipe_rect(x: 0.05, y: 0.05, width: 0.9, height: 0.9)
    r.straighten = 3
    r.adjustments.exposure = 0.3
    r.adjustments.saturation = 0.2
    r.adjustments.sharpness = 0.3
    r.filter_intensity = 0.8
    return try "film.amber".withCString { id in
        r.filter_id = id
        return try body(&r)
    }
}

/// Renders `input` through an opened job with `threads` and returns the bytes.
private func renderBytes(_ ctx: Context, _ input: String, threads: UInt32, maxSize: UInt32 = 0,
                         flags: UInt32 = 0) throws -> (bytes: [UInt8], report: sy_edit_report) {
    try withTypicalRecipe { recipe in
        var opts = sy_edit_options()
        sy_edit_options_init(&opts)
        opts.threads = threads
        opts.max_width = maxSize
        opts.max_height = maxSize
        opts.flags = flags
        var job: OpaquePointer?
        var report = sy_edit_report()
        var err = sy_error()
        guard sy_edit_open(ctx.raw, input, recipe, &opts, &job, &report, &err) == SY_OK, let job else {
            throw CTestFailure("sy_edit_open: \(message(err))")
        }
        defer { sy_edit_close(job) }
        var image = sy_edit_image()
        guard sy_edit_job_render(job, &image, &err) == SY_OK else { throw CTestFailure("render: \(message(err))") }
        defer { sy_edit_image_free(ctx.raw, &image) }
        return ([UInt8](UnsafeBufferPointer(start: image.pixels, count: Int(image.stride) * Int(image.height))), report)
    }
}

/// A sample HEIC (x265 grid of 512-px tiles, the orientation as irot/imir) at `path`.
private func sampleHEIC(_ ctx: Context, _ path: String, width: UInt32, height: UInt32, orientation: UInt8) throws {
    var options = sy_sample_options()
    sy_sample_options_init(&options)
    options.width = width
    options.height = height
    options.orientation = orientation
    var err = sy_error()
    try #require(sy_sample_write_heic(ctx.raw, &options, path, &err) == SY_OK, "\(message(err))")
}

@Suite("Edit C API")
struct EditCAPITests {
    @Test("sy_edit: the same bytes on 1, 2, 3 and 8 threads, and sy_edit_render agrees")
    func threadCountDoesNotMatter() throws {
        let folder = try SampleFolder(count: 2, width: 640, height: 480)
        let ctx = try Context()
        let one = try renderBytes(ctx, folder.photos[1], threads: 1)
        #expect(one.report.width > 0 && one.report.source_orientation == 6)
        for threads: UInt32 in [2, 3, 8] {
            let other = try renderBytes(ctx, folder.photos[1], threads: threads)
            #expect(other.bytes == one.bytes, "\(threads) threads changed the pixels")
        }
        let quick = try withTypicalRecipe { recipe -> [UInt8] in
            var image = sy_edit_image()
            var err = sy_error()
            guard sy_edit_render(ctx.raw, folder.photos[1], recipe, 0, 0, 0, &image, nil, &err) == SY_OK else {
                throw CTestFailure("sy_edit_render: \(message(err))")
            }
            defer { sy_edit_image_free(ctx.raw, &image) }
            return [UInt8](UnsafeBufferPointer(start: image.pixels, count: Int(image.stride) * Int(image.height)))
        }
        #expect(quick == one.bytes)
        var stats = sy_memory_stats()
        sy_context_memory_stats(ctx.raw, &stats)
        #expect(stats.current_bytes == 0, "engine memory left after close: \(stats.current_bytes) bytes")
    }

    @Test("reduced-scale decode only for small targets; SY_EDIT_FULL_DECODE forces full size")
    func reducedDecode() throws {
        let folder = try SampleFolder(count: 1, width: 1600, height: 1200)
        let ctx = try Context()
        let small = try renderBytes(ctx, folder.photos[0], threads: 2, maxSize: 300)
        #expect(small.report.decoded_width < 1600 && small.report.decoded_width >= 2 * small.report.width,
                "decoded \(small.report.decoded_width) for a \(small.report.width) px target")
        let forced = try renderBytes(ctx, folder.photos[0], threads: 2, maxSize: 300, flags: UInt32(SY_EDIT_FULL_DECODE))
        #expect(forced.report.decoded_width == 1600 && forced.report.width == small.report.width)
        let large = try renderBytes(ctx, folder.photos[0], threads: 2, maxSize: 1000)
        #expect(large.report.decoded_width == 1600, "a target over half the native size decodes at full size")
    }

    @Test("HEIC input (irot/imir orientation 6) edits upright to JPEG; report sizes")
    func heicInput() throws {
        let folder = try SampleFolder(count: 0)
        let ctx = try Context()
        let heic = folder.file("p.heic"), out = folder.file("p.jpg")
        try sampleHEIC(ctx, heic, width: 320, height: 240, orientation: 6)
        var err = sy_error()
        var identity = sy_recipe()
        sy_recipe_init(&identity)
        var opts = sy_edit_options()
        sy_edit_options_init(&opts)
        var report = sy_edit_report()
        #expect(sy_edit(ctx.raw, heic, out, &identity, &opts, &report, &err) == SY_OK, "\(message(err))")
        #expect(report.width == 240 && report.height == 320 && report.source_width == 240, "\(report)")
        #expect(report.kept_exif == 1 && report.kept_capture_date == 1)
        if ExternalTools.installed("identify") {
            let size = try ExternalTools.check("identify", ["-format", "%w %h", out])
            #expect(size == "240 320", "identify: \(size)")
        }
    }

    @Test("a grid HEIC decodes its tiles on the job's threads: the same bytes on 1, 2 and 3 threads, full size and reduced")
    func heicTilesOnThreads() throws {
        let folder = try SampleFolder(count: 0)
        let ctx = try Context()
        let heic = folder.file("grid.heic")
        try sampleHEIC(ctx, heic, width: 1536, height: 2048, orientation: 6) // 3 x 4 tiles of 512, stored turned
        for maxSize: UInt32 in [0, 600] { // 600: a reduced decode (boxes of 2x2 decoded pixels)
            let one = try renderBytes(ctx, heic, threads: 1, maxSize: maxSize)
            #expect(one.report.width > 0)
            for threads: UInt32 in [2, 3] {
                let other = try renderBytes(ctx, heic, threads: threads, maxSize: maxSize)
                #expect(other.bytes == one.bytes, "\(threads) threads changed the pixels (max size \(maxSize))")
            }
        }
        var stats = sy_memory_stats()
        sy_context_memory_stats(ctx.raw, &stats)
        #expect(stats.current_bytes == 0, "engine memory left after close: \(stats.current_bytes) bytes")
    }

    @Test("cancelled, bad recipe, bad options, missing cube: an error naming the cause, no output file")
    func failuresWriteNothing() throws {
        let folder = try SampleFolder(count: 1)
        let ctx = try Context()
        let out = folder.file("out.jpg")
        var opts = sy_edit_options()
        sy_edit_options_init(&opts)
        var err = sy_error()
        withTypicalRecipe { recipe in
            sy_context_cancel(ctx.raw)
            #expect(sy_edit(ctx.raw, folder.photos[0], out, recipe, &opts, nil, &err) == SY_E_CANCELLED)
            sy_context_clear_cancel(ctx.raw)
            opts.quality = 0
            #expect(sy_edit(ctx.raw, folder.photos[0], out, recipe, &opts, nil, &err) == SY_E_USAGE)
            #expect(message(err).contains("quality"))
            opts.quality = 90
            opts.threads = 9
            #expect(sy_edit(ctx.raw, folder.photos[0], out, recipe, &opts, nil, &err) == SY_E_USAGE)
            opts.threads = 0
            #expect(sy_edit(ctx.raw, folder.file("missing.jpg"), out, recipe, &opts, nil, &err) != SY_OK)
            #expect(message(err).contains("missing.jpg"), "\(message(err))")
        }
        var bad = sy_recipe()
        sy_recipe_init(&bad)
        bad.adjustments.exposure = 9
        #expect(sy_edit(ctx.raw, folder.photos[0], out, &bad, &opts, nil, &err) == SY_E_USAGE)
        #expect(message(err).contains("adjustments.exposure"), "\(message(err))")
        sy_recipe_init(&bad)
        let status = ("cube:" + folder.file("none.cube")).withCString { id -> sy_status in
            bad.filter_id = id
            return sy_edit(ctx.raw, folder.photos[0], out, &bad, &opts, nil, &err)
        }
        #expect(status != SY_OK && message(err).contains("none.cube"), "\(message(err))")
        #expect(!folder.contents.contains { $0.hasPrefix("out") || $0.contains(".tmp") }, "\(folder.contents)")
        var stats = sy_memory_stats()
        sy_context_memory_stats(ctx.raw, &stats)
        #expect(stats.current_bytes == 0, "engine memory left after failures: \(stats.current_bytes) bytes")
    }

    @Test("sy_file_identity: SHA-256 test vectors (FIPS 180-4) and byte size")
    func fileIdentity() throws {
        let folder = try SampleFolder(count: 0)
        let ctx = try Context()
        let cases: [([UInt8], String)] = [
            ([], "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            (Array("abc".utf8), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8),
             "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
            ([UInt8](repeating: 0x61, count: 1_000_000), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
        ]
        for (i, (bytes, want)) in cases.enumerated() {
            let path = folder.file("v\(i)")
            try ExternalTools.writeFile(path, bytes)
            var size: UInt64 = 0
            var hex = [CChar](repeating: 0, count: 65)
            var err = sy_error()
            #expect(sy_file_identity(ctx.raw, path, &size, &hex, &err) == SY_OK, "\(message(err))")
            let got = String(decoding: hex.prefix(64).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            #expect(size == UInt64(bytes.count) && got == want, "vector \(i): \(got)")
        }
    }
}
