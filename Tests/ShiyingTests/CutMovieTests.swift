// A cut movie: an edit list that shows several spans of the media (0-1 s, then 1.5-2.5 s), on its picture and its
// sound alike, as an editor writes a cut. A player shows 2 s: the frames and the sound of the two spans, one after
// the other. Before this session a Live pair made of one (`convert --to live`, `live make`) played the media whole
// (3 s, the cut-away half second back in the middle), its key photo timed on the media; an MP4 re-encode (sound as
// AAC) showed the picture whole while its sound stopped after the first span (1 s); a moving collage's relay sound
// stopped there too. Now each shows what a player shows. The witnesses are ffmpeg's decode of the source (which
// honours both lists) and the flashes and clicks the source carries at the same media times.
import Foundation
import Testing
@testable import Shiying

@Suite("cut movies (several shown spans) made Live, re-encoded with AAC sound and relayed in collages play as viewers see them",
       .enabled(if: commandSucceeds(["ffmpeg", "-hide_banner", "-encoders"]), "ffmpeg needed"))
struct CutMovieTests {
    /// The source's flashes and clicks (media times) and where a player shows them after the cut: the one at
    /// 1.2 s lies in the half second cut away.
    static let mediaFlashes = [0.5, 1.2, 1.8]
    static let shownFlashes = [0.5, 1.3]

    /// 3 s of testsrc2 (every frame differs) at 30 fps, H.264 with B-frames, white frames 15, 36 and 54; the
    /// sound a quiet 220 Hz tone with a 10 ms 1 kHz click at 0.5, 1.2 and 1.8 s (48 kHz mono). Two copies cut to
    /// 0-1 s then 1.5-2.5 s on both tracks: `cut.mov` with 16-bit LPCM, `cut.mp4` with AAC (its priming, 1024
    /// samples, before the first span).
    static func fixture() async throws -> (source: String, movies: [String]) {
        try await listed("cut-movies-v1", "cut", video: "1000:1024,1000:24064") { "1000:\($0),1000:\($0 + 72000)" }
    }

    /// That source as `source.mov` / `source.mp4`, and a copy of each, `NAME.mov` (LPCM) and `NAME.mp4` (AAC),
    /// whose picture follows the edit list `video` and whose sound `sound(priming)` (scripts/edit_list.py lists;
    /// movie timescale 1000, video media 15360 from 1024 — x264's B-frame delay: 24064 is frame 45 — and the
    /// sound's media at 48 kHz after `priming` samples: 0 for LPCM, 1024 for AAC).
    static func listed(_ cache: String, _ name: String, video: String, sound: @escaping @Sendable (Int) -> String)
        async throws -> (source: String, movies: [String]) {
        let dir = try await FixtureCache.shared.dir(cache) { scratch in
            let flash = "drawbox=x=0:y=0:w=iw:h=ih:color=white:t=fill:enable='eq(n\\,15)+eq(n\\,36)+eq(n\\,54)'"
            let clicks = Self.mediaFlashes.map { "between(t\\,\($0)\\,\($0 + 0.01))" }.joined(separator: "+")
            let tone = "aevalsrc='0.05*sin(2*PI*220*t)+0.8*sin(2*PI*1000*t)*(\(clicks))':s=48000:d=3"
            let script = Paths.packageRoot.appendingPathComponent("scripts/edit_list.py").path
            for (ext, codec, priming) in [("mov", "pcm_s16le", 0), ("mp4", "aac", 1024)] {
                let source = scratch + "/source.\(ext)"
                let made = try await runTool("ffmpeg", ["-y", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=3",
                                                        "-f", "lavfi", "-i", tone, "-vf", flash, "-c:v", "libx264", "-bf", "2",
                                                        "-pix_fmt", "yuv420p", "-c:a", codec, source])
                guard made.succeeded else { throw TestFailure("ffmpeg: \(made)") }
                let listed = scratch + "/\(name).\(ext)"
                try FileManager.default.copyItem(atPath: source, toPath: listed)
                let v = try await runProcess("/usr/bin/env", ["python3", script, "set", listed, video])
                let a = try await runProcess("/usr/bin/env", ["python3", script, "set-sound", listed, sound(priming)])
                guard v.succeeded, a.succeeded else { throw TestFailure("edit_list.py: \(v) \(a)") }
            }
        }
        return (dir + "/source.mov", [dir + "/\(name).mov", dir + "/\(name).mp4"])
    }

    /// The worst and the mean per-frame PSNR of `movie` against ffmpeg's decode of `reference` (its edit list
    /// honoured), frame n against frame n + `offset`.
    static func psnr(_ movie: String, against reference: String, offset: Int = 0) async throws -> (min: Double, average: Double) {
        let graph = "[0:v]trim=start_frame=\(offset),setpts=N/30/TB[a];[1:v]setpts=N/30/TB[b];[a][b]psnr"
        let run = try await runTool("ffmpeg", ["-v", "info", "-i", reference, "-i", movie, "-filter_complex", graph,
                                               "-f", "null", "-"])
        func value(_ key: String) -> Double? {
            guard let r = run.stderr.range(of: key, options: .backwards) else { return nil }
            let text = run.stderr[r.upperBound...].prefix { !$0.isWhitespace }
            return text == "inf" ? 99 : Double(text)
        }
        guard let low = value("min:"), let mean = value("average:") else { throw TestFailure("no PSNR: \(run.stderr.suffix(400))") }
        return (low, mean)
    }

