// Live suite (issue 6): saving an edited Live photo, shiying vs ffmpeg.
//
//   swift run -c release Benchmarks --suite live [--runs 3]
//
// Input: the video suite's 3-second 1440x1080 30 fps HEVC clip (ffmpeg testsrc2 +
// libx265, cached in .build/benchmarks/video-inputs), made into a Live pair once
// with `shiying live make`. Then one Live edit save each:
//   shiying: `shiying live edit STILL MOVIE --recipe R -o DIR` — every frame through
//            sy_render (crop 90 %, exposure +0.3, contrast +0.1, saturation +0.2),
//            x265 "fast" at the SPEC C14 rate, the still re-rendered with the recipe,
//            a new identifier, then the SPEC C3 verification of the written pair;
//   ffmpeg:  `ffmpeg -i MOVIE -vf crop=..,eq=.. -c:v libx265 -preset fast -b:v <C14> OUT.mov`
//            in one run (movie only: no still, no identifier, no verification).
// Reported: seconds per save, frames per second, the time ratio, and the C3
// verification's own time (`shiying live validate` on the edited pair).
//
// Then, when ../shared/corpus/real has the iPhone 15 Plus pair (issue 15): the same
// comparison on it with a crop to 80 % per side (`shiying live edit IMG.HEIC IMG.MOV
// --recipe crop80 --allow-sdr` — still, movie and verification — vs ffmpeg re-encoding the
// movie alone, crop + libx265 fast at the same C14 bitrate), and "set as key photo"
// (`shiying live keyphoto`, a remux) on its own.
// Writes .build/benchmarks/live-latest.json and live-<timestamp>.json.
import Foundation

struct LiveReport: Codable {
    var timestamp: String
    var host: String
    var cores: Int
    var loadAverageBefore: Double
    var loadAverageAfter: Double
    var runsRequested: Int
    var frames: Int
    var edit: ToolPair
    var verifySeconds: Double?
    var realEdit: ToolPair?
    var realKeyPhoto: ToolTiming?
}

/// The iPhone pair's Live edit (crop 80 %) vs ffmpeg's movie-only re-encode, and the key-photo remux.
private func realPairRows(root: String, shiying: String, runs: Int, scratch: String, outDir: String,
                          singleRunOver: Double) -> (ToolPair, ToolTiming)? {
    let real = URL(fileURLWithPath: root + "/../shared/corpus/real").standardized.path
    let still = real + "/iphone15plus_IMG_3853.HEIC", movie = real + "/iphone15plus_IMG_3853.MOV"
    guard isFile(still), isFile(movie),
          let probe = try? runChild(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                                     "stream=width,height", "-of", "csv=p=0", movie], captureDirectory: scratch),
          probe.succeeded else { return nil }
    let sides = probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Int($0) }
    guard sides.count == 2 else { return nil }
    let width = Int(Double(sides[0]) * 0.8) & ~1, height = Int(Double(sides[1]) * 0.8) & ~1
    let rate = min(64_000_000, max(12_000_000, Int((12_000_000.0 * Double(width * height) / Double(1080 * 1440)).rounded())))
    let recipe = outDir + "/crop80.json"
    try? #"{"version":1,"crop":{"x":0.1,"y":0.1,"width":0.8,"height":0.8}}"#.write(toFile: recipe, atomically: true, encoding: .utf8)
    progress("live edit, real iPhone pair: shiying (still + movie + verify) vs ffmpeg movie only at \(rate) bit/s")
    let ours = timeTool("shiying", [shiying, "live", "edit", still, movie, "--recipe", recipe, "--allow-sdr",
                                    "-o", outDir + "/real", "--json"],
                        runs: runs, output: nil, pixels: nil, scratch: scratch, singleRunOver: singleRunOver)
    let theirs = outDir + "/ffmpeg-real.mov"
    let peer = timeTool("ffmpeg", ["ffmpeg", "-y", "-v", "error", "-i", movie, "-map", "0:v:0", "-vf",
                                   "crop=\(width):\(height):\((sides[0] - width) / 2):\((sides[1] - height) / 2)",
                                   "-c:v", "libx265", "-preset", "fast", "-x265-params", "log-level=error", "-b:v", "\(rate)",
                                   "-tag:v", "hvc1", "-pix_fmt", "yuv420p", theirs],
                        runs: runs, output: theirs, pixels: nil, scratch: scratch, singleRunOver: singleRunOver)
    // A key photo is a frame of the SDR movie: the real still's gain map cannot
    // come with it, so the save needs the SDR consent (SPEC E6).
    let key = timeTool("shiying keyphoto", [shiying, "live", "keyphoto", still, movie, "--at", "0.9", "--allow-sdr",
                                            "-o", outDir + "/real-key", "--json"],
                       runs: runs, output: nil, pixels: nil, scratch: scratch, singleRunOver: singleRunOver)
    return (makePair("live-edit-real", input: (movie as NSString).lastPathComponent, size: (width, height), ours, peer), key)
}

