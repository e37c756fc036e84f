// Motion suite (issue 17): a moving collage exported as a verified Live photo,
// shiying vs an ffmpeg `xstack` pipeline on the same movies.
//
//   swift run -c release Benchmarks --suite motion [--runs 3]
//
// Cases:
//  - 2x2: the real iPhone 15 Plus pair (HEIC + gain map, HEVC 1920x1440 with a 90° matrix, LPCM, several
//    tracks) and the H.264 pair from ../shared/corpus/real (skipped when absent), plus generated Live samples
//    (`SampleLivePhotos`, 720x960, 3 s) to fill four cells;
//  - 3x3: nine generated Live samples (720x960, 3 s), spaced (1080x1430);
//  - 3x3-1080x1440: the same nine with no spacing or margin: the SPEC C14 reference canvas, 1080x1440.
// Every row also checks that the movie's bitrate is SPEC C14's for its canvas (c14Bitrate, c14Matches).
// shiying: `shiying collage --layout grid --motion together --export live --preset fast` — still + movie +
//   the SPEC C3 verification, at the SPEC C14 bitrate for the canvas.
// ffmpeg: the same movies, each `fps=30,scale..increase,crop` to its cell, `xstack` at the same cell
//   positions, padded to the canvas, libx265 `fast` at the same bitrate, the same frame count (movie only).
//   Each cell holds its last frame (`tpad=stop_mode=clone`) for as long as our movie lasts: ours aligns the
//   cells on their key-photo moments (SPEC C1 together), so the 2x2 lasts 5.1 s although its longest clip
//   is 3.6 s, and xstack alone stopped at the longest input — 108 of 153 frames — while `-frames:v` only
//   caps. Every clip plays once in full in both; each frame row reports the frames each tool encoded.
// Each repetition runs ours then ffmpeg back to back; medians of wall seconds, user CPU seconds and peak RSS.
// Writes .build/benchmarks/motion-latest.json and motion-<timestamp>.json.
import Foundation
import ShiyingFixtures

struct MotionRow: Codable {
    var name: String
    var width: Int
    var height: Int
    var frames: Int
    var ffmpegFrames: Int        // what the peer's movie holds (ffprobe packet count): must equal frames
    var bitrate: Int
    var shiyingSeconds: Double
    var shiyingUserSeconds: Double
    var shiyingPeakRSSBytes: Int
    var shiyingFPS: Double
    var ffmpegSeconds: Double
    var ffmpegUserSeconds: Double
    var ffmpegPeakRSSBytes: Int
    var ffmpegFPS: Double
    var timeRatio: Double        // shiying / ffmpeg wall seconds (> 1: shiying slower)
    var userTimeRatio: Double
    var memoryRatio: Double      // shiying / ffmpeg peak RSS
    var delivered: String
    var c14Bitrate: Int          // 12 Mbps x (W x H) / (1080 x 1440), 12..64 Mbps
    var c14Matches: Bool
    var shiyingCommand: String
    var ffmpegCommand: String
}

struct MotionReport: Codable {
    var timestamp: String
    var cores: Int
    var loadAverageBefore: Double
    var loadAverageAfter: Double
    var runs: Int
    var rows: [MotionRow]
}

private struct CollageLine: Decodable {
    var delivered: String
    var frames: Int
    var width: Int
    var height: Int
    var bitrate: Int
    var durationSeconds: Double
    var cellRects: [[Int]]
}

/// SPEC C14: 12 Mbps x (W x H) / (1080 x 1440), nearest, at least 12 and at most 64 Mbps.
func c14Bitrate(width: Int, height: Int) -> Int {
    let ref = 1080 * 1440
    return min(64_000_000, max(12_000_000, (12_000_000 * width * height + ref / 2) / ref))
}

