// Issue 5 proof for video: every frame of a movie save goes through the one
// frame renderer. The pixels the transcoder hands to the encoder (seen through
// its frame observer) are compared byte for byte with sy_render applied by
// hand to the reader's frames with the same recipe — bytes, not code reading.
import CShiying
import Foundation
import Testing

/// Collects the frames the transcoder encodes.
private final class FrameLog {
    var frames: [[UInt8]] = []
    var sizes: [(Int, Int)] = []
}

private let observe: sy_video_frame_observer = { user, _, rgb, stride, width, height, _ in
    let log = Unmanaged<FrameLog>.fromOpaque(user!).takeUnretainedValue()
    var bytes = [UInt8](repeating: 0, count: Int(width) * Int(height) * 3)
    bytes.withUnsafeMutableBytes { out in
        for y in 0..<Int(height) {
            memcpy(out.baseAddress! + y * Int(width) * 3, rgb! + y * stride, Int(width) * 3)
        }
    }
    log.frames.append(bytes)
    log.sizes.append((Int(width), Int(height)))
    return sy_status(SY_OK)
}

@Suite("Transcode renders every frame with sy_render",
       .enabled(if: ExternalTools.installed("ffmpeg", "ffprobe"), "ffmpeg is not installed (make deps)"))
struct TranscodeRenderTests {
    @Test func transcodedFramesAreTheRenderersBytes() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shiying-tr-\(getpid())-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = dir + "/src.mov", output = dir + "/out.mov"
        try ExternalTools.check("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "0.4",
                                           "-c:v", "libx265", "-x265-params", "log-level=error:bframes=2",
                                           "-tag:v", "hvc1", "-pix_fmt", "yuv420p", source])
        let ctx = try Context()
        var info = sy_filter_info()
        try #require(sy_filter_at(0, &info) == 0, "no built-in filter")
        var recipe = sy_recipe()
        sy_recipe_init(&recipe)
        recipe.crop = sy_recipe_rect(x: 0.1, y: 0.1, width: 0.8, height: 0.8)
        recipe.quarter_turns = 1
        recipe.adjustments.exposure = 0.5
        recipe.adjustments.saturation = 0.3
        recipe.filter_intensity = 0.8

        try withExtendedLifetime(info) {
            recipe.filter_id = info.id
            // Reference: the reader's upright frames through sy_render, by hand.
            var err = sy_error()
            var reader: OpaquePointer?
            try #require(sy_video_reader_open(ctx.raw, source, -1, &reader, &err) == SY_OK, "\(message(err))")
            defer { sy_video_reader_close(reader) }
            let vi = sy_video_reader_info_get(reader)!.pointee
            var w: UInt32 = 0, h: UInt32 = 0
            try #require(sy_render_output_size(&recipe, vi.width, vi.height, 0, 0, 0, &w, &h, &err) == SY_OK)
            #expect(w == 192 && h == 256, "\(w)x\(h): the crop, turned")
            var expected: [[UInt8]] = []
            while true {
                var frame = sy_video_frame()
                var end: Int32 = 0
                try #require(sy_video_reader_next(reader, &frame, &end, &err) == SY_OK, "\(message(err))")
                if end != 0 { break }
                var out = [UInt8](repeating: 0, count: Int(w * h * 3))
                var src = sy_pixels(data: frame.rgb, stride: frame.stride, width: frame.width, height: frame.height)
                let st = out.withUnsafeMutableBufferPointer {
                    sy_render(ctx.raw, &recipe, &src, w, h, $0.baseAddress, Int(w) * 3, 2, &err)
                }
                try #require(st == SY_OK, "\(message(err))")
                expected.append(out)
            }
            #expect(expected.count == 12)

            // The transcoder with the same recipe: what it encodes is exactly that.
            let log = FrameLog()
            var options = sy_video_transcode_options()
            sy_video_transcode_options_init(&options)
            var report = sy_video_transcode_report()
            let status = withUnsafePointer(to: &recipe) { recipePointer in
                options.recipe = recipePointer
                options.observer = observe
                options.observer_user = Unmanaged.passUnretained(log).toOpaque()
                return sy_video_transcode(ctx.raw, source, output, &options, &report, &err)
            }
            try #require(status == SY_OK, "\(message(err))")
            #expect(report.width == w && report.height == h && report.frames == 12)
            #expect(log.frames.count == expected.count)
            for (i, pair) in zip(log.frames, expected).enumerated() {
                let same = pair.0 == pair.1   // a Bool, so a failure does not print the frames
                #expect(same, "frame \(i): encoded pixels differ from sy_render's")
            }
            // And the movie really has the rendered size.
            let size = try ExternalTools.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                           "stream=width,height", "-of", "csv=p=0", output])
            #expect(size.trimmingCharacters(in: .whitespacesAndNewlines) == "192,256")
        }
    }
    /// The frame ahead is decoded and rendered on a helper thread while x265
    /// takes the one before: the movie must not depend on that timing. Two
    /// transcodes of the same movie with the same recipe write the same bytes.
    @Test func transcodingTwiceWritesTheSameBytes() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shiying-trd-\(getpid())-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = dir + "/src.mov"
        try ExternalTools.check("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "0.5",
                                           "-c:v", "libx265", "-x265-params", "log-level=error:bframes=2",
                                           "-tag:v", "hvc1", "-pix_fmt", "yuv420p", source])
        let ctx = try Context()
        var recipe = sy_recipe()
        sy_recipe_init(&recipe)
        recipe.crop = sy_recipe_rect(x: 0.05, y: 0.1, width: 0.9, height: 0.8)
        recipe.adjustments.contrast = 0.2
        var outputs: [Data] = []
        for run in 0..<2 {
            let output = dir + "/out\(run).mov"
            var options = sy_video_transcode_options()
            sy_video_transcode_options_init(&options)
            var report = sy_video_transcode_report()
            var err = sy_error()
            let status = withUnsafePointer(to: &recipe) { recipePointer in
                options.recipe = recipePointer
                return sy_video_transcode(ctx.raw, source, output, &options, &report, &err)
            }
            try #require(status == SY_OK, "\(message(err))")
            #expect(report.frames == 15)
            outputs.append(try Data(contentsOf: URL(fileURLWithPath: output)))
        }
        #expect(outputs[0].count > 1000)
        let same = outputs[0] == outputs[1]
        #expect(same, "two transcodes of one movie differ")
    }
}
