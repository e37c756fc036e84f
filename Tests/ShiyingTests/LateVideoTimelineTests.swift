// A movie whose picture starts after its sound: the sound from 0 s, the first frame shown at 0.5 s — by an
// empty edit (`ffmpeg -itsoffset`, editors), or by its samples' own presentation times with no edit list (some
// phones). Found by a user sweep: such a movie was handled as if its timeline began at its first frame —
// `--at T` counted from that frame, a key photo near the end was refused as past the end, and the sound of a
// moving collage, a re-encode or a Live movie made of it was laid 0.5 s late. Now every time a user gives or
// a report prints is the movie's presentation time (ffprobe's pts_time), and outputs keep the source's A/V
// sync: a flash frame and a click at the same movie time stay together. The witnesses are ffprobe and ffmpeg.
import Foundation
import Testing
@testable import Shiying
import ShiyingFixtures

@Suite("A picture that starts after its sound: one movie timeline (times, key photos, A/V sync)",
       .enabled(if: MotionOracle.ffmpegPresent && commandSucceeds(["ffmpeg", "-hide_banner", "-encoders"]),
                "ffmpeg with libx265 is needed to make the movies and read them back"))
struct LateVideoTimelineTests {
    /// How the picture is made to start 0.5 s after the sound.
    enum Late: String, CaseIterable, Sendable, CustomStringConvertible {
        case emptyEdit = "empty_edit"     // an edit list with a 0.5 s empty edit (ffmpeg -itsoffset 0.5)
        case lateSamples = "late_samples" // no edit list; the first sample's composition time is 0.5 s
        var description: String { rawValue }
    }

    /// The sound's clicks and the picture's white frames, at the same movie times.
    static let flashes = [1.5, 2.5]
    static let start = 0.5 // the first frame's movie time
    static let frameCount = 90

