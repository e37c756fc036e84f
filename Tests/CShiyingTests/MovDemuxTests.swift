// The QuickTime/MP4 demuxer (sy_mov_*, over the bounded BMFF cursor) called
// directly: the real iPhone Live Photo movies of the corpus, ffmpeg-made
// HEVC/H.264 files with B-frames checked packet by packet against ffprobe,
// rotation against ffprobe's display matrix, mdta metadata against exiftool,
// and truncated / corrupted files. Issue 4 (video I/O, demux part).
import CShiying
import Foundation
import Testing

// MARK: - Helpers

private enum MovPaths {
    /// Package root: Tests/CShiyingTests/MovDemuxTests.swift → ../../
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let corpus = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")
    static func real(_ name: String) -> String { corpus.appendingPathComponent("real/\(name)").path }
    static let iphone = real("iphone15plus_IMG_3853.MOV")
    static let paired = real("h264_live_pairedVideo.mov")
    static var hasIphone: Bool { FileManager.default.fileExists(atPath: iphone) }
    static var hasPaired: Bool { FileManager.default.fileExists(atPath: paired) }
    static var hasFFmpeg: Bool { ExternalTools.installed("ffmpeg", "ffprobe") }
    static var hasExiftool: Bool { ExternalTools.installed("exiftool") }
}

/// One ffprobe packet of the selected stream.
private struct Packet: Equatable {
    var pts: Int64, dts: Int64, size: Int, pos: UInt64, key: Bool
}

/// `ffprobe -show_packets -select_streams <sel>` as (pts, dts, size, pos, key).
private func ffprobePackets(_ path: String, select: String) throws -> [Packet] {
    let out = try ExternalTools.check("ffprobe", ["-v", "error", "-select_streams", select, "-show_entries",
                                      "packet=pts,dts,size,pos,flags", "-of", "csv=p=0", path])
    return out.split(separator: "\n").compactMap { line in
        let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard f.count >= 5, let pts = Int64(f[0]), let dts = Int64(f[1]), let size = Int(f[2]),
              let pos = UInt64(f[3]) else { return nil }
        return Packet(pts: pts, dts: dts, size: size, pos: pos, key: f[4].hasPrefix("K"))
    }
}

/// ffprobe's display-matrix rotation (counter-clockwise degrees), 0 when absent.
private func ffprobeRotation(_ path: String) throws -> Int {
    let out = try ExternalTools.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                      "stream_side_data=rotation", "-of", "csv=p=0", path])
    let numbers = out.split(whereSeparator: { !"-0123456789".contains($0) }).compactMap { Int($0) }
    return numbers.first ?? 0
}

private func exiftoolContentIdentifier(_ path: String) throws -> String {
    try ExternalTools.check("exiftool", ["-s3", "-ContentIdentifier", path]).trimmingCharacters(in: .whitespacesAndNewlines)
}

private struct OpenFailure: Error {
    let status: sy_status
    let message: String
}

/// An open sy_mov plus its context; closed on deinit.
private final class Mov {
    let ctx: Context
    let raw: OpaquePointer

    static func open(_ path: String, budget: Int = 256 << 20) throws -> Result<Mov, OpenFailure> {
        let ctx = try Context(budget: budget)
        var mov: OpaquePointer?
        var err = sy_error()
        let status = sy_mov_open(ctx.raw, path, &mov, &err)
        if status == SY_OK, let mov { return .success(Mov(ctx: ctx, raw: mov)) }
        #expect(mov == nil, "no handle on failure")
        #expect(ctx.stats.current_bytes == 0, "a failed open frees everything")
        return .failure(OpenFailure(status: status, message: message(err)))
    }

    static func mustOpen(_ path: String) throws -> Mov {
        switch try open(path) {
        case .success(let m): return m
        case .failure(let f): throw CTestFailure("sy_mov_open \(path): \(f.status) \(f.message)")
        }
    }

    private init(ctx: Context, raw: OpaquePointer) {
        self.ctx = ctx
        self.raw = raw
    }

    deinit {
        sy_mov_close(raw)
        #expect(ctx.stats.current_bytes == 0, "sy_mov_close frees everything")
    }

    var info: sy_mov_info { sy_mov_info_get(raw)!.pointee }
    var trackCount: Int { Int(sy_mov_track_count(raw)) }
    func track(_ i: Int) -> sy_mov_track_info { sy_mov_track(raw, UInt32(i))!.pointee }
    var tracks: [sy_mov_track_info] { (0..<trackCount).map { track($0) } }

