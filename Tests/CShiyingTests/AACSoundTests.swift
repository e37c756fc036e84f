// Issues 17 and 19: sound an .mp4 carries as AAC-LC (audio/sy_audio.h). A
// Live pair's LPCM sound becomes AAC in the Motion Photo's embedded MP4
// (Android's MediaExtractor does not play LPCM in MP4); AAC is copied.
// Proof from outside: ffprobe reads aac with the source's channels, rate and
// length; ffmpeg decodes it without a message; decoded by ffmpeg, the AAC
// matches the source PCM (SNR, after finding the lag — which must be zero:
// the edit list hides the encoder's priming) and starts with the video.
import CShiying
import CShiyingFixtures
import Foundation
import Testing

enum AACOracle {
    /// The first audio stream decoded by ffmpeg to mono float at `rate`.
    static func pcm(_ path: String, rate: Int) throws -> [Float] {
        let out = path + ".f32"
        try ExternalTools.check("ffmpeg", ["-v", "error", "-y", "-i", path, "-map", "0:a:0", "-ac", "1", "-ar", "\(rate)",
                                           "-f", "f32le", out])
        let bytes = ExternalTools.readFile(out)
        unlink(out)
        return bytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// ffprobe's fields of one stream ("a:0", "v:0") as a dictionary.
    static func stream(_ path: String, _ select: String, _ fields: String) throws -> [String: String] {
        let text = try ExternalTools.check("ffprobe", ["-v", "error", "-select_streams", select, "-show_entries",
                                                       "stream=" + fields, "-of", "default=nw=1", path])
        var out: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let kv = line.split(separator: "=", maxSplits: 1).map(String.init)
            if kv.count == 2 { out[kv[0]] = kv[1] }
        }
        return out
    }

    /// The lag (in samples, within ±`search`) that best lines `test` up with
    /// `reference` — the least squared difference on an 8192-sample window in
    /// the middle (a tone's correlation peaks every period; the difference also
    /// sees its swell) — and the SNR in dB over the whole overlap at that lag
    /// (the first and last 1024 samples left out: the codec's edges).
    static func snr(_ reference: [Float], _ test: [Float], search: Int = 1100) -> (db: Double, lag: Int) {
        let n = min(reference.count, test.count)
        let window = min(8192, n / 2), from = max(search, (n - window) / 2)
        var best = (error: Double.infinity, lag: 0)
        reference.withUnsafeBufferPointer { r in
            test.withUnsafeBufferPointer { t in
                for lag in -search...search {
                    var error = 0.0
                    for i in from..<(from + window) {
                        let j = i + lag
                        let d = Double(r[i]) - (j >= 0 && j < t.count ? Double(t[j]) : 0)
                        error += d * d
                    }
                    if error < best.error { best = (error, lag) }
                }
            }
        }
        var signal = 0.0, noise = 0.0
        for i in 1024..<(n - 1024) where i + best.lag >= 0 && i + best.lag < test.count {
            let s = Double(reference[i]), d = s - Double(test[i + best.lag])
            signal += s * s
            noise += d * d
        }
        return (10 * log10(signal / max(noise, 1e-30)), best.lag)
    }
}

@Suite("AAC sound in MP4 (issues 17, 19)", .enabled(if: MotionPhotoFixtures.hasTools, "ffmpeg/exiftool not installed (make deps)"))
struct AACSoundTests {
    static func convert(_ still: String, _ movie: String, _ out: String) throws -> sy_motion_photo_report {
        let ctx = try Context()
        var r = sy_motion_photo_report()
        var err = sy_error()
        try #require(sy_motion_photo_from_live(ctx.raw, still, movie, out, nil, &r, &err) == SY_OK, "\(message(err))")
        return r
    }

    static func embedded(_ path: String, _ r: sy_motion_photo_report) throws -> String {
        let bytes = ExternalTools.readFile(path)
        let out = path + ".embedded.mp4"
        try ExternalTools.writeFile(out, Array(bytes[Int(r.movie_offset)..<Int(r.movie_offset + r.movie_length)]))
        return out
    }

