// The QuickTime/MP4 muxer (sy_mov_writer_*) called directly. Issue 4 (video
// I/O, muxer part): ffmpeg-made HEVC movies (B-frames, AAC or LPCM audio) are
// remuxed through our writer and compared with the source by outside tools
// (ffprobe packets, ffmpeg stream hashes and decoding, exiftool tags and
// -validate) and by our own demuxer; the Live Photo pieces (moov/meta mdta
// keys, the mebx still-image-time track, live-photo.md §4.2, §4.3, §6) are
// checked byte for byte; failure paths leave no file and no temporary file.
import CShiying
import CShiyingInternal
import Foundation
import Testing

// MARK: - Fixtures and helpers

private enum MuxFixtures {
    static var hasFFmpeg: Bool { ExternalTools.installed("ffmpeg", "ffprobe") }
    static var hasAll: Bool { ExternalTools.installed("ffmpeg", "ffprobe", "exiftool") }

    static let folder: String = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shiying-mux-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }()

    /// name → nil when made, or the error. 2 s of 320x240 HEVC at 30 fps with
    /// 3 B-frames (so ctts and a media-time edit) plus audio, as the brief asks.
    static let made: [String: String] = {
        var failures: [String: String] = [:]
        let input = ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=2",
                     "-f", "lavfi", "-i", "sine=frequency=440:duration=2",
                     "-c:v", "libx265", "-x265-params", "bframes=3:log-level=error", "-tag:v", "hvc1",
                     "-pix_fmt", "yuv420p", "-shortest"]
        let jobs: [(String, [String])] = [
            ("src.mov", input + ["-c:a", "aac"]),
            ("src.mp4", input + ["-c:a", "aac"]),
            ("lpcm.mov", input + ["-c:a", "pcm_s16le"]),
        ]
        for (name, args) in jobs {
            do { try ExternalTools.check("ffmpeg", ["-v", "error", "-y"] + args + [folder + "/" + name]) } catch {
                failures[name] = "\(error)"
            }
        }
        return failures
    }()

    static func need(_ name: String) throws -> String {
        if let failure = made[name] { throw CTestFailure("making \(name): \(failure)") }
        return folder + "/" + name
    }

    /// A fresh, empty folder for one test's outputs (directory listings stay
    /// meaningful while tests run in parallel).
    static func freshFolder(_ name: String) throws -> String {
        let dir = folder + "/out-" + name
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }
}

private func listing(_ dir: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
}

private func ok(_ status: sy_status, _ err: sy_error, _ what: String) throws {
    guard status == SY_OK else { throw CTestFailure("\(what): \(status) \(message(err))") }
}

private func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
private func ascii(_ s: String) -> [UInt8] { Array(s.utf8) }

private extension Array where Element == UInt8 {
    func contains(subsequence needle: [UInt8]) -> Bool { firstIndex(of: needle) != nil }
    func firstIndex(of needle: [UInt8]) -> Int? {
        guard !needle.isEmpty, needle.count <= count else { return nil }
        outer: for i in 0...(count - needle.count) {
            for j in 0..<needle.count where self[i + j] != needle[j] { continue outer }
            return i
        }
        return nil
    }
    func u32(_ at: Int) -> UInt32 { UInt32(self[at]) << 24 | UInt32(self[at + 1]) << 16 | UInt32(self[at + 2]) << 8 | UInt32(self[at + 3]) }
}

/// A minimal box walker over a whole file, for the layout checks: the payload
/// range of the first box at `path` (e.g. ["moov", "trak#2", "mdia", ...];
/// "#n" picks the n-th box of that type, 1-based).
private func box(_ bytes: [UInt8], _ path: [String]) -> Range<Int>? {
    var range = 0..<bytes.count
    for step in path {
        let parts = step.split(separator: "#")
        let type = String(parts[0]), wanted = parts.count > 1 ? Int(parts[1])! : 1
        var pos = range.lowerBound, seen = 0, found: Range<Int>?
        while pos + 8 <= range.upperBound {
            var size = Int(bytes.u32(pos)), header = 8
            if size == 1 {
                size = Int(UInt64(bytes.u32(pos + 8)) << 32 | UInt64(bytes.u32(pos + 12)))
                header = 16
            }
            guard size >= header, pos + size <= range.upperBound else { return nil }
            if String(decoding: bytes[(pos + 4)..<(pos + 8)], as: UTF8.self) == type {
                seen += 1
                if seen == wanted {
                    found = (pos + header)..<(pos + size)
                    break
                }
            }
            pos += size
        }
        guard let f = found else { return nil }
        range = f
    }
    return range
}

private func stblPath(_ track: Int, _ leaf: String) -> [String] {
    ["moov", "trak#\(track)", "mdia", "minf", "stbl", leaf]
}

/// An open source movie (our demuxer), closed on deinit.
private final class Source {
    let ctx: Context
    let raw: OpaquePointer

    init(_ path: String) throws {
        ctx = try Context()
        var mov: OpaquePointer?
        var err = sy_error()
        try ok(sy_mov_open(ctx.raw, path, &mov, &err), err, "sy_mov_open \(path)")
        raw = mov!
    }

    deinit { sy_mov_close(raw) }

    var info: sy_mov_info { sy_mov_info_get(raw)!.pointee }
    var trackCount: Int { Int(sy_mov_track_count(raw)) }
    func track(_ i: Int) -> sy_mov_track_info { sy_mov_track(raw, UInt32(i))!.pointee }

    func sample(_ t: Int, _ i: Int) throws -> sy_mov_sample_info {
        var s = sy_mov_sample_info()
        var err = sy_error()
        try ok(sy_mov_sample(raw, UInt32(t), UInt32(i), &s, &err), err, "sy_mov_sample(\(t), \(i))")
        return s
    }

    func read(_ t: Int, _ i: Int) throws -> [UInt8] {
        let s = try sample(t, i)
        var buffer = [UInt8](repeating: 0, count: max(Int(s.size), 1))
        var len = 0
        var err = sy_error()
        try ok(sy_mov_read_sample(raw, UInt32(t), UInt32(i), &buffer, buffer.count, &len, &err), err, "read sample")
        return Array(buffer[0..<len])
    }

    func config(_ t: Int) -> (type: UInt32, bytes: [UInt8]) {
        var type: UInt32 = 0
        var len = 0
        guard let p = sy_mov_codec_config(raw, UInt32(t), &type, &len) else { return (0, []) }
        return (type, Array(UnsafeBufferPointer(start: p, count: len)))
    }

    func sampleEntry(_ t: Int) -> [UInt8] {
        var len = 0
        guard let p = sy_mov_sample_entry(raw, UInt32(t), &len) else { return [] }
        return Array(UnsafeBufferPointer(start: p, count: len))
    }