private func motionCase(_ name: String, stills: [[String]], movies: [String], layoutArgs: [String] = [],
                        shiying: String, runs: Int, outDir: String, scratch: String) -> MotionRow? {
    let out = outDir + "/" + name
    let ours = [shiying, "collage", "--layout", "grid"] + layoutArgs + ["--motion", "together", "--export", "live", "--preset", "fast",
                "--json", "-o", out] + stills.flatMap { $0 }
    var oursRuns: [ChildResult] = [], peerRuns: [ChildResult] = []
    var line: CollageLine?
    var peer: [String] = []
    for run in 1...runs {
        progress("motion \(name): shiying run \(run)/\(runs)")
        guard let r = try? runChild(ours, captureDirectory: scratch), r.succeeded else {
            progress("motion \(name): shiying failed"); return nil
        }
        oursRuns.append(r)
        if line == nil {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            line = try? decoder.decode(CollageLine.self, from: Data((r.lastStdoutLine ?? "").utf8))
            guard let l = line else { progress("motion \(name): no JSON report"); return nil }
            var graph: [String] = [], layout: [String] = []
            for (i, rect) in l.cellRects.enumerated() {
                graph.append("[\(i):v]fps=30,scale=\(rect[2]):\(rect[3]):force_original_aspect_ratio=increase,"
                             + "crop=\(rect[2]):\(rect[3]),setpts=PTS-STARTPTS,"
                             + "tpad=stop_mode=clone:stop_duration=\(l.durationSeconds)[v\(i)]")
                layout.append("\(rect[0])_\(rect[1])")
            }
            let inputs = (0..<movies.count).map { "[v\($0)]" }.joined()
            graph.append("\(inputs)xstack=inputs=\(movies.count):layout=\(layout.joined(separator: "|")):fill=white,"
                         + "pad=\(l.width):\(l.height):0:0:white[out]")
            peer = ["ffmpeg", "-y", "-v", "error"] + movies.flatMap { ["-i", $0] }
                + ["-filter_complex", graph.joined(separator: ";"), "-map", "[out]", "-frames:v", "\(l.frames)",
                   "-c:v", "libx265", "-preset", "fast", "-x265-params", "log-level=error", "-b:v", "\(l.bitrate)",
                   "-tag:v", "hvc1", "-pix_fmt", "yuv420p", outDir + "/ffmpeg-\(name).mov"]
        }
        progress("motion \(name): ffmpeg run \(run)/\(runs)")
        guard let p = try? runChild(peer, captureDirectory: scratch), p.succeeded else {
            progress("motion \(name): ffmpeg failed"); return nil
        }
        peerRuns.append(p)
    }
    guard let l = line else { return nil }
    let peerMovie = outDir + "/ffmpeg-\(name).mov"
    let count = try? runChild(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_packets", "-show_entries",
                               "stream=nb_read_packets", "-of", "csv=p=0", peerMovie], captureDirectory: scratch)
    let peerFrames = Int(count?.stdout.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
    if peerFrames != l.frames { progress("motion \(name): ffmpeg wrote \(peerFrames) frames, ours \(l.frames)") }
    let oursSeconds = median(oursRuns.map(\.seconds)), peerSeconds = median(peerRuns.map(\.seconds))
    let oursUser = median(oursRuns.map(\.userSeconds)), peerUser = median(peerRuns.map(\.userSeconds))
    let oursRSS = oursRuns.map(\.maxRSSKiB).max()! * 1024, peerRSS = peerRuns.map(\.maxRSSKiB).max()! * 1024
    func quoted(_ argv: [String]) -> String { argv.map { $0.contains(" ") || $0.contains(";") ? "'\($0)'" : $0 }.joined(separator: " ") }
    return MotionRow(name: name, width: l.width, height: l.height, frames: l.frames, ffmpegFrames: peerFrames,
                     bitrate: l.bitrate,
                     shiyingSeconds: oursSeconds, shiyingUserSeconds: oursUser, shiyingPeakRSSBytes: oursRSS,
                     shiyingFPS: Double(l.frames) / oursSeconds, ffmpegSeconds: peerSeconds,
                     ffmpegUserSeconds: peerUser, ffmpegPeakRSSBytes: peerRSS, ffmpegFPS: Double(l.frames) / peerSeconds,
                     timeRatio: oursSeconds / peerSeconds, userTimeRatio: oursUser / peerUser,
                     memoryRatio: Double(oursRSS) / Double(peerRSS), delivered: l.delivered,
                     c14Bitrate: c14Bitrate(width: l.width, height: l.height),
                     c14Matches: l.bitrate == c14Bitrate(width: l.width, height: l.height),
                     shiyingCommand: quoted(ours), ffmpegCommand: quoted(peer))
}

