// The video reader (sy_video_reader_*) called directly: ffmpeg-made HEVC and
// H.264 clips with B-frames decoded frame by frame and checked against
// ffprobe (count, presentation order, pts) and ffmpeg's own RGB decode (PSNR),
// 10-bit and full-range HEVC, tkhd rotations against ffmpeg's autorotate, the
// real iPhone / H.264 Live Photo movies of the corpus, unsupported codecs,
// truncated and damaged files, the memory budget and cancellation.
// Issue 4 (video I/O, reader part).
import CShiying
import CShiyingInternal
import Foundation
import Testing

// MARK: - Helpers

private enum VideoPaths {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let corpus = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus/real")
    static let iphone = corpus.appendingPathComponent("iphone15plus_IMG_3853.MOV").path
    static let paired = corpus.appendingPathComponent("h264_live_pairedVideo.mov").path
    static var hasIphone: Bool { FileManager.default.fileExists(atPath: iphone) }
    static var hasPaired: Bool { FileManager.default.fileExists(atPath: paired) }
    static var hasFFmpeg: Bool { ExternalTools.installed("ffmpeg", "ffprobe") }
    static var hasExiftool: Bool { ExternalTools.installed("exiftool") }
}

private struct ReaderFailure: Error {
    let status: sy_status
    let message: String
}

/// One decoded frame, copied out of the reader.
private struct Frame {
    var index: UInt32, pts: Int64, seconds: Double, width: Int, height: Int
    var rgb: [UInt8]  // tightly packed width*3 rows; empty when not kept
}

/// An open sy_video_reader plus its context; closed on deinit (and checked for leaks).
private final class Reader {
    let ctx: Context
    let raw: OpaquePointer

    static func open(_ path: String, track: Int32 = -1, budget: Int = 0) throws -> Result<Reader, ReaderFailure> {
        let ctx = try Context(budget: budget)
        var reader: OpaquePointer?
        var err = sy_error()
        let status = sy_video_reader_open(ctx.raw, path, track, &reader, &err)
        if status == SY_OK, let reader { return .success(Reader(ctx: ctx, raw: reader)) }
        #expect(reader == nil, "no handle on failure")
        #expect(ctx.stats.current_bytes == 0, "a failed open frees everything")
        return .failure(ReaderFailure(status: status, message: message(err)))
    }

    static func mustOpen(_ path: String) throws -> Reader {
        switch try open(path) {
        case .success(let r): return r
        case .failure(let f): throw CTestFailure("sy_video_reader_open \(path): \(f.status) \(f.message)")
        }
    }

    private init(ctx: Context, raw: OpaquePointer) {
        self.ctx = ctx
        self.raw = raw
    }

    deinit {
        sy_video_reader_close(raw)
        #expect(ctx.stats.current_bytes == 0, "sy_video_reader_close frees everything")
    }

    var info: sy_video_reader_info { sy_video_reader_info_get(raw)!.pointee }

    /// The next frame, nil at the end; throws ReaderFailure on an error.
    func next(keep: Bool = true) throws -> Frame? {
        var frame = sy_video_frame()
        var end: Int32 = 0
        var err = sy_error()
        let status = sy_video_reader_next(raw, &frame, &end, &err)
        guard status == SY_OK else {
            #expect(frame.rgb == nil, "no pixels with an error")
            throw ReaderFailure(status: status, message: message(err))
        }
        if end != 0 {
            #expect(frame.rgb == nil)
            return nil
        }
        let w = Int(frame.width), h = Int(frame.height)
        var rgb: [UInt8] = []
        if keep, let base = frame.rgb {
            rgb.reserveCapacity(w * h * 3)
            for y in 0..<h { rgb += UnsafeBufferPointer(start: base + y * frame.stride, count: w * 3) }
        }
        return Frame(index: frame.index, pts: frame.pts, seconds: frame.seconds, width: w, height: h, rgb: rgb)
    }

    func all(keep: Bool = true) throws -> [Frame] {
        var frames: [Frame] = []
        while let f = try next(keep: keep) { frames.append(f) }
        return frames
    }
}

/// PSNR of two equally sized RGB buffers (99 when identical).
private func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
    precondition(a.count == b.count && !a.isEmpty)
    var sum: UInt64 = 0
    a.withUnsafeBufferPointer { pa in
        b.withUnsafeBufferPointer { pb in
            for i in 0..<pa.count {
                let d = Int(pa[i]) - Int(pb[i])
                sum &+= UInt64(d * d)
            }
        }
    }
    if sum == 0 { return 99 }
    let mse = Double(sum) / Double(a.count)
    return 10 * log10(255 * 255 / mse)
}

/// ffmpeg's decode of `path` as rgb24 frames of w x h (presentation order, no
/// frame dropping). `filter` nil: ffmpeg's defaults (autorotate included);
/// `extra`: more output options.
private func ffmpegFrames(_ path: String, width w: Int, height h: Int, filter: String?,
                          extra: [String] = []) throws -> [[UInt8]] {
    let out = Generated.folder + "/ref-\(UUID().uuidString.prefix(8)).rgb"
    defer { unlink(out) }
    var args = ["-v", "error", "-y", "-i", path, "-fps_mode", "passthrough"] + extra
    if let filter { args += ["-vf", filter] }
    args += ["-f", "rawvideo", "-pix_fmt", "rgb24", out]
    try ExternalTools.check("ffmpeg", args)
    let bytes = ExternalTools.readFile(out)
    let size = w * h * 3
    guard size > 0, bytes.count % size == 0 else {
        throw CTestFailure("ffmpeg gave \(bytes.count) bytes, not a multiple of \(w)x\(h)x3")
    }
    return stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<$0 + size]) }
}

