// Dolby Vision profile 8.4 — how iPhones record HDR video: an HLG base every HEVC player shows, and an RPU
// NAL unit ending each picture's access unit that a Dolby Vision display maps the base with, announced by a
// `dvvC` box in the sample entry. Every re-encode wrote the base alone. Now a re-encode that keeps the base's
// samples whole (transcode, compress) ends each new picture's access unit with its source picture's RPU,
// byte for byte, and writes the configuration again; a crop (an RPU describes the source's picture) and an
// SDR re-encode write the base alone and say so. The witness is ffprobe: libavcodec parses each RPU, libavformat
// the configuration, over scripts/dolby_vision_clip.py's clip, whose every RPU says something different.
import Foundation
@testable import Shiying
import Testing

@Suite("Dolby Vision RPUs and configuration survive re-encodes that keep the base (issue 17: fidelity)",
       .enabled(if: HDROracle.available, "numpy, ffmpeg with libx265 needed"))
struct DolbyVisionMovieTests {
    static let script = Paths.packageRoot.appendingPathComponent("scripts/dolby_vision_clip.py").path

    /// The script's last line of output ("" for `make`, which prints nothing).
    @discardableResult
    static func python(_ args: [String]) async throws -> String {
        let run = try await runProcess("/usr/bin/env", ["python3", script] + args, timeout: 300)
        guard run.succeeded else { throw TestFailure("dolby_vision_clip.py \(args): \(run)") }
        return run.lastLine ?? ""
    }

    /// ffprobe's parse of each frame's Dolby Vision metadata, in presentation order (nil: none).
    static func rpus(_ movie: String) async throws -> [[String]?] {
        try JSONDecoder().decode([[String]?].self, from: Data(try await python(["frames", movie]).utf8))
    }

    static func config(_ movie: String) async throws -> [String: String]? {
        try JSONDecoder().decode([String: String]?.self, from: Data(try await python(["config", movie]).utf8))
    }


    @Test("SPEC E6: each picture's RPU and the dvvC configuration through a transcode (twice: B-frames) and a compress")
    func carried() async throws {
        let dir = try TempDir("dovi")
        defer { dir.remove() }
        let source = dir.file("dv.mp4")
        try await Self.python(["make", source])
        let expected = try await Self.rpus(source)
        let configuration = try await Self.config(source)
        #expect(expected.count == 12 && expected.allSatisfy { $0 != nil }, "fixture: an RPU on every frame")
        #expect(Set(expected.compactMap { $0?.first { $0.hasPrefix("source_max_pq=") } }).count == 12, "each its own")
        #expect(configuration?["dv_profile"] == "8" && configuration?["dv_bl_signal_compatibility_id"] == "4")
        let info = try VideoReader(source).info
        #expect(info.dolbyVision == "8.4" && info.hdr == "hlg", "\(info)")
        let decode = try await CLI.run(["video", "decode", source])
        #expect(decode.stdout.contains("Dolby Vision 8.4"), "\(decode)")
        let movieInfo = try await CLI.run(["video", "info", source])
        #expect(movieInfo.stdout.contains("Dolby Vision 8.4"), "\(movieInfo)")

        let once = dir.file("once.mov"), twice = dir.file("twice.mp4"), small = dir.file("small.mov")
        let first = try await CLI.run(["video", "transcode", source, "-o", once, "--json"])
        let keptOnce = try reportNames(first, "kept")
        #expect(first.succeeded && keptOnce.contains("dolby-vision-metadata") && keptOnce.contains("hdr-video"), "\(first)")
        let second = try await CLI.run(["video", "transcode", once, "-o", twice, "--json"])
        let keptTwice = try reportNames(second, "kept")
        #expect(second.succeeded && keptTwice.contains("dolby-vision-metadata"), "\(second)")
        let squeezed = try await CLI.run(["compress", source, "-o", small, "--json"])
        let keptSmall = try reportNames(squeezed, "kept")
        #expect(squeezed.succeeded && keptSmall.contains("dolby-vision-metadata"), "\(squeezed)")
        for movie in [once, twice, small] {
            let name = (movie as NSString).lastPathComponent
            let got = try await Self.rpus(movie)
            #expect(got == expected, "\(name): \(zip(got, expected).filter { $0 != $1 }.count) frames differ, \(got.count) frames")
            let config = try await Self.config(movie)
            #expect(config == configuration, "\(name): \(config ?? [:])")
            let plain = try await runTool("ffmpeg", ["-v", "error", "-i", movie, "-f", "null", "-"])
            #expect(plain.succeeded && plain.stderr.isEmpty, "\(name) decodes silently: \(plain)")
        }
    }

