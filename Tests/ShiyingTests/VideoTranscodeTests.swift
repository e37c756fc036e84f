// `shiying video transcode` (issue 4): decode → shared frame path → x265 at the
// SPEC C14 bitrate → our muxer, proven with ffprobe, ffmpeg (full decode, PSNR,
// packet hashes) and exiftool. Fixtures are made by ffmpeg's lavfi sources.
import Foundation
import Shiying
import ShiyingFixtures
import Testing

private let hasFFmpeg = FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")
    && FileManager.default.isExecutableFile(atPath: "/usr/bin/ffprobe")

/// Source movies made once per test run (shared by the tests of this suite).
private enum Sources {
    static let identifierKey = "com.apple.quicktime.content.identifier"

    /// 640x480 HEVC with B-frames + AAC, 1.5 s at 30 fps, with an mdta content identifier.
    static func hevcWithAAC(_ dir: TempDir, seconds: Double = 1.5, name: String = "src.mov",
                            extra: [String] = []) async throws -> String {
        let out = dir.file(name)
        try await ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=640x480:rate=30", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
            "-t", String(seconds), "-c:v", "libx265", "-preset", "fast",
            "-x265-params", "log-level=error:bframes=3:keyint=30", "-b:v", "4M",
            "-tag:v", "hvc1", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "96k",
            "-movflags", "use_metadata_tags", "-metadata", "\(identifierKey)=3C1E5A7B-0000-4D41-8B9A-F0AF1103A2DC",
        ] + extra + [out])
        return out
    }

    /// Debian's ffmpeg 5.1 cannot write a display matrix, so the first `tkhd`
    /// (the video track's) gets the iPhone portrait matrix {0 1 0, -1 0 0, h 0 1}
    /// in place: stored landscape, shown turned 90° clockwise.
    static func setDisplayMatrixToPortrait(_ path: String, codedHeight: Int) throws {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let type = bytes.range(of: Data("tkhd".utf8)) else { throw TestFailure("\(path): no tkhd") }
        let matrixStart = type.lowerBound - 4 + 48 // v0 tkhd: header 8 + fields 40, then the matrix
        let matrix: [UInt32] = [0, 0x10000, 0, 0xFFFF_0000, 0, 0, UInt32(codedHeight) << 16, 0, 0x4000_0000]
        var raw = Data()
        for v in matrix { withUnsafeBytes(of: v.bigEndian) { raw.append(contentsOf: $0) } }
        bytes.replaceSubrange(matrixStart..<matrixStart + 36, with: raw)
        try bytes.write(to: URL(fileURLWithPath: path))
    }

    static func ffmpeg(_ args: [String]) async throws {
        let run = try await runTool("ffmpeg", ["-y", "-v", "error"] + args, timeout: 300)
        guard run.succeeded else { throw TestFailure("ffmpeg \(args.joined(separator: " ")): \(run)") }
    }
}

/// ffprobe's view of one stream.
private struct StreamProbe: Decodable {
    var codec_name: String
    var codec_tag_string: String
    var width: Int?
    var height: Int?
    var r_frame_rate: String
    var nb_read_packets: String?
    var color_range: String?
    var duration: String?

    var frameRate: Double {
        let p = r_frame_rate.split(separator: "/").compactMap { Double($0) }
        return p.count == 2 && p[1] != 0 ? p[0] / p[1] : 0
    }
}

private func probe(_ path: String, _ select: String) async throws -> StreamProbe {
    struct Root: Decodable { var streams: [StreamProbe] }
    let run = try await runTool("ffprobe", ["-v", "error", "-count_packets", "-select_streams", select, "-show_entries",
                                            "stream=codec_name,codec_tag_string,width,height,r_frame_rate,nb_read_packets,color_range,duration",
                                            "-of", "json", path])
    guard run.succeeded, let s = try JSONDecoder().decode(Root.self, from: run.stdoutData).streams.first else {
        throw TestFailure("ffprobe \(path): \(run)")
    }
    return s
}

private func majorBrand(_ path: String) async throws -> String {
    let run = try await runTool("ffprobe", ["-v", "error", "-show_entries", "format_tags=major_brand", "-of",
                                            "default=nw=1:nk=1", path])
    return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
}

/// Mean PSNR (dB) of `test` against `reference`, frame by frame (ffmpeg's psnr filter; both autorotated):
/// the luma plane's and the average over Y, U and V.
private func psnrValues(_ test: String, _ reference: String) async throws -> (y: Double, average: Double) {
    let run = try await runTool("ffmpeg", ["-v", "info", "-nostats", "-i", test, "-i", reference, "-lavfi",
                                           "[0:v][1:v]psnr", "-f", "null", "-"], timeout: 300)
    guard run.succeeded, let line = run.stderr.split(separator: "\n").last(where: { $0.contains("PSNR") }) else {
        throw TestFailure("psnr: \(run)")
    }
    func value(_ key: String) throws -> Double {
        guard let range = line.range(of: key) else { throw TestFailure("psnr: no \(key) in \(line)") }
        let text = line[range.upperBound...].prefix { !$0.isWhitespace }
        if text == "inf" { return .infinity }
        guard let db = Double(text) else { throw TestFailure("psnr: cannot read \(line)") }
        return db
    }
    return (try value(" y:"), try value("average:"))
}

