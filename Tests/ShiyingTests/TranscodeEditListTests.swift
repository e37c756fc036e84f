// A movie's edit list says what of its video is shown and when (issue 17: frame times). A trimmed file
// (`ffmpeg -ss T -c copy`, an editor's non-destructive trim) keeps the frames before T — later ones are
// predicted from them — and hides them by its edit; a file whose picture starts after its sound says so by an
// empty edit. A re-encode showed the hidden frames (1.1 s of picture the source never showed, ahead of a
// sound that started at T: out of step by 1.1 s) and dropped the delay (the picture 0.5 s early). Now only
// what the edit shows is encoded, after the same delay. The witness is ffmpeg: its own trimmed frame
// against ours, and ffprobe's start times.
import Foundation
@testable import Shiying
import Testing

@Suite("re-encodes and GIFs show what the source's edit list shows, when it shows it (issue 17: frame times)",
       .enabled(if: commandSucceeds(["ffmpeg", "-hide_banner", "-encoders"]), "ffmpeg needed"))
struct TranscodeEditListTests {
    /// 3 s of testsrc2 (a moving picture: every frame differs) with a sine, H.264 with B-frames, AAC.
    static func source(in dir: TempDir) async throws -> String {
        let out = dir.file("av.mp4")
        let run = try await runTool("ffmpeg", ["-y", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=3",
                                               "-f", "lavfi", "-i", "sine=f=440:d=3", "-c:v", "libx264", "-bf", "2",
                                               "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", out])
        guard run.succeeded else { throw TestFailure("ffmpeg: \(run)") }
        return out
    }

    /// The 3 s source and its copy cut to 0-1 s, then 1.5-2.5 s (movie timescale 1000, media 15360; x264's
    /// B-frames start at 1024, so 24064 is frame 45).
    static func cutMovie(in dir: TempDir) async throws -> (source: String, cut: String) {
        let source = try await source(in: dir)
        let cut = dir.file("cut.mp4")
        try FileManager.default.copyItem(atPath: source, toPath: cut)
        let script = Paths.packageRoot.appendingPathComponent("scripts/edit_list.py").path
        let set = try await runProcess("/usr/bin/env", ["python3", script, "set", cut, "1000:1024,1000:24064"])
        guard set.succeeded else { throw TestFailure("edit_list.py: \(set)") }
        return (source, cut)
    }

