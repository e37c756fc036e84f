import Foundation
import Testing
@testable import Shiying
import ShiyingFixtures

/// Frames and stills read back by ffmpeg (an oracle nobody here wrote) as RGB24.
enum MotionOracle {
    static let ffmpegPresent = FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")
    static let exiftoolPresent = FileManager.default.isExecutableFile(atPath: "/usr/bin/exiftool")

    static func frame(_ movie: String, _ index: Int) async throws -> [UInt8] {
        let run = try await runTool("ffmpeg", ["-v", "error", "-i", movie, "-vf", "select=eq(n\\,\(index))", "-vframes", "1",
                                               "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        guard run.succeeded, !run.stdoutData.isEmpty else { throw TestFailure("ffmpeg frame \(index): \(run)") }
        return [UInt8](run.stdoutData)
    }

    static func image(_ path: String) async throws -> [UInt8] {
        let run = try await runTool("ffmpeg", ["-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        guard run.succeeded else { throw TestFailure("ffmpeg image: \(run)") }
        return [UInt8](run.stdoutData)
    }

    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return 0 }
        var sum = 0.0
        for i in 0..<a.count { let d = Double(a[i]) - Double(b[i]); sum += d * d }
        let mse = sum / Double(a.count)
        return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
    }

    /// Mean absolute difference of two frames inside a cell.
    static func difference(_ a: [UInt8], _ b: [UInt8], width: Int, cell c: MovingCollageReport.Cell) -> Double {
        var sum = 0.0
        for y in c.y..<(c.y + c.height) {
            for x in c.x..<(c.x + c.width) {
                let i = (y * width + x) * 3
                for k in 0..<3 { sum += abs(Double(a[i + k]) - Double(b[i + k])) }
            }
        }
        return sum / Double(c.width * c.height * 3)
    }

    static func mean(_ a: [UInt8], width: Int, x: Int, y: Int, w: Int, h: Int) -> Double {
        var sum = 0.0
        for row in y..<(y + h) { for col in x..<(x + w) { for k in 0..<3 { sum += Double(a[(row * width + col) * 3 + k]) } } }
        return sum / Double(w * h * 3)
    }

    static func streams(_ movie: String) async throws -> [String] {
        let run = try await runTool("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0", movie])
        return run.stdout.split(separator: "\n").map(String.init)
    }
}

@Suite("Moving collages (issue 17; SPEC C1–C7, C9, C12, C14)",
       .enabled(if: MotionOracle.ffmpegPresent, "ffmpeg/ffprobe are needed to read the movies back"))
struct MovingCollageTests {
    /// Small, short Live pairs: 128x160 frames, `frames` at 30 fps.
    static func pairs(_ dir: TempDir, count: Int, frames: Int = 15, seed: UInt64 = 3,
                      sound: Bool = true) throws -> [SampleLivePhotos.Pair] {
        try SampleLivePhotos.write(count: count, seed: seed, width: 128, height: 160, frames: frames, sound: sound,
                                   to: dir.file("in"))
    }

    static func request(_ stills: [String], _ dir: TempDir, mode: MovingCollageRequest.Mode = .together,
                        tier: MovingCollageRequest.Tier = .live) -> MovingCollageRequest {
        var r = MovingCollageRequest(inputs: stills.map { .init(still: $0) }, directory: dir.file("out"))
        r.width = 320
        r.mode = mode
        r.tier = tier
        r.preset = "ultrafast"
        return r
    }

