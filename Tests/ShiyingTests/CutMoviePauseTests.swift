// A movie whose edit lists pause between two shown spans: 0-1 s of the media, an empty edit of 0.3 s, then
// 1.5-2.5 s of the media, on the picture and the sound alike. QuickTime plays 2.3 s: the first span, nothing new
// for 0.3 s (the last picture stays on screen, the sound is silent), the second span from 1.3 s. Before this
// session the sound followed that list (the cut work's audio source) but the picture did not (the pause made the
// picture side play the media whole): a Live pair, a GIF or an AAC re-encode ran 3 s and 90 frames with the
// cut-away half second shown, its flash after the cut at 1.8 s while its click came at 1.6 s. ffmpeg is no
// oracle here (it closes the pause for the picture and lets a cut-away click into the sound), so the witnesses are
// the source's own frames (0-29, 45-74, decoded by ffmpeg without any list) and the flashes and clicks the source
// carries at known media times.
import Foundation
import Testing
@testable import Shiying

@Suite("movies with a pause between two shown spans play as QuickTime plays them: the last frame held, the next span after the pause, the sound in step",
       .enabled(if: commandSucceeds(["ffmpeg", "-hide_banner", "-encoders"]), "ffmpeg needed"))
struct CutMoviePauseTests {
    /// Where a player shows the flashes and clicks of the source (media 0.5 and 1.8 s; the one at 1.2 s is cut
    /// away): the second span starts at 1.0 + 0.3 s, so its flash is at 1.3 + 0.3 s.
    static let shownFlashes = [0.5, 1.6]
    /// The list's duration and the frames its spans show.
    static let length = 2.3, frames = 60
    /// The source's frames the spans show, as an ffmpeg `select` expression (frames 0-29, then 45-74).
    static let shownSource = "lt(n\\,30)+between(n\\,45\\,74)"

    /// The CutMovieTests source (testsrc2 30 fps H.264 with B-frames, white frames 15/36/54, 1 kHz clicks at
    /// 0.5/1.2/1.8 s) with both lists set to "1 s from the start, a 0.3 s pause, 1 s from 1.5 s":
    /// `pause.mov` (LPCM), `pause.mp4` (AAC, its 1024 priming samples before the first span). Also the source
    /// itself (`source.mov`), whose frames in media order are the reference.
    static func fixture() async throws -> (source: String, movies: [String]) {
        try await CutMovieTests.listed("cut-pause-movies-v1", "pause", video: "1000:1024,300:-1,1000:24064") {
            "1000:\($0),300:-1,1000:\($0 + 72000)"
        }
    }

    /// The worst and the mean PSNR of `movie`'s frames, in order, against the source's frames `select` picks.
    static func psnr(_ movie: String, against source: String, select: String) async throws -> (min: Double, average: Double) {
        let graph = "[0:v]select='\(select)',setpts=N/30/TB[a];[1:v]setpts=N/30/TB[b];[a][b]psnr"
        let run = try await runTool("ffmpeg", ["-v", "info", "-i", source, "-i", movie, "-filter_complex", graph, "-f", "null", "-"])
        func value(_ key: String) -> Double? {
            guard let r = run.stderr.range(of: key, options: .backwards) else { return nil }
            let text = run.stderr[r.upperBound...].prefix { !$0.isWhitespace }
            return text == "inf" ? 99 : Double(text)
        }
        guard let low = value("min:"), let mean = value("average:") else { throw TestFailure("no PSNR: \(run.stderr.suffix(400))") }
        return (low, mean)
    }