    /// ffprobe's duration and frame count of the first video stream, and the first sound stream's duration.
    static func lengths(_ movie: String) async throws -> (video: Double, frames: Int, sound: Double) {
        func probe(_ stream: String, _ extra: [String]) async throws -> [Double] {
            let run = try await runTool("ffprobe", ["-v", "error", "-select_streams", stream] + extra + ["-of", "csv=p=0", movie])
            guard run.succeeded else { throw TestFailure("ffprobe: \(run)") }
            return run.stdout.split(whereSeparator: { !$0.isNumber && $0 != "." }).compactMap { Double($0) }
        }
        let v = try await probe("v:0", ["-count_frames", "-show_entries", "stream=duration,nb_read_frames"])
        let a = try await probe("a:0", ["-show_entries", "stream=duration"])
        return (v.first ?? -1, v.count > 1 ? Int(v[1]) : -1, a.first ?? -1)
    }

    /// The mean luma of each frame ffmpeg shows, in order.
    static func frameStats(_ movie: String) async throws -> [Double] {
        let run = try await runTool("ffprobe", ["-v", "error", "-f", "lavfi", "-i", "movie=\(movie),signalstats",
                                                "-show_entries", "frame_tags=lavfi.signalstats.YAVG", "-of", "csv=p=0"])
        guard run.succeeded else { throw TestFailure("ffprobe signalstats: \(run)") }
        return run.stdout.split(separator: "\n").compactMap { Double($0.split(separator: ",").last ?? "") }
    }