    @Test("together: a verified Live pair; one identifier; every frame decodes; still = key frame; every Live cell moves")
    func together() async throws {
        let dir = try TempDir("motion-together")
        defer { dir.remove() }
        let live = try Self.pairs(dir, count: 3)
        let plain = try SamplePhotos.write(count: 1, seed: 9, width: 320, height: 240, to: dir.file("plain"))
        let report = try await MovingCollage.export(Self.request(live.map(\.still) + plain, dir))
        #expect(report.delivered == .live && report.fallbackReason == nil)
        #expect(report.caption == "长按会动起来")
        #expect(report.cells.filter(\.live).map(\.index) == [0, 1, 2] && report.staticCells == [3])
        let movie = try #require(report.movie)
        let id = try #require(report.contentIdentifier)
        #expect(try LivePhoto.stillIdentifier(report.still) == id)
        #expect(try LivePhoto.movieInfo(movie).contentIdentifier == id)
        if MotionOracle.exiftoolPresent {
            let still = try await runTool("exiftool", ["-s3", "-Apple:ContentIdentifier", "-Apple:MediaGroupUUID", report.still])
            let mov = try await runTool("exiftool", ["-s3", "-Keys:ContentIdentifier", movie])
            #expect(still.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == id)
            #expect(mov.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == id)
        }
        let decode = try await runTool("ffmpeg", ["-v", "error", "-i", movie, "-f", "null", "-"])
        #expect(decode.succeeded && decode.stderr.isEmpty, "ffmpeg: \(decode.stderr)")
        // the still is the movie's frame at the still-image time (encoding loss only)
        let key = try await MotionOracle.frame(movie, report.stillFrame)
        let still = try await MotionOracle.image(report.still)
        #expect(MotionOracle.psnr(key, still) > 34, "PSNR \(MotionOracle.psnr(key, still))")
        // key-photo moments aligned: 15 frames each, the same key frame -> 15 frames in all
        #expect(report.frames == 15 && abs(report.stillTime - 7.0 / 30) < 1e-6)
        // the still's frame is an IDR (a sync sample): the SPEC C3 check decodes from it, a player seeks to it at once
        let packets = try await runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                    "packet=pts_time,flags", "-of", "csv=p=0", movie]).stdout
        let keys = packets.split(separator: "\n").filter { $0.contains("K") }.compactMap { Double($0.split(separator: ",")[0]) }
        #expect(keys.contains { abs($0 - report.stillTime) < 0.002 } && keys.contains(0), "keyframes at \(keys)")
        // the edit starts at frame 0's presentation (after x265's B-frame delay): the movie lasts its frames, as the
        // report says (found by a sweep: 2 frames longer, the timeline shifted by them)
        let length = try await runTool("ffprobe", ["-v", "error", "-show_entries", "format=duration:stream=start_time",
                                                   "-select_streams", "v:0", "-of", "csv=p=0", movie]).stdout
        let numbers = length.split(whereSeparator: { !$0.isNumber && $0 != "." }).compactMap { Double($0) }
        #expect(numbers.count == 2 && numbers[0] == 0 && abs(numbers[1] - report.durationSeconds) < 0.001, "\(length)")
        #expect(abs(try VideoInfo.read(movie).durationSeconds - report.durationSeconds) < 0.001)
        #expect(report.cells.map(\.startSeconds) == [0, 0, 0, nil], "starts \(report.cells.map(\.startSeconds))")
        let first = try await MotionOracle.frame(movie, 0), last = try await MotionOracle.frame(movie, report.frames - 1)
        for cell in report.cells {
            let moved = MotionOracle.difference(first, last, width: report.width, cell: cell)
            if cell.live { #expect(moved > 6, "cell \(cell.index) moved \(moved)") }
            else { #expect(moved < 2, "static cell \(cell.index) changed \(moved)") }
        }
    }

    @Test("relay with a real iPhone pair: one sound track with each cell's turn, duration = sum, no location in the still")
    func relayReal() async throws {
        let heic = Paths.corpus.appendingPathComponent("real/iphone15plus_IMG_3853.HEIC").path
        guard FileManager.default.fileExists(atPath: heic) else { return } // corpus absent: nothing to read
        let dir = try TempDir("motion-relay")
        defer { dir.remove() }
        let live = try Self.pairs(dir, count: 1)
        var request = Self.request([heic, live[0].still], dir, mode: .relay)
        request.inputs[0].movie = Paths.corpus.appendingPathComponent("real/iphone15plus_IMG_3853.MOV").path
        let report = try await MovingCollage.export(request)
        #expect(report.delivered == .live && report.caption == "长按会依次动起来，带声音")
        // ONE track, as a camera's Live movie has (a sweep found one per cell: ffmpeg, VLC and Android play one
        // track, i.e. the first turn only): both turns' sound on it, the movie's length
        #expect(report.audioTracks == 1 && report.audioCodec == "mp4a")
        #expect(abs(report.durationSeconds - (1.4 + 0.5)) < 0.05, "duration \(report.durationSeconds)")
        let movie = try #require(report.movie)
        #expect(try await MotionOracle.streams(movie).filter { $0 == "audio" }.count == 1)
        let audio = try await runTool("ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries",
                                                  "stream=start_time,duration", "-of", "csv=p=0", movie])
        let times = audio.stdout.split(whereSeparator: { $0 == "," || $0 == "\n" }).compactMap { Double($0) }
        #expect(times.count == 2 && abs(times[0]) < 0.01 && abs(times[1] - report.durationSeconds) <= 1.0 / 30,
                "audio start, duration \(times)")
        let pcm = try await runTool("ffmpeg", ["-v", "error", "-i", movie, "-map", "0:a:0", "-ac", "1", "-ar", "44100",
                                               "-f", "f32le", "-"])
        let samples = pcm.stdoutData.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        func rms(_ from: Double, _ to: Double) -> Double {
            let a = Int(from * 44100), b = min(Int(to * 44100), samples.count)
            guard b > a else { return 0 }
            return (samples[a..<b].reduce(0.0) { $0 + Double($1) * Double($1) } / Double(b - a)).squareRoot()
        }
        #expect(rms(1.5, 1.85) > 0.01, "the second cell's turn is silent: \(rms(1.5, 1.85))") // the sample's tone
        // each cell's clip starts when the one before it ends: the iPhone movie's 1.4 s, then the sample
        let clipStarts = report.cells.map(\.startSeconds)
        #expect(clipStarts.count == 2 && clipStarts[0] == 0 && abs((clipStarts[1] ?? -1) - 1.4) < 0.02, "\(clipStarts)")
        if MotionOracle.exiftoolPresent {
            let gps = try await runTool("exiftool", ["-s3", "-gps:all", report.still])
            #expect(gps.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "GPS: \(gps.stdout)")
        }
    }

    @Test("relay of silent Live photos: no sound track, and the caption promises none")
    func silentRelay() async throws {
        let dir = try TempDir("motion-relay-silent")
        defer { dir.remove() }
        let live = try Self.pairs(dir, count: 2, sound: false)
        let report = try await MovingCollage.export(Self.request(live.map(\.still), dir, mode: .relay))
        #expect(report.delivered == .live && report.audioTracks == 0)
        #expect(report.caption == "长按会依次动起来", "\(report.caption)")
        #expect(try await MotionOracle.streams(try #require(report.movie)).contains("audio") == false)
    }

    @Test("focus: the middle frames show the hero filling the frame, then the collage comes back")
    func focus() async throws {
        let dir = try TempDir("motion-focus")
        defer { dir.remove() }
        let live = try Self.pairs(dir, count: 2, frames: 30)
        var request = Self.request(live.map(\.still), dir, mode: .focus)
        request.hero = 1
        request.background = [0, 0, 0]
        let report = try await MovingCollage.export(request)
        #expect(report.delivered == .live && report.hero == 1 && report.caption == "长按会放大主角，播完回到拼图")
        // only the hero plays: after the hold and the zoom in
        #expect(report.cells[0].startSeconds == nil && (report.cells[1].startSeconds ?? 0) > 0.4)
        let movie = try #require(report.movie)
        let still = try await MotionOracle.image(report.still)
        let middle = try await MotionOracle.frame(movie, report.frames / 2)
        let end = try await MotionOracle.frame(movie, report.frames - 1)
        let w = report.width
        // the black margin is gone while the hero fills the frame, and back at the end
        #expect(MotionOracle.mean(middle, width: w, x: 0, y: 0, w: w, h: 4) > 30)
        #expect(MotionOracle.mean(end, width: w, x: 0, y: 0, w: w, h: 4) < 10)
        // the hero's view is its cell cropped to the canvas's aspect (centred): compare the
        // frame with that part of each cell in the still (cells are shaped to their photos)
        func band(_ c: MovingCollageReport.Cell) -> (x: Int, y: Int, w: Int, h: Int) {
            let aspect = Double(w) / Double(report.height)
            if Double(c.width) / Double(c.height) > aspect {
                let bw = Int(Double(c.height) * aspect)
                return (c.x + (c.width - bw) / 2, c.y, bw, c.height)
            }
            let bh = Int(Double(c.width) / aspect)
            return (c.x, c.y + (c.height - bh) / 2, c.width, bh)
        }
        let hero = band(report.cells[1]), other = band(report.cells[0])
        let frameMean = MotionOracle.mean(middle, width: w, x: 0, y: 0, w: w, h: report.height)
        let heroMean = MotionOracle.mean(still, width: w, x: hero.x, y: hero.y, w: hero.w, h: hero.h)
        let otherMean = MotionOracle.mean(still, width: w, x: other.x, y: other.y, w: other.w, h: other.h)
        #expect(abs(frameMean - heroMean) < abs(frameMean - otherMean), "\(frameMean) \(heroMean) \(otherMean)")
        #expect(report.audioTracks == 1)
    }

    @Test("C11 wired: two identical moving exports run once and share the report; a different one runs after")
    func oneSaveAtATime() async throws {
        let dir = try TempDir("motion-queue")
        defer { dir.remove() }
        let live = try Self.pairs(dir, count: 2, frames: 8)
        let a = Self.request(live.map(\.still), dir, mode: .together, tier: .still)
        var elsewhere = a
        elsewhere.directory = dir.file("other") // where it is written is not part of "the same request"
        var different = a
        different.mode = .relay
        different.name = "relay"
        let before = await MovingCollage.queue.jobsStarted
        async let first = MovingCollage.exportOneAtATime(a)
        async let second = MovingCollage.exportOneAtATime(elsewhere)
        async let third = MovingCollage.exportOneAtATime(different)
        let (r1, r2, r3) = try await (first, second, third)
        let started = await MovingCollage.queue.jobsStarted - before
        #expect(r1 == r2, "the joiner gets the running save's report")
        #expect(r3.still != r1.still)
        // the identical pair ran once, the different request once more (only this test uses the queue)
        #expect(started == 2, "jobs started: \(started)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("other")), "the joiner's folder is not written")
    }

    @Test("video tier: MP4 with no identifier plus its poster still")
    func video() async throws {
        let dir = try TempDir("motion-video")
        defer { dir.remove() }
        let live = try Self.pairs(dir, count: 2)
        let report = try await MovingCollage.export(Self.request(live.map(\.still), dir, mode: .relay, tier: .video))
        #expect(report.delivered == .video && report.caption.isEmpty && report.contentIdentifier == nil)
        let movie = try #require(report.movie)
        #expect(movie.hasSuffix(".mp4"))
        #expect(try LivePhoto.stillIdentifier(report.still) == nil)
        #expect(try LivePhoto.movieInfo(movie).contentIdentifier == nil)
        let decode = try await runTool("ffmpeg", ["-v", "error", "-i", movie, "-f", "null", "-"])
        #expect(decode.succeeded && decode.stderr.isEmpty)
    }

    @Test("video tier relay: one AAC-LC track; the tone heard in each turn is that cell's, in layout order (SPEC C1)")
    func relaySoundInLayoutOrder() async throws {
        let dir = try TempDir("motion-relay-aac")
        defer { dir.remove() }
        // sample pair i sounds 262 Hz x (1 + i/4) (sy_sample_write_live: seed 3000 + i), 0.5 s each
        let live = try Self.pairs(dir, count: 3)
        let tones = (0..<3).map { 262.0 * (1 + Double($0) / 4) }
        let report = try await MovingCollage.export(Self.request(live.map(\.still), dir, mode: .relay, tier: .video))
        #expect(report.delivered == .video && report.audioTracks == 1 && report.audioCodec == "mp4a")
        #expect(report.audioSampleRate == 44100 && report.audioChannels == 1 && report.audioBitrate == 96_000)
        let movie = try #require(report.movie)
        let probe = try await runTool("ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries",
                                                  "stream=codec_name,channels,sample_rate,duration", "-of", "csv=p=0", movie])
        let fields = probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").map(String.init)
        #expect(fields.count == 4 && fields[0] == "aac" && fields[1] == "44100" && fields[2] == "1", "\(probe.stdout)")
        let duration = fields.count == 4 ? Double(fields[3]) ?? 0 : 0
        #expect(abs(duration - report.durationSeconds) <= 1.0 / 30, "sound \(duration) s, movie \(report.durationSeconds) s")
        let decode = try await runTool("ffmpeg", ["-v", "error", "-i", movie, "-f", "null", "-"])
        #expect(decode.succeeded && decode.stderr.isEmpty, "ffmpeg: \(decode.stderr)")
        let pcm = try await runTool("ffmpeg", ["-v", "error", "-i", movie, "-map", "0:a:0", "-ac", "1", "-ar", "44100",
                                               "-f", "f32le", "-"])
        let samples = pcm.stdoutData.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        /// Goertzel power of `f` Hz over samples [from, to).
        func power(_ f: Double, _ from: Int, _ to: Int) -> Double {
            let c = 2 * cos(2 * Double.pi * f / 44100)
            var s1 = 0.0, s2 = 0.0
            for i in from..<min(to, samples.count) { (s1, s2) = (Double(samples[i]) + c * s1 - s2, s1) }
            return s1 * s1 + s2 * s2 - c * s1 * s2
        }
        let order = report.cells.filter(\.live).sorted { ($0.y, $0.x) < ($1.y, $1.x) }
        #expect(order.count == 3)
        for (turn, cell) in order.enumerated() { // the middle of each 0.5 s turn
            let from = Int((Double(turn) * 0.5 + 0.1) * 44100), to = Int((Double(turn) * 0.5 + 0.4) * 44100)
            let powers = tones.map { power($0, from, to) }
            let loudest = powers.indices.max { powers[$0] < powers[$1] }
            #expect(loudest == cell.index, "turn \(turn): cell \(cell.index) expected, powers \(powers)")
            for k in powers.indices where k != cell.index {
                #expect(powers[cell.index] > 100 * powers[k], "turn \(turn): \(tones[k]) Hz too loud: \(powers)")
            }
        }
    }

    @Test("video tier focus: the AAC track sounds the hero's tone while it plays, silence during the hold")
    func focusSoundIsTheHero() async throws {
        let dir = try TempDir("motion-focus-aac")
        defer { dir.remove() }
        let live = try Self.pairs(dir, count: 2)
        var request = Self.request(live.map(\.still), dir, mode: .focus, tier: .video)
        request.hero = 1
        let report = try await MovingCollage.export(request)
        #expect(report.delivered == .video && report.hero == 1 && report.audioTracks == 1 && report.audioCodec == "mp4a")
        let movie = try #require(report.movie)
        let pcm = try await runTool("ffmpeg", ["-v", "error", "-i", movie, "-map", "0:a:0", "-ac", "1", "-ar", "44100",
                                               "-f", "f32le", "-"])
        #expect(pcm.succeeded && pcm.stderr.isEmpty, "ffmpeg: \(pcm.stderr)")
        let samples = pcm.stdoutData.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        func rms(_ a: Double, _ b: Double) -> Double {
            let slice = samples[min(Int(a * 44100), samples.count)..<min(Int(b * 44100), samples.count)]
            return (slice.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(slice.count, 1))).squareRoot()
        }
        func power(_ f: Double, _ a: Double, _ b: Double) -> Double {
            let c = 2 * cos(2 * Double.pi * f / 44100)
            var s1 = 0.0, s2 = 0.0
            for i in Int(a * 44100)..<min(Int(b * 44100), samples.count) { (s1, s2) = (Double(samples[i]) + c * s1 - s2, s1) }
            return s1 * s1 + s2 * s2 - c * s1 * s2
        }
        // hold 0.4 s, zoom in, the hero's 0.5 s, zoom out (motion_timeline.c)
        let zoom = (report.durationSeconds - 0.4 - 0.5) / 2, play = 0.4 + zoom
        #expect(rms(0, 0.35) < 1e-3, "silence during the hold: rms \(rms(0, 0.35))")
        #expect(rms(play + 0.1, play + 0.4) > 0.05, "the hero sounds: rms \(rms(play + 0.1, play + 0.4))")
        let hero = power(262 * 1.25, play + 0.1, play + 0.4), other = power(262, play + 0.1, play + 0.4)
        #expect(hero > 100 * other, "the hero's 327.5 Hz, not cell 0's 262 Hz: \(hero) vs \(other)")
    }

    @Test("SPEC C5: no Live cell -> a still, no movie")
    func noLiveCell() async throws {
        let dir = try TempDir("motion-c5")
        defer { dir.remove() }
        let plain = try SamplePhotos.write(count: 2, seed: 4, width: 320, height: 240, to: dir.file("in"))
        let report = try await MovingCollage.export(Self.request(plain, dir))
        #expect(report.delivered == .still && report.movie == nil && report.fallbackReason?.contains("C5") == true)
        #expect(!FileManager.default.fileExists(atPath: dir.file("out/collage.mov")))
        #expect(try LivePhoto.stillIdentifier(report.still) == nil)
    }

    @Test("SPEC C6: an unreadable movie leaves its cell static; none readable -> a still")
    func unreadableMovies() async throws {
        let dir = try TempDir("motion-c6")
        defer { dir.remove() }
        let live = try Self.pairs(dir, count: 2)
        try Data("not a movie".utf8).write(to: URL(fileURLWithPath: live[1].movie))
        let one = try await MovingCollage.export(Self.request(live.map(\.still), dir))
        #expect(one.delivered == .live && one.staticCells == [1] && one.cells[1].reason != nil)
        try Data("not a movie either".utf8).write(to: URL(fileURLWithPath: live[0].movie))
        var again = Self.request(live.map(\.still), dir)
        again.name = "none"
        let none = try await MovingCollage.export(again)
        #expect(none.delivered == .still && none.fallbackReason?.contains("C6") == true && none.movie == nil)
        #expect(!FileManager.default.fileExists(atPath: dir.file("out/none.mov")))
    }

    @Test("SPEC E6: a key photo's gain map the still cannot keep is refused without consent (nothing written); with allowSDR dropped")
    func hdrConsent() async throws {
        let apple = Paths.corpus.appendingPathComponent("gainmap/apple_gainmap_new.jpg")
        guard let bytes = try? Data(contentsOf: apple) else { return } // corpus absent: nothing to read
        let dir = try TempDir("motion-e6")
        defer { dir.remove() }
        let live = try Self.pairs(dir, count: 1)
        let cut = dir.file("cut.jpg") // the map's MPF image one byte short: the photo reads, its map does not
        try bytes.prefix(bytes.count - 1).write(to: URL(fileURLWithPath: cut))
        var request = Self.request([cut, live[0].still], dir)
        do {
            _ = try await MovingCollage.export(request)
            Issue.record("exported without consent")
        } catch let error as ShiyingError {
            #expect(error.code == .unsupported && error.message.contains("cut.jpg"), "\(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: request.stillPath))
        #expect(!FileManager.default.fileExists(atPath: try #require(request.moviePath)))
        request.allowSDR = true
        let report = try await MovingCollage.export(request)
        #expect(report.delivered == .live && report.gainMap == "dropped", "\(report.gainMap)")
    }

    @Test("SPEC C4: a pair failing verification becomes a plain still, identifier removed, movie deleted")
    func failingPair() async throws {
        let dir = try TempDir("motion-c4")
        defer { dir.remove() }
        let live = try Self.pairs(dir, count: 2)
        let breakMovie = MovingCollage.PairHook { _, movie in
            try? Data("truncated".utf8).write(to: URL(fileURLWithPath: movie))
        }
        let report = try MovingCollage.export(Self.request(live.map(\.still), dir), progress: nil, cancel: nil,
                                              beforeVerify: breakMovie)
        #expect(report.delivered == .still && report.movie == nil && report.contentIdentifier == nil)
        #expect(report.fallbackReason?.contains("verification") == true)
        #expect(!FileManager.default.fileExists(atPath: dir.file("out/collage.mov")))
        #expect(try LivePhoto.stillIdentifier(report.still) == nil)
        if MotionOracle.exiftoolPresent {
            let left = try await runTool("exiftool", ["-s3", "-Apple:ContentIdentifier", "-Apple:MediaGroupUUID", report.still])
            #expect(left.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
        }
    }

    @Test("memory: the engine peak does not grow with the movies' length")
    func memoryIndependentOfDuration() async throws {
        let dir = try TempDir("motion-memory")
        defer { dir.remove() }
        var peaks: [UInt64] = []
        for (n, frames) in [15, 90].enumerated() {
            let live = try SampleLivePhotos.write(count: 2, seed: 7, width: 128, height: 160, frames: frames,
                                                  to: dir.file("in\(n)"))
            var request = Self.request(live.map(\.still), dir, tier: .video)
            request.name = "m\(n)"
            let report = try await MovingCollage.export(request)
            #expect(report.frames == frames)
            peaks.append(report.enginePeakBytes)
        }
        #expect(peaks[1] <= peaks[0] + peaks[0] / 20, "peaks \(peaks) (15 vs 90 frames)")
        #expect(peaks[1] < 96 << 20, "peak \(peaks[1]) bytes (x265 and libavcodec estimates included)")
    }

    @Test("cancellation stops the export and leaves no file")
    func cancellation() async throws {
        let dir = try TempDir("motion-cancel")
        defer { dir.remove() }
        let live = try Self.pairs(dir, count: 2, frames: 300, sound: false)
        let request = Self.request(live.map(\.still), dir)
        // Cancelled at its first encoded frame, not after a sleep: a fast
        // machine finishes the export before any fixed delay.
        let gate = CancelAtFirstFrame()
        let task = Task {
            try await MovingCollage.export(request, progress: { p in if p.phase == "frames" { gate.fire() } })
        }
        gate.arm(task)
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        #expect(!FileManager.default.fileExists(atPath: dir.file("out/collage.mov")))
        #expect(!FileManager.default.fileExists(atPath: dir.file("out/collage.jpg")))
    }

    @Test("CLI: --motion/--export with an explicit --live pair; the JSON line has the report's fields")
    func cli() async throws {
        let dir = try TempDir("motion-cli")
        defer { dir.remove() }
        let live = try Self.pairs(dir, count: 2)
        let explicit = dir.file("pair")
        try FileManager.default.createDirectory(atPath: explicit, withIntermediateDirectories: true)
        let renamed = (still: explicit + "/key.jpg", movie: explicit + "/clip.mov") // no same stem: explicit only
        try FileManager.default.moveItem(atPath: live[1].still, toPath: renamed.still)
        try FileManager.default.moveItem(atPath: live[1].movie, toPath: renamed.movie)
        let run = try await CLI.run(["collage", "--layout", "grid", "--width", "320", "--motion", "relay", "--export",
                                     "live", "--preset", "ultrafast", "--json", "-o", dir.file("out"),
                                     "--live", renamed.still, renamed.movie, live[0].still])
        #expect(run.succeeded, "\(run)")
        let line = try #require(run.lastLine)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        for key in ["delivered", "fallback_reason", "caption", "static_cells", "grey_cells", "still", "movie",
                    "content_identifier", "frames", "duration_seconds", "seconds", "peak_rss_delta_bytes"] {
            #expect(json[key] != nil, "missing \(key) in \(line)")
        }
        #expect(json["delivered"] as? String == "live")
        #expect((json["live_cells"] as? [Int]) == [0, 1])
        // relay: the explicit pair (first) from 0, the other after its 15 frames
        let clipStarts = try #require(json["cell_starts"] as? [Double])
        #expect(clipStarts.count == 2 && clipStarts[0] == 0 && abs(clipStarts[1] - 0.5) < 1e-6, "\(clipStarts)")
        #expect(json["caption"] as? String == "长按会依次动起来，带声音")
        #expect(run.stderr.contains("frames"), "progress on stderr")
    }
}

/// Cancels a task the first time `fire` is called, whether that comes before
/// or after the task is armed.
private final class CancelAtFirstFrame: @unchecked Sendable {
    private let lock = NSLock()
    private var task: Task<MovingCollageReport, Error>?
    private var fired = false

    func arm(_ task: Task<MovingCollageReport, Error>) {
        lock.lock()
        self.task = task
        let cancelNow = fired
        lock.unlock()
        if cancelNow { task.cancel() }
    }

    func fire() {
        lock.lock()
        let first = !fired
        fired = true
        let task = self.task
        lock.unlock()
        if first { task?.cancel() }
    }
}