private func psnr(_ test: String, _ reference: String) async throws -> Double {
    try await psnrValues(test, reference).average
}

/// Per-packet (size, MD5) of the first audio stream, as ffmpeg's framemd5 muxer reports them.
private func audioPacketHashes(_ path: String) async throws -> [String] {
    let run = try await runTool("ffmpeg", ["-v", "error", "-i", path, "-map", "0:a:0", "-c", "copy", "-f", "framemd5", "-"])
    guard run.succeeded else { throw TestFailure("framemd5 \(path): \(run)") }
    return run.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
        let f = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        return f.count >= 6 ? "\(f[4]) \(f[5])" : String(line)
    }
}

/// MD5 of every audio packet's bytes in order (ffmpeg's md5 muxer over a stream copy).
private func audioStreamHash(_ path: String) async throws -> String {
    let run = try await runTool("ffmpeg", ["-v", "error", "-i", path, "-map", "0:a:0", "-c", "copy", "-f", "md5", "-"])
    guard run.succeeded, run.stdout.hasPrefix("MD5=") else { throw TestFailure("md5 \(path): \(run)") }
    return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
}

private func transcode(_ input: String, _ output: String, _ extra: [String] = []) async throws -> VideoTranscode.Report {
    let result = try await CLI.run(["video", "transcode", input, "-o", output, "--json"] + extra, timeout: 600)
    guard result.succeeded, let line = result.lastLine else { throw TestFailure("transcode: \(result)") }
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase   // the CLI's JSON contract
    return try decoder.decode(VideoTranscode.Report.self, from: Data(line.utf8))
}

@Suite("Video transcode", .enabled(if: hasFFmpeg, "ffmpeg/ffprobe are not installed (make deps)"))
struct VideoTranscodeTests {
    // Issue 4 proof: ffprobe reads our .mov as hevc/hvc1 at the right size, rate,
    // duration and frame count; ffmpeg decodes every frame without error; PSNR
    // ≥ 38 dB; the AAC packets are byte-identical; the mdta key survives.
    @Test func hevcMovieWithAudio() async throws {
        let dir = try TempDir("transcode")
        defer { dir.remove() }
        let source = try await Sources.hevcWithAAC(dir)
        let output = dir.file("out.mov")
        let report = try await transcode(source, output)
        #expect(report.width == 640 && report.height == 480 && report.frames == 45)
        #expect(report.bitrate == VideoBitrate.bitsPerSecond(width: 640, height: 480)) // SPEC C14: the 12 Mbps floor
        #expect(report.audioCodec == "mp4a" && report.audioSamples > 0)

        let v = try await probe(output, "v:0")
        #expect(v.codec_name == "hevc" && v.codec_tag_string == "hvc1")
        #expect(v.width == 640 && v.height == 480)
        #expect(abs(v.frameRate - 30) < 0.01, "\(v.r_frame_rate)")
        #expect(v.nb_read_packets == "45")
        #expect(abs((Double(v.duration ?? "") ?? 0) - 1.5) < 0.01, "\(v.duration ?? "-")")
        #expect(try await majorBrand(output) == "qt")

        let decode = try await runTool("ffmpeg", ["-v", "error", "-i", output, "-f", "null", "-"])
        #expect(decode.succeeded && decode.stderr.isEmpty, "\(decode)")
        let db = try await psnr(output, source)
        #expect(db >= 38, "PSNR \(db) dB")

        let ours = try await audioPacketHashes(output), theirs = try await audioPacketHashes(source)
        #expect(!theirs.isEmpty && ours == theirs, "audio packets differ: \(ours.count) vs \(theirs.count)")

        let keys = try await runTool("exiftool", ["-s3", "-Keys:ContentIdentifier", output])
        #expect(keys.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "3C1E5A7B-0000-4D41-8B9A-F0AF1103A2DC")
        // Our own demuxer reads it back: one video, one audio track.
        let info = try VideoInfo.read(output)
        #expect(info.mainVideoTrack?.codec == "hvc1" && info.tracks.contains { $0.handler == "soun" })
    }