    func sample(_ t: Int, _ i: Int) throws -> sy_mov_sample_info {
        var s = sy_mov_sample_info()
        var err = sy_error()
        let st = sy_mov_sample(raw, UInt32(t), UInt32(i), &s, &err)
        guard st == SY_OK else { throw CTestFailure("sy_mov_sample(\(t), \(i)): \(st) \(message(err))") }
        return s
    }

    func keyframes(_ t: Int) throws -> [UInt32] {
        var list: UnsafePointer<UInt32>?
        var count: UInt32 = 0
        var err = sy_error()
        let st = sy_mov_keyframes(raw, UInt32(t), &list, &count, &err)
        guard st == SY_OK else { throw CTestFailure("sy_mov_keyframes: \(message(err))") }
        guard let list else { return [] }
        return Array(UnsafeBufferPointer(start: list, count: Int(count)))
    }

    var metadata: [(key: String, type: UInt32, value: [UInt8])] {
        (0..<sy_mov_metadata_count(raw)).map { i in
            var key: UnsafePointer<CChar>?
            var type: UInt32 = 0
            var value: UnsafePointer<UInt8>?
            var len = 0
            _ = sy_mov_metadata_at(raw, i, &key, &type, &value, &len)
            let bytes = value.map { Array(UnsafeBufferPointer(start: $0, count: len)) } ?? []
            return (String(cString: key!), type, bytes)
        }
    }

    func metadataString(_ key: String) -> String? {
        let i = sy_mov_metadata_find(raw, key)
        guard i >= 0 else { return nil }
        let item = metadata[Int(i)]
        return String(decoding: item.value, as: UTF8.self)
    }

    func mebxKeys(_ t: Int) -> [(id: UInt32, name: String, datatype: UInt32)] {
        (0..<sy_mov_mebx_key_count(raw, UInt32(t))).map { k in
            let key = sy_mov_mebx_key_at(raw, UInt32(t), k)!.pointee
            return (key.local_id, String(cString: key.name), key.datatype)
        }
    }

    var mainVideo: Int? {
        let i = sy_mov_main_video_track(raw)
        return i >= 0 ? Int(i) : nil
    }
}

/// Every sample of track `t` compared with ffprobe's packets: count, size,
/// position, keyframe flag, pts (ffprobe applies the single edit's media time)
/// and dts up to one constant shift (ffmpeg moves dts so that pts >= dts).
private func compareWithFFprobe(_ mov: Mov, track t: Int, path: String, select: String = "v:0") throws {
    let packets = try ffprobePackets(path, select: select)
    let info = mov.track(t)
    #expect(Int(info.sample_count) == packets.count, "\(path): sample count")
    let shift = info.edit_count == 1 ? info.edit_media_time : 0
    var dtsShift: Int64?
    let keys = Set(try mov.keyframes(t))
    for (i, p) in packets.enumerated() where i < Int(info.sample_count) {
        let s = try mov.sample(t, i)
        #expect(Int(s.size) == p.size, "\(path) sample \(i) size")
        #expect(s.offset == p.pos, "\(path) sample \(i) offset")
        #expect((s.sync != 0) == p.key, "\(path) sample \(i) keyframe flag")
        #expect(info.all_sync != 0 || keys.contains(UInt32(i)) == p.key, "\(path) sample \(i) in keyframe list")
        #expect(s.pts - shift == p.pts, "\(path) sample \(i) pts \(s.pts) - \(shift) vs ffprobe \(p.pts)")
        let d = p.dts - s.dts
        if dtsShift == nil { dtsShift = d }
        #expect(d == dtsShift, "\(path) sample \(i) dts \(s.dts) vs ffprobe \(p.dts)")
    }
}