    /// The checks every LPCM -> AAC Motion Photo passes; returns the SNR.
    static func checkAAC(source movie: String, embedded mp4: String, rate: Int, channels: Int) throws -> Double {
        let a = try AACOracle.stream(mp4, "a:0", "codec_name,profile,channels,sample_rate,duration,start_time")
        let v = try AACOracle.stream(mp4, "v:0", "start_time")
        let src = try AACOracle.stream(movie, "a:0", "codec_name,duration")
        #expect(a["codec_name"] == "aac" && a["profile"] == "LC", "\(a)")
        #expect(a["channels"] == "\(channels)" && a["sample_rate"] == "\(rate)", "\(a)")
        #expect(src["codec_name"]?.hasPrefix("pcm_") == true, "the source is LPCM: \(src)")
        // the length of the source's sound, to the millisecond of the .mp4's movie timescale
        let duration = Double(a["duration"] ?? "") ?? -1, srcDuration = Double(src["duration"] ?? "") ?? -2
        #expect(abs(duration - srcDuration) <= 0.0011, "aac \(duration) s vs source \(srcDuration) s")
        // in sync: the first audio sample is presented with the first frame
        let aStart = Double(a["start_time"] ?? "") ?? -1, vStart = Double(v["start_time"] ?? "") ?? -2
        #expect(abs(aStart - vStart) < 0.0005, "audio starts at \(aStart) s, video at \(vStart) s")
        let decode = try ExternalTools.run("ffmpeg", ["-v", "error", "-i", mp4, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.err.isEmpty, "ffmpeg: \(decode.err)")
        let reference = try AACOracle.pcm(movie, rate: rate), decoded = try AACOracle.pcm(mp4, rate: rate)
        // ffmpeg drops the priming (the edit's media time) but decodes the last block's padding too
        #expect(decoded.count >= reference.count && decoded.count < reference.count + 1024,
                "decoded \(decoded.count) samples, source \(reference.count)")
        let (db, lag) = AACOracle.snr(reference, decoded)
        print("AAC vs source PCM (\(movie)): SNR \(String(format: "%.1f", db)) dB at lag \(lag)")
        #expect(lag == 0, "the priming is hidden: lag \(lag) samples")
        #expect(db >= 20, "SNR \(db) dB")
        return db
    }

    @Test("a generated Live pair's LPCM tone becomes AAC-LC in the Motion Photo: ffprobe, silent decode, SNR, sync, same bytes twice")
    func generated() throws {
        let dir = try MotionPhotoFixtures.fresh("aac-generated")
        let still = dir + "/IMG.JPG", movie = dir + "/IMG.MOV"
        let ctx = try Context()
        var o = sy_sample_live_options()
        sy_sample_live_options_init(&o)
        o.seed = 3
        o.frames = 45
        var err = sy_error()
        try #require(sy_sample_write_live(ctx.raw, &o, still, movie, &err) == SY_OK, "\(message(err))")
        let r = try Self.convert(still, movie, dir + "/MP.jpg")
        #expect(r.movie.audio_codec == fourcc("mp4a"))
        let mp4 = try Self.embedded(dir + "/MP.jpg", r)
        _ = try Self.checkAAC(source: movie, embedded: mp4, rate: 44100, channels: 1)
        // deterministic: a second conversion writes the same bytes
        let again = try Self.convert(still, movie, dir + "/MP2.jpg")
        #expect(again.movie_length == r.movie_length)
        #expect(ExternalTools.readFile(dir + "/MP2.jpg") == ExternalTools.readFile(dir + "/MP.jpg"))
        // ~96 kb/s for the mono tone: a seventh of LPCM's 705.6 kb/s
        let bytes = try ExternalTools.check("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries",
                                                        "stream=bit_rate", "-of", "csv=p=0", mp4])
        let bitrate = Int(bytes.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        print("AAC mono 44.1 kHz: \(bitrate) b/s")
        #expect(bitrate > 48_000 && bitrate < 130_000, "bit rate \(bitrate)")
    }

