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
// shiying: `shiying collage --layout grid --motion together --export live` — still + movie + the SPEC C3
//   verification, at the SPEC C14 bitrate for the canvas, our default x265 preset (veryfast) as a user gets it;
//   a second row runs ours at the peer's preset (`--preset fast`: the same encoder work, the pipelines compared).
// ffmpeg: the same movies, each `fps=30,scale..increase,crop` to its cell, `xstack` at the same cell
//   positions, padded to the canvas, libx265 `fast` at the same bitrate, the same frame count (movie only).
//   Each cell plays on OUR timeline: it starts when ours starts it (`cell_starts` of our JSON line; SPEC C1
//   together aligns the cells on their key-photo moments), showing its first frame before
//   (`tpad=start_mode=clone`) and its last after (`stop_mode=clone`), so both tools encode the same motion
//   for as many frames (the 2x2 lasts 5.1 s although its longest clip is 3.6 s; xstack alone stopped at
//   the longest input — 108 of 153 frames — while `-frames:v` only caps). A second peer row starts every
//   clip at 0 (the simpler pipeline, less motion at the end: cheaper for x265). Each row reports the frames
//   each tool encoded.
// Each repetition runs ours then ffmpeg back to back; medians of wall seconds, user CPU seconds and peak RSS.
// Quality, since the presets differ: the same collage made once more as a near-lossless reference (`--export
//   video --bitrate 200000000`: ~60 dB against the frames x265 is given), decoded to a y4m; our movie's PSNR
//   against it (ffmpeg's psnr filter, Y'CbCr average) and the bytes, beside the peer's encoder on the same frames:
//   x265 alone (ffmpeg's libx265 with the peer's settings — preset fast, its defaults, the same bitrate) encoding
//   the reference — its time, PSNR and bytes. (The peer pipeline's own movie is of its own composite: bicubic in
//   gamma, no colour management, so not comparable pixel for pixel.)
// Memory floor: libx265 with our settings encoding the same reference (ffmpeg's peak RSS less ffmpeg only reading
//   it): what x265 itself holds, which our job cannot go below, beside the issue's target (half the peer's peak).
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
    var ffmpegFromZeroSeconds: Double      // the second peer: every clip from 0, same frame count
    var ffmpegFromZeroUserSeconds: Double
    var ffmpegFromZeroPeakRSSBytes: Int
    var shiyingFastSeconds: Double         // ours at the peer's preset (fast)
    var shiyingFastUserSeconds: Double
    var shiyingMovieBytes: Int
    var shiyingPSNR: Double?               // our movie against the near-lossless reference
    var x265AloneSeconds: Double?          // libx265 alone, the peer's settings, on our frames (the reference)
    var x265AloneUserSeconds: Double?
    var x265AlonePSNR: Double?
    var x265AloneBytes: Int?
    var x265OursPeakRSSBytes: Int?         // ffmpeg + libx265 with OUR settings on the reference (memory floor)
    var referenceReadPeakRSSBytes: Int?    // ffmpeg reading the reference alone: subtracted to leave libx265's own
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
    var cellStarts: [Double?]
}

/// SPEC C14: 12 Mbps x (W x H) / (1080 x 1440), nearest, at least 12 and at most 64 Mbps.
func c14Bitrate(width: Int, height: Int) -> Int {
    let ref = 1080 * 1440
    return min(64_000_000, max(12_000_000, (12_000_000 * width * height + ref / 2) / ref))
}