/// Files made once by ffmpeg (and exiftool for rotations) for all tests.
private enum Generated {
    static let folder: String = {
        let dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("shiying-mov-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }()

    static func path(_ name: String) -> String { folder + "/" + name }

    static let contentID = "5D7A1C2E-0B3F-4A61-9C8D-7E6F5A4B3C2D"

    /// name → nil when made, or the error.
    static let made: [String: String] = {
        var failures: [String: String] = [:]
        let src = ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-f", "lavfi", "-i", "sine"]
        let jobs: [(String, [String])] = [
            ("hevc.mov", src + ["-t", "2", "-c:v", "libx265", "-tag:v", "hvc1", "-x265-params",
                                "bframes=3:log-level=error", "-c:a", "aac"]),
            ("h264.mp4", src + ["-t", "2", "-c:v", "libx264", "-bf", "3", "-c:a", "aac"]),
            ("faststart.mp4", src + ["-t", "1", "-c:v", "libx264", "-bf", "2", "-c:a", "aac", "-movflags", "faststart"]),
            ("meta.mov", src + ["-t", "1", "-c:v", "libx264", "-c:a", "pcm_s16le", "-movflags", "use_metadata_tags",
                                "-metadata", "com.apple.quicktime.content.identifier=\(contentID)"]),
            ("rot.mp4", ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "1", "-c:v", "libx264",
                         "-metadata:s:v", "rotate=90"]),
        ]
        for (name, args) in jobs {
            do { _ = try ExternalTools.check("ffmpeg", ["-v", "error", "-y"] + args + [path(name)]) } catch {
                failures[name] = "\(error)"
            }
        }
        /// ffmpeg 5.1 ignores `rotate` when encoding (and has no -display_rotation):
        /// exiftool writes the tkhd matrix instead.
        for degrees in [90, 180, 270] {
            let name = "rot\(degrees).mp4"
            do {
                try ExternalTools.writeFile(path(name), ExternalTools.readFile(path("rot.mp4")))
                _ = try ExternalTools.check("exiftool", ["-q", "-overwrite_original", "-Rotation=\(degrees)", path(name)])
            } catch { failures[name] = "\(error)" }
        }
        return failures
    }()

    static func need(_ name: String) throws -> String {
        if let failure = made[name] { throw CTestFailure("making \(name): \(failure)") }
        return path(name)
    }
}

// MARK: - Tests

@Suite struct MovDemuxTests {
    @Test(.enabled(if: MovPaths.hasIphone)) func iphoneLivePhotoMovie() throws {
        let mov = try Mov.mustOpen(MovPaths.iphone)
        let info = mov.info
        #expect(info.timescale == 600)
        #expect(info.major_brand == 0, "Apple's MOV starts with `wide`, no ftyp")
        #expect(mov.trackCount == 5)
        #expect(abs(info.duration_seconds - 1.4) < 0.01)
        let main = try #require(mov.mainVideo)
        let video = mov.track(main)
        #expect(video.handler == fourcc("vide") && video.codec == fourcc("hvc1"))
        #expect(video.width == 1920 && video.height == 1440)
        #expect(video.enabled == 1 && video.id == 1)
        #expect(video.timescale == 600 && video.sample_count == 42)
        var type: UInt32 = 0
        var len = 0
        let hvcc = sy_mov_codec_config(mov.raw, UInt32(main), &type, &len)
        #expect(hvcc != nil && type == fourcc("hvcC") && len > 23 && hvcc![0] == 1, "hvcC configurationVersion 1")
        // Every 'vide' track considered: the main one has the largest area.
        for t in mov.tracks where t.handler == fourcc("vide") && t.enabled != 0 {
            #expect(UInt64(t.width) * UInt64(t.height) <= 1920 * 1440)
        }

        let audio = try #require(mov.tracks.first { $0.handler == fourcc("soun") })
        #expect(audio.codec == fourcc("lpcm"))
        #expect(audio.channels == 1 && audio.sample_rate == 44100 && audio.bits_per_sample == 16)

        let mebx = (0..<mov.trackCount).filter { mov.track($0).codec == fourcc("mebx") }
        #expect(mebx.count == 3)
        let still = try #require(mebx.first { t in
            mov.mebxKeys(t).contains { $0.name == "com.apple.quicktime.still-image-time" }
        })
        let stillKeys = mov.mebxKeys(still)
        #expect(stillKeys.first?.id == 1 && stillKeys.first?.datatype == 65, "still-image-time: local id 1, int8")
        #expect(mov.track(still).sample_count == 1)
        // Apple's layout: an empty edit (media time -1) then the 1-tick sample.
        #expect(mov.track(still).edit_count == 2 && mov.track(still).edit_media_time == -1)
        var seg: UInt64 = 0
        var mt: Int64 = 0
        var rate: Int32 = 0
        var err = sy_error()
        #expect(sy_mov_edit(mov.raw, UInt32(still), 1, &seg, &mt, &rate, &err) == SY_OK && mt == 0 && rate == 0x10000)
        var buf = [UInt8](repeating: 0, count: 256)
        let sample = try mov.sample(still, 0)
        #expect(sy_mov_read_sample(mov.raw, UInt32(still), 0, &buf, buf.count, &len, &err) == SY_OK)
        #expect(len == Int(sample.size) && len >= 9)
        #expect(Array(buf[4..<8]) == [0, 0, 0, 1] && buf[8] == 0xFF, "first atom: key 1, value int8 -1")