/// HEVC and H.264 streams say nothing about chroma siting, so the decoders
/// use the codecs' default (type 0: horizontally co-sited, vertically
/// centred); ffmpeg's scaler assumes centred chroma unless told. Telling it
/// compares the colour maths, not the siting convention (which costs ~10 dB
/// on testsrc2's hard colour edges).
private let sitedScale = "scale=in_h_chr_pos=0:in_v_chr_pos=128:flags=bicubic+accurate_rnd+full_chroma_int"

/// ffprobe's decoded frames' pts (presentation order, edit list applied).
private func ffprobeFramePts(_ path: String) throws -> [Int64] {
    let out = try ExternalTools.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts",
                                                  "-of", "csv=p=0", path])
    // A frame with side data prints "pts," and an extra line: keep the first field of numeric lines.
    return out.split(separator: "\n").compactMap { line in
        line.split(separator: ",").first.flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
    }
}

/// ffprobe's packets' pts in file (decode) order.
private func ffprobePacketPts(_ path: String) throws -> [Int64] {
    let out = try ExternalTools.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts",
                                                  "-of", "csv=p=0", path])
    return out.split(separator: "\n").compactMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
}

/// Offset and size of sample `index` of the main video track (sy_mov).
private func sampleLocation(_ path: String, _ index: UInt32) throws -> (offset: Int, size: Int) {
    let ctx = try Context()
    var mov: OpaquePointer?
    var err = sy_error()
    guard sy_mov_open(ctx.raw, path, &mov, &err) == SY_OK, let mov else { throw CTestFailure(message(err)) }
    defer { sy_mov_close(mov) }
    var s = sy_mov_sample_info()
    guard sy_mov_sample(mov, UInt32(sy_mov_main_video_track(mov)), index, &s, &err) == SY_OK else {
        throw CTestFailure(message(err))
    }
    return (Int(s.offset), Int(s.size))
}

/// Rotation and flip of the main video track as sy_mov reports them.
private func trackOrientation(_ path: String) throws -> (Int, Bool) {
    let ctx = try Context()
    var mov: OpaquePointer?
    var err = sy_error()
    guard sy_mov_open(ctx.raw, path, &mov, &err) == SY_OK, let mov else { throw CTestFailure(message(err)) }
    defer { sy_mov_close(mov) }
    guard let t = sy_mov_track(mov, UInt32(sy_mov_main_video_track(mov))) else { throw CTestFailure("no track") }
    return (Int(t.pointee.rotation), t.pointee.mirrored != 0)
}

/// Clips made once by ffmpeg (and exiftool for rotations) for all tests.
private enum Generated {
    static let folder: String = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shiying-vreader-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }()

    static func path(_ name: String) -> String { folder + "/" + name }

    static let made: [String: String] = {
        var failures: [String: String] = [:]
        let src = ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=1"]
        let x265 = ["-c:v", "libx265", "-tag:v", "hvc1"]
        let jobs: [(String, [String])] = [
            ("hevc8.mp4", src + x265 + ["-x265-params", "bframes=3:log-level=error", "-pix_fmt", "yuv420p"]),
            ("hevc10.mp4", src + x265 + ["-x265-params", "bframes=3:log-level=error", "-pix_fmt", "yuv420p10le"]),
            ("hevcfull.mov", src + x265 + ["-x265-params", "bframes=3:range=full:log-level=error",
                                           "-pix_fmt", "yuvj420p", "-color_range", "pc"]),
            ("h264.mp4", src + ["-c:v", "libx264", "-bf", "3", "-pix_fmt", "yuv420p"]),
            ("h264fs.mp4", src + ["-c:v", "libx264", "-bf", "3", "-pix_fmt", "yuv420p", "-movflags", "faststart"]),
            ("hevcfs.mp4", src + x265 + ["-x265-params", "bframes=3:log-level=error", "-pix_fmt", "yuv420p",
                                         "-movflags", "faststart"]),
            ("mpeg4.mp4", src + ["-c:v", "mpeg4"]),
            ("mjpeg.mov", src + ["-c:v", "mjpeg"]),
            ("audio.m4a", ["-f", "lavfi", "-i", "sine=duration=0.5", "-c:a", "aac"]),
        ]
        for (name, args) in jobs {
            do { try ExternalTools.check("ffmpeg", ["-v", "error", "-y"] + args + [path(name)]) } catch {
                failures[name] = "\(error)"
            }
        }
        // ffmpeg 5.1 ignores `-metadata:s:v rotate` when muxing: exiftool writes the tkhd matrix.
        for degrees in [90, 180, 270] {
            let name = "h264rot\(degrees).mp4"
            do {
                try ExternalTools.writeFile(path(name), ExternalTools.readFile(path("h264.mp4")))
                try ExternalTools.check("exiftool", ["-q", "-overwrite_original", "-Rotation=\(degrees)", path(name)])
            } catch { failures[name] = "\(error)" }
        }
        return failures
    }()

    static func need(_ name: String) throws -> String {
        if let failure = made[name] { throw CTestFailure("making \(name): \(failure)") }
        return path(name)
    }

    /// A copy of `name` with sample `index`'s bytes changed by `damage` (given the sample's bytes).
    static func damaged(_ name: String, sample index: UInt32, tag: String,
                        _ damage: (inout ArraySlice<UInt8>) -> Void) throws -> String {
        let source = try need(name)
        let (offset, size) = try sampleLocation(source, index)
        var bytes = ExternalTools.readFile(source)
        var slice = bytes[offset..<offset + size]
        damage(&slice)
        bytes.replaceSubrange(offset..<offset + size, with: slice)
        let out = path("\(tag)-\(name)")
        try ExternalTools.writeFile(out, bytes)
        return out
    }
}