    /// ffprobe's start time and duration of each stream, by type.
    static func streams(_ movie: String) async throws -> [String: (start: Double, duration: Double)] {
        let run = try await runTool("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,start_time,duration",
                                                "-of", "csv=p=0", movie])
        guard run.succeeded else { throw TestFailure("ffprobe: \(run)") }
        var out: [String: (Double, Double)] = [:]
        for line in run.stdout.split(separator: "\n") {
            let f = line.split(separator: ",").map(String.init)
            if f.count >= 3, let s = Double(f[1]), let d = Double(f[2]) { out[f[0]] = (s, d) }
        }
        return out
    }

    static func packets(_ movie: String) async throws -> Int {
        let run = try await runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_packets", "-show_entries",
                                                "stream=nb_read_packets", "-of", "csv=p=0", movie])
        return Int(run.stdout.prefix { $0.isNumber }) ?? -1
    }

    /// PSNR of `a`'s first frame (shown) against `b`'s, as ffmpeg decodes both.
    static func firstFramePSNR(_ a: String, _ b: String) async throws -> Double {
        let run = try await runTool("ffmpeg", ["-v", "info", "-i", a, "-i", b, "-filter_complex",
                                               "[0:v]trim=end_frame=1,setpts=PTS-STARTPTS[x];[1:v]trim=end_frame=1,setpts=PTS-STARTPTS[y];[x][y]psnr",
                                               "-f", "null", "-"])
        guard let range = run.stderr.range(of: "average:") else { throw TestFailure("no PSNR: \(run.stderr.suffix(400))") }
        let value = run.stderr[range.upperBound...].prefix { !$0.isWhitespace }
        return value == "inf" ? 99 : Double(value) ?? 0
    }

    /// PSNR of a Live still against each of the movie's `frames` (presentation order, as ffmpeg shows them).
    static func stillAgainstFrames(_ still: String, _ movie: String, _ frames: [Int], in dir: TempDir) async throws -> [Double] {
        let stillPNG = dir.file("still.png")
        #expect(try await runTool("ffmpeg", ["-y", "-v", "error", "-i", still, stillPNG]).succeeded)
        var db: [Double] = []
        for n in frames {
            let png = dir.file("frame\(n).png")
            #expect(try await runTool("ffmpeg", ["-y", "-v", "error", "-i", movie, "-vf", "select=eq(n\\,\(n))", "-frames:v", "1",
                                                 png]).succeeded)
            db.append(try await HeicTests.psnr(stillPNG, png))
        }
        return db
    }

    @Test("a trimmed file: only the frames its edit shows, from the trim's frame, the picture as long as the sound")
    func trimmed() async throws {
        let dir = try TempDir("edit-trim")
        defer { dir.remove() }
        let source = try await Self.source(in: dir)
        let trimmed = dir.file("trim.mp4")
        let cut = try await runTool("ffmpeg", ["-y", "-v", "error", "-ss", "1.1", "-i", source, "-c", "copy", trimmed])
        #expect(cut.succeeded, "\(cut)")
        #expect(try await Self.packets(trimmed) == 90, "fixture: ffmpeg keeps every frame and hides 1.1 s by the edit")
        let out = dir.file("out.mp4")
        let run = try await CLI.run(["video", "transcode", trimmed, "-o", out])
        #expect(run.succeeded, "\(run)")
        #expect(try await Self.packets(out) == 57, "frames 33...89 shown, 57 encoded")
        let s = try await Self.streams(out)
        let video = try #require(s["video"]), audio = try #require(s["audio"])
        #expect(abs(video.duration - 1.9) < 0.001 && abs(audio.duration - 1.9) < 0.03 && video.start == 0, "\(s)")
        // the first frame shown is the trim's: what ffmpeg shows of the trimmed file, not the source's frame 0
        let same = try await Self.firstFramePSNR(trimmed, out), other = try await Self.firstFramePSNR(source, out)
        #expect(same >= 35 && other < 25, "first frame vs the trim's \(same) dB, vs the source's first \(other) dB")
        // what every other reader of the movie's length uses: a GIF of it lasts as long, not the media's 3 s
        let info = try VideoReader(trimmed).info
        #expect(abs(info.presentationSeconds - 1.9) < 1e-9 && abs(info.durationSeconds - 3) < 0.05, "\(info)")
        // its rate is the media's 30 fps, not its 90 samples over the 1.9 s shown (a movie sweep found 47 fps)
        #expect(abs(info.frameRate - 30) < 0.01, "frame rate \(info.frameRate)")
        let gif = dir.file("trim.gif")
        let made = try await CLI.run(["convert", "--to", "gif", trimmed, "-o", gif])
        #expect(made.succeeded, "\(made)")
        let probe = try await runTool("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", gif])
        #expect(abs((Double(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) - 1.9) < 0.011, "GIF \(probe.stdout)")
    }

    // Found by a movie sweep (2026-12-06): with a recipe, the still of `live make` on a trimmed movie was the frame
    // 1.1 s (the trim) after the one at the still-image time: the capture counted from the media's first frame.
    @Test("live make --recipe of a trimmed movie: the still is the movie's frame at the still-image time")
    func trimmedLiveStillWithRecipe() async throws {
        let dir = try TempDir("edit-trim-live")
        defer { dir.remove() }
        let source = try await Self.source(in: dir)
        let trimmed = dir.file("trim.mp4")
        #expect(try await runTool("ffmpeg", ["-y", "-v", "error", "-ss", "1.1", "-i", source, "-c", "copy", trimmed]).succeeded)
        let recipe = dir.file("exp.json")
        try Data(#"{"adjustments":{"exposure":0.3}}"#.utf8).write(to: URL(fileURLWithPath: recipe))
        let out = dir.file("live")
        let made = try await CLI.run(["live", "make", "--video", trimmed, "--recipe", recipe, "--at", "0.2", "-o", out])
        #expect(made.succeeded, "\(made)")
        let db = try await Self.stillAgainstFrames(out + "/trim_live.jpg", out + "/trim_live.mov", [6, 39], in: dir)
        #expect(db[0] >= 35 && db[1] < 25, "still vs the movie's frame at 0.2 s \(db[0]) dB, vs 1.1 s later \(db[1]) dB")
    }

    // Found by a movie sweep (2026-12-06): `live edit --at` moved the still-image time but kept the old still (a
    // picture of another moment, SPEC P4), while the report named the new frame.
    @Test("live edit --at: the still is re-rendered from the movie's frame at the new still-image time")
    func liveEditMovesTheStill() async throws {
        let dir = try TempDir("live-edit-at")
        defer { dir.remove() }
        let source = try await Self.source(in: dir)
        let pair = dir.file("pair"), edited = dir.file("edited")
        #expect(try await CLI.run(["live", "make", "--video", source, "-o", pair]).succeeded) // key photo at 1.5 s
        let recipe = dir.file("exp.json")
        try Data(#"{"adjustments":{"exposure":0.3}}"#.utf8).write(to: URL(fileURLWithPath: recipe))
        let run = try await CLI.run(["live", "edit", "--recipe", recipe, "--at", "0.5", "-o", edited,
                                     pair + "/av_live.jpg", pair + "/av_live.mov"])
        #expect(run.succeeded, "\(run)")
        let movie = edited + "/av_live_edited.mov", still = edited + "/av_live_edited.jpg"
        let db = try await Self.stillAgainstFrames(still, movie, [15, 45], in: dir)
        #expect(db[0] >= 35 && db[1] < 25, "still vs the frame at 0.5 s \(db[0]) dB, vs the old key photo's \(db[1]) dB")
        #expect(try await CLI.run(["live", "validate", still, movie]).succeeded)
    }

    @Test("a picture that starts after its sound (an empty edit) still starts 0.5 s in")
    func delayed() async throws {
        let dir = try TempDir("edit-delay")
        defer { dir.remove() }
        let source = try await Self.source(in: dir)
        let delayed = dir.file("delay.mp4")
        let made = try await runTool("ffmpeg", ["-y", "-v", "error", "-i", source, "-itsoffset", "0.5", "-i", source,
                                                "-map", "1:v", "-map", "0:a", "-c", "copy", delayed])
        #expect(made.succeeded, "\(made)")
        let before = try await Self.streams(delayed)
        #expect(before["video"]?.start == 0.5 && before["audio"]?.start == 0, "fixture: \(before)")
        let out = dir.file("out.mov")
        let run = try await CLI.run(["video", "transcode", delayed, "-o", out])
        #expect(run.succeeded, "\(run)")
        let after = try await Self.streams(out)
        #expect(after["video"]?.start == 0.5 && after["audio"]?.start == 0, "\(after)")
        #expect(try await Self.packets(out) == 90)
    }

    // A cut: 0-1 s of the media, then 1.5-2.5 s. The re-encode keeps every frame at its own time and writes
    // the source's list again, so a player shows what it showed (ffmpeg honours both lists): frames 0-29 and
    // 45-74 of the uncut source, 2 s, with the sound as it was. Before, the media played whole (3 s).
    @Test("an edit list with two shown spans (a cut) is kept: the re-encode shows the same frames for as long")
    func severalSpans() async throws {
        let dir = try TempDir("edit-spans")
        defer { dir.remove() }
        let (source, cut) = try await Self.cutMovie(in: dir)
        #expect(try await Self.streams(cut)["video"]?.duration == 2, "fixture: ffprobe sees the two spans")
        let out = dir.file("out.mp4")
        let run = try await CLI.run(["video", "transcode", cut, "-o", out])
        #expect(run.succeeded, "\(run)")
        let stored = try await runTool("ffprobe", ["-v", "error", "-ignore_editlist", "1", "-select_streams", "v:0",
                                                   "-count_packets", "-show_entries", "stream=nb_read_packets",
                                                   "-of", "csv=p=0", out])
        #expect(Int(stored.stdout.prefix { $0.isNumber }) == 90, "every frame encoded, at its own time: \(stored)")
        let streams = try await Self.streams(out)
        #expect(streams["video"].map { abs($0.duration - 2) < 0.01 } == true, "shown for 2 s: \(streams)")
        #expect(streams["audio"].map { abs($0.duration - 3) < 0.05 } == true, "the sound as the source's: \(streams)")
        let shown = try await runTool("ffmpeg", ["-v", "error", "-i", out, "-map", "0:v", "-fps_mode", "passthrough",
                                                 "-f", "framemd5", "-"])
        #expect(shown.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.count == 60, "60 frames shown")
        // each shown frame against the uncut source's frame it should be (one frame off: under 30 dB)
        let graph = "[0:v]select='between(n\\,0\\,29)+between(n\\,45\\,74)',setpts=N/30/TB[a];[1:v]setpts=N/30/TB[b];[a][b]psnr"
        let compared = try await runTool("ffmpeg", ["-v", "info", "-i", source, "-i", out, "-filter_complex", graph,
                                                    "-f", "null", "-"])
        let minimum = compared.stderr.range(of: "min:").map { compared.stderr[$0.upperBound...].prefix { !$0.isWhitespace } }
        let psnr = minimum.map { $0 == "inf" ? 99 : Double($0) ?? 0 } ?? 0
        #expect(psnr >= 40, "worst shown frame \(psnr) dB against its source frame")
        let info = try VideoReader(cut).info
        #expect(abs(info.frameRate - 30) < 0.5, "\(info)")
    }

    @Test("a GIF of a cut movie shows the two spans (2 s, the frames a player shows), not the media whole (3 s)")
    func severalSpansGIF() async throws {
        let dir = try TempDir("edit-spans-gif")
        defer { dir.remove() }
        let (source, cut) = try await Self.cutMovie(in: dir)
        let gif = dir.file("cut.gif")
        let made = try await CLI.run(["convert", "--to", "gif", "--fps", "30", cut, "-o", gif])
        #expect(made.succeeded, "\(made)")
        let probe = try await runTool("ffprobe", ["-v", "error", "-count_frames", "-show_entries",
                                                  "format=duration:stream=nb_read_frames", "-of", "csv=p=0", gif])
        let numbers = probe.stdout.split(whereSeparator: { !$0.isNumber && $0 != "." }).compactMap { Double($0) }
        #expect(numbers.count == 2 && numbers[0] == 60 && abs(numbers[1] - 2) < 0.011, "GIF frames, duration: \(probe.stdout)")
        // frame 30 of the GIF is the source's frame 45 (after the cut), not its frame 30
        func frame(_ path: String, _ n: Int, _ out: String) async throws {
            let r = try await runTool("ffmpeg", ["-v", "error", "-y", "-i", path, "-vf", "select=eq(n\\,\(n))", "-frames:v", "1", out])
            #expect(r.succeeded, "\(r)")
        }
        try await frame(gif, 30, dir.file("g30.png"))
        try await frame(source, 45, dir.file("s45.png"))
        try await frame(source, 30, dir.file("s30.png"))
        func psnr(_ a: String, _ b: String) async throws -> Double {
            let r = try await runTool("compare", ["-metric", "PSNR", a, b, "null:"])
            return Double(r.stderr.prefix { $0 != " " }) ?? 99
        }
        let right = try await psnr(dir.file("g30.png"), dir.file("s45.png"))
        let wrong = try await psnr(dir.file("g30.png"), dir.file("s30.png"))
        #expect(right > wrong + 5, "after the cut: \(right) dB against frame 45, \(wrong) dB against frame 30")
    }
}