        let id = try #require(mov.metadataString("com.apple.quicktime.content.identifier"))
        #expect(id.count == 36)
        if MovPaths.hasExiftool { #expect(id == (try exiftoolContentIdentifier(MovPaths.iphone))) }
        #expect(mov.metadataString("com.apple.quicktime.make") == "Apple")
        #expect(mov.metadata.first { $0.key == "com.apple.quicktime.content.identifier" }?.type == 1)
    }

    @Test(.enabled(if: MovPaths.hasIphone && MovPaths.hasFFmpeg)) func iphoneAgainstFFprobe() throws {
        let mov = try Mov.mustOpen(MovPaths.iphone)
        let main = try #require(mov.mainVideo)
        let expected = (360 - (try ffprobeRotation(MovPaths.iphone)) % 360) % 360
        #expect(Int(mov.track(main).rotation) == expected)
        try compareWithFFprobe(mov, track: main, path: MovPaths.iphone)
        // Sample bytes read by pread are the bytes at ffprobe's position.
        let first = try mov.sample(main, 0)
        var buf = [UInt8](repeating: 0, count: Int(first.size))
        var len = 0
        var err = sy_error()
        #expect(sy_mov_read_sample(mov.raw, UInt32(main), 0, &buf, buf.count, &len, &err) == SY_OK)
        let file = ExternalTools.readFile(MovPaths.iphone)
        #expect(buf == Array(file[Int(first.offset)..<Int(first.offset) + len]))
        // Too small a buffer: usage error with the size needed.
        var small = [UInt8](repeating: 0, count: 16)
        #expect(sy_mov_read_sample(mov.raw, UInt32(main), 0, &small, small.count, &len, &err) == SY_E_USAGE)
        #expect(len == Int(first.size))
    }

