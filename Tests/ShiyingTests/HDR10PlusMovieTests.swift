// HDR10+ (SMPTE ST 2094-40): Samsung's HDR10+ recordings carry one message a picture — the scene's MaxSCL,
// MaxRGB percentiles and a Bezier tone curve — that an HDR10+ display tone-maps each scene with. Every
// re-encode that kept a PQ movie's HDR dropped them (the HDR10 grade alone was left). Now each picture's
// message goes with it, byte for byte, through a transcode, a compress and a Live edit's crop; a second
// generation (B-frames in the source now, pictures out of decode order) too. The outside witness is ffprobe
// (libavcodec parses the messages) over scripts/hdr10plus_clip.py's clip, whose every picture says
// something different, so a message given to the wrong picture is caught.
//
// Also here, found on the way (frame times, issue 17's fidelity): a re-encode of one of our own B-frame
// movies (its edit starts two frames in, its last sample lengthened to the presentation's end) made the
// last frame two frames longer each generation, and `video info` said 25.714 fps for a 30 fps movie.
import Foundation
@testable import Shiying
import Testing

@Suite("HDR10+ scene metadata survives re-encodes; our own B-frame movies keep their times (issue 17: fidelity)",
       .enabled(if: HDROracle.available, "numpy, ffmpeg with libx265 needed"))
struct HDR10PlusMovieTests {
    static let script = Paths.packageRoot.appendingPathComponent("scripts/hdr10plus_clip.py").path

    /// ffprobe's parse of each frame's message, in presentation order (nil: none).
    static func messages(_ movie: String) async throws -> [[String: [String]]?] {
        let run = try await runProcess("/usr/bin/env", ["python3", script, "frames", movie], timeout: 120)
        guard run.succeeded, let line = run.lastLine else { throw TestFailure("hdr10plus_clip.py frames: \(run)") }
        return try JSONDecoder().decode([[String: [String]]?].self, from: Data(line.utf8))
    }

    static func clip(in dir: TempDir) async throws -> String {
        let out = dir.file("hdr10plus.mov")
        let run = try await runProcess("/usr/bin/env", ["python3", script, "make", out], timeout: 300)
        guard run.succeeded else { throw TestFailure("hdr10plus_clip.py make: \(run)") }
        return out
    }