    func edit(_ t: Int, _ k: Int) throws -> (segment: UInt64, mediaTime: Int64) {
        var seg: UInt64 = 0
        var mt: Int64 = 0
        var rate: Int32 = 0
        var err = sy_error()
        try ok(sy_mov_edit(raw, UInt32(t), UInt32(k), &seg, &mt, &rate, &err), err, "sy_mov_edit")
        return (seg, mt)
    }

    var metadata: [(key: String, type: UInt32, value: [UInt8])] {
        (0..<sy_mov_metadata_count(raw)).map { i in
            var key: UnsafePointer<CChar>?
            var type: UInt32 = 0
            var value: UnsafePointer<UInt8>?
            var len = 0
            _ = sy_mov_metadata_at(raw, i, &key, &type, &value, &len)
            return (String(cString: key!), type, value.map { Array(UnsafeBufferPointer(start: $0, count: len)) } ?? [])
        }
    }
}

/// A writer on its own context (so its memory is measured alone).
private final class Muxer {
    let ctx: Context
    var raw: OpaquePointer?
    let path: String

    init(_ path: String, brand: String = "qt  ", budget: Int = 0) throws {
        ctx = try Context(budget: budget)
        self.path = path
        var options = sy_mov_writer_options()
        sy_mov_writer_options_init(&options)
        options.brand = fourcc(brand)
        var err = sy_error()
        try ok(sy_mov_writer_open(ctx.raw, path, &options, &raw, &err), err, "sy_mov_writer_open")
    }

    deinit { destroy() }

    func destroy() {
        sy_mov_writer_destroy(raw)
        raw = nil
    }

    func addVideo(codec: String = "hvc1", width: UInt32, height: UInt32, timescale: UInt32, config: [UInt8],
                  matrix: (Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32) = (0, 0, 0, 0, 0, 0, 0, 0, 0),
                  colour: (UInt16, UInt16, UInt16, UInt8)? = nil, hdr: sy_hdr_static_metadata? = nil) throws -> UInt32 {
        var id: UInt32 = 0
        var err = sy_error()
        let status = config.withUnsafeBufferPointer { cfg -> sy_status in
            var v = sy_mov_video_track()
            v.codec = fourcc(codec)
            v.width = width
            v.height = height
            v.timescale = timescale
            v.config = cfg.baseAddress
            v.config_len = cfg.count
            v.matrix = matrix
            if let c = colour {
                v.primaries = c.0
                v.transfer = c.1
                v.matrix_coefficients = c.2
                v.full_range = c.3
            }
            if let hdr { v.hdr = hdr }
            return sy_mov_writer_add_video(raw, &v, &id, &err)
        }
        try ok(status, err, "sy_mov_writer_add_video")
        return id
    }

    func addSample(_ track: UInt32, _ data: [UInt8], duration: UInt32, offset: Int32 = 0, sync: Bool = true) -> (sy_status, String) {
        var err = sy_error()
        let st = data.withUnsafeBytes { sy_mov_writer_add_sample(raw, track, $0.baseAddress, data.count, duration, offset, sync ? 1 : 0, &err) }
        return (st, message(err))
    }

    func mustAdd(_ track: UInt32, _ data: [UInt8], duration: UInt32, offset: Int32 = 0, sync: Bool = true) throws {
        let (st, msg) = addSample(track, data, duration: duration, offset: offset, sync: sync)
        guard st == SY_OK else { throw CTestFailure("sy_mov_writer_add_sample: \(st) \(msg)") }
    }

    func addMetadata(_ key: String, type: UInt32, _ value: [UInt8]) throws {
        var err = sy_error()
        let st = value.withUnsafeBytes { sy_mov_writer_add_metadata(raw, key, type, $0.baseAddress, value.count, &err) }
        try ok(st, err, "sy_mov_writer_add_metadata \(key)")
    }

    func addMebx(_ keys: [(String, UInt32)], describes: UInt32, timescale: UInt32) -> (sy_status, UInt32) {
        let names = keys.map { strdup($0.0) }
        defer { names.forEach { free($0) } }
        var specs = zip(names, keys).map { sy_mov_mebx_key_spec(name: UnsafePointer($0.0), datatype: $0.1.1) }
        var id: UInt32 = 0
        var err = sy_error()
        let st = sy_mov_writer_add_mebx(raw, &specs, UInt32(specs.count), describes, timescale, &id, &err)
        return (st, id)
    }

    func setEdit(_ track: UInt32, empty: UInt64, mediaTime: Int64) throws {
        var err = sy_error()
        try ok(sy_mov_writer_set_edit(raw, track, empty, mediaTime, &err), err, "sy_mov_writer_set_edit")
    }

    func finish() throws {
        var err = sy_error()
        try ok(sy_mov_writer_finish(raw, &err), err, "sy_mov_writer_finish")
    }
}

/// Remuxes every track of `src` into `dst`: video through add_video (hvcC from
/// the demuxer), other tracks copied; each track's edit as in the source;
/// samples interleaved by decode time. `extra` runs before finish. Returns the
/// writer's peak memory.
@discardableResult
private func remux(_ src: String, to dst: String, brand: String = "qt  ",
                   extra: ((Muxer, [UInt32]) throws -> Void)? = nil) throws -> UInt64 {
    let source = try Source(src)
    let mux = try Muxer(dst, brand: brand)
    var ids: [UInt32] = []
    var err = sy_error()
    for t in 0..<source.trackCount {
        let info = source.track(t)
        var id: UInt32 = 0
        if info.handler == fourcc("vide") {
            let cfg = source.config(t)
            #expect(cfg.type == fourcc("hvcC"))
            id = try mux.addVideo(width: info.width, height: info.height, timescale: info.timescale, config: cfg.bytes,
                                  matrix: info.matrix)
        } else {
            try ok(sy_mov_writer_add_copied_track(mux.raw, source.raw, UInt32(t), &id, &err), err, "add_copied_track")
        }
        ids.append(id)
        if info.edit_count > 0, info.edit_media_time >= 0 {
            try mux.setEdit(id, empty: 0, mediaTime: info.edit_media_time)
        }
    }
    var next = [Int](repeating: 0, count: source.trackCount)
    while true {
        var best: (track: Int, seconds: Double)?
        for t in 0..<source.trackCount where next[t] < Int(source.track(t).sample_count) {
            let s = try source.sample(t, next[t])
            let seconds = Double(s.dts) / Double(source.track(t).timescale)
            if best == nil || seconds < best!.seconds { best = (t, seconds) }
        }
        guard let (t, _) = best else { break }
        let s = try source.sample(t, next[t])
        try mux.mustAdd(ids[t], try source.read(t, next[t]), duration: s.duration, offset: Int32(s.pts - s.dts),
                        sync: s.sync != 0)
        next[t] += 1
    }
    try extra?(mux, ids)
    try mux.finish()
    let peak = mux.ctx.stats.peak_bytes
    mux.destroy()
    #expect(mux.ctx.stats.current_bytes == 0, "destroy frees everything")
    return peak
}