func runLiveSuite(root: String, shiying: String, runs: Int, singleRunOver: Double) {
    let benchDir = root + "/.build/benchmarks"
    let scratch = benchDir + "/scratch", inputs = benchDir + "/video-inputs", outDir = benchDir + "/out/live"
    for dir in [scratch, inputs, outDir] { try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
    let clip = testsrc2Clip(inputs: inputs, scratch: scratch)
    let pairDir = inputs + "/live-pair"
    let still = pairDir + "/testsrc2-1440x1080-3s_live.jpg", movie = pairDir + "/testsrc2-1440x1080-3s_live.mov"
    if !isFile(still) || !isFile(movie) {
        progress("making the Live pair with shiying live make")
        let made = try? runChild([shiying, "live", "make", "--video", clip, "-o", pairDir, "--json"], captureDirectory: scratch)
        guard let made, made.succeeded, isFile(movie) else { fail("shiying live make failed: \(made?.stderr.suffix(800) ?? "")") }
    }
    let recipe = outDir + "/recipe.json"
    try? #"{"version":1,"crop":{"x":0.05,"y":0.05,"width":0.9,"height":0.9},"adjustments":{"exposure":0.3,"contrast":0.1,"saturation":0.2}}"#
        .write(toFile: recipe, atomically: true, encoding: .utf8)
    let frames = 90
    let width = 1296, height = 972   // 90 % crop of 1440x1080
    let rate = max(12_000_000, Int((12_000_000.0 * Double(width * height) / Double(1080 * 1440)).rounded()))

    let before = loadAverage()
    progress("live edit: shiying (render + encode + still + verify)")
    var ours = timeTool("shiying", [shiying, "live", "edit", still, movie, "--recipe", recipe, "-o", outDir, "--json"],
                        runs: runs, output: nil, pixels: nil, scratch: scratch, singleRunOver: singleRunOver)
    progress("live edit: ffmpeg crop+eq+libx265 in one run")
    let theirs = outDir + "/ffmpeg-edit.mov"
    var peer = timeTool("ffmpeg", ["ffmpeg", "-y", "-v", "error", "-i", movie, "-map", "0:v:0", "-vf",
                                   "crop=iw*0.9:ih*0.9:iw*0.05:ih*0.05,eq=brightness=0.05:contrast=1.1:saturation=1.2",
                                   "-c:v", "libx265", "-preset", "fast", "-x265-params", "log-level=error", "-b:v", "\(rate)",
                                   "-tag:v", "hvc1", "-pix_fmt", "yuv420p", theirs],
                        runs: runs, output: theirs, pixels: nil, scratch: scratch, singleRunOver: singleRunOver)
    ours.mpixPerSecond = ours.secondsMedian.map { Double(frames) / $0 }   // frames per second in this suite
    peer.mpixPerSecond = peer.secondsMedian.map { Double(frames) / $0 }
    // the verification alone (part of the shiying save above)
    let edited = outDir + "/testsrc2-1440x1080-3s_live_edited"
    let verify = timeTool("shiying", [shiying, "live", "validate", edited + ".jpg", edited + ".mov", "--json"], runs: 1,
                          output: nil, pixels: nil, scratch: scratch, singleRunOver: singleRunOver)
    let real = realPairRows(root: root, shiying: shiying, runs: runs, scratch: scratch, outDir: outDir,
                            singleRunOver: singleRunOver)
    let after = loadAverage()
    let pair = makePair("live-edit", input: (movie as NSString).lastPathComponent, size: (width, height), ours, peer)

    print("\nLive edit save (3 s 1440x1080 -> \(width)x\(height), \(frames) frames; ratio > 1: shiying slower)")
    func fps(_ t: ToolTiming) -> String { t.mpixPerSecond.map { String(format: "%5.1f fps", $0) } ?? "failed" }
    func secs(_ t: ToolTiming) -> String { t.secondsMedian.map { String(format: "%6.2f s", $0) } ?? "failed" }
    print("  shiying live edit  \(secs(ours))  \(fps(ours))   (incl. still + C3 verify \(verify.secondsMedian.map { String(format: "%.2f s", $0) } ?? "-"))")
    print("  ffmpeg one run     \(secs(peer))  \(fps(peer))")
    print("  time ratio \(pair.shiyingOverPeerTime.map { String(format: "%.2fx", $0) } ?? "-")")
    if let (edit, key) = real {
        print("\nLive edit of the real iPhone pair (crop 80 % -> \(edit.width ?? 0)x\(edit.height ?? 0); ratio > 1: shiying slower)")
        print("  shiying live edit (still + movie + verify)  \(secs(edit.shiying))")
        print("  ffmpeg movie only, same bitrate             \(secs(edit.peer))")
        print("  time ratio \(edit.shiyingOverPeerTime.map { String(format: "%.2fx", $0) } ?? "-")")
        print("  shiying live keyphoto (remux + still + verify) \(secs(key))")
    }
    print(String(format: "  load average %.2f before, %.2f after", before, after))
    let stamp = ISO8601DateFormatter().string(from: Date()).replacingOccurrences(of: ":", with: "")
    let report = LiveReport(timestamp: stamp, host: ProcessInfo.processInfo.hostName,
                            cores: ProcessInfo.processInfo.activeProcessorCount, loadAverageBefore: before,
                            loadAverageAfter: after, runsRequested: runs, frames: frames, edit: pair,
                            verifySeconds: verify.secondsMedian, realEdit: real?.0, realKeyPhoto: real?.1)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    if let data = try? encoder.encode(report) {
        for name in ["live-latest.json", "live-\(stamp).json"] { try? data.write(to: URL(fileURLWithPath: benchDir + "/" + name)) }
        progress("wrote \(benchDir)/live-latest.json")
    }
}
