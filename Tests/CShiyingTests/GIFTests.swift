// Issue 19: video -> GIF. ffmpeg/ffprobe decode what we write; frames and
// timing follow the source (within GIF's 1/100 s); the picture is close to
// the source (SSIM); a still background costs nothing per frame (only
// changed pixels are written); memory stays bounded by a frame.
import CShiying
import CShiyingInternal
import Foundation
import Testing

func gifConvert(_ ctx: Context, _ input: String, _ output: String, size: UInt32 = 0, fps: Double = 0,
                colors: UInt32 = 255) -> (status: sy_status, report: sy_gif_report, message: String) {
    var o = sy_gif_options()
    sy_gif_options_init(&o)
    o.max_width = size
    o.max_height = size
    o.fps = fps
    o.colors = colors
    var r = sy_gif_report()
    var err = sy_error()
    let st = sy_convert_video_to_gif(ctx.raw, input, output, &o, &r, &err)
    return (st, r, st == SY_OK ? "" : message(err))
}

/// Frame delays (1/100 s) of a GIF, from its Graphic Control Extensions.
func gifDelays(_ path: String) -> [Int] {
    let b = ExternalTools.readFile(path)
    var out: [Int] = []
    var i = 0
    while i + 5 < b.count {
        if b[i] == 0x21 && b[i + 1] == 0xF9 && b[i + 2] == 4 {
            out.append(Int(b[i + 4]) | Int(b[i + 5]) << 8)
            i += 8
        } else {
            i += 1
        }
    }
    return out
}

/// ffmpeg's SSIM (All) of `gif` against `source` scaled to w x h.
func gifSSIM(_ gif: String, _ source: String, width: Int, height: Int) throws -> Double {
    let r = try ExternalTools.run("ffmpeg", ["-v", "info", "-i", gif, "-i", source, "-filter_complex",
                                             "[1:v]scale=\(width):\(height):flags=lanczos,format=rgb24[r];[0:v]format=rgb24[g];[g][r]ssim",
                                             "-f", "null", "-"])
    guard let tail = r.err.components(separatedBy: "All:").last, r.err.contains("All:") else { return -1 }
    return Double(tail.prefix { $0 == "." || $0.isNumber }) ?? -1
}

@Suite("Video -> GIF (issue 19)", .enabled(if: MotionPhotoFixtures.hasTools, "ffmpeg not installed (make deps)"))
struct GIFTests {
    @Test("every frame, ffmpeg decodes it, timing and size as the source's, SSIM >= 0.9, bounded memory")
    func interop() throws {
        let ctx = try Context()
        let src = try MotionPhotoFixtures.movie.get()
        let dir = try MotionPhotoFixtures.fresh("gif")
        let gif = dir + "/a.gif"
        let r = gifConvert(ctx, src, gif, size: 240)
        try #require(r.status == SY_OK, "\(r.message)")
        #expect(r.report.width == 240 && r.report.height == 180 && r.report.frames == 30 && r.report.source_frames == 30)
        #expect(r.report.bytes == UInt64(ExternalTools.readFile(gif).count))
        let delays = gifDelays(gif)
        #expect(delays.count == 30 && delays.reduce(0, +) == 100, "\(delays)")
        #expect(delays.allSatisfy { $0 == 3 || $0 == 4 }, "\(delays)")
        let probe = try ExternalTools.check("ffprobe", ["-v", "error", "-count_frames", "-show_entries",
                                                        "stream=codec_name,width,height,nb_read_frames", "-of", "csv=p=0", gif])
        #expect(probe.trimmingCharacters(in: .whitespacesAndNewlines) == "gif,240,180,30", "\(probe)")
        let ssim = try gifSSIM(gif, src, width: 240, height: 180)
        #expect(ssim >= 0.9, "SSIM \(ssim)")
        #expect(ctx.stats.current_bytes == 0)
        #expect(ctx.stats.peak_bytes < 40 << 20, "peak \(ctx.stats.peak_bytes)")
    }

    @Test("the second pass reads the first's spooled frames: the same bytes as decoding twice, nothing left beside")
    func spooledFrames() throws {
        let ctx = try Context()
        let src = try MotionPhotoFixtures.movie.get()
        let dir = try MotionPhotoFixtures.fresh("gif-spool")
        let spooled = gifConvert(ctx, src, dir + "/spooled.gif", size: 200, fps: 20)
        try #require(spooled.status == SY_OK, "\(spooled.message)")
        let previous = sy__gif_set_spool_limit(0) // every conversion decodes twice until restored
        let decoded = gifConvert(ctx, src, dir + "/decoded.gif", size: 200, fps: 20)
        sy__gif_set_spool_limit(previous)
        try #require(decoded.status == SY_OK, "\(decoded.message)")
        #expect(ExternalTools.readFile(dir + "/spooled.gif") == ExternalTools.readFile(dir + "/decoded.gif"))
        #expect(spooled.report.frames == 20 && decoded.report.frames == 20)
        let left = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        #expect(left == ["decoded.gif", "spooled.gif"], "\(left)")
        #expect(ctx.stats.current_bytes == 0)
    }

    @Test("an fps limit keeps one frame per slot and the total length")
    func fpsLimit() throws {
        let ctx = try Context()
        let dir = try MotionPhotoFixtures.fresh("gif-fps")
        let r = gifConvert(ctx, try MotionPhotoFixtures.movie.get(), dir + "/b.gif", size: 160, fps: 10)
        try #require(r.status == SY_OK, "\(r.message)")
        let delays = gifDelays(dir + "/b.gif")
        #expect(r.report.frames == 10 && delays == Array(repeating: 10, count: 10), "\(delays)")
    }

    @Test("a still picture costs almost nothing after the first frame: unchanged pixels are not written")
    func stillBackground() throws {
        let ctx = try Context()
        let dir = try MotionPhotoFixtures.fresh("gif-still")
        let still = dir + "/still.mp4"
        try ExternalTools.check("ffmpeg", ["-v", "error", "-y", "-loop", "1", "-framerate", "30", "-i",
                                           try MotionPhotoFixtures.photo.get(), "-t", "1", "-vf", "scale=320:240",
                                           "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv444p", still])
        let one = gifConvert(ctx, still, dir + "/one.gif", fps: 1)
        let all = gifConvert(ctx, still, dir + "/all.gif")
        try #require(one.status == SY_OK && all.status == SY_OK, "\(one.message) \(all.message)")
        #expect(one.report.frames == 1 && all.report.frames == 30)
        #expect(all.report.bytes < one.report.bytes + 30 * 64, "\(all.report.bytes) vs \(one.report.bytes)")
    }

    @Test("a Motion Photo's movie converts; a still photo is refused with the reason")
    func inputs() throws {
        let ctx = try Context()
        let dir = try MotionPhotoFixtures.fresh("gif-inputs")
        let mp = try MotionPhotoFixtures.jpeg("gif-mp.jpg")
        let ok = gifConvert(ctx, mp, dir + "/mp.gif", size: 120, fps: 5)
        #expect(ok.status == SY_OK && ok.report.frames == 5, "\(ok.message)")
        let bad = gifConvert(ctx, try MotionPhotoFixtures.photo.get(), dir + "/x.gif")
        #expect(bad.status == SY_E_INVALID_INPUT && bad.message.contains("not a movie"), "\(bad.message)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/x.gif"))
    }
}