private func ffprobePackets(_ path: String, _ select: String) throws -> [String] {
    try ExternalTools.check("ffprobe", ["-v", "error", "-select_streams", select, "-show_entries",
                                        "packet=pts,dts,duration,size,flags", "-of", "csv=p=0", path])
        .split(separator: "\n").map(String.init)
}

private func ffprobeStream(_ path: String, _ select: String) throws -> [String: String] {
    let out = try ExternalTools.check("ffprobe", ["-v", "error", "-select_streams", select, "-show_entries",
                                                  "stream=codec_name,codec_tag_string,width,height,r_frame_rate,avg_frame_rate,nb_frames,duration,start_time,sample_rate,channels",
                                                  "-of", "default=noprint_wrappers=1", path])
    var fields: [String: String] = [:]
    for line in out.split(separator: "\n") {
        let kv = line.split(separator: "=", maxSplits: 1).map(String.init)
        if kv.count == 2 { fields[kv[0]] = kv[1] }
    }
    return fields
}

private func streamHash(_ path: String, _ maps: [String] = ["0:v", "0:a"]) throws -> String {
    try ExternalTools.check("ffmpeg", ["-v", "error", "-i", path] + maps.flatMap { ["-map", $0] } +
                            ["-c", "copy", "-f", "streamhash", "-"])
}

private func majorBrand(_ path: String) throws -> String {
    try ExternalTools.check("ffprobe", ["-v", "error", "-show_entries", "format_tags=major_brand", "-of", "csv=p=0", path])
        .trimmingCharacters(in: .newlines)
}

/// ffmpeg decodes every frame and says nothing (issue 4: no decoder complaint).
private func decodesCleanly(_ path: String) throws {
    let r = try ExternalTools.run("ffmpeg", ["-v", "error", "-i", path, "-f", "null", "-"])
    #expect(r.status == 0 && r.err.isEmpty, "ffmpeg decode of \(path): \(r.status) \(r.err.prefix(400))")
}

/// Our demuxer reads back the same tables as the source, sample by sample.
private func expectSameTables(_ src: String, _ ours: String, sameSampleEntries: Bool) throws {
    let a = try Source(src), b = try Source(ours)
    #expect(a.trackCount == b.trackCount)
    for t in 0..<min(a.trackCount, b.trackCount) {
        let x = a.track(t), y = b.track(t)
        #expect(y.id == UInt32(t + 1) && x.handler == y.handler && x.codec == y.codec)
        #expect(x.sample_count == y.sample_count && x.timescale == y.timescale && x.duration == y.duration)
        #expect(x.keyframe_count == y.keyframe_count && x.all_sync == y.all_sync)
        #expect(x.width == y.width && x.height == y.height && x.channels == y.channels && x.sample_rate == y.sample_rate)
        #expect(x.edit_media_time == y.edit_media_time, "track \(t) edit media time")
        #expect(x.alternate_group == y.alternate_group && x.volume == y.volume, "track \(t) tkhd group/volume")
        #expect(a.config(t).bytes == b.config(t).bytes, "track \(t) codec configuration")
        if sameSampleEntries || x.handler != fourcc("vide") {
            #expect(a.sampleEntry(t) == b.sampleEntry(t), "track \(t) sample entry copied verbatim")
        }
        for i in 0..<Int(min(x.sample_count, y.sample_count)) {
            let p = try a.sample(t, i), q = try b.sample(t, i)
            guard p.size == q.size, p.duration == q.duration, p.dts == q.dts, p.pts == q.pts, p.sync == q.sync else {
                Issue.record("track \(t) sample \(i): source \(p) vs ours \(q)")
                break
            }
        }
    }
}

/// Remux checks shared by the .mov and .mp4 cases.
private func expectFaithfulRemux(src: String, ours: String, brand: String) throws {
    #expect(try majorBrand(ours).trimmingCharacters(in: .whitespaces) == brand.trimmingCharacters(in: .whitespaces))
    let v = try ffprobeStream(ours, "v:0"), vs = try ffprobeStream(src, "v:0")
    #expect(v["codec_name"] == "hevc" && v["codec_tag_string"] == "hvc1")
    #expect(v["width"] == "320" && v["height"] == "240")
    #expect(v["r_frame_rate"] == "30/1" && v["avg_frame_rate"] == "30/1")
    #expect(v["nb_frames"] == "60" && v["nb_frames"] == vs["nb_frames"])
    #expect(v["duration"] == vs["duration"] && v["start_time"] == vs["start_time"])
    let a = try ffprobeStream(ours, "a:0"), as_ = try ffprobeStream(src, "a:0")
    #expect(a["codec_name"] == as_["codec_name"] && a["sample_rate"] == as_["sample_rate"])
    #expect(a["nb_frames"] == as_["nb_frames"] && a["duration"] == as_["duration"] && a["start_time"] == as_["start_time"])
    for select in ["v:0", "a:0"] {
        let ps = try ffprobePackets(src, select), po = try ffprobePackets(ours, select)
        #expect(!ps.isEmpty && ps == po, "\(select): ffprobe packets (pts, dts, duration, size, flags) differ")
    }
    let hs = try streamHash(src), ho = try streamHash(ours)
    #expect(hs.contains("SHA256") && hs == ho, "payloads byte-identical")
    try decodesCleanly(ours)
}

// MARK: - Tests

@Suite struct MovWriterTests {
    @Test("remux .mov: same packets, payloads, stream facts; our demuxer reads equal tables",
          .enabled(if: MuxFixtures.hasFFmpeg))
    func remuxMov() throws {
        let src = try MuxFixtures.need("src.mov")
        let dir = try MuxFixtures.freshFolder("remux-mov")
        let ours = dir + "/ours.mov"
        try remux(src, to: ours)
        #expect(listing(dir) == ["ours.mov"], "no temporary file left")
        try expectFaithfulRemux(src: src, ours: ours, brand: "qt  ")
        try expectSameTables(src, ours, sameSampleEntries: false)
        let bytes = ExternalTools.readFile(ours)
        // issue 4 layout: ftyp 'qt  ' 0 'qt  ' (20 bytes), wide, mdat, then moov
        #expect(Array(bytes[0..<20]) == be32(20) + ascii("ftypqt  ") + be32(0) + ascii("qt  "))
        #expect(Array(bytes[20..<28]) == be32(8) + ascii("wide"))
        #expect(Array(bytes[32..<36]) == ascii("mdat"))
        let mdatEnd = 28 + Int(bytes.u32(28))
        #expect(Array(bytes[(mdatEnd + 4)..<(mdatEnd + 8)]) == ascii("moov") && mdatEnd + Int(bytes.u32(mdatEnd)) == bytes.count)
        // mvhd timescale 600, next_track_ID 3
        let mvhd = try #require(box(bytes, ["moov", "mvhd"]))
        #expect(bytes.u32(mvhd.lowerBound + 12) == 600 && bytes.u32(mvhd.upperBound - 4) == 3)
        // B-frames: ctts v0 present for video; stss for video only (audio all sync)
        let ctts = try #require(box(bytes, stblPath(1, "ctts")))
        #expect(bytes[ctts.lowerBound] == 0, "ctts version 0 when every offset >= 0")
        #expect(box(bytes, stblPath(1, "stss")) != nil && box(bytes, stblPath(2, "stss")) == nil)
        #expect(box(bytes, stblPath(2, "ctts")) == nil, "no ctts when every offset is 0")
        // QuickTime handlers: 'mhlr' 'vide' + data handler 'alis'; vmhd flags 1
        let hdlr = try #require(box(bytes, ["moov", "trak#1", "mdia", "hdlr"]))
        #expect(Array(bytes[(hdlr.lowerBound + 4)..<(hdlr.lowerBound + 12)]) == ascii("mhlrvide"))
        let vmhd = try #require(box(bytes, ["moov", "trak#1", "mdia", "minf", "vmhd"]))
        #expect(bytes.u32(vmhd.lowerBound) == 1)
    }