    // .mp4 output: brand isom, same stream shape.
    @Test func mp4Container() async throws {
        let dir = try TempDir("transcode-mp4")
        defer { dir.remove() }
        let source = try await Sources.hevcWithAAC(dir, seconds: 1)
        let output = dir.file("out.mp4")
        let report = try await transcode(source, output, ["--no-audio"])
        #expect(report.frames == 30 && report.audioCodec == nil)
        #expect(try await majorBrand(output) == "isom")
        let v = try await probe(output, "v:0")
        #expect(v.codec_tag_string == "hvc1" && v.nb_read_packets == "30")
        let audio = try await runTool("ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries",
                                                  "stream=index", "-of", "csv=p=0", output])
        #expect(audio.succeeded && audio.stdout.isEmpty, "--no-audio wrote audio: \(audio)")
    }

    // Found by a fidelity sweep (2026-12-06): LPCM sound was copied into an ISO MP4, which ffmpeg's own MP4
    // muxer refuses and Android does not play. An .mp4 gets AAC-LC, of the sound's length; a .mov keeps LPCM.
    @Test func lpcmSoundInAnMP4IsAAC() async throws {
        let dir = try TempDir("transcode-mp4-lpcm")
        defer { dir.remove() }
        let made = try await CLI.run(["sample-photos", "--live", "--count", "1", "-o", dir.path])
        #expect(made.succeeded, "\(made)")
        let source = dir.file("LIVE_0001.MOV")
        let sourceAudio = try await probe(source, "a:0")
        try #require(sourceAudio.codec_name.hasPrefix("pcm_"), "the sample Live movie's sound: \(sourceAudio.codec_name)")
        let mp4 = dir.file("out.mp4"), mov = dir.file("out.mov")
        let report = try await transcode(source, mp4)
        #expect(report.audioCodec == "mp4a", "\(report.audioCodec ?? "none")")
        let a = try await probe(mp4, "a:0")
        #expect(a.codec_name == "aac", "\(a.codec_name)")
        let length = { (p: StreamProbe) in Double(p.duration ?? "") ?? 0 }
        #expect(abs(length(a) - length(sourceAudio)) < 0.05, "sound \(a.duration ?? "-") s vs \(sourceAudio.duration ?? "-") s")
        let decode = try await runTool("ffmpeg", ["-v", "error", "-i", mp4, "-f", "null", "-"])
        #expect(decode.succeeded && decode.stderr.isEmpty, "\(decode)")
        _ = try await transcode(source, mov)
        #expect(try await probe(mov, "a:0").codec_name.hasPrefix("pcm_"), "a .mov keeps LPCM")
    }

    // Issue 4: a source stored landscape with a 90° matrix comes out upright
    // (pixels turned, identity matrix) and matches ffmpeg's autorotated decode.
    @Test func rotatedSourceComesOutUpright() async throws {
        let dir = try TempDir("transcode-rot")
        defer { dir.remove() }
        let source = try await Sources.hevcWithAAC(dir, seconds: 1)
        try Sources.setDisplayMatrixToPortrait(source, codedHeight: 480)
        let info = try VideoInfo.read(source)
        try #require(info.mainVideoTrack?.rotation == 90, "fixture is not rotated: \(String(describing: info.mainVideoTrack))")
        let output = dir.file("upright.mov")
        let report = try await transcode(source, output)
        #expect(report.width == 480 && report.height == 640 && report.sourceRotation == 90)
        let out = try VideoInfo.read(output)
        #expect(out.mainVideoTrack?.rotation == 0 && out.mainVideoTrack?.width == 480)
        // ffmpeg autorotates the reference by transposing its 4:2:0 planes, which
        // moves where its chroma samples sit; ours are re-sampled from upright
        // RGB. So luma carries the proof (48 dB measured), chroma only a floor.
        let db = try await psnrValues(output, source)
        #expect(db.y >= 38 && db.average >= 33, "PSNR y \(db.y), average \(db.average) dB against the autorotated source")
    }

    // H.264 in (libavcodec), HEVC out.
    @Test func h264Source() async throws {
        let dir = try TempDir("transcode-avc")
        defer { dir.remove() }
        let source = dir.file("avc.mov")
        try await Sources.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=480x360:rate=25", "-t", "1", "-c:v", "libx264",
                                  "-preset", "fast", "-bf", "2", "-b:v", "3M", "-pix_fmt", "yuv420p", source])
        let output = dir.file("hevc.mov")
        let report = try await transcode(source, output)
        #expect(report.sourceCodec == "avc1" && report.frames == 25)
        let v = try await probe(output, "v:0")
        #expect(v.codec_name == "hevc" && abs(v.frameRate - 25) < 0.01)
        let db = try await psnr(output, source)
        #expect(db >= 38, "PSNR \(db) dB")
    }

    // Issue 4: other codecs get a clear error naming the codec; nothing is
    // written and an existing output file survives.
    @Test func unsupportedCodecLeavesTheOutputAlone() async throws {
        let dir = try TempDir("transcode-bad")
        defer { dir.remove() }
        let source = dir.file("mpeg4.mov")
        try await Sources.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "0.5", "-c:v", "mpeg4", source])
        let output = dir.file("out.mov")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: output))
        let result = try await CLI.run(["video", "transcode", source, "-o", output, "--json"])
        #expect(result.exitedNormally && result.status != 0, "\(result)")
        #expect(result.stderr.contains("unsupported codec mp4v") && result.stderr.contains(source), "\(result.stderr)")
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "keep me")
        #expect(dir.contents() == ["mpeg4.mov", "out.mov"], "left behind: \(dir.contents())")

        let truncated = dir.file("truncated.mov")
        let whole = try Data(contentsOf: URL(fileURLWithPath: try await Sources.hevcWithAAC(dir, seconds: 1, name: "whole.mov")))
        try whole.prefix(whole.count * 2 / 3).write(to: URL(fileURLWithPath: truncated))
        let cut = try await CLI.run(["video", "transcode", truncated, "-o", dir.file("cut.mov")])
        #expect(cut.exitedNormally && cut.status != 0 && cut.stderr.contains(truncated), "\(cut)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("cut.mov")))
    }

    // Issue 4 memory: the engine holds a bounded number of frames — a movie
    // three times longer has the same engine peak (within one frame's worth).
    @Test func memoryDoesNotGrowWithLength() async throws {
        let dir = try TempDir("transcode-mem")
        defer { dir.remove() }
        let short = try await Sources.hevcWithAAC(dir, seconds: 1, name: "short.mov")
        let long = try await Sources.hevcWithAAC(dir, seconds: 3, name: "long.mov")
        let a = try VideoTranscode.runBlocking(short, to: dir.file("a.mov"), options: .init(preset: "ultrafast"))
        let b = try VideoTranscode.runBlocking(long, to: dir.file("b.mov"), options: .init(preset: "ultrafast"))
        #expect(a.frames == 30 && b.frames == 90)
        let frameBytes = UInt64(640 * 480 * 3)
        #expect(b.enginePeakBytes <= a.enginePeakBytes + frameBytes,
                "peak \(a.enginePeakBytes) B for 1 s vs \(b.enginePeakBytes) B for 3 s")
    }

    // The real iPhone Live movie (landscape HEVC 1920x1440, full range, LPCM
    // audio, mebx tracks) → 1920x1440 HEVC at the SPEC C14 rate, LPCM copied.
    @Test(.enabled(if: Paths.corpusAvailable, "../shared/corpus is not present next to the package"))
    func iPhoneLiveMovie() async throws {
        let dir = try TempDir("transcode-iphone")
        defer { dir.remove() }
        let source = Paths.corpus.appendingPathComponent("real/iphone15plus_IMG_3853.MOV").path
        let output = dir.file("live.mov")
        let report = try await transcode(source, output, ["--preset", "ultrafast"])
        let src = try VideoInfo.read(source)
        let main = try #require(src.mainVideoTrack)
        #expect(report.width == 1920 && report.height == 1440 && report.frames == main.sampleCount)
        #expect(report.bitrate == 21_333_333)
        #expect(report.audioCodec == src.tracks.first { $0.handler == "soun" }?.codec)
        // LPCM: ffmpeg cuts PCM into packets by chunk, so the proof is the whole stream's bytes.
        let ours = try await audioStreamHash(output), theirs = try await audioStreamHash(source)
        #expect(ours == theirs, "LPCM bytes differ: \(ours) vs \(theirs)")
        let decode = try await runTool("ffmpeg", ["-v", "error", "-i", output, "-f", "null", "-"])
        #expect(decode.succeeded && decode.stderr.isEmpty, "\(decode)")
        let db = try await psnr(output, source)
        #expect(db >= 35, "PSNR \(db) dB")
    }

    // Found by a user-level sweep (2026-12-05): `compress` of a Live movie dropped its timed metadata, the
    // still-image time among it, so the smaller copy no longer paired with its still (SPEC C3).
    @Test("compress of a Live movie keeps its timed metadata: the copy still pairs with the still")
    func compressedLiveMoviePairs() async throws {
        let dir = try TempDir("compress-live")
        defer { dir.remove() }
        let pair = try #require(try SampleLivePhotos.write(count: 1, seed: 4, width: 160, height: 120, frames: 30,
                                                           to: dir.file("in")).first)
        let out = dir.file("small.mov")
        let report = try Compression.compressBlocking(pair.movie, to: out, movie: true,
                                                      options: Compression.Options(videoBitrate: 200_000))
        #expect(report.compressedBytes < report.originalBytes)
        #expect(report.video?.dropped.contains { $0.name == "timed-metadata" } == false, "\(String(describing: report.video?.dropped))")
        let check = try await CLI.run(["live", "validate", pair.still, out, "--json"])
        #expect(check.succeeded, "the compressed Live movie no longer pairs: \(check)")
    }
}