private func motionCase(_ name: String, stills: [[String]], movies: [String], layoutArgs: [String] = [],
                        shiying: String, runs: Int, outDir: String, scratch: String) -> MotionRow? {
    let out = outDir + "/" + name
    let ours = [shiying, "collage", "--layout", "grid"] + layoutArgs + ["--motion", "together", "--export", "live",
                "--json", "-o", out] + stills.flatMap { $0 }
    let oursFast = [shiying, "collage", "--layout", "grid"] + layoutArgs + ["--motion", "together", "--export", "live",
                    "--preset", "fast", "--json", "-o", out + "-fast"] + stills.flatMap { $0 }
    var oursRuns: [ChildResult] = [], fastRuns: [ChildResult] = [], peerRuns: [ChildResult] = []
    var fromZeroRuns: [ChildResult] = []
    var line: CollageLine?
    var peer: [String] = [], fromZero: [String] = []
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
            // The movies are the Live cells' in input order; cell_starts has a value exactly for those.
            let starts = l.cellStarts.compactMap { $0 }
            guard starts.count == movies.count else {
                progress("motion \(name): \(starts.count) cells play, \(movies.count) movies given"); return nil
            }
            let liveRects = zip(l.cellRects, l.cellStarts).filter { $0.1 != nil }.map(\.0)
            func command(onOurTimeline: Bool, output: String) -> [String] {
                var graph: [String] = [], layout: [String] = []
                for (i, rect) in liveRects.enumerated() {
                    let start = onOurTimeline && starts[i] > 0
                        ? String(format: "start_mode=clone:start_duration=%.4f:", starts[i]) : ""
                    graph.append("[\(i):v]fps=30,scale=\(rect[2]):\(rect[3]):force_original_aspect_ratio=increase,"
                                 + "crop=\(rect[2]):\(rect[3]),setpts=PTS-STARTPTS,"
                                 + "tpad=\(start)stop_mode=clone:stop_duration=\(l.durationSeconds)[v\(i)]")
                    layout.append("\(rect[0])_\(rect[1])")
                }
                let inputs = (0..<movies.count).map { "[v\($0)]" }.joined()
                graph.append("\(inputs)xstack=inputs=\(movies.count):layout=\(layout.joined(separator: "|")):fill=white,"
                             + "pad=\(l.width):\(l.height):0:0:white[out]")
                return ["ffmpeg", "-y", "-v", "error"] + movies.flatMap { ["-i", $0] }
                    + ["-filter_complex", graph.joined(separator: ";"), "-map", "[out]", "-frames:v", "\(l.frames)",
                       "-c:v", "libx265", "-preset", "fast", "-x265-params", "log-level=error", "-b:v", "\(l.bitrate)",
                       "-tag:v", "hvc1", "-pix_fmt", "yuv420p", output]
            }
            peer = command(onOurTimeline: true, output: outDir + "/ffmpeg-\(name).mov")
            fromZero = command(onOurTimeline: false, output: outDir + "/ffmpeg-\(name)-from-zero.mov")
        }
        progress("motion \(name): shiying --preset fast run \(run)/\(runs)")
        guard let f = try? runChild(oursFast, captureDirectory: scratch), f.succeeded else {
            progress("motion \(name): shiying --preset fast failed"); return nil
        }
        fastRuns.append(f)
        progress("motion \(name): ffmpeg run \(run)/\(runs)")
        guard let p = try? runChild(peer, captureDirectory: scratch), p.succeeded else {
            progress("motion \(name): ffmpeg failed"); return nil
        }
        peerRuns.append(p)
        progress("motion \(name): ffmpeg (clips from 0) run \(run)/\(runs)")
        guard let z = try? runChild(fromZero, captureDirectory: scratch), z.succeeded else {
            progress("motion \(name): ffmpeg (clips from 0) failed"); return nil
        }
        fromZeroRuns.append(z)
    }
    guard let l = line else { return nil }
    let reference = scratch + "/motion-\(name)-reference.y4m"
    defer { try? FileManager.default.removeItem(atPath: reference) }
    let haveReference = nearLosslessReference(ours, out: outDir + "/\(name)-reference", y4m: reference, name: name,
                                              scratch: scratch)
    let alone = haveReference ? x265Alone(reference: reference, bitrate: l.bitrate, runs: runs, name: name,
                                          scratch: scratch) : nil
    let floor = haveReference ? x265MemoryFloor(reference: reference, bitrate: l.bitrate, name: name,
                                                scratch: scratch) : nil
    let ourMovie = out + "/collage.mov"
    let ourPSNR = haveReference ? videoPSNR(ourMovie, reference, scratch: scratch) : nil
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
                     ffmpegFromZeroSeconds: median(fromZeroRuns.map(\.seconds)),
                     ffmpegFromZeroUserSeconds: median(fromZeroRuns.map(\.userSeconds)),
                     ffmpegFromZeroPeakRSSBytes: fromZeroRuns.map(\.maxRSSKiB).max()! * 1024,
                     shiyingFastSeconds: median(fastRuns.map(\.seconds)),
                     shiyingFastUserSeconds: median(fastRuns.map(\.userSeconds)),
                     shiyingMovieBytes: fileSize(ourMovie) ?? 0, shiyingPSNR: ourPSNR,
                     x265AloneSeconds: alone.map { median($0.runs.map(\.seconds)) },
                     x265AloneUserSeconds: alone.map { median($0.runs.map(\.userSeconds)) },
                     x265AlonePSNR: alone?.psnr, x265AloneBytes: alone?.bytes,
                     x265OursPeakRSSBytes: floor?.encode, referenceReadPeakRSSBytes: floor?.read,
                     timeRatio: oursSeconds / peerSeconds, userTimeRatio: oursUser / peerUser,
                     memoryRatio: Double(oursRSS) / Double(peerRSS), delivered: l.delivered,
                     c14Bitrate: c14Bitrate(width: l.width, height: l.height),
                     c14Matches: l.bitrate == c14Bitrate(width: l.width, height: l.height),
                     shiyingCommand: quoted(ours), ffmpegCommand: quoted(peer))
}