    @Test("remux .mp4: 'isom' brand, ISO handlers, same packets and payloads", .enabled(if: MuxFixtures.hasFFmpeg))
    func remuxMp4() throws {
        let src = try MuxFixtures.need("src.mp4")
        let dir = try MuxFixtures.freshFolder("remux-mp4")
        let ours = dir + "/ours.mp4"
        try remux(src, to: ours, brand: "isom")
        try expectFaithfulRemux(src: src, ours: ours, brand: "isom")
        try expectSameTables(src, ours, sameSampleEntries: false)
        let bytes = ExternalTools.readFile(ours)
        #expect(Array(bytes[0..<28]) == be32(28) + ascii("ftypisom") + be32(512) + ascii("isomiso2mp41"))
        let mvhd = try #require(box(bytes, ["moov", "mvhd"]))
        #expect(bytes.u32(mvhd.lowerBound + 12) == 1000, "isom movie timescale 1000")
        let hdlr = try #require(box(bytes, ["moov", "trak#1", "mdia", "hdlr"]))
        #expect(bytes.u32(hdlr.lowerBound + 4) == 0 && Array(bytes[(hdlr.lowerBound + 8)..<(hdlr.lowerBound + 12)]) == ascii("vide"))
        #expect(box(bytes, ["moov", "trak#1", "mdia", "minf", "dinf", "dref"]).map {
            Array(bytes[($0.lowerBound + 12)..<($0.lowerBound + 16)]) } == ascii("url "))
        let tkhd = try #require(box(bytes, ["moov", "trak#1", "tkhd"]))
        #expect(bytes.u32(tkhd.lowerBound) == 3, "ISO tkhd flags: enabled + in movie")
    }

    @Test("remux LPCM: constant-size stsz, same audio bytes; bookkeeping stays small",
          .enabled(if: MuxFixtures.hasFFmpeg))
    func remuxLpcm() throws {
        let src = try MuxFixtures.need("lpcm.mov")
        let dir = try MuxFixtures.freshFolder("remux-lpcm")
        let ours = dir + "/ours.mov"
        let peak = try remux(src, to: ours)
        // 88200 one-frame PCM samples: sizes, durations and sync flags are one
        // number each, only chunks cost memory (issue 4: a few bytes per sample at most)
        #expect(peak < 64 * 1024, "writer peak \(peak) bytes")
        try expectSameTables(src, ours, sameSampleEntries: false)
        for select in ["v:0"] { #expect(try ffprobePackets(src, select) == ffprobePackets(ours, select)) }
        // ffmpeg cuts PCM chunks into packets, so audio packet boundaries follow
        // our chunking (1470 frames per video frame here): compare the bytes instead
        #expect(try streamHash(src) == streamHash(ours))
        let decoded = { (p: String) in try ExternalTools.check("ffmpeg", ["-v", "error", "-i", p, "-map", "0:a", "-f", "md5", "-"]) }
        #expect(try decoded(src) == decoded(ours))
        try decodesCleanly(ours)
        let bytes = ExternalTools.readFile(ours)
        let stsz = try #require(box(bytes, stblPath(2, "stsz")))
        #expect(bytes.u32(stsz.lowerBound + 4) == 2 && bytes.u32(stsz.lowerBound + 8) == 88200, "constant-size stsz")
        #expect(stsz.count == 12, "no size table")
    }

    @Test("moov/meta mdta keys and the mebx still-image-time track (live-photo.md §4.2, §4.3, §6)",
          .enabled(if: MuxFixtures.hasAll))
    func liveMetadata() throws {
        let src = try MuxFixtures.need("src.mov")
        let dir = try MuxFixtures.freshFolder("live")
        let ours = dir + "/live.mov"
        let uuid = "0C0FFEE0-1234-4ABC-9DEF-00112233AABB"
        let stillKey = "com.apple.quicktime.still-image-time"
        let marker: [UInt8] = [0, 0, 0, 9, 0, 0, 0, 1, 0xFF]
        let added: [(String, UInt32, [UInt8])] = [
            ("com.apple.quicktime.content.identifier", 1, ascii(uuid)),
            ("com.apple.quicktime.live-photo.vitality-score", 23, [0x3F, 0x40, 0, 0]), // float32 0.75
            ("com.apple.quicktime.live-photo.vitality-scoring-version", 21, [0, 0, 0, 0, 0, 0, 0, 4]),
            ("com.apple.quicktime.live-photo.auto", 22, [1]),
        ]
        try remux(src, to: ours) { mux, ids in
            for (k, t, v) in added { try mux.addMetadata(k, type: t, v) }
            let (st, id) = mux.addMebx([(stillKey, 65)], describes: ids[0], timescale: 600)
            #expect(st == SY_OK && id == 3)
            try mux.mustAdd(id, marker, duration: 1)
            try mux.setEdit(id, empty: 900, mediaTime: 0) // E = 1.5 s x 600
        }
        // exiftool (§6): Keys, the still-image marker, the track facts, validation
        let keys = try ExternalTools.check("exiftool", ["-s3", "-Keys:ContentIdentifier", ours])
        #expect(keys.trimmingCharacters(in: .newlines) == uuid)
        let json = try ExternalTools.check("exiftool", ["-j", "-G1", "-ee", "-n", "-Keys:all", "-StillImageTime",
                                                        "-TrackDuration", "-SampleDuration", "-MetaFormat",
                                                        "-ContentDescribes", "-HandlerType", ours])
        let tags = try #require((try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])?.first)
        func number(_ k: String) -> Double? { (tags[k] as? NSNumber)?.doubleValue ?? (tags[k] as? String).flatMap(Double.init) }
        #expect(number("Track3:StillImageTime") == -1)
        #expect(tags["Track3:MetaFormat"] as? String == "mebx")
        #expect(number("Track3:ContentDescribes") == 1)
        #expect(tags["Track3:HandlerType"] as? String == "meta")
        let still = try #require(number("Track3:TrackDuration")) - (try #require(number("Track3:SampleDuration")))
        #expect(abs(still - 1.5) < 1e-6, "TrackDuration - SampleDuration = still time, got \(still)")
        #expect(number("Keys:LivePhotoVitalityScore") == 0.75)
        #expect(number("Keys:LivePhotoAuto") == 1)
        #expect(number("Keys:LivePhotoVitalityScoringVersion") == 4)
        let describes = try ExternalTools.check("exiftool", ["-s3", "-ee", "-Track3:ContentDescribes", ours])
        #expect(describes.trimmingCharacters(in: .newlines) == "Track 1")
        let validate = try ExternalTools.check("exiftool", ["-validate", "-warning", "-a", "-ee", ours])
        #expect(validate.trimmingCharacters(in: .newlines).hasSuffix(": OK"), "exiftool -validate: \(validate)")
        // ffprobe honours elst: the data stream starts at the still time
        let starts = try ExternalTools.check("ffprobe", ["-v", "error", "-show_entries", "stream=index,codec_tag_string,start_time",
                                                         "-of", "csv=p=0", ours])
        #expect(starts.split(separator: "\n").contains("2,mebx,1.500000"), "ffprobe: \(starts)")
        try decodesCleanly(ours)
        // our demuxer: items, keys, edits, tkhd
        let mov = try Source(ours)
        let items = mov.metadata
        #expect(items.map(\.key) == added.map(\.0) && items.map(\.type) == added.map(\.1) && items.map(\.value) == added.map(\.2))
        let t = mov.track(2)
        #expect(t.codec == fourcc("mebx") && t.handler == fourcc("meta") && t.tkhd_flags == 0xF)
        #expect(t.tkhd_duration == 901 && t.timescale == 600 && t.duration == 1 && t.sample_count == 1)
        let key = try #require(sy_mov_mebx_key_at(mov.raw, 2, 0)?.pointee)
        #expect(sy_mov_mebx_key_count(mov.raw, 2) == 1 && key.local_id == 1 && String(cString: key.name) == stillKey)
        #expect(key.key_namespace == fourcc("mdta") && key.datatype_namespace == 0 && key.datatype == 65)
        #expect(t.edit_count == 2)
        #expect(try mov.edit(2, 0) == (900, -1) && mov.edit(2, 1) == (1, 0))
        #expect(try mov.read(2, 0) == marker)
        // byte shapes (§4.2, §4.3): moov/meta hdlr (34 bytes), keys FullBox,
        // the key atom typed by its local id with keyd + dtyp, Apple's handlers
        let bytes = ExternalTools.readFile(ours)
        let meta = try #require(box(bytes, ["moov", "meta"]))
        #expect(Array(bytes[meta.lowerBound..<(meta.lowerBound + 34)]) ==
            be32(34) + ascii("hdlr") + be32(0) + be32(0) + ascii("mdta") + [UInt8](repeating: 0, count: 14))
        let keysBox = try #require(box(bytes, ["moov", "meta", "keys"]))
        #expect(bytes.u32(keysBox.lowerBound) == 0 && bytes.u32(keysBox.lowerBound + 4) == 4, "keys: v0, 4 entries")
        #expect(bytes.contains(subsequence: be32(UInt32(8 + added[0].0.utf8.count)) + ascii("mdta") + ascii(added[0].0)))
        let ilstItem = be32(8 + 16 + 36) + be32(1) + be32(16 + 36) + ascii("data") + be32(1) + be32(0) + ascii(uuid)
        #expect(bytes.contains(subsequence: ilstItem), "ilst child typed 1 holding a data box")
        let name = ascii(stillKey)
        let keyAtom = be32(72) + be32(1) + be32(UInt32(8 + 4 + name.count)) + ascii("keydmdta") + name +
            be32(16) + ascii("dtyp") + be32(0) + be32(65)
        let entry = mov.sampleEntry(2)
        #expect(entry == be32(UInt32(16 + 8 + keyAtom.count)) + ascii("mebx") + [0, 0, 0, 0, 0, 0, 0, 1] +
            be32(UInt32(8 + keyAtom.count)) + ascii("keys") + keyAtom, "mebx entry with a plain keys box")
        let mhdlr = try #require(box(bytes, ["moov", "trak#3", "mdia", "hdlr"]))
        #expect(Array(bytes[mhdlr]) == be32(0) + ascii("mhlrmetaappl") + be32(1) + be32(0) + [19] + ascii("Core Media Metadata"))
        let gmin = try #require(box(bytes, ["moov", "trak#3", "mdia", "minf", "gmhd", "gmin"]))
        #expect(Array(bytes[gmin]) == be32(0) + [0, 0x40, 0x80, 0, 0x80, 0, 0x80, 0, 0, 0, 0, 0])
        let cdsc = try #require(box(bytes, ["moov", "trak#3", "tref", "cdsc"]))
        #expect(Array(bytes[cdsc]) == be32(1))
        let dref = try #require(box(bytes, ["moov", "trak#3", "mdia", "minf", "dinf", "dref"]))
        #expect(Array(bytes[dref]) == be32(0) + be32(1) + be32(12) + ascii("alis") + be32(1))
    }

    @Test("matrix and colour: 90° display, nclc in .mov, nclx in .mp4", .enabled(if: MuxFixtures.hasAll))
    func matrixAndColour() throws {
        let src = try Source(try MuxFixtures.need("src.mov"))
        let dir = try MuxFixtures.freshFolder("colour")
        let rot90: (Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32) = (0, 0x10000, 0, -0x10000, 0, 0, 0, 0, 0x40000000)
        for (name, brand, colr) in [("rot.mov", "qt  ", "nclc"), ("rot.mp4", "isom", "nclx")] {
            let path = dir + "/" + name
            let mux = try Muxer(path, brand: brand)
            let v = src.track(0)
            let id = try mux.addVideo(width: v.width, height: v.height, timescale: v.timescale, config: src.config(0).bytes,
                                      matrix: rot90, colour: (1, 1, 1, 0))
            for i in 0..<Int(v.sample_count) {
                let s = try src.sample(0, i)
                try mux.mustAdd(id, try src.read(0, i), duration: s.duration, offset: Int32(s.pts - s.dts), sync: s.sync != 0)
            }
            try mux.setEdit(id, empty: 0, mediaTime: v.edit_media_time)
            try mux.finish()
            let rotation = try ExternalTools.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                               "stream_side_data=rotation", "-of", "csv=p=0", path])
            #expect(rotation.contains("-90"), "ffprobe display matrix: \(rotation)")
            let back = try Source(path)
            #expect(back.track(0).rotation == 90 && back.track(0).display_width == 240 && back.track(0).display_height == 320)
            #expect(back.track(0).tkhd_width == 320 && back.track(0).tkhd_height == 240, "tkhd keeps the stored size")
            let exif = try ExternalTools.check("exiftool", ["-s3", "-ColorProfiles", "-ColorPrimaries", "-TransferCharacteristics",
                                                            "-MatrixCoefficients", path])
            #expect(exif.split(separator: "\n") == [Substring(colr), "BT.709", "BT.709", "BT.709"], "\(name): \(exif)")
            try decodesCleanly(path)
        }
    }

    @Test("HDR10 static metadata: mdcv and clli after colr, read back by our demuxer and reader (the boxes alone) and by ffprobe",
          .enabled(if: MuxFixtures.hasAll))
    func hdrStaticBoxes() throws {
        let src = try Source(try MuxFixtures.need("src.mov"))
        let dir = try MuxFixtures.freshFolder("hdr10")
        var grade = sy_hdr_static_metadata()
        grade.has_mastering = 1
        grade.has_light_level = 1
        grade.primaries_x = (13250, 7500, 34000) // G, B, R: P3-D65
        grade.primaries_y = (34500, 3000, 16000)
        grade.white_x = 15635
        grade.white_y = 16450
        grade.max_luminance = 40_000_000 // 4000 cd/m²
        grade.min_luminance = 50
        grade.max_cll = 1200
        grade.max_fall = 350
        for name in ["hdr10.mov", "hdr10.mp4"] {
            let path = dir + "/" + name
            let mux = try Muxer(path, brand: name.hasSuffix(".mp4") ? "isom" : "qt  ")
            let v = src.track(0)
            let id = try mux.addVideo(width: v.width, height: v.height, timescale: v.timescale, config: src.config(0).bytes,
                                      colour: (9, 16, 9, 0), hdr: grade)
            for i in 0..<Int(v.sample_count) {
                let s = try src.sample(0, i)
                try mux.mustAdd(id, try src.read(0, i), duration: s.duration, offset: Int32(s.pts - s.dts), sync: s.sync != 0)
            }
            try mux.finish()
            let entry = try Source(path).sampleEntry(0)
            let mdcv = be32(32) + ascii("mdcv") + [0x33, 0xC2, 0x86, 0xC4, 0x1D, 0x4C, 0x0B, 0xB8, 0x84, 0xD0, 0x3E, 0x80,
                                                   0x3D, 0x13, 0x40, 0x42] + be32(40_000_000) + be32(50)
            let clli = be32(12) + ascii("clli") + [0x04, 0xB0, 0x01, 0x5E]
            #expect(entry.indices.contains { entry[$0...].starts(with: mdcv + clli) }, "\(name): mdcv then clli, SEI layout")
            let back = try Source(path).track(0).hdr
            #expect(back.has_mastering == 1 && back.has_light_level == 1 && back.max_luminance == 40_000_000
                    && back.primaries_x.2 == 34000 && back.max_cll == 1200 && back.max_fall == 350, "\(name): demuxer")
            let ctx = try Context()
            var reader: OpaquePointer?
            var err = sy_error()
            try ok(sy_video_reader_open(ctx.raw, path, -1, &reader, &err), err, "sy_video_reader_open")
            let info = sy_video_reader_info_get(reader)!.pointee.hdr
            sy_video_reader_close(reader)
            #expect(info.has_mastering == 1 && info.white_y == 16450 && info.min_luminance == 50 && info.max_fall == 350,
                    "\(name): the reader takes the boxes (the stream has no SEI)")
            let probe = try ExternalTools.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_streams", "-of", "json", path])
            #expect(probe.contains("\"max_luminance\": \"40000000/10000\"") && probe.contains("\"red_x\": \"34000/50000\"")
                    && probe.contains("\"max_content\": 1200") && probe.contains("\"max_average\": 350"), "\(name): ffprobe \(probe)")
            try decodesCleanly(path)
        }
    }

    @Test("interleaving: samples in call order, one chunk per run, chunks capped at one second",
          .enabled(if: MuxFixtures.hasFFmpeg))
    func interleaving() throws {
        let src = try Source(try MuxFixtures.need("src.mov"))
        let dir = try MuxFixtures.freshFolder("chunks")
        let path = dir + "/chunks.mov"
        let mux = try Muxer(path)
        let v = src.track(0)
        let video = try mux.addVideo(width: v.width, height: v.height, timescale: v.timescale, config: src.config(0).bytes)
        var err = sy_error()
        var audio: UInt32 = 0
        try ok(sy_mov_writer_add_copied_track(mux.raw, src.raw, 1, &audio, &err), err, "copied track")
        // 3 video, 2 audio, then 45 video (1.5 s at 30 fps: one chunk of 30, one of 15)
        var order: [(track: Int, index: Int)] = (0..<3).map { (0, $0) } + (0..<2).map { (1, $0) }
        order += (3..<48).map { (0, $0) }
        var expected: [UInt64] = []
        var pos: UInt64 = 36
        for (t, i) in order {
            let s = try src.sample(t, i)
            expected.append(pos)
            pos += UInt64(s.size)
            try mux.mustAdd(t == 0 ? video : audio, try src.read(t, i), duration: s.duration, offset: Int32(s.pts - s.dts),
                            sync: s.sync != 0)
        }
        try mux.finish()
        let back = try Source(path)
        var seen = [0, 0]
        for (k, (t, _)) in order.enumerated() {
            let s = try back.sample(t, seen[t])
            #expect(s.offset == expected[k], "sample \(k) (track \(t)) offset")
            seen[t] += 1
        }
        let bytes = ExternalTools.readFile(path)
        let stsc = try #require(box(bytes, stblPath(1, "stsc")))
        let entries = (0..<Int(bytes.u32(stsc.lowerBound + 4))).map { e in
            (0..<3).map { bytes.u32(stsc.lowerBound + 8 + 12 * e + 4 * $0) } }
        #expect(entries == [[1, 3, 1], [2, 30, 1], [3, 15, 1]], "stsc runs: \(entries)")
        let stco = try #require(box(bytes, stblPath(1, "stco")))
        #expect(bytes.u32(stco.lowerBound + 4) == 3)
        try decodesCleanly(path)
    }

    @Test("negative composition offsets give ctts version 1 and the same presentation times",
          .enabled(if: MuxFixtures.hasFFmpeg))
    func negativeOffsets() throws {
        let srcPath = try MuxFixtures.need("src.mov")
        let src = try Source(srcPath)
        let dir = try MuxFixtures.freshFolder("ctts1")
        let path = dir + "/neg.mov"
        let mux = try Muxer(path)
        let v = src.track(0)
        let shift = v.edit_media_time
        #expect(shift > 0, "the fixture's B-frames delay the first frame")
        let id = try mux.addVideo(width: v.width, height: v.height, timescale: v.timescale, config: src.config(0).bytes)
        for i in 0..<Int(v.sample_count) {
            let s = try src.sample(0, i)
            try mux.mustAdd(id, try src.read(0, i), duration: s.duration, offset: Int32(s.pts - s.dts - shift), sync: s.sync != 0)
        }
        try mux.finish()
        let bytes = ExternalTools.readFile(path)
        let ctts = try #require(box(bytes, stblPath(1, "ctts")))
        #expect(bytes[ctts.lowerBound] == 1, "ctts v1 for signed offsets")
        let pts = { (p: String) in try ExternalTools.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                                     "packet=pts,size,flags", "-of", "csv=p=0", p]) }
        #expect(try pts(srcPath) == pts(path))
        try decodesCleanly(path)
    }

    // A re-encode keeps a source's cuts and slow motion by writing its edit list again (issue 17: frame
    // times). The list is written as given — empty edit, two spans, a half-speed rate — read back by our
    // demuxer entry by entry, and the track's duration is the list's sum (ffprobe agrees).
    @Test("an explicit edit list is written as given, rates included; the track lasts its sum",
          .enabled(if: MuxFixtures.hasFFmpeg))
    func explicitEditList() throws {
        let srcPath = try MuxFixtures.need("src.mov")
        let src = try Source(srcPath)
        let dir = try MuxFixtures.freshFolder("edit-list")
        let path = dir + "/cut.mov"
        let mux = try Muxer(path)
        let v = src.track(0)
        let id = try mux.addVideo(width: v.width, height: v.height, timescale: v.timescale, config: src.config(0).bytes)
        for i in 0..<Int(v.sample_count) {
            let s = try src.sample(0, i)
            try mux.mustAdd(id, try src.read(0, i), duration: s.duration, offset: Int32(s.pts - s.dts), sync: s.sync != 0)
        }
        let list = [sy_mov_writer_edit(segment: 60, media_time: -1, rate: 0x10000),
                    sy_mov_writer_edit(segment: 300, media_time: Int64(v.edit_media_time), rate: 0x10000),
                    sy_mov_writer_edit(segment: 240, media_time: Int64(v.edit_media_time) + Int64(v.timescale), rate: 0x8000)]
        var err = sy_error()
        #expect(sy_mov_writer_set_edit_list(mux.raw, id, list, 0, &err) == SY_E_USAGE, "no edits")
        #expect(sy_mov_writer_set_edit_list(mux.raw, id + 5, list, 3, &err) == SY_E_USAGE, "no such track")
        var bad = list
        bad[1].media_time = -2
        #expect(sy_mov_writer_set_edit_list(mux.raw, id, bad, 3, &err) == SY_E_USAGE, "media time below -1")
        try ok(sy_mov_writer_set_edit_list(mux.raw, id, list, 3, &err), err, "sy_mov_writer_set_edit_list")
        try mux.finish()
        let back = try Source(path)
        #expect(back.track(0).edit_count == 3 && back.info.timescale == 600, "a QuickTime movie's 600")
        for (k, e) in list.enumerated() {
            var seg: UInt64 = 0, mt: Int64 = 0, rate: Int32 = 0
            try ok(sy_mov_edit(back.raw, 0, UInt32(k), &seg, &mt, &rate, &err), err, "sy_mov_edit")
            #expect(seg == e.segment && mt == e.media_time && rate == e.rate, "edit \(k): \(seg) \(mt) \(rate)")
        }
        let duration = try ExternalTools.check("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path])
        #expect(abs((Double(duration.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) - 1.0) < 0.01, "600 ticks at 600: \(duration)")
    }

    @Test("destroy without finish leaves no file; an existing output stays untouched")
    func abandonedWriter() throws {
        let dir = try MuxFixtures.freshFolder("abandon")
        let ctx = try Context()
        var w: OpaquePointer?
        var err = sy_error()
        try ok(sy_mov_writer_open(ctx.raw, dir + "/never.mov", nil, &w, &err), err, "open")
        // While writing, the movie is an anonymous file (O_TMPFILE) or, on a file
        // system without it, "never.mov.tmp-<pid>-XXXXXX" beside the target.
        #expect(listing(dir).isEmpty || (listing(dir).count == 1 && listing(dir)[0].hasPrefix("never.mov.tmp-\(getpid())-")),
                "nothing but its own temporary file beside the target: \(listing(dir))")
        sy_mov_writer_destroy(w)
        #expect(listing(dir).isEmpty, "no file, no temporary file: \(listing(dir))")
        #expect(ctx.stats.current_bytes == 0)

        let existing = dir + "/keep.mov"
        let old: [UInt8] = Array("previous movie".utf8)
        try ExternalTools.writeFile(existing, old)
        let mux = try Muxer(existing)
        let id = try mux.addVideo(width: 64, height: 64, timescale: 600, config: [1, 2, 3])
        try mux.mustAdd(id, [UInt8](repeating: 7, count: 1000), duration: 20)
        // a usage error does not poison the writer...
        #expect(mux.addSample(99, [1], duration: 1).0 == SY_E_USAGE)
        try mux.mustAdd(id, [UInt8](repeating: 8, count: 1000), duration: 20)
        mux.destroy() // ...but abandoning it keeps the old file as it was
        #expect(ExternalTools.readFile(existing) == old)
        #expect(listing(dir) == ["keep.mov"])
    }

    @Test("a failing finish (target became a folder) reports SY_E_IO and leaves nothing behind; a folder there at open is refused")
    func failingRename() throws {
        let dir = try MuxFixtures.freshFolder("rename")
        let target = dir + "/occupied.mov"
        let mux = try Muxer(target)
        // Another program puts a folder where the movie goes while it is written: the rename at finish fails.
        try FileManager.default.createDirectory(atPath: target + "/inside", withIntermediateDirectories: true)
        do {  // a folder already there is refused at open, before any work
            let ctx = try Context()
            var w: OpaquePointer?
            var err = sy_error()
            #expect(sy_mov_writer_open(ctx.raw, target, nil, &w, &err) == SY_E_USAGE && w == nil)
            #expect(message(err).contains("is a directory"), "\(message(err))")
        }
        let id = try mux.addVideo(width: 64, height: 64, timescale: 600, config: [1, 2, 3])
        try mux.mustAdd(id, [UInt8](repeating: 7, count: 100), duration: 20)
        var err = sy_error()
        #expect(sy_mov_writer_finish(mux.raw, &err) == SY_E_IO)
        #expect(message(err).contains("occupied.mov"), "names the path: \(message(err))")
        #expect(listing(dir) == ["occupied.mov"] && listing(target) == ["inside"], "temporary file removed, folder intact")
        #expect(mux.addSample(id, [1], duration: 1).0 == SY_E_USAGE, "a failed writer refuses more work")
        mux.destroy()
        #expect(mux.ctx.stats.current_bytes == 0)
    }

    @Test("an unwritable folder → SY_E_IO naming the path")
    func unwritableFolder() throws {
        let ctx = try Context()
        var w: OpaquePointer?
        var err = sy_error()
        let path = MuxFixtures.folder + "/no-such-folder/sub/out.mov"
        #expect(sy_mov_writer_open(ctx.raw, path, nil, &w, &err) == SY_E_IO)
        #expect(w == nil && message(err).contains("no-such-folder/sub/out.mov"), "\(message(err))")
        #expect(message(err).contains("No such file or directory"), "errno text: \(message(err))")
        #expect(ctx.stats.current_bytes == 0)
    }

    @Test("usage errors: bad brand, unknown track, zero durations, bad edits, duplicate keys, after finish")
    func usageErrors() throws {
        let dir = try MuxFixtures.freshFolder("usage")
        let ctx = try Context()
        var w: OpaquePointer?
        var err = sy_error()
        var options = sy_mov_writer_options()
        sy_mov_writer_options_init(&options)
        #expect(options.version == 1 && options.brand == fourcc("qt  ") && options.movie_timescale == 0)
        options.brand = fourcc("avc1")
        #expect(sy_mov_writer_open(ctx.raw, dir + "/x.mov", &options, &w, &err) == SY_E_USAGE && w == nil)
        options.brand = fourcc("qt  ")
        options.version = 2
        #expect(sy_mov_writer_open(ctx.raw, dir + "/x.mov", &options, &w, &err) == SY_E_USAGE && w == nil)
        #expect(listing(dir).isEmpty)

        let mux = try Muxer(dir + "/u.mov")
        #expect(mux.addSample(1, [1], duration: 1).0 == SY_E_USAGE, "no track yet")
        #expect(mux.addMebx([("k", 65)], describes: 1, timescale: 600).0 == SY_E_USAGE, "described track missing")
        #expect(throws: CTestFailure.self) { _ = try mux.addVideo(width: 0, height: 10, timescale: 600, config: [1]) }
        #expect(throws: CTestFailure.self) { _ = try mux.addVideo(width: 10, height: 10, timescale: 600, config: []) }
        #expect(throws: CTestFailure.self) { _ = try mux.addVideo(codec: "hev1", width: 10, height: 10, timescale: 600, config: [1]) }
        let id = try mux.addVideo(width: 16, height: 16, timescale: 600, config: [1, 2])
        #expect(id == 1, "failed adds took no track id")
        let (mst, meta) = mux.addMebx([("com.example.key", 65)], describes: id, timescale: 600)
        #expect(mst == SY_OK && meta == 2)
        #expect(mux.addMebx([("", 65)], describes: id, timescale: 600).0 == SY_E_USAGE)
        #expect(mux.addMebx([("k", 65)], describes: id, timescale: 0).0 == SY_E_USAGE)
        let (st, msg) = mux.addSample(id, [1, 2, 3], duration: 0)
        #expect(st == SY_E_USAGE && msg.contains("duration 0"), "\(msg)")
        #expect(mux.addSample(meta, [1], duration: 0).0 == SY_E_USAGE)
        #expect(mux.addSample(3, [1], duration: 1).0 == SY_E_USAGE)
        #expect(sy_mov_writer_add_sample(mux.raw, id, nil, 5, 1, 0, 1, &err) == SY_E_USAGE)
        #expect(sy_mov_writer_set_edit(mux.raw, id, 0, -5, &err) == SY_E_USAGE)
        #expect(sy_mov_writer_set_edit(mux.raw, 7, 0, 0, &err) == SY_E_USAGE)
        try mux.addMetadata("com.example.a", type: 1, ascii("x"))
        #expect(throws: CTestFailure.self) { try mux.addMetadata("com.example.a", type: 1, ascii("y")) }
        #expect(throws: CTestFailure.self) { try mux.addMetadata("com.example.b", type: 0x1000000, ascii("y")) }
        try mux.mustAdd(id, [0, 0, 0, 1], duration: 20)
        try mux.finish()
        #expect(mux.addSample(id, [1], duration: 1).0 == SY_E_USAGE, "after finish")
        #expect(sy_mov_writer_finish(mux.raw, &err) == SY_E_USAGE, "finish twice")
        #expect(listing(dir) == ["u.mov"])
        sy_mov_writer_destroy(nil)
    }

    @Test("bookkeeping costs about 12.5 bytes per sample in the worst case (sizes + one ctts run each), read back intact")
    func memoryPerSample() throws {
        let dir = try MuxFixtures.freshFolder("memory")
        let path = dir + "/many.mov"
        let mux = try Muxer(path)
        let id = try mux.addVideo(width: 16, height: 16, timescale: 600, config: [1, 2])
        let n = 200_000
        let payload = [UInt8](repeating: 0, count: 64)
        for i in 0..<n {
            let size = 1 + i % 60, offset = Int32(i % 3 == 0 ? 40 : i % 3 == 1 ? 0 : 20)
            try mux.mustAdd(id, Array(payload[0..<size]), duration: 20, offset: offset, sync: i % 30 == 0)
        }
        try mux.finish()
        let peak = mux.ctx.stats.peak_bytes
        // issue 4: per-sample memory is the tables' own size, never a copy of it
        // (4 size + 8 ctts run + 1/30 of sync and chunk entries), plus fixed blocks
        #expect(peak < UInt64(n) * 13 + 512 * 1024, "peak \(peak) bytes for \(n) samples")
        mux.destroy()
        #expect(mux.ctx.stats.current_bytes == 0)
        let back = try Source(path)
        #expect(back.track(0).sample_count == UInt32(n) && back.track(0).keyframe_count == UInt32((n + 29) / 30))
        for i in [0, 1, 2, 29, 30, 99_999, n - 1] {
            let s = try back.sample(0, i)
            #expect(s.size == UInt32(1 + i % 60) && s.dts == Int64(i) * 20, "sample \(i)")
            #expect(s.pts - s.dts == Int64(i % 3 == 0 ? 40 : i % 3 == 1 ? 0 : 20) && (s.sync != 0) == (i % 30 == 0))
        }
    }

    @Test("the writer's memory is charged to the context: a small budget fails with SY_E_BUDGET and leaves no file")
    func budget() throws {
        let dir = try MuxFixtures.freshFolder("budget")
        let mux = try Muxer(dir + "/b.mov", budget: 16 * 1024)
        let id = try mux.addVideo(width: 16, height: 16, timescale: 600, config: [1, 2])
        var status = sy_status(SY_OK)
        var n = 0
        // varying sizes and a non-sync sample every other frame: the size and sync tables must grow
        while status == SY_OK && n < 100_000 {
            status = mux.addSample(id, [UInt8](repeating: 1, count: 1 + n % 7), duration: 20, sync: n % 2 == 0).0
            n += 1
        }
        #expect(status == SY_E_BUDGET, "stopped after \(n) samples with \(status)")
        #expect(mux.ctx.stats.peak_bytes <= 16 * 1024)
        var err = sy_error()
        #expect(sy_mov_writer_finish(mux.raw, &err) == SY_E_USAGE, "a failed writer cannot finish")
        mux.destroy()
        #expect(listing(dir).isEmpty)
        #expect(mux.ctx.stats.current_bytes == 0)
    }
}
