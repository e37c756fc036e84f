// Time kept through Live saves (issue 16): a variable-frame-rate movie (the
// 33–75 ms intervals of iPhone clips) keeps every frame's presentation time,
// its length and its audio sync through a re-encoding Live save, and "the
// frame at T" is the frame shown at T — proven against ffprobe's packet times
// and ffmpeg's own frame selection.
import Foundation
import Shiying
import Testing

private let hasFFmpeg = FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")
    && FileManager.default.isExecutableFile(atPath: "/usr/bin/ffprobe")

@Suite("Frame times kept (variable frame rate)", .enabled(if: hasFFmpeg, "ffmpeg is not installed (make deps)"))
struct FrameTimeTests {
    /// 320x240 HEVC + AAC, ~2 s: frames 33 ms apart with every third interval
    /// 67 ms (timescale 600: pts 0, 20, 40, 80, 100, 120, 160, …).
    static func variableRateMovie(_ dir: TempDir) async throws -> String {
        let out = dir.file("vfr.mov")
        let run = try await runTool("ffmpeg", [
            "-y", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30",
            "-f", "lavfi", "-i", "sine=frequency=440", "-t", "2",
            "-vf", "setpts='(N*20+20*floor(N/3))/600/TB'", "-fps_mode", "vfr",
            "-c:v", "libx265", "-x265-params", "log-level=error", "-tag:v", "hvc1", "-video_track_timescale", "600",
            "-c:a", "aac", "-shortest", "-metadata", "creation_time=2025-01-01T02:11:23Z", out,
        ], timeout: 120)
        guard run.succeeded else { throw TestFailure("ffmpeg: \(run)") }
        return out
    }

    /// Presentation times (s) of the first video stream's packets, sorted.
    static func packetTimes(_ movie: String) async throws -> [Double] {
        let run = try await runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                "packet=pts_time", "-of", "csv=p=0", movie])
        guard run.succeeded else { throw TestFailure("ffprobe: \(run)") }
        return run.stdout.split(separator: "\n").compactMap { Double($0) }.sorted()
    }

    /// Stream durations (s) by codec type.
    static func durations(_ movie: String) async throws -> [String: Double] {
        let run = try await runTool("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,duration",
                                                "-of", "csv=p=0", movie])
        guard run.succeeded else { throw TestFailure("ffprobe: \(run)") }
        var out: [String: Double] = [:]
        for line in run.stdout.split(separator: "\n") {
            let f = line.split(separator: ",")
            if f.count == 2, out[String(f[0])] == nil, let d = Double(f[1]) { out[String(f[0])] = d }
        }
        return out
    }

    @Test("a re-encoding Live save keeps every frame's time (≤ 1 ms), the length and the audio sync")
    func liveSaveKeepsFrameTimes() async throws {
        let dir = try TempDir("vfr-save")
        let source = try await Self.variableRateMovie(dir)
        let sourceTimes = try await Self.packetTimes(source)
        let intervals = zip(sourceTimes.dropFirst(), sourceTimes).map { $0 - $1 }
        try #require((intervals.max() ?? 0) - (intervals.min() ?? 0) > 0.03, "the fixture is not variable-rate")
        var options = LivePhoto.SaveOptions()
        options.recipe = try EditRecipe(jsonData: Data(#"{"adjustments":{"exposure":0.3}}"#.utf8)) // every frame re-encoded
        let report = try LivePhoto.saveBlocking(movie: source, stillOut: dir.file("l.jpg"), movieOut: dir.file("l.mov"),
                                        options: options)
        let outTimes = try await Self.packetTimes(dir.file("l.mov"))
        try #require(outTimes.count == sourceTimes.count, "\(outTimes.count) frames vs \(sourceTimes.count)")
        let worst = zip(outTimes, sourceTimes).map { abs($0 - $1) }.max() ?? 1
        #expect(worst <= 0.001, "frame times moved by up to \(worst) s")
        let src = try await Self.durations(source), out = try await Self.durations(dir.file("l.mov"))
        let (sv, ov) = (try #require(src["video"]), try #require(out["video"]))
        #expect(abs(ov - sv) <= 0.001, "video length \(ov) vs source \(sv)")
        #expect(abs(report.durationSeconds - sv) <= 0.001)
        let (sa, oa) = (try #require(src["audio"]), try #require(out["audio"]))
        #expect(abs((ov - oa) - (sv - sa)) <= 0.002, "audio sync: video−audio \(ov - oa) vs source's \(sv - sa)")
        // when it was shot: the movie's creation time is the source's
        let created = try await runTool("ffprobe", ["-v", "error", "-show_entries", "format_tags=creation_time",
                                                    "-of", "csv=p=0", dir.file("l.mov")])
        #expect(created.stdout.hasPrefix("2025-01-01T02:11:23"), "creation_time \(created.stdout)")
        // the key photo is the frame shown at the middle, and the marker says its time
        let middle = (sourceTimes.last! + intervals.last!) / 2
        let shown = sourceTimes.last { $0 <= middle + 0.001 }!
        #expect(abs(report.stillTime - shown) <= 0.001, "still time \(report.stillTime), frame shown at \(middle) is at \(shown)")
    }

    @Test("the frame at T is the frame shown at T (ffmpeg's selection, ≥ 35 dB), not the constant-rate guess")
    func frameAtTimeIsTheShownFrame() async throws {
        let dir = try TempDir("vfr-frame")
        let source = try await Self.variableRateMovie(dir)
        let times = try await Self.packetTimes(source)
        // 1.45 s lies inside a 67 ms gap (frames at 1.400 and 1.4667): 1.400's frame is on screen
        let t = 1.45
        let shownIndex = try #require(times.lastIndex { $0 <= t })
        #expect(abs(times[shownIndex] - 1.4) < 0.001)
        let frame = try LivePhoto.renderFrame(movie: source, at: t)
        #expect(frame.index == shownIndex)
        func ffmpegFrame(at time: Double) async throws -> [UInt8] { // the last frame ffmpeg selects up to `time`
            // HEVC's default chroma siting (co-sited horizontally), as our decoder reads it
            let scale = "scale=in_h_chr_pos=0:in_v_chr_pos=128:flags=bicubic+accurate_rnd+full_chroma_int"
            let run = try await runTool("ffmpeg", ["-v", "error", "-i", source, "-vf", "select='lte(t\\,\(time))',\(scale)",
                                                   "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
            guard run.succeeded else { throw TestFailure("ffmpeg: \(run)") }
            return Array(run.stdoutData.suffix(320 * 240 * 3))
        }
        let reference = try await ffmpegFrame(at: t), next = try await ffmpegFrame(at: times[shownIndex + 1])
        try #require(frame.rgb.count == reference.count)
        let atT = rgbPSNR(frame.rgb, reference), againstNext = rgbPSNR(frame.rgb, next)
        #expect(atT >= 35, "PSNR vs ffmpeg's frame at \(t): \(atT) dB (next: \(againstNext))")
        #expect(atT > againstNext + 3, "the next frame matches as well (\(againstNext) dB): not a distinct frame")
    }
}

private func rgbPSNR(_ a: [UInt8], _ b: [UInt8]) -> Double {
    var sum = 0.0
    for i in 0..<min(a.count, b.count) {
        let d = Double(a[i]) - Double(b[i])
        sum += d * d
    }
    let mse = sum / Double(max(1, min(a.count, b.count)))
    return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
}
