// Anamorphic movies through the video reader (sy_video_reader_*): samples that
// are not square — the H.264 / HEVC VUI's sample aspect ratio, the sample
// entry's `pasp`, or both — come out at the displayed shape ffprobe's
// display_aspect_ratio names, stretched on their long axis, and match ffmpeg's
// own `scale=iw*sar:ih` rendering; `pasp` wins over a VUI that disagrees;
// absurd aspects are set aside with a note; the real phone movies of the corpus
// keep their stored size. Fixtures are made by ffmpeg (and exiftool for a
// rotation) from testsrc2, 16:9 pictures stored 4:3 or 64:27.
import CShiying
import CShiyingInternal
import Foundation
import Testing

private enum Clips {
    static let folder: String = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shiying-anamorphic-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }()
    static func path(_ name: String) -> String { folder + "/" + name }
    static var tools: Bool { ExternalTools.installed("ffmpeg", "ffprobe", "exiftool") }
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/corpus/real").path

    /// The movie with its first `from` box (in a sample entry: the `pasp`) renamed `free`, which every reader skips.
    static func renamed(_ source: String, _ out: String, from: String = "pasp", patch: ((inout [UInt8], Int) -> Void)? = nil) throws {
        var bytes = ExternalTools.readFile(source)
        let tag = Array(from.utf8)
        guard let at = (0..<bytes.count - 4).first(where: { Array(bytes[$0..<$0 + 4]) == tag }) else {
            throw CTestFailure("\(source): no \(from) box")
        }
        if let patch { patch(&bytes, at) } else { bytes.replaceSubrange(at..<at + 4, with: Array("free".utf8)) }
        try ExternalTools.writeFile(out, bytes)
    }

    static let made: [String: String] = {
        var failures: [String: String] = [:]
        let src = ["-f", "lavfi", "-i", "testsrc2=size=384x216:rate=30:duration=0.5"]
        let x265 = ["-c:v", "libx265", "-tag:v", "hvc1", "-x265-params", "bframes=3:log-level=error"]
        let x264 = ["-c:v", "libx264", "-bf", "3"]
        let jobs: [(String, [String])] = [
            // 1440x1080-style: 16:9 pictures stored 4:3 wide with 4:3 samples (VUI + pasp, as ffmpeg writes)
            ("vui-pasp.mp4", src + ["-vf", "scale=288:216,setsar=4/3"] + x264 + ["-pix_fmt", "yuv420p"]),
            ("vui-pasp.mov", src + ["-vf", "scale=288:216,setsar=4/3"] + x265 + ["-pix_fmt", "yuv420p"]),
            // samples taller than wide: 3:4 (SAR < 1), shown taller
            ("tall.mp4", src + ["-vf", "scale=384:162,setsar=3/4"] + x265 + ["-pix_fmt", "yuv420p"]),
            // square samples (ffmpeg's scale alone would keep the 16:9 shape with 4:3 samples)
            ("square264.mp4", src + ["-vf", "scale=288:216,setsar=1"] + x264 + ["-pix_fmt", "yuv420p"]),
            ("square265.mp4", src + ["-vf", "scale=288:216,setsar=1"] + x265 + ["-pix_fmt", "yuv420p"]),
            ("vui1000.mp4", src + ["-vf", "scale=288:216,setsar=1"] + ["-c:v", "libx265", "-tag:v", "hvc1",
                                                          "-x265-params", "sar=1000\\:1:log-level=error"]),
        ]
        func ffmpeg(_ args: [String], _ name: String) {
            do { try ExternalTools.check("ffmpeg", ["-v", "error", "-y"] + args + [path(name)]) } catch {
                failures[name] = "\(error)"
            }
        }
        for (name, args) in jobs { ffmpeg(args, name) }
        // a pasp given on a stream copy (the stream's VUI says 1:1, the container 4:3)
        ffmpeg(["-i", path("square264.mp4"), "-c", "copy", "-aspect", "16:9"], "pasp-only.mp4")
        // the VUI given on a stream copy: ffmpeg then writes pasp 1:1 beside it (they disagree) ...
        ffmpeg(["-i", path("square264.mp4"), "-c", "copy", "-bsf:v", "h264_metadata=sample_aspect_ratio=4/3"],
               "vui43-pasp11.mp4")
        ffmpeg(["-i", path("square265.mp4"), "-c", "copy", "-bsf:v", "hevc_metadata=sample_aspect_ratio=4/3"],
               "vui43-pasp11-265.mp4")
        do { // ... and without the pasp, the VUI alone
            try renamed(path("vui43-pasp11.mp4"), path("vui-only.mp4"))
            try renamed(path("vui43-pasp11-265.mp4"), path("vui-only-265.mp4"))
            try renamed(path("vui1000.mp4"), path("vui1000-only.mp4"))
            // a pasp whose hSpacing is 0 beside the stream's 1:1
            try renamed(path("pasp-only.mp4"), path("pasp-zero.mp4")) { bytes, at in
                bytes.replaceSubrange(at + 4..<at + 8, with: [0, 0, 0, 0])
            }
            try ExternalTools.writeFile(path("rot90.mp4"), ExternalTools.readFile(path("vui-pasp.mp4")))
            try ExternalTools.check("exiftool", ["-q", "-overwrite_original", "-Rotation=90", path("rot90.mp4")])
        } catch { failures["derived"] = "\(error)" }
        return failures
    }()

    static func need(_ name: String) throws -> String {
        if let failure = made[name] ?? made["derived"] { throw CTestFailure("making \(name): \(failure)") }
        return path(name)
    }
}

