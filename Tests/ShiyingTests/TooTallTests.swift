// Long images taller than JPEG's 65,500 px — SPEC C13 (long images of any length).
import Foundation
import Shiying
import Testing

@Suite("Too tall for JPEG")
struct TooTallTests {
    static func tinyPhoto() async throws -> String {
        try await FixtureCache.shared.samples("tiny64", count: 1, seed: 11, width: 64, height: 48)[0]
    }

    // SPEC C13: 90 landscape photos at width 1080 need 90*810 = 72,900 px; JPEG
    // output is scaled down uniformly to fit 65,500 (scaled_to_fit, an even width,
    // every cell still 4:3, identify accepts it) and the last cell is still its photo.
    @Test("JPEG: 90 photos at 1080 are scaled to fit 65,500 px")
    func jpegScaledToFit() async throws {
        let photo = try await Self.tinyPhoto()
        let inputs = Array(repeating: photo, count: 90)
        let dir = try TempDir("tall")
        defer { dir.remove() }
        let out = dir.file("tall.jpg")
        let (run, json) = try await CLI.collage(["--layout", "long", "--width", "1080", "-o", out] + inputs, timeout: 300)
        #expect(run.succeeded, "\(run)")
        let report = try #require(json, "no JSON report: \(run)")
        #expect(report.scaledToFit, "not scaled: \(report)")
        #expect(report.height <= 65_500 && report.height > 60_000, "height \(report.height)")
        #expect(report.width < 1080 && report.width % 2 == 0, "width \(report.width)")
        #expect(abs(report.scaleFactor - Double(report.width) / 1080) < 1e-9, "scale \(report.scaleFactor)")
        let cell = ExpectedLayout.long([(64, 48)], width: report.width, even: true)[0]
        #expect(report.height == 90 * cell.height, "height \(report.height) != 90 x \(cell.height)")
        #expect(run.stderr.contains("scaled by"), "no scaling note on stderr: \(run.stderr)")
        let im = try await Magick.size(out)
        #expect(im.width == report.width && im.height == report.height, "identify: \(im.width)x\(im.height)")
        let vips = try await Magick.vipsSize(out)
        #expect(vips.width == report.width && vips.height == report.height, "vipsheader: \(vips.width)x\(vips.height)")
        // First and last cell are the photo (the canvas was not cut off or stretched);
        // cut out with vips (Debian's ImageMagick policy refuses > 16K px tall images).
        for index in [0, 89] {
            let crop = dir.file("cell\(index).png")
            try await Magick.vipsCrop(out, Rect(x: 0, y: index * cell.height, width: cell.width, height: cell.height), to: crop)
            try await expectCellsMatch(output: crop, cells: [(index: index, source: photo, rect: Rect(x: 0, y: 0, width: cell.width, height: cell.height))],
                                       tolerance: 8) { r in ["-resize", "\(r.width)x\(r.height)!"] }
        }
    }

    // SPEC C13 with --fail-too-tall: a budget error before anything is decoded or
    // written — exit 1, a message naming the height and JPEG's limit, no output,
    // no temporary file, no strip progress.
    @Test("JPEG with --fail-too-tall: budget error before writing anything")
    func failTooTall() async throws {
        let photo = try await Self.tinyPhoto()
        let dir = try TempDir("tallfail")
        defer { dir.remove() }
        let out = dir.file("tall.jpg")
        let (run, _) = try await CLI.collage(["--layout", "long", "--width", "1080", "--fail-too-tall", "-o", out]
                                             + Array(repeating: photo, count: 90))
        #expect(run.exitedNormally && run.status == 1, "\(run)")
        #expect(run.stderr.contains("72900 px tall") && run.stderr.contains("65500"), "stderr: \(run.stderr)")
        #expect(run.stdout.contains("\"code\":\"budget\""), "stdout: \(run.stdout)")
        #expect(!run.stderr.contains("strips"), "strips were rendered before failing: \(run.stderr)")
        #expect(dir.contents().isEmpty, "left behind: \(dir.contents())")

        // The facade says the same with a typed error.
        var request = CollageRequest(layout: .long, inputs: Array(repeating: photo, count: 90), output: out)
        request.failWhenTooTall = true
        await #expect(throws: ShiyingError.self) { try await Collage.render(request) }
        do {
            _ = try await Collage.render(request)
        } catch let error as ShiyingError {
            #expect(error.code == .budget, "\(error)")
        }
        #expect(dir.contents().isEmpty, "left behind: \(dir.contents())")
    }

    // SPEC C13: PNG has no 65,500 px limit: a long image taller than that keeps
    // its full size. (90 photos at 1080 wide would be 78 Mpx of PNG — a minute in
    // a debug build — so the same property is shown with 700 photos at width 128:
    // 700 x 96 = 67,200 px, past JPEG's limit.)
    // Found by a user-level sweep (2026-12-06): a 2 x 30000 px photo in a long PNG made a 16-million-px-tall cell,
    // and the run failed with "collage cell: out of memory allocating 52488000000 bytes", naming no file.
    @Test("a photo too narrow for a long image is named before any work (usage error)")
    func tooNarrowNamed() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/vips") else { return }
        let dir = try TempDir("toonarrow")
        defer { dir.remove() }
        let sliver = dir.file("sliver.png")
        let made = try await runTool("vips", ["black", sliver, "2", "30000"])
        #expect(made.succeeded, "\(made)")
        let photo = try await Self.tinyPhoto()
        let (run, _) = try await CLI.collage(["--layout", "long", "--format", "png", "-o", dir.file("out.png"), sliver, photo])
        #expect(run.status == 2 && run.stderr.contains("sliver.png") && run.stderr.contains("px tall"), "\(run)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("out.png")))
    }

    @Test("PNG: a long image past 65,500 px keeps its full height")
    func pngFullHeight() async throws {
        let photo = try await Self.tinyPhoto()
        let dir = try TempDir("tallpng")
        defer { dir.remove() }
        let out = dir.file("tall.png")
        let (run, json) = try await CLI.collage(["--layout", "long", "--width", "128", "--format", "png", "-o", out]
                                                + Array(repeating: photo, count: 700), timeout: 300)
        #expect(run.succeeded, "\(run)")
        let report = try #require(json, "no JSON report: \(run)")
        #expect(!report.scaledToFit && report.scaleFactor == 1)
        #expect(report.width == 128 && report.height == 700 * 96, "\(report.width)x\(report.height)")
        // Debian's ImageMagick policy refuses images over 16K px tall: vips is the oracle here.
        let vips = try await Magick.vipsSize(out)
        #expect(vips.width == 128 && vips.height == 67_200, "vipsheader: \(vips.width)x\(vips.height)")
        let crop = dir.file("last.png")
        try await Magick.vipsCrop(out, Rect(x: 0, y: 699 * 96, width: 128, height: 96), to: crop)
        try await expectCellsMatch(output: crop, cells: [(index: 699, source: photo, rect: Rect(x: 0, y: 0, width: 128, height: 96))],
                                   tolerance: 6) { r in ["-resize", "\(r.width)x\(r.height)!"] }
    }
}