func runMotionSuite(root: String, shiying: String, runs: Int) {
    let benchDir = root + "/.build/benchmarks"
    let scratch = benchDir + "/scratch", inputs = benchDir + "/motion-inputs", outDir = benchDir + "/out/motion"
    for dir in [scratch, inputs, outDir] { try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
    progress("motion: generating Live samples (cached)")
    var generated = (1...9).map { n in
        SampleLivePhotos.Pair(still: inputs + String(format: "/LIVE_%04d.JPG", n), movie: inputs + String(format: "/LIVE_%04d.MOV", n),
                              contentIdentifier: "")
    }
    if !generated.allSatisfy({ isFile($0.still) && isFile($0.movie) }) {
        do {
            generated = try SampleLivePhotos.write(count: 9, seed: 17, width: 720, height: 960, frames: 90, to: inputs)
        } catch { fail("motion: sample Live photos: \(error)") }
    }
    let real = URL(fileURLWithPath: root + "/../shared/corpus/real").standardized.path
    let heic = real + "/iphone15plus_IMG_3853.HEIC", mov = real + "/iphone15plus_IMG_3853.MOV"
    let h264Still = real + "/h264_live_keyPhoto.jpg", h264Movie = real + "/h264_live_pairedVideo.mov"
    var realStills: [[String]] = [], realMovies: [String] = []
    if isFile(heic), isFile(mov) { realStills.append([heic]); realMovies.append(mov) }
    if isFile(h264Still), isFile(h264Movie) { realStills.append(["--live", h264Still, h264Movie]); realMovies.append(h264Movie) }
    let fill = generated.prefix(4 - realStills.count)
    let before = loadAverage()
    var rows: [MotionRow] = []
    if let row = motionCase("2x2-real", stills: realStills + fill.map { [$0.still] }, movies: realMovies + fill.map(\.movie),
                            shiying: shiying, runs: runs, outDir: outDir, scratch: scratch) { rows.append(row) }
    if let row = motionCase("3x3-generated", stills: generated.map { [$0.still] }, movies: generated.map(\.movie),
                            shiying: shiying, runs: runs, outDir: outDir, scratch: scratch) { rows.append(row) }
    if let row = motionCase("3x3-1080x1440", stills: generated.map { [$0.still] }, movies: generated.map(\.movie),
                            layoutArgs: ["--spacing", "0", "--margin", "0"], shiying: shiying, runs: runs,
                            outDir: outDir, scratch: scratch) { rows.append(row) }
    let after = loadAverage()
    print("\nMoving collage, together, exported as a verified Live photo vs ffmpeg xstack (movie only); ratio > 1: shiying slower/larger")
    for r in rows {
        print(String(format: "  %@ %dx%d %d frames at %.1f Mbps (SPEC C14 %.1f: %@): shiying %.2f s (%.1f fps, user %.2f s, %d MB) | ffmpeg (%d frames) %.2f s (%.1f fps, user %.2f s, %d MB) | time %.2fx, user %.2fx, memory %.2fx",
                     r.name, r.width, r.height, r.frames, Double(r.bitrate) / 1e6, Double(r.c14Bitrate) / 1e6,
                     r.c14Matches ? "yes" : "NO", r.shiyingSeconds, r.shiyingFPS, r.shiyingUserSeconds,
                     r.shiyingPeakRSSBytes >> 20, r.ffmpegFrames, r.ffmpegSeconds, r.ffmpegFPS, r.ffmpegUserSeconds,
                     r.ffmpegPeakRSSBytes >> 20, r.timeRatio, r.userTimeRatio, r.memoryRatio))
    }
    print(String(format: "  load average %.2f before, %.2f after", before, after))
    let stamp = ISO8601DateFormatter().string(from: Date()).replacingOccurrences(of: ":", with: "")
    let report = MotionReport(timestamp: stamp, cores: ProcessInfo.processInfo.activeProcessorCount,
                              loadAverageBefore: before, loadAverageAfter: after, runs: runs, rows: rows)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    if let data = try? encoder.encode(report) {
        for name in ["motion-latest.json", "motion-\(stamp).json"] { try? data.write(to: URL(fileURLWithPath: benchDir + "/" + name)) }
        progress("wrote \(benchDir)/motion-latest.json")
    }
}