/// One open reader with its context, every frame copied out.
private struct Read {
    var info: sy_video_reader_info
    var note: String?
    var frames: [(width: Int, height: Int, rgb: [UInt8])]
}

private func read(_ path: String, maxFrames: Int = .max, halve: Bool = false) throws -> Read {
    let ctx = try Context()
    var reader: OpaquePointer?
    var err = sy_error()
    guard sy_video_reader_open(ctx.raw, path, -1, &reader, &err) == SY_OK, let reader else {
        throw CTestFailure("open \(path): \(message(err))")
    }
    defer {
        sy_video_reader_close(reader)
        #expect(ctx.stats.current_bytes == 0, "\(path): the reader frees everything")
    }
    if halve {
        var w: UInt32 = 0, h: UInt32 = 0
        guard sy__video_reader_halve(reader, &w, &h, &err) == SY_OK else { throw CTestFailure(message(err)) }
    }
    let info = sy_video_reader_info_get(reader)!.pointee
    var out = Read(info: info, note: info.aspect_note.map { String(cString: $0) }, frames: [])
    while out.frames.count < maxFrames {
        var f = sy_video_frame()
        var end: Int32 = 0
        guard sy_video_reader_next(reader, &f, &end, &err) == SY_OK else { throw CTestFailure(message(err)) }
        if end != 0 { break }
        let w = Int(f.width), h = Int(f.height)
        var rgb: [UInt8] = []
        rgb.reserveCapacity(w * h * 3)
        for y in 0..<h { rgb += UnsafeBufferPointer(start: f.rgb! + y * f.stride, count: w * 3) }
        out.frames.append((w, h, rgb))
    }
    return out
}

/// ffprobe's width, height and display_aspect_ratio of the first video stream.
private func ffprobeShape(_ path: String) throws -> (width: Int, height: Int, dar: String) {
    let out = try ExternalTools.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                  "stream=width,height,display_aspect_ratio", "-of", "csv=p=0", path])
    let f = out.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").map(String.init)
    guard f.count == 3, let w = Int(f[0]), let h = Int(f[1]) else { throw CTestFailure("ffprobe \(path): \(out)") }
    return (w, h, f[2])
}

