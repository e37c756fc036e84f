// Issue 15 (colour fidelity of movie saves): a transcode whose recipe only
// crops (or is absent) hands x265 the decoder's own 4:2:0 samples of the
// rectangle the renderer says it copies, instead of converting to RGB and
// back — that round trip blurs every chroma sample by (1 6 1)/8 per
// generation. Proved by each plane's PSNR against the source (ffmpeg's psnr
// filter) on ffmpeg's testsrc2, whose saturated colour edges show chroma
// loss: through RGB the same clip measured Y 45.1, Cb 35.2, Cr 32.2 dB.
import CShiying
import Foundation
import Testing

@Suite("Transcode keeps the decoder's samples when the recipe only crops",
       .enabled(if: ExternalTools.installed("ffmpeg", "ffprobe"), "ffmpeg is not installed (make deps)"))
struct TranscodeSamplesTests {
    /// 0.5 s of testsrc2 at 320x240, HEVC with B-frames, 8-bit 4:2:0.
    private static func clip(in dir: String) throws -> String {
        let source = dir + "/src.mov"
        try ExternalTools.check("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "0.5",
                                           "-c:v", "libx265", "-x265-params", "log-level=error:bframes=2",
                                           "-tag:v", "hvc1", "-pix_fmt", "yuv420p", source])
        return source
    }

    private static func folder() throws -> String {
        let dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("shiying-tsamp-\(getpid())-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Transcodes `source` with `recipe` (nil: none) at the C14 rate.
    private static func transcode(_ source: String, _ output: String, recipe: sy_recipe?) throws -> sy_video_transcode_report {
        let ctx = try Context()
        var options = sy_video_transcode_options()
        sy_video_transcode_options_init(&options)
        options.copy_audio = 0
        var report = sy_video_transcode_report()
        var err = sy_error()
        var r = recipe ?? sy_recipe()
        let status = withUnsafePointer(to: &r) { pointer in
            options.recipe = recipe == nil ? nil : pointer
            return sy_video_transcode(ctx.raw, source, output, &options, &report, &err)
        }
        try #require(status == SY_OK, "\(message(err))")
        return report
    }

    /// Mean PSNR of each plane of `test` against `reference` after `filter` (e.g. a crop) on the reference.
    private static func planePSNR(_ test: String, _ reference: String, filter: String = "null") throws -> (y: Double, u: Double, v: Double) {
        let run = try ExternalTools.run("ffmpeg", ["-v", "info", "-nostats", "-i", test, "-i", reference, "-lavfi",
                                                   "[1:v]\(filter)[r];[0:v][r]psnr", "-f", "null", "-"])
        guard run.status == 0, let line = run.err.split(separator: "\n").last(where: { $0.contains("PSNR y:") }) else {
            throw CTestFailure("psnr: \(run.err.suffix(400))")
        }
        func value(_ key: String) -> Double {
            guard let range = line.range(of: key) else { return 0 }
            let text = line[range.upperBound...].prefix { !$0.isWhitespace }
            return text == "inf" ? .infinity : Double(text) ?? 0
        }
        return (value(" y:"), value(" u:"), value(" v:"))
    }

    @Test func plainTranscodeKeepsEveryPlane() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = try Self.clip(in: dir), output = dir + "/out.mov"
        let report = try Self.transcode(source, output, recipe: nil)
        #expect(report.frames == 15 && report.width == 320 && report.height == 240)
        let p = try Self.planePSNR(output, source)
        // Through RGB: 45.1 / 35.2 / 32.2 dB; the samples kept: 63.3 / 63.5 / 63.2 (x265 at 12 Mbit/s only).
        #expect(p.y > 55 && p.u > 55 && p.v > 55, "Y \(p.y) Cb \(p.u) Cr \(p.v) dB")
    }

    @Test func cropAtEvenOffsetsKeepsTheSamplesOfItsRectangle() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = try Self.clip(in: dir), output = dir + "/out.mov"
        var recipe = sy_recipe()
        sy_recipe_init(&recipe)
        recipe.crop = sy_recipe_rect(x: 0.1, y: 0.1, width: 0.8, height: 0.8) // 256x192 from (32, 24)
        let report = try Self.transcode(source, output, recipe: recipe)
        #expect(report.frames == 15 && report.width == 256 && report.height == 192)
        let p = try Self.planePSNR(output, source, filter: "crop=256:192:32:24")
        #expect(p.y > 55 && p.u > 55 && p.v > 55, "Y \(p.y) Cb \(p.u) Cr \(p.v) dB")
        // One pixel off, the comparison must fail: the rectangle is the renderer's, exactly.
        let shifted = try Self.planePSNR(output, source, filter: "crop=256:192:34:24")
        #expect(shifted.y < 30, "a crop 2 px to the right matches too well: Y \(shifted.y) dB")
    }

    /// An odd offset has no 4:2:0 rectangle of its own, and colour work needs
    /// RGB: both go through the renderer as before, at the renderer's size.
    @Test func oddOffsetsAndColourEditsStillRender() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = try Self.clip(in: dir)
        var odd = sy_recipe()
        sy_recipe_init(&odd)
        odd.crop = sy_recipe_rect(x: 3.0 / 320, y: 0.1, width: 0.8, height: 0.8) // from (3, 24)
        let oddReport = try Self.transcode(source, dir + "/odd.mov", recipe: odd)
        #expect(oddReport.frames == 15 && oddReport.width == 256 && oddReport.height == 192)
        // Luma from exactly (3, 24) (ffmpeg's crop rounds 4:2:0 offsets down to even unless told not to).
        let y3 = try Self.planePSNR(dir + "/odd.mov", source, filter: "crop=256:192:3:24:exact=1").y
        let y2 = try Self.planePSNR(dir + "/odd.mov", source, filter: "crop=256:192:2:24:exact=1").y
        let y4 = try Self.planePSNR(dir + "/odd.mov", source, filter: "crop=256:192:4:24:exact=1").y
        #expect(y3 > 40 && y3 < 55 && y2 < 30 && y4 < 30, "Y from x = 2, 3, 4: \(y2), \(y3), \(y4) dB")

        var colour = sy_recipe()
        sy_recipe_init(&colour)
        colour.crop = sy_recipe_rect(x: 0.1, y: 0.1, width: 0.8, height: 0.8)
        colour.adjustments.exposure = 1.0
        let colourReport = try Self.transcode(source, dir + "/colour.mov", recipe: colour)
        #expect(colourReport.frames == 15 && colourReport.width == 256)
        let c = try Self.planePSNR(dir + "/colour.mov", source, filter: "crop=256:192:32:24")
        #expect(c.y < 30, "exposure +1 left the frames as they were: Y \(c.y) dB")
    }
}
