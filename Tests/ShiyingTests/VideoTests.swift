// Video: the export bitrate rule (SPEC C14) and `shiying video info` over the
// sy_mov demuxer, checked against ffprobe and exiftool.
import Foundation
import Shiying
import Testing

@Suite("Video bitrate (SPEC C14)")
struct VideoBitrateTests {
    // SPEC C14: 12 Mbps × (W×H)/(1080×1440), at least 12 Mbps, at most 64 Mbps.
    @Test("bitrate table", arguments: [
        (1080, 1440, 12_000_000),  // the reference size
        (1440, 1080, 12_000_000),  // landscape: same pixel count
        (720, 960, 12_000_000),    // below the reference: the floor
        (2160, 2880, 48_000_000),  // 4x the pixels
        (4320, 5760, 64_000_000),  // 16x the pixels: the cap
        (1920, 1440, 21_333_333),  // 21.333… M, rounded to the nearest bit per second
        (1920, 1080, 16_000_000),  // 1080p: 2,073,600 / 1,555,200 × 12 M
        (3840, 2160, 64_000_000),  // 4K UHD: 64 M exactly at 8,294,400 px
        (1, 1, 12_000_000),
    ])
    func table(width: Int, height: Int, expected: Int) {
        #expect(VideoBitrate.bitsPerSecond(width: width, height: height) == expected, "\(width)x\(height)")
    }

    // SPEC C14: an unknown (zero or negative) size falls back to the 12 Mbps floor, as documented.
    @Test func unknownSizesGiveTheFloor() {
        for (w, h) in [(0, 0), (0, 1440), (1080, 0), (-1080, 1440), (-4320, -5760)] {
            #expect(VideoBitrate.bitsPerSecond(width: w, height: h) == 12_000_000, "\(w)x\(h)")
        }
    }

    // SPEC C14: huge sizes (even an overflowing product) stay at the cap.
    @Test func hugeSizesGiveTheCap() {
        #expect(VideoBitrate.bitsPerSecond(width: Int.max, height: Int.max) == 64_000_000)
        #expect(VideoBitrate.bitsPerSecond(width: 100_000, height: 100_000) == 64_000_000)
    }

    // SPEC C14: never below 12 M or above 64 M, and monotonic in the pixel count.
    @Test func boundedAndMonotonic() {
        var last = 0
        for side in stride(from: 100, through: 6000, by: 50) {
            let rate = VideoBitrate.bitsPerSecond(width: side, height: side)
            #expect((12_000_000...64_000_000).contains(rate))
            #expect(rate >= last)
            last = rate
        }
    }
}

/// The `video info --json` report (the CLI's contract: snake_case keys).
struct VideoJSON: Decodable, Sendable {
    struct Track: Decodable, Sendable {
        var id: Int
        var handler: String
        var codec: String
        var enabled: Bool
        var width: Int
        var height: Int
        var rotation: Int
        var displayWidth: Int
        var displayHeight: Int
        var timescale: Int
        var durationSeconds: Double
        var sampleCount: Int
        var keyframeCount: Int
        var frameRate: Double?
        var channels: Int?
        var sampleRate: Double?
        var mebxKeys: [String]
    }
    struct Item: Decodable, Sendable {
        var key: String
        var dataType: Int
        var value: String?
        var byteCount: Int
    }
    var brand: String
    var durationSeconds: Double
    var tracks: [Track]
    var mainVideoTrackId: Int?
    var metadata: [Item]

    var mainTrack: Track? { tracks.first { $0.id == mainVideoTrackId } }
    func value(_ key: String) -> String? { metadata.first { $0.key == key }?.value }

    static func parse(_ line: String) throws -> VideoJSON {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(VideoJSON.self, from: Data(line.utf8))
    }
}

@Suite("Video info")
struct VideoInfoTests {
    static let contentIdentifierKey = "com.apple.quicktime.content.identifier"