/// Our collage once more as a near-lossless movie (the video tier at 200 Mbps), decoded to `y4m`.
private func nearLosslessReference(_ ours: [String], out: String, y4m: String, name: String, scratch: String) -> Bool {
    progress("motion \(name): near-lossless reference")
    var argv = ours
    if let o = argv.firstIndex(of: "-o") { argv[o + 1] = out }
    if let e = argv.firstIndex(of: "--export") { argv[e + 1] = "video" }
    argv += ["--bitrate", "200000000"]
    guard let r = try? runChild(argv, captureDirectory: scratch), r.succeeded,
          let d = try? runChild(["ffmpeg", "-y", "-v", "error", "-i", out + "/collage.mp4", "-map", "0:v:0",
                                 "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", y4m], captureDirectory: scratch),
          d.succeeded else {
        progress("motion \(name): no near-lossless reference"); return false
    }
    return true
}

/// What libx265 itself holds with our settings (preset veryfast, 3 B-frames, look-ahead 10, one frame thread:
/// motion_movie.c, hevc_encoder.c) on the same frames: the peak RSS of ffmpeg encoding the reference, less that
/// of ffmpeg only reading it. Our job cannot go below it, so it bounds the memory target (half the peer's peak).
private func x265MemoryFloor(reference: String, bitrate: Int, name: String, scratch: String) -> (encode: Int, read: Int)? {
    progress("motion \(name): libx265's own memory at our settings")
    let movie = scratch + "/motion-\(name)-x265-ours.hevc"
    defer { try? FileManager.default.removeItem(atPath: movie) }
    guard let e = try? runChild(["ffmpeg", "-y", "-v", "error", "-i", reference, "-c:v", "libx265", "-preset", "veryfast",
                                 "-x265-params", "log-level=error:bframes=3:rc-lookahead=10:frame-threads=1",
                                 "-b:v", "\(bitrate)", movie], captureDirectory: scratch), e.succeeded,
          let r = try? runChild(["ffmpeg", "-v", "error", "-i", reference, "-f", "null", "-"], captureDirectory: scratch),
          r.succeeded else { return nil }
    return (e.maxRSSKiB * 1024, r.maxRSSKiB * 1024)
}