    @Test("memory: encoding the sound does not grow with its length (1 s vs 8 s); libavcodec's encoder is charged")
    func memoryIndependentOfLength() throws {
        var peaks: [UInt64] = []
        for (n, frames) in [30, 240].enumerated() {
            let dir = try MotionPhotoFixtures.fresh("aac-memory-\(n)")
            let still = dir + "/IMG.JPG", movie = dir + "/IMG.MOV"
            let ctx = try Context()
            var o = sy_sample_live_options()
            sy_sample_live_options_init(&o)
            o.width = 64
            o.height = 96
            o.frames = UInt32(frames)
            var err = sy_error()
            try #require(sy_sample_write_live(ctx.raw, &o, still, movie, &err) == SY_OK, "\(message(err))")
            let run = try Context()
            var r = sy_motion_photo_report()
            try #require(sy_motion_photo_from_live(run.raw, still, movie, dir + "/MP.jpg", nil, &r, &err) == SY_OK,
                         "\(message(err))")
            #expect(r.movie.audio_codec == fourcc("mp4a"))
            var stats = sy_memory_stats()
            sy_context_memory_stats(run.raw, &stats)
            peaks.append(stats.peak_bytes)
        }
        print("Motion Photo with AAC, engine peak: \(peaks) bytes (1 s, 8 s of sound)")
        #expect(peaks[0] >= 2 << 20, "the encoder's 2 MiB estimate is charged: \(peaks)")
        // the video's presentation times (8 bytes a frame) are all that may grow
        #expect(peaks[1] <= peaks[0] + 64 << 10, "peaks \(peaks)")
    }

    @Test("the real iPhone 15 Plus Live pair (LPCM 44.1 kHz mono) -> Motion Photo with AAC sound")
    func realIPhone() throws {
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/corpus/real").path
        let still = corpus + "/iphone15plus_IMG_3853.HEIC", movie = corpus + "/iphone15plus_IMG_3853.MOV"
        guard FileManager.default.fileExists(atPath: movie) else { return } // corpus absent: nothing to read
        let dir = try MotionPhotoFixtures.fresh("aac-iphone")
        let r = try Self.convert(still, movie, dir + "/MP.heic")
        #expect(r.movie.audio_codec == fourcc("mp4a"))
        _ = try Self.checkAAC(source: movie, embedded: try Self.embedded(dir + "/MP.heic", r), rate: 44100, channels: 1)
    }

    @Test("AAC sound is copied, not re-encoded: Motion Photo -> Live -> Motion Photo keeps the AAC packets")
    func aacCopied() throws {
        let dir = try MotionPhotoFixtures.fresh("aac-copied")
        let still = dir + "/IMG.JPG", movie = dir + "/IMG.MOV"
        let ctx = try Context()
        var o = sy_sample_live_options()
        sy_sample_live_options_init(&o)
        o.seed = 5
        var err = sy_error()
        try #require(sy_sample_write_live(ctx.raw, &o, still, movie, &err) == SY_OK, "\(message(err))")
        let first = try Self.convert(still, movie, dir + "/MP.jpg")
        // back to a Live pair: its movie carries the AAC copied from the Motion Photo
        var lr = sy_live_motion_report()
        try #require(sy_live_from_motion_photo(ctx.raw, dir + "/MP.jpg", dir + "/L.jpg", dir + "/L.mov", nil, &lr,
                                               &err) == SY_OK, "\(message(err))")
        #expect(try AACOracle.stream(dir + "/L.mov", "a:0", "codec_name")["codec_name"] == "aac")
        let second = try Self.convert(dir + "/L.jpg", dir + "/L.mov", dir + "/MP2.jpg")
        #expect(second.movie.audio_codec == fourcc("mp4a"))
        let packets = { (path: String) throws -> String in
            try ExternalTools.check("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries",
                                                "packet=size,duration", "-of", "csv=p=0", path])
        }
        let a = try packets(Self.embedded(dir + "/MP.jpg", first)), b = try packets(Self.embedded(dir + "/MP2.jpg", second))
        #expect(!a.isEmpty && a == b, "the AAC access units are the same")
    }
}
