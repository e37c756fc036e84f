// What we make from an anamorphic movie (samples 4:3 as wide as tall: a 16:9
// picture stored 288x216, as 1440x1080 camcorder and broadcast files are) has
// the shape players show it at: a GIF, a Live pair (still and movie), a frame
// saved as a photo, a transcode. Re-encoded movies have square pixels at the
// displayed size, so ffprobe reports the source's display aspect ratio. The
// fixtures are ffmpeg's testsrc2 stored anamorphic (`setsar`, which writes the
// VUI and a `pasp`).
import Foundation
import Shiying
import Testing

private let hasFFmpeg = FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")
    && FileManager.default.isExecutableFile(atPath: "/usr/bin/ffprobe")

private enum Anamorphic {
    /// 16:9 testsrc2 (384x216) stored 288x216 with 4:3 samples: HEVC 'hvc1' .mov (what Photos plays, so a Live
    /// save would otherwise keep its samples) and H.264 .mp4; 0.5 s at 30 fps.
    /// `hlg`: 10-bit HEVC, BT.2020 HLG.
    static func movie(_ dir: TempDir, hevc: Bool, hlg: Bool = false) async throws -> String {
        let out = dir.file(hlg ? "anamorphic-hlg.mov" : hevc ? "anamorphic.mov" : "anamorphic.mp4")
        let hdr = hlg ? ":colorprim=bt2020:transfer=arib-std-b67:colormatrix=bt2020nc" : ""
        let codec = hevc || hlg ? ["-c:v", "libx265", "-tag:v", "hvc1", "-x265-params", "log-level=error:bframes=3" + hdr]
                                : ["-c:v", "libx264", "-bf", "3"]
        let run = try await runTool("ffmpeg", ["-y", "-v", "error", "-f", "lavfi", "-i",
                                               "testsrc2=size=384x216:rate=30:duration=0.5", "-vf",
                                               "scale=288:216,setsar=4/3"] + codec
                                               + ["-pix_fmt", hlg ? "yuv420p10le" : "yuv420p", out])
        guard run.succeeded else { throw TestFailure("ffmpeg: \(run)") }
        return out
    }
}

/// ffprobe's view of the first video stream: size, sample and display aspect ratios ("1:1", "16:9"; "N/A" when
/// unsaid).
private func shape(_ path: String) async throws -> (width: Int, height: Int, sar: String, dar: String) {
    let run = try await runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                            "stream=width,height,sample_aspect_ratio,display_aspect_ratio",
                                            "-of", "csv=p=0", path])
    let f = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").map(String.init)
    guard run.succeeded, f.count == 4, let w = Int(f[0]), let h = Int(f[1]) else { throw TestFailure("ffprobe \(path): \(run)") }
    return (w, h, f[2], f[3])
}

/// Frame `index` of `path` as ffmpeg renders it at w x h (its own `scale=iw*sar:ih`: one resample to the displayed
/// size, chroma sited as decoders site it), rgb24.
private func ffmpegFrame(_ path: String, index: Int, width w: Int, height h: Int, dir: TempDir) async throws -> [UInt8] {
    let out = dir.file("ref-\(index).rgb")
    let run = try await runTool("ffmpeg", ["-y", "-v", "error", "-i", path, "-vf",
                                           "select=eq(n\\,\(index)),scale=iw*sar:ih:in_h_chr_pos=0:in_v_chr_pos=128:"
                                           + "flags=bicubic+accurate_rnd+full_chroma_int,setsar=1",
                                           "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", out])
    guard run.succeeded else { throw TestFailure("ffmpeg: \(run)") }
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
    guard bytes.count == w * h * 3 else { throw TestFailure("ffmpeg gave \(bytes.count) bytes, not \(w)x\(h)x3") }
    return bytes
}

private func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
    precondition(a.count == b.count && !a.isEmpty)
    var sum = 0.0
    for i in 0..<a.count {
        let d = Double(a[i]) - Double(b[i])
        sum += d * d
    }
    return sum == 0 ? 99 : 10 * log10(255 * 255 / (sum / Double(a.count)))
}

private func ratio(_ s: String) -> Double {
    let p = s.split(separator: ":").compactMap { Double($0) }
    return p.count == 2 && p[1] != 0 ? p[0] / p[1] : 0
}

@Suite("AnamorphicOutputTests", .serialized)
struct AnamorphicOutputTests {
    // video -> GIF (SPEC S3): 16:9 as shown, not the stored 4:3 (was 288x216 for a 320-wide GIF).
    @Test(.enabled(if: hasFFmpeg))
    func gifHasTheDisplayedShape() async throws {
        let dir = try TempDir("anamorphic-gif")
        defer { dir.remove() }
        let movie = try await Anamorphic.movie(dir, hevc: false)
        let gif = dir.file("out.gif")
        let report = try Conversion.videoToGIFBlocking(movie, to: gif, maxWidth: 320)
        #expect((report.width, report.height) == (320, 180), "\(report.width)x\(report.height)")
        let probe = try await shape(gif)
        #expect((probe.width, probe.height) == (320, 180))
    }