// MARK: - Tests

@Suite("VideoReaderTests", .serialized)
struct VideoReaderTests {
    // issue 4: frames come out in presentation order with the track's own pts
    // (stts + ctts), one per sample, for HEVC and H.264 streams with B-frames.
    @Test(.enabled(if: VideoPaths.hasFFmpeg), arguments: ["hevc8.mp4", "hevc10.mp4", "hevcfull.mov", "h264.mp4"])
    func framesInPresentationOrderWithTrackPts(_ name: String) throws {
        let path = try Generated.need(name)
        let reader = try Reader.mustOpen(path)
        let info = reader.info
        let frames = try reader.all(keep: false)
        let ffFrames = try ffprobeFramePts(path)
        let packets = try ffprobePacketPts(path)
        #expect(frames.count == Int(info.frame_count), "one frame per sample")
        #expect(frames.count == ffFrames.count && frames.count == packets.count, "ffprobe agrees on the count")
        #expect(packets != packets.sorted(), "\(name) really has B-frames (decode order != presentation order)")
        #expect(frames.map(\.index) == (0..<UInt32(frames.count)).map { $0 })
        // ffprobe's pts are on the movie timeline: the edit's media time (start_pts) removed.
        #expect(frames.map { $0.pts - info.start_pts } == ffFrames, "\(name): pts in ffmpeg's output order")
        #expect(frames.map { $0.pts - info.start_pts } == packets.sorted(), "\(name): the packets' pts, sorted")
        for f in frames {
            #expect(abs(f.seconds - Double(f.pts - info.start_pts) / Double(info.timescale)) < 1e-9)
        }
        #expect(frames.first?.seconds == 0, "the first frame is shown at 0 s")
        #expect(abs(info.frame_rate - 30) < 0.01 && abs(info.duration_seconds - 1) < 0.01)
        #expect(info.width == 320 && info.height == 240 && info.rotation == 0)
    }

    // issue 4: pixels match ffmpeg's own decode (colour maths: matrix, range, bit depth).
    @Test(.enabled(if: VideoPaths.hasFFmpeg), arguments: ["hevc8.mp4", "hevc10.mp4", "hevcfull.mov", "h264.mp4"])
    func pixelsMatchFFmpeg(_ name: String) throws {
        let path = try Generated.need(name)
        let reader = try Reader.mustOpen(path)
        let info = reader.info
        let ours = try reader.all()
        let ref = try ffmpegFrames(path, width: 320, height: 240, filter: sitedScale)
        #expect(ours.count == ref.count)
        var worst = 99.0
        for (o, r) in zip(ours, ref) { worst = min(worst, psnr(o.rgb, r)) }
        print("\(name): worst frame PSNR vs ffmpeg \(String(format: "%.2f", worst)) dB")
        #expect(worst >= 35, "\(name): every frame within 35 dB of ffmpeg")
        switch name {
        case "hevc10.mp4": #expect(info.bit_depth == 10 && info.full_range == 0)
        case "hevcfull.mov": #expect(info.bit_depth == 8 && info.full_range == 1)
        default: #expect(info.bit_depth == 8 && info.full_range == 0)
        }
        #expect(info.codec == fourcc(name.hasPrefix("h264") ? "avc1" : "hvc1"))
    }

    // issue 4: a rotated track comes out upright, like ffmpeg's autorotate.
    @Test(.enabled(if: VideoPaths.hasFFmpeg && VideoPaths.hasExiftool), arguments: [90, 180, 270])
    func rotatedTracksComeOutUpright(_ degrees: Int) throws {
        let path = try Generated.need("h264rot\(degrees).mp4")
        let plain = try Generated.need("h264.mp4")
        let reader = try Reader.mustOpen(path)
        let info = reader.info
        let swap = degrees != 180
        #expect(Int(info.rotation) == degrees && info.mirrored == 0)
        #expect(info.coded_width == 320 && info.coded_height == 240)
        #expect(info.width == (swap ? 240 : 320) && info.height == (swap ? 320 : 240))
        let ours = try reader.all()
        let upright = try Reader.mustOpen(plain).all()
        #expect(ours.count == upright.count)
        // Exactly the unrotated frame turned clockwise.
        for (r, u) in zip(ours, upright) {
            #expect(r.width == Int(info.width) && r.height == Int(info.height) && r.pts == u.pts)
            var turned = [UInt8](repeating: 0, count: u.rgb.count)
            for y in 0..<240 {
                for x in 0..<320 {
                    let (X, Y): (Int, Int) = degrees == 90 ? (239 - y, x) : degrees == 180 ? (319 - x, 239 - y) : (y, 319 - x)
                    for c in 0..<3 { turned[(Y * r.width + X) * 3 + c] = u.rgb[(y * 320 + x) * 3 + c] }
                }
            }
            #expect(turned == r.rgb, "frame \(r.index) is the upright frame turned \(degrees)°")
        }
        // And ffmpeg's autorotated decode agrees as closely as its plain decode does with the unrotated clip.
        let refRotated = try ffmpegFrames(path, width: Int(info.width), height: Int(info.height), filter: nil)
        let refPlain = try ffmpegFrames(plain, width: 320, height: 240, filter: nil)
        #expect(refRotated.count == ours.count && refPlain.count == upright.count)
        let rotated = zip(ours, refRotated).map { psnr($0.rgb, $1) }.min() ?? 0
        let unrotated = zip(upright, refPlain).map { psnr($0.rgb, $1) }.min() ?? 0
        print("rotation \(degrees): PSNR vs ffmpeg autorotate \(rotated) dB, unrotated \(unrotated) dB")
        // (A wrong turn or a mirror costs well over 10 dB on testsrc2.)
        #expect(rotated >= unrotated - 0.5 && rotated > 20, "same orientation as ffmpeg's autorotate")
    }

