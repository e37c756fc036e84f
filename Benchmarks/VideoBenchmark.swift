// Video suite (issue 4): decode and transcode fps, shiying vs ffmpeg, one run.
//
//   swift run -c release Benchmarks --suite video [--runs 3]
//
// Input: a 3-second 1440x1080 30 fps HEVC clip (ffmpeg testsrc2 + libx265, cached in
// .build/benchmarks/video-inputs) and, when present, ../shared/corpus/real/iphone15plus_IMG_3853.MOV.
// decode:    `shiying video decode IN` (upright RGB frames)  vs  `ffmpeg -i IN -pix_fmt rgb24 -f null -`;
//            and the same clip as 10-bit HLG (BT.2020, as iPhones record video): our SDR Display P3 frames
//            vs ffmpeg's zimg to display light + tonemap (mobius) + zimg to Display P3 rgb24 (decode only)
// transcode: `shiying video transcode IN -o OUT.mov --no-audio` (x265 "fast", SPEC C14 rate)
//            vs `ffmpeg -i IN -an -c:v libx265 -preset fast -b:v <same> -tag:v hvc1 OUT.mov`,
//            with each output's PSNR against the source (ffmpeg psnr filter).
// Writes .build/benchmarks/video-latest.json and video-<timestamp>.json.
import Foundation

struct VideoReport: Codable {
    var timestamp: String
    var host: String
    var cores: Int
    var loadAverageBefore: Double
    var loadAverageAfter: Double
    var runsRequested: Int
    var decode: [ToolPair]
    var transcode: [ToolPair]
}

/// SPEC C14 for the benchmark's peer command (the same rule the engine applies).
private func c14(_ width: Int, _ height: Int) -> Int {
    let rate = 12_000_000.0 * Double(width * height) / Double(1080 * 1440)
    return Int(min(64_000_000, max(12_000_000, rate)).rounded())
}

private func frameCount(_ path: String, scratch: String) -> Int? {
    guard let r = try? runChild(["ffprobe", "-v", "error", "-count_packets", "-select_streams", "v:0", "-show_entries",
                                 "stream=nb_read_packets", "-of", "csv=p=0", path], captureDirectory: scratch),
          r.succeeded else { return nil }
    return Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
}

/// The HDR input: the same testsrc2 at 1440x1080 as 10-bit HLG, BT.2020 (read as an HLG signal it is
/// mostly highlights: every pixel goes through the tone curve).
private func hlgClip(inputs: String, scratch: String) -> String {
    let clip = inputs + "/testsrc2-1440x1080-3s-hlg.mov"
    if !isFile(clip) {
        progress("making \(clip) (libx265 10-bit HLG, 90 frames)")
        let make = try? runChild(["ffmpeg", "-y", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=1440x1080:rate=30",
                                  "-t", "3", "-vf", "format=yuv420p10le", "-c:v", "libx265", "-preset", "fast",
                                  "-x265-params", "log-level=error:colorprim=bt2020:transfer=arib-std-b67:colormatrix=bt2020nc",
                                  "-b:v", "12M", "-tag:v", "hvc1", clip], captureDirectory: scratch)
        guard let make, make.succeeded else { fail("ffmpeg could not make the HLG clip: \(make?.stderr.suffix(800) ?? "")") }
    }
    return clip
}

/// The suites' shared input: 3 s of ffmpeg's testsrc2 at 1440x1080, 30 fps,
/// HEVC (hvc1) at 12 Mbps, made once into `inputs`.
func testsrc2Clip(inputs: String, scratch: String) -> String {
    let clip = inputs + "/testsrc2-1440x1080-3s.mov"
    if !isFile(clip) {
        progress("making \(clip) (libx265, 90 frames)")
        let make = try? runChild(["ffmpeg", "-y", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=1440x1080:rate=30",
                                  "-t", "3", "-c:v", "libx265", "-preset", "fast", "-x265-params", "log-level=error",
                                  "-b:v", "12M", "-tag:v", "hvc1", "-pix_fmt", "yuv420p", clip], captureDirectory: scratch)
        guard let make, make.succeeded else { fail("ffmpeg could not make the clip: \(make?.stderr.suffix(800) ?? "")") }
    }
    return clip
}