    /// The sample Live still (photo-like, panning: every frame differs) and two movies of its 90 frames
    /// (30 fps, hvc1 with B-frames) whose frames 30 and 60 are white, shown from 0.5 s; the sound (AAC, 44.1
    /// kHz, 3.5 s from 0 s) a quiet tone with a 10 ms 1 kHz click at 1.5 s and at 2.5 s: with the frames.
    static func fixture() async throws -> (still: String, movie: [Late: String]) {
        let dir = try await FixtureCache.shared.dir("late-video-v2") { scratch in
            let pair = try SampleLivePhotos.write(count: 1, seed: 11, width: 240, height: 320, frames: frameCount,
                                                  sound: false, to: scratch + "/sample")[0]
            try FileManager.default.copyItem(atPath: pair.still, toPath: scratch + "/still.jpg")
            let flashed = scratch + "/flashed.mov"
            let flash = "drawbox=x=0:y=0:w=iw:h=ih:color=white:t=fill:enable='eq(n\\,30)+eq(n\\,60)'"
            let encode = try await runTool("ffmpeg", ["-y", "-v", "error", "-i", pair.movie, "-map", "0:v", "-vf", flash,
                                                      "-c:v", "libx265", "-x265-params", "log-level=error", "-tag:v", "hvc1",
                                                      "-pix_fmt", "yuv420p", "-video_track_timescale", "600", flashed])
            guard encode.succeeded else { throw TestFailure("ffmpeg: \(encode)") }
            let sound = "aevalsrc='0.05*sin(2*PI*220*t)+0.8*sin(2*PI*1000*t)*(between(t\\,1.5\\,1.51)+between(t\\,2.5\\,2.51))':s=44100:d=3.5"
            let late = scratch + "/\(Late.emptyEdit.rawValue).mov"
            let mux = try await runTool("ffmpeg", ["-y", "-v", "error", "-f", "lavfi", "-i", sound, "-itsoffset", "0.5",
                                                   "-i", flashed, "-map", "1:v", "-map", "0:a", "-c:v", "copy", "-c:a", "aac",
                                                   late])
            guard mux.succeeded else { throw TestFailure("ffmpeg: \(mux)") }
            let samples = scratch + "/\(Late.lateSamples.rawValue).mov"
            try FileManager.default.copyItem(atPath: late, toPath: samples)
            let base = try await runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                     "stream=time_base", "-of", "csv=p=0", late])
            guard let scale = Int(base.stdout.split(separator: "/").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "")
            else { throw TestFailure("ffprobe time base: \(base)") }
            let script = Paths.packageRoot.appendingPathComponent("scripts/edit_list.py").path
            let shift = try await runProcess("/usr/bin/env", ["python3", script, "late", samples, "\(scale / 2)"]) // 0.5 s
            guard shift.succeeded else { throw TestFailure("edit_list.py: \(shift)") }
        }
        var movies: [Late: String] = [:]
        for late in Late.allCases { movies[late] = dir + "/\(late.rawValue).mov" }
        return (dir + "/still.jpg", movies)
    }

    // MARK: - oracles

    /// ffprobe's presentation times of the video frames (edit list honoured).
    static func frameTimes(_ movie: String) async throws -> [Double] {
        let run = try await runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time",
                                                "-of", "csv=p=0", movie])
        guard run.succeeded else { throw TestFailure("ffprobe: \(run)") }
        return run.stdout.split(separator: "\n").compactMap { Double($0.split(separator: ",").first ?? "") }
    }

    /// The movie times of the white frames, as ffmpeg shows them: frames whose mean luma stands 30 levels over
    /// the median frame's (a flash fills a collage cell, not the canvas).
    static func flashTimes(_ movie: String) async throws -> [Double] {
        let run = try await runTool("ffprobe", ["-v", "error", "-f", "lavfi", "-i", "movie=\(movie),signalstats",
                                                "-show_entries", "frame=pts_time:frame_tags=lavfi.signalstats.YAVG",
                                                "-of", "csv=p=0"])
        guard run.succeeded else { throw TestFailure("ffprobe signalstats: \(run)") }
        let rows = run.stdout.split(separator: "\n").compactMap { line -> (Double, Double)? in
            let f = line.split(separator: ",").compactMap { Double($0) }
            return f.count == 2 ? (f[0], f[1]) : nil
        }
        guard !rows.isEmpty else { throw TestFailure("no frames in \(movie)") }
        let median = rows.map(\.1).sorted()[rows.count / 2]
        return rows.filter { $0.1 > median + 30 }.map(\.0)
    }

    /// The movie times of the clicks, as ffmpeg decodes the first sound track (priming and edits honoured).
    static func clickTimes(_ movie: String, in dir: TempDir) async throws -> [Double] {
        let first = try await runTool("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "frame=pts_time",
                                                  "-of", "csv=p=0", movie])
        guard let start = first.stdout.split(separator: "\n").lazy.compactMap({ Double($0.split(separator: ",").first ?? "") }).first
        else { throw TestFailure("no sound in \(movie): \(first)") }
        let raw = dir.file("sound.f32")
        let decode = try await runTool("ffmpeg", ["-y", "-v", "error", "-i", movie, "-map", "0:a:0", "-ac", "1", "-ar", "44100",
                                                  "-f", "f32le", raw])
        guard decode.succeeded else { throw TestFailure("ffmpeg: \(decode)") }
        let data = try Data(contentsOf: URL(fileURLWithPath: raw))
        let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        var clicks: [Double] = [], last = -1_000_000
        for (i, v) in samples.enumerated() where abs(v) > 0.4 { // the tone stays under 0.1, a click reaches 0.8
            if i - last > 4410 { clicks.append(start + Double(i) / 44100) }
            last = i
        }
        return clicks
    }

    /// A/V sync of `movie`: each click within a video frame (or one 1024-sample AAC frame, the larger) of its
    /// flash, both seen; and ffmpeg decodes the whole file without a word.
    static func expectInSync(_ movie: String, flashes count: Int = 2, in dir: TempDir, _ what: String) async throws {
        let clean = try await runTool("ffmpeg", ["-v", "error", "-i", movie, "-f", "null", "-"])
        #expect(clean.succeeded && clean.stderr.isEmpty, "\(what): ffmpeg decodes it with complaints: \(clean)")
        let seen = try await flashTimes(movie), heard = try await clickTimes(movie, in: dir)
        try #require(seen.count == count && heard.count == count, "\(what): flashes at \(seen), clicks at \(heard)")
        let worst = zip(seen, heard).map { abs($0 - $1) }.max() ?? 1
        #expect(worst <= max(1.0 / 30, 1024.0 / 44100) + 0.002,
                "\(what): the sound is \(zip(heard, seen).map { $0 - $1 }) s off the picture (flashes \(seen), clicks \(heard))")
    }

    /// The RGB frame ffmpeg shows at movie time `t` (the last whose pts_time is at most t).
    static func frame(_ movie: String, at t: Double) async throws -> [UInt8] {
        let run = try await runTool("ffmpeg", ["-v", "error", "-i", movie, "-vf", "select='lte(t\\,\(t + 0.001))',reverse",
                                               "-vframes", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        guard run.succeeded, !run.stdoutData.isEmpty else { throw TestFailure("ffmpeg frame at \(t): \(run)") }
        return [UInt8](run.stdoutData)
    }

    static func json(_ run: ProcessResult) throws -> [String: Any] {
        let line = try #require(run.lastLine, "no report: \(run)")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
    }

    // MARK: - times

    @Test("the reader's frame times are ffprobe's pts_time; the picture starts at 0.5 s and is shown 3 s",
          arguments: Late.allCases)
    func readerTimesAreMovieTimes(_ late: Late) async throws {
        let movie = try #require(try await Self.fixture().movie[late])
        let want = try await Self.frameTimes(movie)
        // the fixture as ffmpeg sees it: the picture from 0.5 s, flashes and clicks together
        try #require(want.count == Self.frameCount && abs(want[0] - Self.start) < 1e-6, "\(late): frames at \(want.prefix(3))…")
        let dir = try TempDir("late-fixture")
        defer { dir.remove() }
        try #require(try await Self.flashTimes(movie) == Self.flashes)
        let clicks = try await Self.clickTimes(movie, in: dir)
        try #require(clicks.count == 2 && zip(clicks, Self.flashes).allSatisfy { abs($0 - $1) < 0.002 }, "clicks at \(clicks)")
        let reader = try VideoReader(movie)
        var got: [Double] = []
        while let f = try reader.skip() { got.append(f.seconds) }
        #expect(got.count == want.count)
        let worst = zip(got, want).map { abs($0 - $1) }.max() ?? 1
        #expect(worst < 1e-6, "\(late): frame times \(got.prefix(3))… vs ffprobe's \(want.prefix(3))…")
        #expect(abs(reader.info.startSeconds - Self.start) < 1e-9 && abs(reader.info.presentationSeconds - 3) < 1e-9,
                "\(reader.info)")
    }

    // Before: the empty edit's movie took 1.2 s as 1.2 s after its first frame (the frame at 1.7 s), and both
    // refused 3.4 s as past the end (3 s).
    @Test("live make --at T: the still is the frame ffprobe shows at T, also near the end", arguments: Late.allCases)
    func liveMakeAtMovieTime(_ late: Late) async throws {
        let movie = try #require(try await Self.fixture().movie[late])
        let dir = try TempDir("late-at")
        defer { dir.remove() }
        for t in [1.2, 3.4] {
            let out = dir.file("at\(t)")
            let run = try await CLI.run(["live", "make", "--video", movie, "--at", "\(t)", "-o", out, "--json"])
            #expect(run.succeeded, "\(late) --at \(t): \(run)")
            let report = try Self.json(run)
            #expect(report["result"] as? String == "live", "\(late) --at \(t): \(report)")
            let save = try #require(report["save"] as? [String: Any])
            #expect(abs((save["still_time"] as? Double ?? -1) - t) < 0.001, "\(late) --at \(t): \(save)")
            let still = try await MotionOracle.image(out + "/\(late.rawValue)_live.jpg")
            // ffprobe's frame at t, not the one 0.5 s away (the times counted from the first frame, either way)
            let same = MotionOracle.psnr(still, try await Self.frame(movie, at: t))
            var others: [Double] = []
            for other in [t - Self.start, t + Self.start] where other >= Self.start && other < Self.start + 3 {
                others.append(MotionOracle.psnr(still, try await Self.frame(movie, at: other)))
            }
            #expect(same >= 35 && !others.isEmpty && others.allSatisfy { $0 < 25 },
                    "\(late) --at \(t): still vs ffprobe's frame at \(t) \(same) dB, at ±0.5 s \(others) dB")
            // the movie's still-image time is that time too, on the same timeline
            #expect(abs((try LivePhoto.movieInfo(out + "/\(late.rawValue)_live.mov").stillTime ?? -1) - t) < 0.001)
        }
    }

    // Before: "3.400 s is past the movie's end (3.000 s)" — the end counted from the first frame.
    @Test("live keyphoto near the end is accepted: the frame at 3.4 s, and the pair validates", arguments: Late.allCases)
    func keyPhotoNearTheEnd(_ late: Late) async throws {
        let movie = try #require(try await Self.fixture().movie[late])
        let dir = try TempDir("late-key")
        defer { dir.remove() }
        let pair = dir.file("pair"), keyed = dir.file("key")
        #expect(try await CLI.run(["live", "make", "--video", movie, "-o", pair]).succeeded)
        let (still, live) = (pair + "/\(late.rawValue)_live.jpg", pair + "/\(late.rawValue)_live.mov")
        let run = try await CLI.run(["live", "keyphoto", still, live, "--at", "3.4", "-o", keyed, "--json"])
        #expect(run.succeeded, "\(run)")
        let report = try Self.json(run)
        #expect(report["result"] as? String == "live", "\(report)")
        let save = try #require(report["save"] as? [String: Any])
        #expect(save["still_frame"] as? Int == 87 && abs((save["still_time"] as? Double ?? -1) - 3.4) < 0.001, "\(save)")
        let newStill = keyed + "/\(late.rawValue)_live_key.jpg", newMovie = keyed + "/\(late.rawValue)_live_key.mov"
        let db = MotionOracle.psnr(try await MotionOracle.image(newStill), try await Self.frame(movie, at: 3.4))
        #expect(db >= 35, "key photo vs ffprobe's frame at 3.4 s: \(db) dB")
        #expect(try await CLI.run(["live", "validate", newStill, newMovie]).succeeded)
    }

    // MARK: - A/V sync

    // Before: with no edit list the re-encode started the picture at 0 s, the copied sound still from 0 s:
    // the clicks 0.5 s after their flashes.
    @Test("a Live movie (copied and re-encoded) and a transcode (.mov, .mp4 with AAC) keep the source's A/V sync",
          arguments: Late.allCases)
    func outputsKeepSync(_ late: Late) async throws {
        let movie = try #require(try await Self.fixture().movie[late])
        let dir = try TempDir("late-sync")
        defer { dir.remove() }
        let recipe = dir.file("exp.json")
        try Data(#"{"adjustments":{"exposure":0.3}}"#.utf8).write(to: URL(fileURLWithPath: recipe))
        let copied = dir.file("copied"), encoded = dir.file("encoded")
        #expect(try await CLI.run(["live", "make", "--video", movie, "-o", copied]).succeeded)
        #expect(try await CLI.run(["live", "make", "--video", movie, "--recipe", recipe, "-o", encoded]).succeeded)
        let mov = dir.file("t.mov"), mp4 = dir.file("t.mp4")
        #expect(try await CLI.run(["video", "transcode", movie, "-o", mov]).succeeded)
        #expect(try await CLI.run(["video", "transcode", movie, "-o", mp4]).succeeded)
        for out in [copied + "/\(late.rawValue)_live.mov", encoded + "/\(late.rawValue)_live.mov", mov, mp4] {
            try await Self.expectInSync(out, in: dir, "\(late) → \((out as NSString).lastPathComponent)")
            // nothing invented before the first frame: the picture starts when the source's did
            let first = try await Self.frameTimes(out).first ?? -1
            #expect(abs(first - Self.start) < 0.002, "\(late) → \(out): first frame at \(first) s")
        }
    }

    // Before: the cell's picture began its turn at its first frame while its sound began with the movie's
    // start: each click 0.5 s after its flash.
    @Test("moving collages (relay, focus; Live and MP4) play the cell's sound with its picture, the sound before its first frame cut",
          arguments: Late.allCases)
    func movingCollageKeepsSync(_ late: Late) async throws {
        let fixture = try await Self.fixture()
        let movie = try #require(fixture.movie[late])
        let dir = try TempDir("late-collage")
        defer { dir.remove() }
        for mode in ["relay", "focus"] {
            for tier in ["live", "video"] {
                let out = dir.file("\(mode)-\(tier)")
                let run = try await CLI.run(["collage", "--motion", mode, "--export", tier, "--width", "320", "--preset",
                                             "ultrafast", "--hero", "0", "--live", fixture.still, movie, fixture.still,
                                             "-o", out, "--name", "c", "--json"], timeout: 300)
                #expect(run.succeeded, "\(mode) \(tier): \(run)")
                let file = out + (tier == "live" ? "/c.mov" : "/c.mp4")
                try await Self.expectInSync(file, in: dir, "\(late) \(mode) \(tier)")
                // the cell plays from its first frame: its flashes 1.0 s and 2.0 s after its turn starts
                let seen = try await Self.flashTimes(file)
                let turn = mode == "relay" ? 0 : 0.4 + 0.5 // focus: the hold, then a zoom (0.5 s by default)
                #expect(seen.count == 2 && abs(seen[0] - (turn + 1.0)) < 0.04, "\(late) \(mode) \(tier): flashes at \(seen)")
            }
        }
    }
}