    /// The MD5 of each picture a constant-rate 30 fps player shows of `movie` (ffmpeg's fps filter: a frame that
    /// lasts longer is shown again in each slot it covers).
    static func pictures(_ movie: String) async throws -> [String] {
        let run = try await runTool("ffmpeg", ["-v", "error", "-i", movie, "-map", "0:v:0", "-vf", "fps=30", "-pix_fmt", "rgb24",
                                               "-f", "framemd5", "-"])
        guard run.succeeded else { throw TestFailure("ffmpeg framemd5: \(run)") }
        return run.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last }
            .map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// What every output of the paused movie must show: 2.3 s (the list's duration) of 60 frames, each the source
    /// frame the spans show (≥ 35 dB, one frame off is not), the frame before the pause on screen through it (the
    /// 30 fps slots 30-38 repeat slot 29, slot 39 is the next span's first frame), the flash after the pause at
    /// 1.6 s and its click with it, the sound as long as the picture.
    static func expectShownWithPause(_ movie: String, source: String, in dir: TempDir, _ what: String) async throws {
        let probed = try await CutMovieTests.lengths(movie)
        #expect(abs(probed.video - length) < 0.011 && probed.frames == frames, "\(what): \(probed)")
        #expect(abs(probed.sound - length) < 0.03, "\(what): the sound lasts \(probed.sound) s, the picture \(length) s")
        let same = try await psnr(movie, against: source, select: shownSource)
        let off = try await psnr(movie, against: source, select: "between(n\\,1\\,30)+between(n\\,46\\,75)")
        #expect(same.min >= 35 && off.average < 30, "\(what): worst frame \(same.min) dB against the source's; one off \(off.average) dB")
        let slots = try await pictures(movie)
        #expect(slots.count == Int((length * 30).rounded()), "\(what): \(slots.count) pictures at 30 fps")
        if slots.count > 39 {
            #expect(slots[30...38].allSatisfy { $0 == slots[29] } && slots[39] != slots[29] && slots[28] != slots[29],
                    "\(what): the frame before the pause is not the one on screen through it")
        }
        let seen = try await LateVideoTimelineTests.flashTimes(movie)
        #expect(seen.count == 2 && zip(seen, shownFlashes).allSatisfy { abs($0 - $1) < 0.002 }, "\(what): flashes at \(seen)")
        let heard = try await LateVideoTimelineTests.clickTimes(movie, in: dir)
        #expect(heard.count == 2 && zip(heard, shownFlashes).allSatisfy { abs($0 - $1) <= 1.0 / 30 },
                "\(what): clicks at \(heard), the list plays them at \(shownFlashes)")
        try await LateVideoTimelineTests.expectInSync(movie, in: dir, what)
    }

    // Before: the source remuxed whole (3 s, 90 frames, three flashes and clicks), its key photo at 1.5 s of the media.
    @Test("convert --to live: 2.3 s, the pause held, the second span after it, the key photo in the pause the frame on screen then",
          arguments: [0, 1])
    func liveOfPausedMovie(_ which: Int) async throws {
        let fixture = try await Self.fixture()
        let paused = fixture.movies[which]
        let dir = try TempDir("pause-live")
        defer { dir.remove() }
        let out = dir.file("pair")
        let run = try await CLI.run(["convert", "--to", "live", paused, "-o", out, "--json"])
        #expect(run.succeeded, "\(run)")
        let report = try LateVideoTimelineTests.json(run)
        let video = try #require(report["video"] as? [String: Any], "\(report)")
        // the middle of 2.3 s lies in the pause: the frame on screen then is the first span's last (frame 29),
        // the key photo timed at that frame (29/30 s)
        #expect((video["still_time"] as? Double).map { abs($0 - 29.0 / 30) < 1e-6 } == true && video["still_frame"] as? Int == 29,
                "\(video)")
        let movie = out + "/pause_live.mov", still = out + "/pause_live.jpg"
        try await Self.expectShownWithPause(movie, source: fixture.source, in: dir, "Live movie of \(paused)")
        // the source's frame 29, not its neighbours nor frame 34 (the media's at 1.15 s)
        let db = try await TranscodeEditListTests.stillAgainstFrames(still, fixture.source, [28, 29, 30, 34], in: dir)
        #expect(db[1] > db[0] + 5 && db[1] > db[2] + 5 && db[1] > db[3] + 10, "key photo vs the source's frames 28, 29, 30, 34: \(db) dB")
        let validate = try await CLI.run(["live", "validate", still, movie])
        #expect(validate.succeeded, "\(validate)")
    }

    // Before: 1.6 s counted on the media (frame 48, no flash).
    @Test("live make --at 1.6: the flash after the pause is the key photo")
    func liveMakeAfterPause() async throws {
        let fixture = try await Self.fixture()
        let dir = try TempDir("pause-live-at")
        defer { dir.remove() }
        let out = dir.file("pair")
        let run = try await CLI.run(["live", "make", "--video", fixture.movies[0], "--at", "1.6", "-o", out, "--json"])
        #expect(run.succeeded, "\(run)")
        let png = dir.file("still.png")
        #expect(try await runTool("ffmpeg", ["-y", "-v", "error", "-i", out + "/pause_live.jpg", png]).succeeded)
        let mean = try await runTool("convert", [png, "-colorspace", "gray", "-format", "%[fx:mean]", "info:"])
        #expect((Double(mean.stdout) ?? 0) > 0.95, "the key photo at 1.6 s is the white frame: mean \(mean.stdout)")
        let time = try LivePhoto.movieInfo(out + "/pause_live.mov").stillTime ?? -1
        #expect(abs(time - 1.6) < 0.002, "still-image time \(time)")
    }

    // Before: the picture whole (3 s, 90 frames) beside the AAC sound laid out with its pause (2.3 s).
    @Test("video transcode of the paused LPCM movie to MP4 (sound as AAC): picture and sound follow the same list")
    func aacTranscodeOfPausedMovie() async throws {
        let fixture = try await Self.fixture()
        let dir = try TempDir("pause-aac")
        defer { dir.remove() }
        let out = dir.file("out.mp4")
        let run = try await CLI.run(["video", "transcode", fixture.movies[0], "-o", out])
        #expect(run.succeeded, "\(run)")
        try await Self.expectShownWithPause(out, source: fixture.source, in: dir, "MP4 of the paused movie")
    }

    // A mutated list (found reviewing the pause work): its sound pauses 2,000,000 s between two spans. The pause
    // is made and encoded as silence, frame by frame, so the re-encode ran for weeks of sound; now the pauses of
    // one list are cut to ten minutes in all (audio_source.c).
    @Test("a sound list pausing 2,000,000 s: the re-encode ends, its pauses cut to ten minutes")
    func absurdPauseIsBounded() async throws {
        let fixture = try await Self.fixture()
        let dir = try TempDir("pause-absurd")
        defer { dir.remove() }
        let hostile = dir.file("absurd.mov"), out = dir.file("out.mp4")
        try FileManager.default.copyItem(atPath: fixture.movies[0], toPath: hostile)
        let script = Paths.packageRoot.appendingPathComponent("scripts/edit_list.py").path
        let set = try await runProcess("/usr/bin/env", ["python3", script, "set-sound", hostile, "1000:0,2000000000:-1,1000:72000"])
        #expect(set.succeeded, "\(set)")
        let run = try await CLI.run(["video", "transcode", hostile, "-o", out])
        #expect(run.succeeded, "\(run)")
        let sound = try await runTool("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "stream=duration",
                                                  "-of", "csv=p=0", out])
        let seconds = Double(sound.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(abs(seconds - 602) < 0.1, "1 s, the pause cut to 600 s, 1 s: \(sound)")
    }

    // Before: 90 frames over 3 s, the cut-away flash at 1.2 s shown.
    @Test("convert --to gif: the frame before the pause shown for it (33 cs), the second span from 1.3 s, 2.3 s in all")
    func gifOfPausedMovie() async throws {
        let fixture = try await Self.fixture()
        let dir = try TempDir("pause-gif")
        defer { dir.remove() }
        let gif = dir.file("out.gif")
        let run = try await CLI.run(["convert", "--to", "gif", "--fps", "30", "--size", "160", fixture.movies[0], "-o", gif])
        #expect(run.succeeded, "\(run)")
        let probe = try await runTool("ffprobe", ["-v", "error", "-show_entries", "packet=pts_time,duration_time", "-of", "csv=p=0", gif])
        let packets = probe.stdout.split(separator: "\n").map { $0.split(separator: ",").compactMap { Double($0) } }.filter { $0.count == 2 }
        #expect(packets.count == Self.frames, "\(packets.count) GIF frames")
        let total = packets.last.map { $0[0] + $0[1] } ?? 0
        #expect(abs(total - Self.length) < 0.011, "the GIF lasts \(total) s")
        if packets.count > 30 {
            #expect(abs(packets[29][1] - 0.33) < 0.011 && abs(packets[30][0] - 1.3) < 0.011,
                    "frame 29 shown \(packets[29][1]) s, the next from \(packets[30][0]) s")
        }
        let seen = try await LateVideoTimelineTests.flashTimes(gif)
        #expect(seen.count == 2 && zip(seen, Self.shownFlashes).allSatisfy { abs($0 - $1) < 0.011 }, "flashes at \(seen)")
    }

    // Checked by hand only in the cut work: a pair whose movie has a cut (CutMovieTests' 0-1 s, 1.5-2.5 s) edited
    // with a recipe. Before: the edited pair's movie played the media whole (3 s, 90 frames, three flashes and
    // clicks), its key photo at 1.5 s of the media.
    @Test("live edit --recipe of a pair whose movie is cut: the edited movie shows the spans, the sound cut alike")
    func liveEditOfCutPair() async throws {
        let cut = try await CutMovieTests.fixture().movies[0]
        let dir = try TempDir("cut-live-edit")
        defer { dir.remove() }
        let still = dir.file("still.jpg")
        #expect(try await runTool("ffmpeg", ["-y", "-v", "error", "-i", cut, "-frames:v", "1", still]).succeeded)
        let recipe = dir.file("recipe.json")
        try #"{"version":1,"adjustments":{"exposure":0.3}}"#.write(toFile: recipe, atomically: true, encoding: .utf8)
        let out = dir.file("edit")
        let run = try await CLI.run(["live", "edit", still, cut, "--recipe", recipe, "-o", out, "--json"], timeout: 300)
        #expect(run.succeeded, "\(run)")
        let save = try #require(try LateVideoTimelineTests.json(run)["save"] as? [String: Any], "\(run)")
        #expect((save["still_time"] as? Double).map { abs($0 - 1) < 1e-6 } == true && save["still_frame"] as? Int == 30, "\(save)")
        let movie = out + "/still_edited.mov"
        let length = try await CutMovieTests.lengths(movie)
        #expect(abs(length.video - 2) < 0.011 && length.frames == 60 && abs(length.sound - 2) < 0.03, "\(length)")
        let seen = try await LateVideoTimelineTests.flashTimes(movie)
        #expect(seen.count == 2 && zip(seen, CutMovieTests.shownFlashes).allSatisfy { abs($0 - $1) < 0.002 }, "flashes at \(seen)")
        try await LateVideoTimelineTests.expectInSync(movie, in: dir, "live edit of a cut pair")
        let validate = try await CLI.run(["live", "validate", out + "/still_edited.jpg", movie])
        #expect(validate.succeeded, "\(validate)")
    }
}