func runVideoSuite(root: String, shiying: String, runs: Int, singleRunOver: Double) {
    let benchDir = root + "/.build/benchmarks"
    let scratch = benchDir + "/scratch", inputs = benchDir + "/video-inputs", outDir = benchDir + "/out"
    for dir in [scratch, inputs, outDir] { try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
    let clip = testsrc2Clip(inputs: inputs, scratch: scratch)
    var clips: [(path: String, width: Int, height: Int, hdr: Bool)] = [(clip, 1440, 1080, false)]
    let iphone = (root as NSString).deletingLastPathComponent + "/shared/corpus/real/iphone15plus_IMG_3853.MOV"
    if isFile(iphone) { clips.append((iphone, 1440, 1920, false)) }   // upright size
    clips.append((hlgClip(inputs: inputs, scratch: scratch), 1440, 1080, true))

    let before = loadAverage()
    var decode: [ToolPair] = [], transcode: [ToolPair] = []
    for c in clips {
        let name = (c.path as NSString).lastPathComponent
        let frames = frameCount(c.path, scratch: scratch) ?? 0
        progress("decode \(name) (\(frames) frames)")
        var ours = timeTool("shiying", [shiying, "video", "decode", c.path], runs: runs, output: nil, pixels: nil,
                            scratch: scratch, singleRunOver: singleRunOver)
        let toRGB = c.hdr ? ["-vf", "zscale=t=linear:npl=203,format=gbrpf32le,zscale=p=smpte432,tonemap=tonemap=mobius:desat=0,"
                                 + "zscale=t=iec61966-2-1:m=gbr:r=full,format=rgb24"] : ["-pix_fmt", "rgb24"]
        var peer = timeTool("ffmpeg", ["ffmpeg", "-v", "error", "-i", c.path, "-an"] + toRGB + ["-f", "null", "-"],
                            runs: runs, output: nil, pixels: nil, scratch: scratch, singleRunOver: singleRunOver)
        ours.mpixPerSecond = ours.secondsMedian.map { Double(frames) / $0 }   // frames per second in this suite
        peer.mpixPerSecond = peer.secondsMedian.map { Double(frames) / $0 }
        decode.append(makePair(c.hdr ? "decode HDR" : "decode", input: name, size: (c.width, c.height), ours, peer))

        let rate = c14(c.width, c.height)
        let mine = outDir + "/video-ours.mov", theirs = outDir + "/video-ffmpeg.mov"
        progress("transcode \(name) at \(rate) bit/s")
        var t1 = timeTool("shiying", [shiying, "video", "transcode", c.path, "-o", mine, "--no-audio"], runs: runs,
                          output: mine, pixels: nil, scratch: scratch, singleRunOver: singleRunOver)
        // The HDR clip is kept HDR by both: 10-bit HLG out (ours from the decoder's samples, Main 10).
        let peerFormat = c.hdr ? ["-x265-params", "log-level=error:colorprim=bt2020:transfer=arib-std-b67:colormatrix=bt2020nc",
                                  "-pix_fmt", "yuv420p10le"]
                               : ["-x265-params", "log-level=error", "-pix_fmt", "yuv420p"]
        var t2 = timeTool("ffmpeg", ["ffmpeg", "-y", "-v", "error", "-i", c.path, "-an", "-c:v", "libx265", "-preset", "fast",
                                     "-b:v", "\(rate)", "-tag:v", "hvc1"] + peerFormat + [theirs],
                          runs: runs, output: theirs, pixels: nil, scratch: scratch, singleRunOver: singleRunOver)
        t1.mpixPerSecond = t1.secondsMedian.map { Double(frames) / $0 }
        t2.mpixPerSecond = t2.secondsMedian.map { Double(frames) / $0 }
        t1.psnrDB = videoPSNR(mine, c.path, scratch: scratch)
        t2.psnrDB = videoPSNR(theirs, c.path, scratch: scratch)
        transcode.append(makePair(c.hdr ? "transcode HDR" : "transcode", input: name, size: (c.width, c.height), t1, t2))
    }
    let after = loadAverage()

    print("\nVideo (fps = frames / wall seconds; ratio > 1: shiying slower)")
    for pair in decode + transcode {
        let a = pair.shiying, b = pair.peer
        func fps(_ t: ToolTiming) -> String { t.mpixPerSecond.map { String(format: "%6.1f fps", $0) } ?? "  failed" }
        func rss(_ t: ToolTiming) -> String { t.peakRSSBytes.map { String(format: "%6.1f MiB", Double($0) / 1048576) } ?? "" }
        func db(_ t: ToolTiming) -> String { t.psnrDB.map { String(format: " %.1f dB", $0) } ?? "" }
        let ratio = pair.shiyingOverPeerTime.map { String(format: "%.2fx", $0) } ?? "-"
        print("  \(pair.kind.padding(toLength: 13, withPad: " ", startingAt: 0)) \(pair.input.padding(toLength: 30, withPad: " ", startingAt: 0)) "
              + "shiying \(fps(a)) \(rss(a))\(db(a))  ffmpeg \(fps(b)) \(rss(b))\(db(b))  time ratio \(ratio)")
    }
    let stamp = ISO8601DateFormatter().string(from: Date()).replacingOccurrences(of: ":", with: "")
    let report = VideoReport(timestamp: stamp, host: ProcessInfo.processInfo.hostName,
                             cores: ProcessInfo.processInfo.activeProcessorCount, loadAverageBefore: before,
                             loadAverageAfter: after, runsRequested: runs, decode: decode, transcode: transcode)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    if let data = try? encoder.encode(report) {
        for name in ["video-latest.json", "video-\(stamp).json"] {
            try? data.write(to: URL(fileURLWithPath: benchDir + "/" + name))
        }
        progress("wrote \(benchDir)/video-latest.json")
    }
}