    // issue 4: mirrored track matrices (tkhd written directly: ffmpeg 5.1's autorotate
    // ignores flips) come out as displayed: rotate clockwise, then flip horizontally.
    @Test(.enabled(if: VideoPaths.hasFFmpeg), arguments: [
        ("hflip", [-0x10000, 0, 0, 0x10000], 0),
        ("vflip", [0x10000, 0, 0, -0x10000], 180),
        ("transpose", [0, 0x10000, 0x10000, 0], 90),
        ("antitranspose", [0, -0x10000, -0x10000, 0], 270),
    ])
    func mirroredTracks(_ name: String, _ abcd: [Int32], _ rotation: Int) throws {
        let plain = try Generated.need("h264.mp4")
        var bytes = ExternalTools.readFile(plain)
        // The only tkhd (video track): matrix a, b at +48, c, d at +60 from the box start (version 0).
        let tkhd = Array("tkhd".utf8)
        guard let at = (4..<bytes.count - 100).first(where: { Array(bytes[$0..<$0 + 4]) == tkhd }),
              bytes[at + 4] == 0 else { throw CTestFailure("no version-0 tkhd") }
        let box = at - 4
        for (k, off) in [48, 52, 60, 64].enumerated() {
            let v = UInt32(bitPattern: abcd[k])
            for i in 0..<4 { bytes[box + off + i] = UInt8(truncatingIfNeeded: v >> (24 - 8 * i)) }
        }
        let path = Generated.path("\(name).mp4")
        try ExternalTools.writeFile(path, bytes)
        let reader = try Reader.mustOpen(path)
        let info = reader.info
        #expect(info.mirrored == 1 && Int(info.rotation) == rotation, "\(name): \(info.rotation) \(info.mirrored)")
        let track = try trackOrientation(path)
        #expect(track == (rotation, true), "sy_mov \(name): \(track)") // the demuxer decomposes it the same way
        let swap = rotation == 90 || rotation == 270
        #expect(info.width == (swap ? 240 : 320) && info.height == (swap ? 320 : 240))
        let ours = try reader.all()
        let upright = try Reader.mustOpen(plain).all()
        #expect(ours.count == upright.count && !ours.isEmpty)
        for (m, u) in zip(ours, upright) {
            var expected = [UInt8](repeating: 0, count: u.rgb.count)
            for y in 0..<240 {
                for x in 0..<320 {
                    // where the matrix x' = a x + c y, y' = b x + d y sends the pixel (origin at the centre)
                    let (X, Y): (Int, Int)
                    switch name {
                    case "hflip": (X, Y) = (319 - x, y)
                    case "vflip": (X, Y) = (x, 239 - y)
                    case "transpose": (X, Y) = (y, x)
                    default: (X, Y) = (239 - y, 319 - x)
                    }
                    for c in 0..<3 { expected[(Y * m.width + X) * 3 + c] = u.rgb[(y * 320 + x) * 3 + c] }
                }
            }
            #expect(expected == m.rgb, "\(name): frame \(m.index)")
        }
    }