    /// 2 s of 320x240 HEVC ('hvc1') at 30 fps + AAC, with a content identifier, as the brief's ffmpeg line writes it.
    static func makeMovie(in dir: TempDir) async throws -> String {
        let out = dir.file("out.mov")
        let run = try await runTool("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-f", "lavfi", "-i", "sine=frequency=440",
            "-t", "2", "-c:v", "libx265", "-x265-params", "log-level=error", "-tag:v", "hvc1", "-c:a", "aac",
            "-movflags", "use_metadata_tags", "-metadata", "\(contentIdentifierKey)=ABCD-1234", out,
        ])
        guard run.succeeded else { throw TestFailure("ffmpeg failed: \(run)") }
        return out
    }

    /// ffprobe's view of the first video stream.
    struct Probe: Decodable { var streams: [Stream]
        struct Stream: Decodable {
            var codec_tag_string: String
            var width: Int
            var height: Int
            var r_frame_rate: String
            var nb_read_packets: String
        }
    }

    static func ffprobe(_ path: String) async throws -> Probe.Stream {
        let run = try await runTool("ffprobe", ["-v", "error", "-count_packets", "-select_streams", "v",
                                                "-show_entries", "stream=nb_read_packets,codec_tag_string,width,height,r_frame_rate",
                                                "-of", "json", path])
        guard run.succeeded, let stream = try JSONDecoder().decode(Probe.self, from: run.stdoutData).streams.first else {
            throw TestFailure("ffprobe failed: \(run)")
        }
        return stream
    }

    @Test func ffmpegMovieMatchesFFprobe() async throws {
        let dir = try TempDir("video")
        defer { dir.remove() }
        let movie = try await Self.makeMovie(in: dir)
        let result = try await CLI.run(["video", "info", movie, "--json"])
        try #require(result.succeeded, "\(result)")
        let json = try VideoJSON.parse(try #require(result.lastLine))
        let probe = try await Self.ffprobe(movie)
        let video = try #require(json.mainTrack, "no main video track")
        #expect(video.handler == "vide")
        #expect(video.codec == "hvc1" && video.codec == probe.codec_tag_string)
        #expect(video.width == 320 && video.height == 240)
        #expect(video.width == probe.width && video.height == probe.height)
        #expect(video.displayWidth == 320 && video.displayHeight == 240 && video.rotation == 0)
        #expect(video.sampleCount == 60 && String(video.sampleCount) == probe.nb_read_packets)
        #expect(video.keyframeCount >= 1 && video.keyframeCount <= video.sampleCount)
        let rate = try #require(video.frameRate)
        let parts = probe.r_frame_rate.split(separator: "/").compactMap { Double($0) }
        #expect(parts.count == 2 && abs(rate - parts[0] / parts[1]) < 0.01, "\(rate) vs \(probe.r_frame_rate)")
        #expect(abs(video.durationSeconds - 2) < 0.01)
        #expect(json.brand == "qt  ")
        #expect(abs(json.durationSeconds - 2) < 0.1)
        let audio = try #require(json.tracks.first { $0.handler == "soun" })
        #expect(audio.codec == "mp4a")
        #expect(audio.channels == 1 && audio.sampleRate == 44100)
        #expect(audio.frameRate == nil)
        #expect(json.value(Self.contentIdentifierKey) == "ABCD-1234")
        let item = try #require(json.metadata.first { $0.key == Self.contentIdentifierKey })
        #expect(item.dataType == 1 && item.byteCount == 9)

        // The facade gives the same answer as the CLI.
        let info = try VideoInfo.read(movie)
        #expect(info.mainVideoTrack?.codec == "hvc1")
        #expect(info.metadataValue(Self.contentIdentifierKey) == "ABCD-1234")

        let text = try await CLI.run(["video", "info", movie])
        #expect(text.succeeded && text.stdout.contains("hvc1 320x240"), "\(text)")
    }

    @Test(.enabled(if: Paths.corpusAvailable, "../shared/corpus is not present next to the package"))
    func iPhoneLivePhotoMovie() async throws {
        let movie = Paths.corpus.appendingPathComponent("real/iphone15plus_IMG_3853.MOV").path
        try #require(FileManager.default.fileExists(atPath: movie))
        let result = try await CLI.run(["video", "info", "--json", movie])
        try #require(result.succeeded, "\(result)")
        let json = try VideoJSON.parse(try #require(result.lastLine))
        let main = try #require(json.mainTrack)
        #expect(main.codec == "hvc1" && main.width == 1920 && main.height == 1440)
        let exif = try await runTool("exiftool", ["-s3", "-ContentIdentifier", movie])
        let expected = exif.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!expected.isEmpty)
        #expect(json.value(Self.contentIdentifierKey) == expected)
        let probe = try await Self.ffprobe(movie)
        #expect(String(main.sampleCount) == probe.nb_read_packets)
        // Live photo movies carry the still-image-time key in a timed-metadata track.
        #expect(json.tracks.contains { $0.mebxKeys.contains("com.apple.quicktime.still-image-time") })
    }

    @Test func truncatedMovieFailsNamingTheFile() async throws {
        let dir = try TempDir("video-bad")
        defer { dir.remove() }
        let movie = try await Self.makeMovie(in: dir)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: movie))
        let truncated = dir.file("truncated.mov")
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: truncated))
        let result = try await CLI.run(["video", "info", truncated, "--json"])
        #expect(result.exitedNormally && result.status == 1, "\(result)")
        #expect(result.stderr.contains(truncated), "\(result)")
        #expect(throws: ShiyingError.self) { try VideoInfo.read(truncated) }
        do {
            _ = try VideoInfo.read(truncated)
        } catch let error as ShiyingError {
            #expect(error.file == truncated && error.message.contains(truncated))
        }
    }

    // ffmpeg's `-map 0 -c copy` of a Live movie (how a user trims or remuxes one) writes the timed-metadata
    // track with a sample description of one entry and no bytes. The movie was unreadable as a whole ("stsd
    // declares 1 entries but holds 0 bytes"); the picture and sound are whole, so it is read without that track's
    // sample entry, and made into a Live photo. A damaged video sample description still fails.
    @Test func ffmpegCopyWithADamagedMetadataTrackIsRead() async throws {
        let dir = try TempDir("video-mebx-copy")
        defer { dir.remove() }
        let made = try await CLI.run(["sample-photos", "--live", "--count", "1", "--width", "360", "--height", "480",
                                      "--frames", "30", "-o", dir.path])
        #expect(made.succeeded, "\(made)")
        let copy = dir.file("copy.mov")
        #expect(try await runTool("ffmpeg", ["-v", "error", "-y", "-i", dir.file("LIVE_0001.MOV"), "-map", "0",
                                            "-c", "copy", copy]).succeeded)
        let info = try await CLI.run(["video", "info", copy, "--json"])
        #expect(info.succeeded && info.stdout.contains("hvc1"), "\(info)")
        let live = try await CLI.run(["convert", "--to", "live", copy, "-o", dir.file("live")])
        #expect(live.succeeded, "\(live)")
        // The same damage in the video track's sample description is refused, naming the file.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: copy)))
        let stsd = Array("stsd".utf8)
        let at = try #require((0...(bytes.count - 12)).first { Array(bytes[$0..<$0 + 4]) == stsd })
        bytes[at + 8..<at + 12] = [0, 0, 0, 200] // entry count 200 in the first (video) track's stsd
        let damaged = dir.file("damaged.mov")
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))
        let refused = try await CLI.run(["video", "info", damaged])
        #expect(refused.status == 1 && refused.stderr.contains(damaged) && refused.stderr.contains("stsd"), "\(refused)")
    }

    @Test func textFileFailsNamingTheFile() async throws {
        let dir = try TempDir("video-text")
        defer { dir.remove() }
        for (name, text) in [("short.txt", "hello\n"),
                             ("notes.mov", "This is not a movie, just some plain text.\nSecond line.\n")] {
            let path = dir.file(name)
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            let result = try await CLI.run(["video", "info", path])
            #expect(result.exitedNormally && result.status == 1, "\(result)")
            #expect(result.stderr.contains(path), "\(result)")
        }
        let missing = dir.file("missing.mov")
        let result = try await CLI.run(["video", "info", missing])
        #expect(result.status == 1 && result.stderr.contains(missing), "\(result)")
    }

    @Test func usageErrors() async throws {
        let result = try await CLI.run(["video", "frames", "x.mov"])
        #expect(result.exitedNormally && result.status == 2, "\(result)")
        let none = try await CLI.run(["video", "info"])
        #expect(none.exitedNormally && none.status == 2, "\(none)")
    }
}