/// ffmpeg's decode scaled straight to w x h (as stored), then turned clockwise when `turn`, rgb24, every frame.
private func ffmpegFrames(_ path: String, width w: Int, height h: Int, turn: Bool = false) throws -> [[UInt8]] {
    let out = Clips.path("ref-\(UUID().uuidString.prefix(8)).rgb")
    defer { unlink(out) }
    // chroma sited as the decoders site it (see VideoReaderTests.sitedScale), so on the stored picture
    let scale = "scale=\(turn ? h : w):\(turn ? w : h):in_h_chr_pos=0:in_v_chr_pos=128:flags=bicubic+accurate_rnd+full_chroma_int"
    try ExternalTools.check("ffmpeg", ["-v", "error", "-y", "-noautorotate", "-i", path, "-fps_mode", "passthrough",
                                       "-vf", scale + ",setsar=1" + (turn ? ",transpose=clock" : ""),
                                       "-f", "rawvideo", "-pix_fmt", "rgb24", out])
    let bytes = ExternalTools.readFile(out), size = w * h * 3
    guard bytes.count % size == 0 else { throw CTestFailure("ffmpeg gave \(bytes.count) bytes for \(w)x\(h)") }
    return stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<$0 + size]) }
}

private func ratio(_ s: String) -> Double {
    let p = s.split(separator: ":").compactMap { Double($0) }
    return p.count == 2 && p[1] != 0 ? p[0] / p[1] : 0
}

@Suite("AnamorphicReaderTests", .serialized)
struct AnamorphicReaderTests {
    // Frames have the shape players show — QuickTime / ffprobe's display_aspect_ratio — the long side grown
    // (4:3 samples: the width, 1440x1080 -> 1920x1080; 3:4 samples: the height), and their pixels are ffmpeg's
    // own rendering at that size (one resample, through the renderer); the sample aspect and where it came from
    // are reported. Real phone movies (square samples, no pasp) keep their stored size.
    @Test(.enabled(if: Clips.tools), arguments: [
        ("vui-pasp.mp4", 384, 216, "pasp", 4, 3), ("vui-pasp.mov", 384, 216, "pasp", 4, 3),
        ("vui-only.mp4", 384, 216, "vui ", 4, 3), ("vui-only-265.mp4", 384, 216, "vui ", 4, 3),
        ("pasp-only.mp4", 384, 216, "pasp", 4, 3), ("tall.mp4", 384, 216, "pasp", 3, 4),
        ("rot90.mp4", 216, 384, "pasp", 4, 3),
    ])
    func framesHaveTheDisplayedShape(_ args: (String, Int, Int, String, Int, Int)) throws {
        let (name, width, height, from, num, den) = args
        let path = try Clips.need(name)
        let r = try read(path)
        #expect((Int(r.info.width), Int(r.info.height)) == (width, height), "\(name): the displayed size")
        #expect((Int(r.info.sar_num), Int(r.info.sar_den)) == (num, den) && r.info.aspect_from == fourcc(from))
        try #require(r.frames.count == 15 && r.frames.allSatisfy { $0.width == width && $0.height == height })
        // ffprobe's display aspect ratio is the frames' shape (rotation aside: it names the stored picture)
        let probe = try ffprobeShape(path)
        let shown = name == "rot90.mp4" ? Double(height) / Double(width) : Double(width) / Double(height)
        #expect(abs(ratio(probe.dar) - shown) < 0.01, "\(name): ffprobe shows \(probe.dar)")
        let ref = try ffmpegFrames(path, width: width, height: height, turn: name == "rot90.mp4")
        try #require(ref.count == r.frames.count)
        var worst = 99.0
        for (ours, theirs) in zip(r.frames, ref) { worst = min(worst, psnr8(ours.rgb, theirs)) }
        print("\(name): worst frame PSNR vs ffmpeg's scale to \(width)x\(height) \(String(format: "%.2f", worst)) dB")
        #expect(worst >= 33, "\(name): every frame is ffmpeg's displayed rendering")
    }