    @Test("SPEC E6: a crop writes the HLG base alone and says so; a movie without Dolby Vision reports nothing")
    func cropWritesTheBase() async throws {
        let dir = try TempDir("dovi-crop")
        defer { dir.remove() }
        let source = dir.file("dv.mp4")
        try await Self.python(["make", source, "--frames", "6"])
        let live = try await CLI.run(["convert", "--to", "live", source, "-o", dir.file("live")])
        #expect(live.succeeded, "\(live)")
        #expect(try await Self.rpus(dir.file("live/dv_live.mov")).allSatisfy { $0 != nil }, "a Live photo of it remuxes: every RPU")
        let recipe = dir.file("crop.json")
        try #"{"version":1,"crop":{"x":0.1,"y":0.1,"width":0.8,"height":0.8}}"#.write(toFile: recipe, atomically: true, encoding: .utf8)
        let edit = try await CLI.run(["live", "edit", dir.file("live/dv_live.jpg"), dir.file("live/dv_live.mov"),
                                      "--recipe", recipe, "-o", dir.file("edited"), "--json"])
        let dropped = try reportNames(edit, "movie_dropped"), kept = try reportNames(edit, "movie_kept")
        #expect(edit.succeeded && dropped.contains("dolby-vision-metadata") && kept.contains("hdr-video"), "\(edit)")
        let edited = dir.file("edited/dv_live_edited.mov")
        let croppedRPUs = try await Self.rpus(edited)
        let croppedConfig = try await Self.config(edited)
        #expect(!croppedRPUs.isEmpty && croppedRPUs.allSatisfy { $0 == nil } && croppedConfig == nil)
        let plain = try await HDROracle.clip("hlg", in: dir)
        let plainInfo = try VideoReader(plain).info
        #expect(plainInfo.dolbyVision == nil)
        let out = try await CLI.run(["video", "transcode", plain, "-o", dir.file("plain.mov"), "--json"])
        let plainKept = try reportNames(out, "kept"), plainDropped = try reportNames(out, "dropped")
        #expect(out.succeeded && !plainKept.contains("dolby-vision-metadata") && !plainDropped.contains("dolby-vision-metadata"))
    }

    @Test("a dvh1 sample entry (profile 8) is read and re-encoded as hvc1 with its RPUs; profile 5 (no base other players show) is refused by name, nothing written")
    func sampleEntriesAndProfiles() async throws {
        let dir = try TempDir("dovi-entries")
        defer { dir.remove() }
        let dvh1 = dir.file("dvh1.mp4"), five = dir.file("p5.mp4")
        try await Self.python(["make", dvh1, "--frames", "4", "--entry", "dvh1"])
        try await Self.python(["make", five, "--frames", "4", "--entry", "dvh1", "--profile", "5"])
        let info = try VideoReader(dvh1).info
        #expect(info.codec == "dvh1" && info.dolbyVision == "8.4" && info.frameCount == 4, "\(info)")
        let out = dir.file("out.mov")
        let run = try await CLI.run(["video", "transcode", dvh1, "-o", out, "--json"])
        let kept = try reportNames(run, "kept")
        #expect(run.succeeded && kept.contains("dolby-vision-metadata"), "\(run)")
        let outRPUs = try await Self.rpus(out), sourceRPUs = try await Self.rpus(dvh1)
        #expect(outRPUs == sourceRPUs && outRPUs.count == 4)
        let tag = try await runTool("ffprobe", ["-v", "error", "-show_entries", "stream=codec_tag_string", "-of", "csv=p=0", out])
        #expect(tag.stdout.hasPrefix("hvc1"), "\(tag.stdout)")
        let refused = try await CLI.run(["video", "transcode", five, "-o", dir.file("p5-out.mov")])
        #expect(refused.status == 1 && refused.stderr.contains("Dolby Vision profile 5")
                && refused.stderr.contains("p5.mp4") && !FileManager.default.fileExists(atPath: dir.file("p5-out.mov")),
                "\(refused)")
    }
}