    /// What every output of a cut movie must show: 2 s and 60 frames, each within 35 dB of the frame ffmpeg shows
    /// of the source (one frame off is not), the flashes where the cut puts them, each click with its flash and
    /// the sound as long as the picture.
    static func expectShownAsCut(_ movie: String, source cut: String, in dir: TempDir, _ what: String) async throws {
        let length = try await lengths(movie)
        #expect(abs(length.video - 2) < 0.011 && length.frames == 60, "\(what): \(length)")
        #expect(abs(length.sound - 2) < 0.03, "\(what): the sound lasts \(length.sound) s, the picture 2 s")
        let same = try await psnr(movie, against: cut), off = try await psnr(movie, against: cut, offset: 1)
        #expect(same.min >= 35 && off.average < 30,
                "\(what): worst frame \(same.min) dB against ffmpeg's of the source; one frame off \(off.average) dB")
        let seen = try await LateVideoTimelineTests.flashTimes(movie)
        #expect(seen.count == 2 && zip(seen, shownFlashes).allSatisfy { abs($0 - $1) < 0.002 }, "\(what): flashes at \(seen)")
        let heard = try await LateVideoTimelineTests.clickTimes(movie, in: dir)
        #expect(heard.count == 2 && zip(heard, shownFlashes).allSatisfy { abs($0 - $1) <= 1.0 / 30 },
                "\(what): clicks at \(heard), the cut shows them at \(shownFlashes)")
        try await LateVideoTimelineTests.expectInSync(movie, in: dir, what)
    }

    @Test("the fixture: ffmpeg shows each cut movie for 2 s, its flashes and clicks at 0.5 and 1.3 s")
    func fixtureAsPlayersSeeIt() async throws {
        let dir = try TempDir("cut-fixture")
        defer { dir.remove() }
        for cut in try await Self.fixture().movies {
            let length = try await Self.lengths(cut)
            #expect(abs(length.video - 2) < 0.011 && length.frames == 60 && abs(length.sound - 2) < 0.011, "\(cut): \(length)")
            // ffmpeg shows the source's frames 0-29 and 45-74, so its white frames are the 16th and the 40th (its
            // timestamps put the second span 2 frames late, at 1.067 s: its B-frame delay counted again; QuickTime
            // starts a span at its edit's movie time, 1.0 s, and so does every output here)
            let frames = try await Self.frameStats(cut)
            #expect(frames.count == 60 && frames.indices.filter { frames[$0] > 200 } == [15, 39], "\(cut): \(frames)")
            let heard = try await LateVideoTimelineTests.clickTimes(cut, in: dir)
            #expect(heard.count == 2 && zip(heard, Self.shownFlashes).allSatisfy { abs($0 - $1) <= 1.0 / 30 }, "\(heard)")
        }
    }

    // Before: the pair's movie was the source remuxed with its first edit only — 3 s, 90 frames, the key photo at
    // 1.5 s of the media (`still_time` 1.5, frame 45), and the sound whole with its three clicks.
    @Test("convert --to live: the Live movie shows the spans (2 s, ffmpeg's frames), the sound cut alike, the key photo in the middle of them",
          arguments: [0, 1])
    func liveOfCutMovie(_ which: Int) async throws {
        let fixture = try await Self.fixture()
        let cut = fixture.movies[which]
        let dir = try TempDir("cut-live")
        defer { dir.remove() }
        let out = dir.file("pair")
        let run = try await CLI.run(["convert", "--to", "live", cut, "-o", out, "--json"])
        #expect(run.succeeded, "\(run)")
        let report = try LateVideoTimelineTests.json(run)
        let video = try #require(report["video"] as? [String: Any], "\(report)")
        #expect((video["still_time"] as? Double).map { abs($0 - 1) < 1e-6 } == true && video["still_frame"] as? Int == 30,
                "the middle of the 2 s shown: \(video)")
        let movie = out + "/cut_live.mov", still = out + "/cut_live.jpg"
        try await Self.expectShownAsCut(movie, source: cut, in: dir, "Live movie of \(cut)")
        // the key photo is the movie's frame at 1 s, and that is the source's frame shown at 1 s (its frame 45)
        let db = try await TranscodeEditListTests.stillAgainstFrames(still, movie, [30, 29], in: dir)
        #expect(db[0] >= 35 && db[1] < db[0] - 10, "still vs the movie's frame at 1 s \(db[0]) dB, vs the one before \(db[1]) dB")
        let source = try await TranscodeEditListTests.stillAgainstFrames(still, cut, [29, 30, 31], in: dir)
        #expect(source[1] > source[0] + 10 && source[1] > source[2] + 5, "still vs ffmpeg's frames 29-31 of the source: \(source) dB")
        let validate = try await CLI.run(["live", "validate", still, movie])
        #expect(validate.succeeded, "\(validate)")
    }

    // Before: --at counted on the media (1.3 s of the media is frame 39, no flash) and the movie played whole.
    @Test("live make --at T: T on the timeline a viewer sees (1.3 s: the flash after the cut), the pair's movie cut alike")
    func liveMakeAtShownTime() async throws {
        let cut = try await Self.fixture().movies[0]
        let dir = try TempDir("cut-live-at")
        defer { dir.remove() }
        let out = dir.file("pair")
        let run = try await CLI.run(["live", "make", "--video", cut, "--at", "1.3", "-o", out, "--json"])
        #expect(run.succeeded, "\(run)")
        let still = out + "/cut_live.jpg"
        let png = dir.file("still.png")
        #expect(try await runTool("ffmpeg", ["-y", "-v", "error", "-i", still, png]).succeeded)
        let mean = try await runTool("convert", [png, "-colorspace", "gray", "-format", "%[fx:mean]", "info:"])
        #expect((Double(mean.stdout) ?? 0) > 0.95, "the key photo at 1.3 s is the white frame: mean \(mean.stdout)")
        let live = try LivePhoto.movieInfo(out + "/cut_live.mov").stillTime ?? -1
        #expect(abs(live - 1.3) < 0.002, "still-image time \(live)")
        try await Self.expectShownAsCut(out + "/cut_live.mov", source: cut, in: dir, "live make --at 1.3")
    }

    // Before: 90 frames over 3 s while the AAC sound (its first span only) stopped at 1 s.
    @Test("video transcode of a cut LPCM movie to MP4 (sound as AAC): the spans shown, the sound cut to them in step")
    func aacTranscodeOfCutMovie() async throws {
        let cut = try await Self.fixture().movies[0]
        let dir = try TempDir("cut-aac")
        defer { dir.remove() }
        let out = dir.file("out.mp4")
        let run = try await CLI.run(["video", "transcode", cut, "-o", out])
        #expect(run.succeeded, "\(run)")
        try await Self.expectShownAsCut(out, source: cut, in: dir, "MP4 of the cut movie")
        let best = try await Self.psnr(out, against: cut)
        #expect(best.min >= 40, "samples kept: worst frame \(best.min) dB")
    }

    // Before: the relay played the cell's picture cut but its sound's first span only: one click, at 0.5 s.
    @Test("a moving collage's relay sound (video tier, AAC) of a cut Live cell plays the spans with the picture")
    func relaySoundOfCutMovie() async throws {
        let cut = try await Self.fixture().movies[0]
        let dir = try TempDir("cut-relay")
        defer { dir.remove() }
        let still = dir.file("still.jpg")
        #expect(try await runTool("ffmpeg", ["-y", "-v", "error", "-i", cut, "-frames:v", "1", still]).succeeded)
        let out = dir.file("collage")
        let run = try await CLI.run(["collage", "--motion", "relay", "--export", "video", "--width", "320", "--preset",
                                     "ultrafast", "--live", still, cut, still, "-o", out, "--name", "c"], timeout: 300)
        #expect(run.succeeded, "\(run)")
        let movie = out + "/c.mp4"
        #expect(try await LateVideoTimelineTests.flashTimes(movie).count == 2)
        let heard = try await LateVideoTimelineTests.clickTimes(movie, in: dir)
        #expect(heard.count == 2 && zip(heard, Self.shownFlashes).allSatisfy { abs($0 - $1) <= 1.0 / 30 }, "clicks at \(heard)")
        try await LateVideoTimelineTests.expectInSync(movie, in: dir, "relay collage of a cut movie")
    }
}