    // The real iPhone movies of the corpus say no aspect: square samples, frames at the stored size, no note.
    @Test(arguments: ["iphone15plus_IMG_3853.MOV", "h264_live_pairedVideo.mov"])
    func phoneMoviesKeepTheirStoredSize(_ name: String) throws {
        let path = Clips.corpus + "/" + name
        guard FileManager.default.fileExists(atPath: path) else { return }
        let r = try read(path, maxFrames: 1)
        let swap = r.info.rotation == 90 || r.info.rotation == 270
        #expect(r.info.width == (swap ? r.info.coded_height : r.info.coded_width))
        #expect(r.info.height == (swap ? r.info.coded_width : r.info.coded_height))
        #expect(r.info.sar_num == 1 && r.info.sar_den == 1 && r.info.aspect_from == 0 && r.note == nil)
        #expect(r.frames.first.map { $0.width == Int(r.info.width) && $0.height == Int(r.info.height) } == true)
    }

    // A pasp and a VUI that disagree: the container's pasp applies (QuickTime, ffprobe), and the note says so.
    @Test(.enabled(if: Clips.tools), arguments: ["vui43-pasp11.mp4", "vui43-pasp11-265.mp4"])
    func paspWinsOverTheVUI(_ name: String) throws {
        let path = try Clips.need(name)
        let r = try read(path, maxFrames: 2)
        let probe = try ffprobeShape(path)
        #expect(probe.dar == "4:3", "ffprobe: the pasp's 1:1 applies")
        #expect((r.info.width, r.info.height, r.info.sar_num, r.info.sar_den) == (288, 216, 1, 1))
        #expect(r.info.aspect_from == 0 && r.frames.allSatisfy { $0.width == 288 && $0.height == 216 })
        #expect(r.note?.contains("sample aspect 4:3 differs from the sample entry's pasp 1:1: the pasp applies") == true,
                "\(r.note ?? "no note")")
    }

    // Absurd aspects are set aside, never believed (a 1000:1 stretch would make a frame of 288000 columns): a
    // VUI of 1000:1, a pasp of 0:1 (then the VUI's 1:1) — square frames at the stored size, the note naming them.
    @Test(.enabled(if: Clips.tools), arguments: [
        ("vui1000-only.mp4", "the stream's sample aspect 1000:1 ignored: wider than 4:1 either way"),
        ("pasp-zero.mp4", "the sample entry's pasp 0:3 ignored: a zero term says nothing"),
    ])
    func absurdAspectsAreSetAsideWithANote(_ args: (String, String)) throws {
        let path = try Clips.need(args.0)
        let r = try read(path, maxFrames: 2)
        #expect((r.info.width, r.info.height, r.info.sar_num, r.info.sar_den) == (288, 216, 1, 1))
        #expect(r.frames.count == 2 && r.frames.allSatisfy { $0.width == 288 && $0.height == 216 })
        #expect(r.note == args.1, "\(r.note ?? "no note")")
    }

    // Half-size frames (a moving collage's cells) have the displayed shape too: stored 144x108, shown 192x108.
    @Test(.enabled(if: Clips.tools))
    func halfSizeFramesHaveTheDisplayedShape() throws {
        let r = try read(try Clips.need("vui-pasp.mp4"), maxFrames: 3, halve: true)
        try #require(r.frames.count == 3 && r.frames.allSatisfy { $0.width == 192 && $0.height == 108 })
        let full = try read(try Clips.need("vui-pasp.mp4"), maxFrames: 1)
        try #require(full.frames.first?.width == 384 && full.frames.first?.height == 216)
        // the half frame is the full one at half size: compare against a 2x2 box average of it
        var boxed = [UInt8](repeating: 0, count: 192 * 108 * 3)
        let f = full.frames[0].rgb
        for y in 0..<108 {
            for x in 0..<192 {
                for c in 0..<3 {
                    let a = Int(f[((2 * y) * 384 + 2 * x) * 3 + c]) + Int(f[((2 * y) * 384 + 2 * x + 1) * 3 + c])
                    let b = Int(f[((2 * y + 1) * 384 + 2 * x) * 3 + c]) + Int(f[((2 * y + 1) * 384 + 2 * x + 1) * 3 + c])
                    boxed[(y * 192 + x) * 3 + c] = UInt8((a + b + 2) / 4)
                }
            }
        }
        #expect(psnr8(r.frames[0].rgb, boxed) >= 28, "the half frame shows the same picture")
    }
}