    // video -> Live (SPEC S3, live-photo.md P4): the still is the displayed frame, and the movie — re-encoded,
    // not remuxed, though Photos plays its 'hvc1' — has square pixels at the displayed size, so ffprobe shows the
    // source's display aspect ratio and players agree with the still (pitfall 9).
    @Test(.enabled(if: hasFFmpeg))
    func livePairHasTheDisplayedShape() async throws {
        let dir = try TempDir("anamorphic-live")
        defer { dir.remove() }
        let movie = try await Anamorphic.movie(dir, hevc: true)
        let source = try await shape(movie)
        #expect(source.sar == "4:3" && source.dar == "16:9", "the fixture is anamorphic")
        let still = dir.file("live.jpg"), out = dir.file("live.mov")
        var options = LivePhoto.SaveOptions()
        options.stillTime = 0.2
        let report = try LivePhoto.saveBlocking(movie: movie, stillOut: still, movieOut: out, options: options)
        #expect(report.live)
        #expect((report.stillWidth, report.stillHeight) == (384, 216), "still \(report.stillWidth)x\(report.stillHeight)")
        #expect((report.movieWidth, report.movieHeight) == (384, 216), "movie \(report.movieWidth)x\(report.movieHeight)")
        let made = try await shape(out)
        #expect((made.width, made.height) == (384, 216))
        #expect(made.sar == "1:1" && made.dar == source.dar, "square pixels, the source's \(source.dar): \(made)")
        let photo = try await shape(still)
        #expect((photo.width, photo.height) == (384, 216) && abs(ratio(photo.dar) - ratio(made.dar)) < 0.01,
                "the still has its movie's shape")
    }

    // SPEC E2 frame -> photo: the frame is ffmpeg's `scale=iw*sar:ih` rendering of it.
    @Test(.enabled(if: hasFFmpeg))
    func frameIsTheDisplayedPicture() async throws {
        let dir = try TempDir("anamorphic-frame")
        defer { dir.remove() }
        let movie = try await Anamorphic.movie(dir, hevc: false)
        let frame = try LivePhoto.renderFrame(movie: movie, at: 0.2)
        #expect((frame.width, frame.height) == (384, 216))
        let reference = try await ffmpegFrame(movie, index: frame.index, width: 384, height: 216, dir: dir)
        guard frame.rgb.count == reference.count else { return }
        let db = psnr(frame.rgb, reference)
        print("frame \(frame.index): PSNR vs ffmpeg's scale=iw*sar:ih \(String(format: "%.2f", db)) dB")
        #expect(db >= 33)
    }

    // `video transcode`: square pixels at the displayed size (was the stored 288x216 tagged 1:1, shown 4:3).
    @Test(.enabled(if: hasFFmpeg), arguments: [false, true])
    func transcodeKeepsTheDisplayAspectRatio(_ hevc: Bool) async throws {
        let dir = try TempDir("anamorphic-transcode")
        defer { dir.remove() }
        let movie = try await Anamorphic.movie(dir, hevc: hevc)
        let out = dir.file("out.mp4")
        let report = try VideoTranscode.runBlocking(movie, to: out)
        #expect((report.width, report.height) == (384, 216))
        let source = try await shape(movie), made = try await shape(out)
        #expect((made.width, made.height) == (384, 216))
        #expect(made.sar == "1:1" && made.dar == source.dar, "\(made) vs the source's \(source)")
    }

    // An HDR (HLG) anamorphic movie: a transcode cannot keep its samples as stored (they are not the displayed
    // shape), so it says up front that the movie becomes SDR and needs consent (SPEC E6) — as the transcode then
    // does; a frame saved as a photo keeps the HDR as a gain map in the photo's shape (was the stored 4:3).
    @Test(.enabled(if: hasFFmpeg))
    func hdrMovieAnswersForItsShape() async throws {
        let dir = try TempDir("anamorphic-hdr")
        defer { dir.remove() }
        let movie = try await Anamorphic.movie(dir, hevc: true, hlg: true)
        #expect(try VideoTranscode.hdrOutcome(movie) == .becomesSDR)
        #expect(throws: ShiyingError.self) { try VideoTranscode.runBlocking(movie, to: dir.file("refused.mov")) }
        var options = VideoTranscode.Options()
        options.allowSDR = true
        let report = try VideoTranscode.runBlocking(movie, to: dir.file("sdr.mov"), options: options)
        #expect((report.width, report.height) == (384, 216))
        let photo = dir.file("frame.jpg")
        let frame = try LivePhoto.saveFrame(movie: movie, at: 0.2, to: photo)
        #expect((frame.width, frame.height) == (384, 216))
        let info = try GainMapInfo.probe(photo)
        #expect((info.baseWidth, info.baseHeight) == (384, 216))
        let mapW = info.gainMapWidth ?? 0, mapH = info.gainMapHeight ?? 0
        #expect(mapH > 0 && abs(Double(mapW) / Double(mapH) - 16.0 / 9) < 0.05, "gain map \(mapW)x\(mapH)")
    }
}