    @Test(.enabled(if: MovPaths.hasPaired)) func pairedH264Movie() throws {
        let mov = try Mov.mustOpen(MovPaths.paired)
        let main = try #require(mov.mainVideo)
        let video = mov.track(main)
        #expect(video.codec == fourcc("avc1") && video.width == 720 && video.height == 960)
        #expect(mov.info.major_brand == fourcc("qt  "))
        var type: UInt32 = 0
        var len = 0
        #expect(sy_mov_codec_config(mov.raw, UInt32(main), &type, &len) != nil && type == fourcc("avcC"))
        let still = try #require((0..<mov.trackCount).first { mov.track($0).codec == fourcc("mebx") })
        #expect(mov.mebxKeys(still).map(\.name) == ["com.apple.quicktime.still-image-time"])
        let id = try #require(mov.metadataString("com.apple.quicktime.content.identifier"))
        if MovPaths.hasExiftool { #expect(id == (try exiftoolContentIdentifier(MovPaths.paired))) }
        if MovPaths.hasFFmpeg {
            try compareWithFFprobe(mov, track: main, path: MovPaths.paired)
            let expected = (360 - (try ffprobeRotation(MovPaths.paired)) % 360) % 360
            #expect(Int(video.rotation) == expected)
        }
    }

    @Test(.enabled(if: MovPaths.hasFFmpeg), arguments: ["hevc.mov", "h264.mp4", "faststart.mp4"])
    func ffmpegFilesMatchFFprobe(_ name: String) throws {
        let path = try Generated.need(name)
        let mov = try Mov.mustOpen(path)
        let main = try #require(mov.mainVideo)
        let video = mov.track(main)
        #expect(video.codec == fourcc(name.hasPrefix("hevc") ? "hvc1" : "avc1"))
        #expect(video.width == 320 && video.height == 240 && video.rotation == 0)
        #expect(video.display_width == 320 && video.display_height == 240)
        #expect(video.all_sync == 0 && video.keyframe_count >= 1)
        try compareWithFFprobe(mov, track: main, path: path)
        // B-frames: some pts differ from dts (ctts present).
        let reordered = try (0..<Int(video.sample_count)).contains { try mov.sample(main, $0).pts != mov.sample(main, $0).dts }
        #expect(reordered, "B-frames give pts != dts")
        let audio = try #require(mov.tracks.firstIndex { $0.handler == fourcc("soun") })
        #expect(mov.track(audio).codec == fourcc("mp4a") && mov.track(audio).sample_rate == 44100)
        var type: UInt32 = 0
        var len = 0
        #expect(sy_mov_codec_config(mov.raw, UInt32(audio), &type, &len) != nil && type == fourcc("esds") && len > 0)
        try compareWithFFprobe(mov, track: audio, path: path, select: "a:0")
        // Random access after sequential access gives the same answers.
        let last = Int(video.sample_count) - 1
        let a = try mov.sample(main, last), b = try mov.sample(main, 0), c = try mov.sample(main, last)
        #expect(a.offset == c.offset && a.pts == c.pts && b.dts == 0)
    }

    @Test(.enabled(if: MovPaths.hasFFmpeg && MovPaths.hasExiftool), arguments: [90, 180, 270])
    func rotationFromMatrix(_ degrees: Int) throws {
        let path = try Generated.need("rot\(degrees).mp4")
        let mov = try Mov.mustOpen(path)
        let video = mov.track(try #require(mov.mainVideo))
        let ffprobe = try ffprobeRotation(path) // counter-clockwise
        #expect(Int(video.rotation) == degrees)
        #expect(Int(video.rotation) == (360 - ffprobe % 360) % 360, "ffprobe display matrix says \(ffprobe)")
        let swapped = degrees != 180
        #expect(video.display_width == (swapped ? 240 : 320) && video.display_height == (swapped ? 320 : 240))
        #expect(video.width == 320 && video.height == 240, "coded size unchanged")
        #expect(video.mirrored == 0)
    }

    @Test(.enabled(if: MovPaths.hasFFmpeg)) func ffmpegRotateTagAgreesWithFFprobe() throws {
        // Whatever this ffmpeg does with `-metadata:s:v rotate=90`, we agree with ffprobe.
        let path = try Generated.need("rot.mp4")
        let mov = try Mov.mustOpen(path)
        let video = mov.track(try #require(mov.mainVideo))
        #expect(Int(video.rotation) == (360 - (try ffprobeRotation(path)) % 360) % 360)
    }

    @Test(.enabled(if: MovPaths.hasFFmpeg)) func metadataWrittenByFFmpeg() throws {
        let path = try Generated.need("meta.mov")
        let mov = try Mov.mustOpen(path)
        #expect(mov.metadataString("com.apple.quicktime.content.identifier") == Generated.contentID)
        if MovPaths.hasExiftool { #expect(try exiftoolContentIdentifier(path) == Generated.contentID) }
        let audio = try #require(mov.tracks.first { $0.handler == fourcc("soun") })
        #expect(audio.codec == fourcc("sowt") || audio.codec == fourcc("lpcm"))
        #expect(audio.channels == 1 && audio.sample_rate == 44100)
        #expect(sy_mov_metadata_find(mov.raw, "no.such.key") == -1)
    }

    @Test(.enabled(if: MovPaths.hasFFmpeg)) func truncatedFilesFailClearly() throws {
        let path = try Generated.need("hevc.mov")
        let bytes = ExternalTools.readFile(path)
        let cut = Generated.path("cut-\(UUID().uuidString.prefix(8)).mov")
        defer { unlink(cut) }
        for keep in [0, 7, 100, bytes.count / 2, bytes.count - 100, bytes.count - 1] {
            try ExternalTools.writeFile(cut, Array(bytes[..<keep]))
            guard case .failure(let f) = try Mov.open(cut) else {
                Issue.record("a file cut to \(keep) of \(bytes.count) bytes opened")
                continue
            }
            #expect(f.status == SY_E_INVALID_INPUT, "\(keep): \(f.message)")
            #expect(f.message.hasPrefix(cut), "names the path: \(f.message)")
            #expect(f.message.contains("offset"), "names an offset: \(f.message)")
        }
        try ExternalTools.writeFile(cut, Array(bytes[..<(bytes.count / 2)]))
        if case .failure(let f) = try Mov.open(cut) { #expect(f.message.contains("truncated"), "\(f.message)") }
    }

    @Test(.enabled(if: MovPaths.hasFFmpeg)) func corruptedMoovFailsClearly() throws {
        let path = try Generated.need("faststart.mp4")
        let bytes = ExternalTools.readFile(path)
        let bad = Generated.path("bad-\(UUID().uuidString.prefix(8)).mp4")
        defer { unlink(bad) }
        func variant(_ edit: (inout [UInt8]) -> Void) throws -> Result<Mov, OpenFailure> {
            var copy = bytes
            edit(&copy)
            try ExternalTools.writeFile(bad, copy)
            return try Mov.open(bad)
        }
        func find(_ type: String, from: Int = 0) -> Int? {
            let t = Array(type.utf8)
            return (max(from, 4)..<(bytes.count - 4)).first { Array(bytes[$0..<$0 + 4]) == t }.map { $0 - 4 }
        }
        // stsz declaring far more sizes than the box holds
        let stsz = try #require(find("stsz"))
        if case .failure(let f) = try variant({ b in for k in 16..<20 { b[stsz + k] = 0x00 }; b[stsz + 17] = 0x7F }) {
            #expect(f.status == SY_E_INVALID_INPUT || f.status == SY_E_BUDGET)
            #expect(f.message.contains("stsz") || f.message.contains("stbl"), "\(f.message)")
        } else { Issue.record("lying stsz count opened") }
        // stsc putting 0 samples in every chunk: the track would read as empty (issue 20: `video decode`
        // reported 0 frames and exit 0); the first entry's samples_per_chunk sits 16 bytes into the box
        let stsc = try #require(find("stsc"))
        if case .failure(let f) = try variant({ b in for k in 20..<24 { b[stsc + k] = 0 } }) {
            #expect(f.status == SY_E_INVALID_INPUT && f.message.contains("0 samples"), "\(f.message)")
        } else { Issue.record("stsc with 0 samples per chunk opened") }
        // no mvhd
        let mvhd = try #require(find("mvhd"))
        if case .failure(let f) = try variant({ b in b[mvhd + 4] = UInt8(ascii: "x") }) {
            #expect(f.message.contains("no mvhd"), "\(f.message)")
        } else { Issue.record("moov without mvhd opened") }
        // second stco (the stsz type renamed: a duplicate mandatory box) — only if stco exists
        if let stco = find("stco"), stco > stsz {
            if case .failure(let f) = try variant({ b in
                for (k, c) in "stco".utf8.enumerated() { b[stsz + 4 + k] = c }
            }) {
                #expect(f.message.contains("second stco") || f.message.contains("stsz or stz2"), "\(f.message)")
            } else { Issue.record("duplicate stco opened") }
        }
        // a child size running past moov
        let trak = try #require(find("trak"))
        if case .failure(let f) = try variant({ b in b[trak] = 0x7F }) {
            #expect(f.message.contains("trak") && f.message.contains("offset"), "\(f.message)")
        } else { Issue.record("oversized trak opened") }
        // moov over the budget
        if case .failure(let f) = try Mov.open(path, budget: 1024) { #expect(f.status == SY_E_BUDGET) } else {
            Issue.record("1 KiB budget opened a movie")
        }
        // Byte flips all over moov: open either fails cleanly or every sample lookup stays in bounds.
        let moov = try #require(find("moov"))
        var seed: UInt64 = 0x9E3779B97F4A7C15
        for _ in 0..<200 {
            let r = try variant { b in
                for _ in 0..<4 {
                    seed = seed &* 6364136223846793005 &+ 1442695040888963407
                    let at = moov + Int(seed >> 33) % (b.count - moov)
                    b[at] ^= UInt8(truncatingIfNeeded: seed >> 13) | 1
                }
            }
            if case .success(let m) = r {
                for t in 0..<m.trackCount {
                    let n = Int(m.track(t).sample_count)
                    for i in 0..<min(n, 50) { _ = try? m.sample(t, i) }
                }
                _ = m.metadata
            }
        }
    }

    @Test func usageErrors() throws {
        let ctx = try Context()
        var mov: OpaquePointer?
        var err = sy_error()
        #expect(sy_mov_open(ctx.raw, "/nonexistent/x.mov", &mov, &err) == SY_E_IO && mov == nil)
        #expect(message(err).contains("/nonexistent/x.mov"))
        // A directory is the wrong kind of input, said as such (issue 20), not an I/O failure.
        #expect(sy_mov_open(ctx.raw, "/tmp", &mov, &err) == SY_E_INVALID_INPUT && message(err).contains("is a directory"))
        #expect(sy_mov_track_count(nil) == 0 && sy_mov_track(nil, 0) == nil && sy_mov_main_video_track(nil) == -1)
        #expect(ctx.stats.current_bytes == 0)
    }
}