/// libx265 alone with the peer's settings (preset fast, ffmpeg's defaults, the same bitrate) on our frames.
private func x265Alone(reference: String, bitrate: Int, runs: Int, name: String,
                       scratch: String) -> (runs: [ChildResult], psnr: Double?, bytes: Int)? {
    let movie = scratch + "/motion-\(name)-x265-alone.mov"
    defer { try? FileManager.default.removeItem(atPath: movie) }
    var results: [ChildResult] = []
    for run in 1...runs {
        progress("motion \(name): x265 alone run \(run)/\(runs)")
        guard let r = try? runChild(["ffmpeg", "-y", "-v", "error", "-i", reference, "-c:v", "libx265", "-preset", "fast",
                                     "-x265-params", "log-level=error", "-b:v", "\(bitrate)", movie],
                                    captureDirectory: scratch), r.succeeded else { return nil }
        results.append(r)
    }
    return (results, videoPSNR(movie, reference, scratch: scratch), fileSize(movie) ?? 0)
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
    print("\nMoving collage, together, exported as a verified Live photo vs ffmpeg xstack (movie only) on our timeline; ratio > 1: shiying slower/larger")
    for r in rows {
        print(String(format: "  %@ %dx%d %d frames at %.1f Mbps (SPEC C14 %.1f: %@): shiying %.2f s (%.1f fps, user %.2f s, %d MB) | ffmpeg (%d frames) %.2f s (%.1f fps, user %.2f s, %d MB) | time %.2fx, user %.2fx, memory %.2fx",
                     r.name, r.width, r.height, r.frames, Double(r.bitrate) / 1e6, Double(r.c14Bitrate) / 1e6,
                     r.c14Matches ? "yes" : "NO", r.shiyingSeconds, r.shiyingFPS, r.shiyingUserSeconds,
                     r.shiyingPeakRSSBytes >> 20, r.ffmpegFrames, r.ffmpegSeconds, r.ffmpegFPS, r.ffmpegUserSeconds,
                     r.ffmpegPeakRSSBytes >> 20, r.timeRatio, r.userTimeRatio, r.memoryRatio))
        print(String(format: "    ffmpeg with every clip from 0: %.2f s (user %.2f s, %d MB) | time %.2fx", r.ffmpegFromZeroSeconds,
                     r.ffmpegFromZeroUserSeconds, r.ffmpegFromZeroPeakRSSBytes >> 20, r.shiyingSeconds / r.ffmpegFromZeroSeconds))
        print(String(format: "    shiying at the peer's preset (--preset fast): %.2f s (user %.2f s) | time %.2fx ffmpeg's",
                     r.shiyingFastSeconds, r.shiyingFastUserSeconds, r.shiyingFastSeconds / r.ffmpegSeconds))
        if let a = r.x265AloneSeconds, let u = r.x265AloneUserSeconds {
            print(String(format: "    quality on our frames (PSNR vs a near-lossless reference): shiying %.2f dB in %.2f MB | libx265 alone, the peer's settings: %.2f dB in %.2f MB, %.2f s (user %.2f s)",
                         r.shiyingPSNR ?? .nan, Double(r.shiyingMovieBytes) / 1e6, r.x265AlonePSNR ?? .nan,
                         Double(r.x265AloneBytes ?? 0) / 1e6, a, u))
        }
        if let e = r.x265OursPeakRSSBytes, let rd = r.referenceReadPeakRSSBytes {
            print(String(format: "    memory floor: libx265 at our settings on these frames holds %d MB (ffmpeg encoding %d MB - reading alone %d MB); the target, half the peer's peak, is %d MB; shiying beyond libx265: %d MB",
                         (e - rd) >> 20, e >> 20, rd >> 20, r.ffmpegPeakRSSBytes >> 21, (r.shiyingPeakRSSBytes - (e - rd)) >> 20))
        }
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