    @Test("SPEC E6: every picture's message, ffprobe's values frame by frame, through transcode (twice), compress and a Live edit's crop")
    func carried() async throws {
        let dir = try TempDir("hdr10plus")
        defer { dir.remove() }
        let source = try await Self.clip(in: dir)
        let expected = try await Self.messages(source)
        #expect(expected.count == 12 && expected.allSatisfy { $0 != nil }, "fixture: a message on every frame")
        #expect(Set(expected.compactMap { $0?["targeted_system_display_maximum_luminance"] }).count == 12, "each its own")
        let info = try VideoReader(source).info
        #expect(info.hdr10Plus && info.hdr == "pq")
        let decode = try await CLI.run(["video", "decode", source])
        #expect(decode.stdout.contains("HDR10+ scene metadata"), "\(decode)")

        let once = dir.file("once.mov"), twice = dir.file("twice.mp4"), small = dir.file("small.mov")
        let first = try await CLI.run(["video", "transcode", source, "-o", once, "--json"])
        let keptOnce = try reportNames(first, "kept")
        #expect(first.succeeded && keptOnce.contains("hdr10plus-metadata"), "\(first)")
        let second = try await CLI.run(["video", "transcode", once, "-o", twice, "--json"])
        let keptTwice = try reportNames(second, "kept")
        #expect(second.succeeded && keptTwice.contains("hdr10plus-metadata"), "\(second)")
        let squeezed = try await CLI.run(["compress", source, "-o", small, "--json"])
        let keptSmall = try reportNames(squeezed, "kept")
        #expect(squeezed.succeeded && keptSmall.contains("hdr10plus-metadata"), "\(squeezed)")
        let probe = try await runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                  "stream=has_b_frames", "-of", "csv=p=0", once])
        // "2," then the stream's side data (empty in csv)
        let bFrames = Int(probe.stdout.prefix { $0.isNumber }) ?? 0
        #expect(bFrames > 0,
                "the first re-encode has B-frames, so the second reads pictures out of decode order")
        for movie in [once, twice, small] {
            let got = try await Self.messages(movie)
            #expect(got == expected, "\((movie as NSString).lastPathComponent): \(zip(got, expected).filter { $0 != $1 }.count) frames differ")
            let plain = try await runTool("ffmpeg", ["-v", "error", "-i", movie, "-f", "null", "-"])
            #expect(plain.succeeded && plain.stderr.isEmpty, "\(movie) decodes silently: \(plain)")
        }

        // A Live photo of it, then an edit cropping it (one window: its message holds for the crop).
        let live = try await CLI.run(["convert", "--to", "live", source, "-o", dir.file("live")])
        #expect(live.succeeded, "\(live)")
        let recipe = dir.file("crop.json")
        try #"{"version":1,"crop":{"x":0.1,"y":0.1,"width":0.8,"height":0.8}}"#.write(toFile: recipe, atomically: true, encoding: .utf8)
        let edit = try await CLI.run(["live", "edit", dir.file("live/hdr10plus_live.jpg"), dir.file("live/hdr10plus_live.mov"),
                                      "--recipe", recipe, "-o", dir.file("edited"), "--json"])
        let keptEdit = try reportNames(edit, "movie_kept")
        #expect(edit.succeeded && keptEdit.contains("hdr10plus-metadata"), "\(edit)")
        let edited = try await Self.messages(dir.file("edited/hdr10plus_live_edited.mov"))
        #expect(edited == expected, "the Live edit's crop")
    }

    @Test("SPEC E6: an SDR re-encode (a Live edit's exposure, consented) carries none and says so; a PQ movie without HDR10+ reports nothing")
    func droppedWithTheHDR() async throws {
        let dir = try TempDir("hdr10plus-sdr")
        defer { dir.remove() }
        let source = try await Self.clip(in: dir)
        let live = try await CLI.run(["convert", "--to", "live", source, "-o", dir.file("live")])
        #expect(live.succeeded, "\(live)")
        let recipe = dir.file("exposure.json")
        try #"{"version":1,"adjustments":{"exposure":0.3}}"#.write(toFile: recipe, atomically: true, encoding: .utf8)
        let edit = try await CLI.run(["live", "edit", dir.file("live/hdr10plus_live.jpg"), dir.file("live/hdr10plus_live.mov"),
                                      "--recipe", recipe, "--allow-sdr", "-o", dir.file("sdr"), "--json"])
        #expect(edit.succeeded, "\(edit)")
        let dropped = try reportNames(edit, "movie_dropped")
        #expect(dropped.contains("hdr10plus-metadata") && dropped.contains("hdr-video"), "dropped \(dropped): \(edit.stdout)")
        let sdrMessages = try await Self.messages(dir.file("sdr/hdr10plus_live_edited.mov"))
        #expect(!sdrMessages.isEmpty && sdrMessages.allSatisfy { $0 == nil })
        let plain = try await HDROracle.clip("pq", in: dir)
        let plainInfo = try VideoReader(plain).info
        #expect(!plainInfo.hdr10Plus)
        let out = try await CLI.run(["video", "transcode", plain, "-o", dir.file("plain.mov"), "--json"])
        let plainKept = try reportNames(out, "kept"), plainDropped = try reportNames(out, "dropped")
        #expect(out.succeeded && plainKept.contains("hdr-video") && !plainKept.contains("hdr10plus-metadata")
                && !plainDropped.contains("hdr10plus-metadata"), "\(out)")
    }

    @Test("a re-encode of our own B-frame movie keeps its duration and frame rate (the edit, not the lengthened last sample)")
    func ownBFrameMovieTimes() async throws {
        let dir = try TempDir("bframe-times")
        defer { dir.remove() }
        let source = try await Self.clip(in: dir)
        var movie = source
        for generation in 1...3 {
            let next = dir.file("gen\(generation).mov")
            let run = try await CLI.run(["video", "transcode", movie, "-o", next, "--json"])
            #expect(run.succeeded, "\(run)")
            let json = try JSONSerialization.jsonObject(with: Data((run.lastLine ?? "").utf8)) as? [String: Any]
            #expect(abs((json?["duration_seconds"] as? Double ?? 0) - 0.4) < 1e-9, "generation \(generation): \(run.stdout)")
            let probe = try await runTool("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", next])
            #expect(abs((Double(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) - 0.4) < 1e-6,
                    "generation \(generation): ffprobe \(probe.stdout)")
            let info = try VideoReader(next).info
            #expect(abs(info.frameRate - 30) < 1e-6, "generation \(generation): \(info.frameRate) fps")
            let movieInfo = try await CLI.run(["video", "info", next])
            #expect(movieInfo.stdout.contains("30.000 fps"), "\(movieInfo)")
            movie = next
        }
    }
}