    // issue 4: the real iPhone Live Photo movie (HEVC, full-range BT.601 matrix, P3).
    @Test(.enabled(if: VideoPaths.hasIphone && VideoPaths.hasFFmpeg))
    func iphoneLiveMovie() throws {
        let reader = try Reader.mustOpen(VideoPaths.iphone)
        let info = reader.info
        #expect(info.codec == fourcc("hvc1") && info.frame_count == 42 && info.timescale == 600)
        // This corpus file's tkhd matrix is the identity (exiftool: MatrixStructure 1 0 0 0 1 0 0 0 1):
        // it is stored and shown 1920x1440; ffmpeg's autorotate leaves it so too.
        #expect(info.rotation == 0 && info.width == 1920 && info.height == 1440)
        #expect(info.full_range == 1 && info.matrix == 6 && info.primaries == 12 && info.bit_depth == 8)
        sy_context_reset_peak(reader.ctx.raw)
        var first: Frame?
        var count = 0, last: Int64 = .min
        while let f = try reader.next(keep: count == 0) {
            if count == 0 { first = f }
            #expect(f.pts > last && f.width == 1920 && f.height == 1440)
            last = f.pts
            count += 1
        }
        #expect(count == 42, "every sample gives a frame")
        let peak = reader.ctx.stats.peak_bytes
        print("iPhone movie: engine peak \(peak / 1_000_000) MB while decoding 42 frames of 1920x1440")
        #expect(peak < 80_000_000, "decoder pictures + one RGB frame + one sample, not the movie")
        let ref = try ffmpegFrames(VideoPaths.iphone, width: 1920, height: 1440, filter: nil, extra: ["-frames:v", "1"])
        let p = psnr(try #require(first).rgb, try #require(ref.first))
        print("iPhone movie: first frame PSNR vs ffmpeg \(String(format: "%.2f", p)) dB")
        #expect(p >= 35)
    }

    // issue 4: the corpus H.264 Live Photo movie decodes (libavcodec), B-frames in order.
    @Test(.enabled(if: VideoPaths.hasPaired && VideoPaths.hasFFmpeg))
    func pairedH264Movie() throws {
        let reader = try Reader.mustOpen(VideoPaths.paired)
        let info = reader.info
        #expect(info.codec == fourcc("avc1") && info.width == 720 && info.height == 960)
        #expect(info.matrix == 1 && info.full_range == 0, "BT.709 limited range from the SPS VUI")
        var first: Frame?
        var pts: [Int64] = []
        while let f = try reader.next(keep: pts.isEmpty) {
            if pts.isEmpty { first = f }
            pts.append(f.pts - info.start_pts)
        }
        #expect(pts.count == Int(info.frame_count) && pts.count == 108)
        #expect(pts == (try ffprobeFramePts(VideoPaths.paired)))
        let ref = try ffmpegFrames(VideoPaths.paired, width: 720, height: 960, filter: nil, extra: ["-frames:v", "1"])
        #expect(psnr(try #require(first).rgb, try #require(ref.first)) >= 35)
    }

    // issue 15: libavcodec's frame threads give exactly the frames of a
    // single-threaded decode (bytes, presentation order, each frame's sample
    // and pts) on B-frame streams, and the order is ffprobe's.
    @Test(.enabled(if: VideoPaths.hasFFmpeg), arguments: ["hevc8.mp4", "hevc10.mp4", "h264.mp4", "iphone"])
    func frameThreadsMatchOneThread(_ name: String) throws {
        if name == "iphone" && !VideoPaths.hasIphone { return }
        let path = name == "iphone" ? VideoPaths.iphone : try Generated.need(name)
        defer { sy__vstream_set_threads(0) }
        struct Seen: Equatable { var index: UInt32, pts: Int64, digest: String }
        func decode(threads: Int32) throws -> [Seen] {
            sy__vstream_set_threads(threads)
            let reader = try Reader.mustOpen(path)
            var seen: [Seen] = []
            while let f = try reader.next() {
                var sha = sy__sha256()
                sy__sha256_init(&sha)
                f.rgb.withUnsafeBufferPointer { sy__sha256_update(&sha, $0.baseAddress, $0.count) }
                var hex = [CChar](repeating: 0, count: 65)
                sy__sha256_hex(&sha, &hex)
                seen.append(Seen(index: f.index, pts: f.pts - reader.info.start_pts, digest: String(decoding: hex.prefix(64).map { UInt8(bitPattern: $0) }, as: UTF8.self)))
            }
            #expect(seen.count == Int(reader.info.frame_count), "\(name), \(threads) threads: one frame per sample")
            return seen
        }
        let one = try decode(threads: 1)
        let packets = try ffprobePacketPts(path)
        #expect(packets != packets.sorted(), "\(name) really has B-frames")
        #expect(one.map(\.pts) == packets.sorted(), "\(name): one thread, presentation order")
        #expect(one.map(\.index) == (0..<UInt32(one.count)).map { $0 })
        #expect(Set(one.map(\.digest)).count > one.count / 2, "\(name): the frames differ from each other")
        for threads: Int32 in [2, 3, 4] {
            let many = try decode(threads: threads)
            #expect(many == one, "\(name): \(threads) frame threads give the single-threaded frames")
        }
    }

    // issue 4: codecs other than HEVC / H.264 are refused by name.
    @Test(.enabled(if: VideoPaths.hasFFmpeg), arguments: [("mpeg4.mp4", "mp4v"), ("mjpeg.mov", "jpeg")])
    func unsupportedCodecIsNamed(_ name: String, _ fourcc: String) throws {
        let path = try Generated.need(name)
        guard case .failure(let f) = try Reader.open(path) else { throw CTestFailure("\(name) opened") }
        #expect(f.status == SY_E_UNSUPPORTED)
        #expect(f.message.contains("unsupported codec \(fourcc)") && f.message.contains(name), "\(f.message)")
    }

    // issue 4: no video track, or a track that is not video.
    @Test(.enabled(if: VideoPaths.hasFFmpeg)) func trackChoice() throws {
        guard case .failure(let f) = try Reader.open(try Generated.need("audio.m4a")) else {
            throw CTestFailure("an audio-only file opened")
        }
        #expect(f.status == SY_E_INVALID_INPUT && f.message.contains("no video track"), "\(f.message)")
        let h264 = try Generated.need("h264.mp4")
        guard case .failure(let g) = try Reader.open(h264, track: 5) else { throw CTestFailure("track 5 opened") }
        #expect(g.status == SY_E_USAGE, "\(g.message)")
        guard case .success(let r) = try Reader.open(h264, track: 0) else { throw CTestFailure("track 0 failed") }
        #expect(r.info.track == 0)
    }

    // issue 4: truncated files fail with a clear error naming the file, no crash.
    @Test(.enabled(if: VideoPaths.hasFFmpeg), arguments: ["hevc8.mp4", "hevcfs.mp4", "h264fs.mp4"])
    func truncatedFile(_ name: String) throws {
        let bytes = ExternalTools.readFile(try Generated.need(name))
        for keep in [bytes.count / 2, bytes.count - 100, 64] {
            let cut = Generated.path("cut\(keep)-\(name)")
            try ExternalTools.writeFile(cut, Array(bytes[0..<keep]))
            switch try Reader.open(cut) {
            case .failure(let f):
                #expect(f.status == SY_E_INVALID_INPUT && f.message.contains(cut.suffix(20)), "\(f.message)")
            case .success(let r):
                do {
                    _ = try r.all(keep: false)
                    Issue.record("\(name) cut to \(keep) bytes decoded without an error")
                } catch let e as ReaderFailure {
                    #expect(e.status == SY_E_INVALID_INPUT, "\(e.message)")
                }
            }
        }
    }

    // issue 4: damaged sample bytes give SY_E_INVALID_INPUT naming the file and the
    // sample; the error sticks; frames before it are fine; nothing leaks.
    @Test(.enabled(if: VideoPaths.hasFFmpeg), arguments: ["hevcfs.mp4", "h264fs.mp4"])
    func damagedSamples(_ name: String) throws {
        let damages: [(String, (inout ArraySlice<UInt8>) -> Void)] = [
            ("garbage", { s in
                var x: UInt32 = 12345
                for i in s.indices.dropFirst(8) {
                    x = x &* 1_103_515_245 &+ 12345
                    s[i] = UInt8(truncatingIfNeeded: x >> 16)
                }
            }),
            ("zeros", { s in
                let start = s.startIndex + s.count / 3
                for i in start..<min(start + 40, s.endIndex) { s[i] = 0 }
            }),
            ("length", { s in for i in s.startIndex..<s.startIndex + 4 { s[i] = 0xFF } }),
        ]
        for (tag, damage) in damages {
            let path = try Generated.damaged(name, sample: 5, tag: tag, damage)
            let reader = try Reader.mustOpen(path)
            var good = 0
            do {
                while try reader.next(keep: false) != nil { good += 1 }
                Issue.record("\(tag) \(name): decoded \(good) frames without an error")
            } catch let e as ReaderFailure {
                #expect(e.status == SY_E_INVALID_INPUT, "\(tag): \(e.message)")
                #expect(e.message.contains("sample 5") && e.message.contains(path.suffix(20)), "\(tag): \(e.message)")
                #expect(good < 30)
                // Sticky: the next call reports the same failure.
                do {
                    _ = try reader.next()
                    Issue.record("a failed reader went on")
                } catch let again as ReaderFailure {
                    #expect(again.status == e.status && again.message == e.message)
                }
            }
        }
    }

    // issue 4 / SPEC C13: the codec's memory is charged before it is allocated.
    @Test(.enabled(if: VideoPaths.hasFFmpeg), arguments: ["hevc8.mp4", "h264.mp4"])
    func budgetIsHonoured(_ name: String) throws {
        let path = try Generated.need(name)
        guard case .failure(let f) = try Reader.open(path, budget: 1 << 20) else {
            throw CTestFailure("opened within 1 MiB")
        }
        #expect(f.status == SY_E_BUDGET, "\(f.message)")
        // Within a budget that covers the estimate, everything decodes and the peak stays inside it.
        guard case .success(let r) = try Reader.open(path, budget: 12 << 20) else {
            throw CTestFailure("did not open within 12 MiB")
        }
        #expect(try r.all(keep: false).count == 30)
        #expect(r.ctx.stats.peak_bytes <= 12 << 20)
    }

    // issue 15 (SPEC C3's check): decoding only what the frame at a moment needs.
    // The pictures left out are B-frames nothing refers to, shown before the
    // moment; every frame that does come out is the full decode's frame of the
    // same pts, in order, without pixels; the first frame and every frame from
    // the moment on are there.
    @Test(.enabled(if: VideoPaths.hasFFmpeg), arguments: ["hevc8.mp4", "h264.mp4"])
    func decodeOnlySkipsDisposablePictures(_ name: String) throws {
        let path = try Generated.need(name)
        let full = try Reader.mustOpen(path).all(keep: false)
        let reader = try Reader.mustOpen(path)
        let moment = 0.6
        var err = sy_error()
        try #require(sy__video_reader_decode_only(reader.raw, moment, &err) == SY_OK, "\(message(err))")
        var some: [Frame] = []
        while true {
            var frame = sy_video_frame()
            var end: Int32 = 0
            try #require(sy_video_reader_next(reader.raw, &frame, &end, &err) == SY_OK, "\(message(err))")
            if end != 0 { break }
            #expect(frame.rgb == nil, "no pixels in decode-only mode")
            some.append(Frame(index: frame.index, pts: frame.pts, seconds: frame.seconds, width: Int(frame.width),
                              height: Int(frame.height), rgb: []))
        }
        let skipped = Int(sy__video_reader_skipped(reader.raw))
        #expect(skipped > 0, "\(name): its non-reference B-frames before \(moment) s are not decoded")
        #expect(some.count + skipped == full.count)
        let fullPts = full.map(\.pts), somePts = some.map(\.pts)
        #expect(somePts == fullPts.filter { Set(somePts).contains($0) }, "same frames, same order")
        #expect(somePts.first == fullPts.first, "the first frame decodes")
        #expect(full.filter { $0.seconds >= moment }.map(\.pts) == some.filter { $0.seconds >= moment }.map(\.pts),
                "every frame from the moment on")
        #expect(some.allSatisfy { $0.width == 320 && $0.height == 240 })
    }

    // issue 17 (SPEC C3's check, sped up): decoding only from the last IDR shown at or before the moment —
    // the first frame still decodes, nothing from the IDR on refers back, every frame from the moment on comes
    // out as the full decode has it. Movies of 60 frames with an IDR every 15 (closed GOPs, x265 and x264).
    @Test(.enabled(if: VideoPaths.hasFFmpeg), arguments: ["hevc", "h264"])
    func decodeOnlyResumesAtTheLastIDR(_ codec: String) throws {
        let path = Generated.folder + "/gop15-\(codec).mp4"
        let encoder = codec == "hevc" ? ["-c:v", "libx265", "-tag:v", "hvc1", "-x265-params",
                                         "log-level=error:keyint=15:min-keyint=15:open-gop=0:bframes=3"]
                                      : ["-c:v", "libx264", "-g", "15", "-keyint_min", "15", "-bf", "3"]
        try ExternalTools.check("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=2"]
                                + encoder + ["-pix_fmt", "yuv420p", path])
        let full = try Reader.mustOpen(path).all(keep: false)
        // frame 48; then a tick before the IDR at 45 (1.5 s), as SPEC C3's check asks for a key photo coded as an
        // IDR: the frame it needs starts just after the moment and is itself the IDR (IDRs at 0, 15, 30, 45)
        for moment in [1.6, 1.5 - 1.0 / 600] {
            let reader = try Reader.mustOpen(path)
            var err = sy_error()
            try #require(sy__video_reader_decode_only(reader.raw, moment, &err) == SY_OK, "\(message(err))")
            var pts: [Int64] = [], seconds: [Double] = []
            while true {
                var frame = sy_video_frame()
                var end: Int32 = 0
                try #require(sy_video_reader_next(reader.raw, &frame, &end, &err) == SY_OK, "\(codec): \(message(err))")
                if end != 0 { break }
                pts.append(frame.pts)
                seconds.append(frame.seconds)
            }
            let skipped = Int(sy__video_reader_skipped(reader.raw))
            #expect(skipped >= 44, "\(codec) at \(moment) s: frames 1..44 lie before the IDR at 45: \(skipped) skipped")
            #expect(pts.count + skipped == full.count)
            #expect(pts.first == full.first?.pts, "the first frame decodes")
            #expect(full.filter { $0.seconds >= moment }.map(\.pts) == zip(pts, seconds).filter { $0.1 >= moment }.map(\.0),
                    "every frame from the moment on")
        }
    }

    // issue 4: cancellation is honoured per frame; clearing it lets the reader go on.
    @Test(.enabled(if: VideoPaths.hasFFmpeg)) func cancellation() throws {
        let reader = try Reader.mustOpen(try Generated.need("hevc8.mp4"))
        _ = try reader.next(keep: false)
        sy_context_cancel(reader.ctx.raw)
        do {
            _ = try reader.next(keep: false)
            Issue.record("a cancelled reader returned a frame")
        } catch let e as ReaderFailure {
            #expect(e.status == SY_E_CANCELLED)
        }
        sy_context_clear_cancel(reader.ctx.raw)
        let rest = try reader.all(keep: false)
        #expect(rest.count == 29 && rest.first?.index == 1, "no frame lost to the cancellation")
        #expect(try reader.next() == nil, "the end repeats")
    }

    // issue 4: bad arguments.
    // A cut (sy_video_cuts.h): 0-1 s of the media, then 1.5-2.5 s. A reader told to follow it returns what a
    // player shows — ffmpeg's 60 frames (it honours the list), at 0 ... 59/30 s, frame k the frame ffmpeg shows
    // k-th — and finds them on that timeline, nothing after the last span; a reader not told reads the media
    // whole (a re-encode that writes the list again), and so does one told too late.
    @Test(.enabled(if: VideoPaths.hasFFmpeg)) func followsCuts() throws {
        let source = Generated.folder + "/cut-source-\(UUID().uuidString.prefix(6)).mp4"
        let cut = source.replacingOccurrences(of: "cut-source", with: "cut")
        defer { unlink(source); unlink(cut) }
        try ExternalTools.check("ffmpeg", ["-y", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=160x120:r=30:d=3",
                                           "-c:v", "libx264", "-bf", "2", "-pix_fmt", "yuv420p", source])
        try ExternalTools.writeFile(cut, ExternalTools.readFile(source))
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/edit_list.py").path
        // movie timescale 1000, media 15360, frame k at 1024 + 512 k: frames 0-29, then 45-74
        try ExternalTools.check("python3", [script, "set", cut, "1000:1024,1000:24064"])
        #expect(try Reader.mustOpen(cut).all(keep: false).count == 90, "not told: the media whole")

        let reader = try Reader.mustOpen(cut)
        var err = sy_error()
        try #require(sy__video_reader_follow_cuts(reader.raw, &err) == SY_OK, "\(message(err))")
        #expect(abs(reader.info.presentation_seconds - 2) < 1e-6, "\(reader.info.presentation_seconds)")
        var index: UInt32 = 0
        var at = 0.0
        #expect(sy_video_reader_frame_at(reader.raw, 1.0, &index, &at, &err) == SY_OK && index == 30 && abs(at - 1) < 1e-9,
                "frame_at(1.0): \(index) at \(at)")
        let frames = try reader.all() // nothing past the last span: the media after it is not shown (no 60...74)
        #expect(frames.map(\.index) == (0..<60).map(UInt32.init))
        #expect(frames.enumerated().allSatisfy { abs($1.seconds - Double($0) / 30) < 1e-9 }, "\(frames.map(\.seconds))")
        let shownMedia: [Int64] = Array(0..<30) + Array(45..<75)
        let expectedPts: [Int64] = shownMedia.map { 1024 + 512 * $0 }
        #expect(frames.map(\.pts) == expectedPts)
        let reference = try ffmpegFrames(cut, width: 160, height: 120, filter: sitedScale)
        try #require(reference.count == 60 && frames.count == 60, "ffmpeg shows \(reference.count) frames")
        let worst = zip(frames, reference).map { psnr($0.rgb, $1) }.min() ?? 0
        #expect(worst >= 35, "worst frame \(worst) dB against ffmpeg's")
        #expect(psnr(frames[30].rgb, reference[29]) < worst - 5, "a frame off shows")

        var late = sy_error()
        let again = try Reader.mustOpen(cut)
        _ = try again.next(keep: false)
        #expect(sy__video_reader_follow_cuts(again.raw, &late) == SY_OK)
        #expect(abs(again.info.presentation_seconds - 3) < 0.05, "told after a frame: as it was")
    }

    // A pause (an empty edit) between the spans, and one after the last: 0-1 s, 0.3 s of nothing, 1.5-2.5 s,
    // 0.2 s of nothing. The reader shows what QuickTime shows: the second span's frames from 1.3 s, the frame
    // before each pause on screen through it (frame_at in the pause finds it), 2.5 s in all, nothing of the media
    // after the last span. Before, a list with a pause was not followed: 90 frames, 3 s.
    @Test(.enabled(if: VideoPaths.hasFFmpeg)) func followsPauses() throws {
        let source = Generated.folder + "/pause-source-\(UUID().uuidString.prefix(6)).mp4"
        let paused = source.replacingOccurrences(of: "pause-source", with: "pause")
        defer { unlink(source); unlink(paused) }
        try ExternalTools.check("ffmpeg", ["-y", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=160x120:r=30:d=3",
                                           "-c:v", "libx264", "-bf", "2", "-pix_fmt", "yuv420p", source])
        try ExternalTools.writeFile(paused, ExternalTools.readFile(source))
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/edit_list.py").path
        try ExternalTools.check("python3", [script, "set", paused, "1000:1024,300:-1,1000:24064,200:-1"])
        let reader = try Reader.mustOpen(paused)
        var err = sy_error()
        try #require(sy__video_reader_follow_cuts(reader.raw, &err) == SY_OK, "\(message(err))")
        #expect(sy__video_reader_follows_cuts(reader.raw) == 1)
        #expect(abs(reader.info.presentation_seconds - 2.5) < 1e-6, "\(reader.info.presentation_seconds)")
        let probes: [(Double, UInt32, Double)] = [(1.15, 29, 29.0 / 30), (1.3, 30, 1.3), (2.45, 59, 1.3 + 29.0 / 30)]
        for (at, want, shownAt) in probes {
            var index: UInt32 = 0
            var seconds = 0.0
            let st = sy_video_reader_frame_at(reader.raw, at, &index, &seconds, &err)
            let off = abs(seconds - shownAt)
            #expect(st == SY_OK && index == want && off < 1e-9, "frame_at(\(at)): \(index) at \(seconds)")
        }
        let frames = try reader.all(keep: false)
        #expect(frames.map(\.index) == (0..<60).map(UInt32.init))
        var want: [Double] = []
        for k in 0..<60 { want.append(k < 30 ? Double(k) / 30 : 1.3 + Double(k - 30) / 30) }
        let seconds = frames.map(\.seconds)
        let worst = zip(seconds, want).map { abs($0 - $1) }.max() ?? 1
        #expect(worst < 1e-9, "\(seconds)")
        let media: [Int64] = Array(0..<30) + Array(45..<75)
        let pts: [Int64] = media.map { 1024 + 512 * $0 }
        #expect(frames.map(\.pts) == pts)
    }

    @Test func usage() throws {
        let ctx = try Context()
        var reader: OpaquePointer?
        var err = sy_error()
        #expect(sy_video_reader_open(ctx.raw, "/nonexistent/x.mov", -1, &reader, &err) == SY_E_IO)
        #expect(reader == nil && message(err).contains("x.mov"))
        #expect(sy_video_reader_open(ctx.raw, nil, -1, &reader, &err) == SY_E_USAGE)
        var frame = sy_video_frame()
        var end: Int32 = 0
        #expect(sy_video_reader_next(nil, &frame, &end, &err) == SY_E_USAGE)
        #expect(sy_video_reader_info_get(nil) == nil)
        sy_video_reader_close(nil)
        #expect(ctx.stats.current_bytes == 0)
    }
}
