// Convert suite (issue 19): video -> GIF vs ffmpeg's palettegen pipeline, and
// Motion Photo -> Live pair vs re-encoding.
//
//   swift run -c release Benchmarks --suite convert [--runs 3]
//
// GIF, per movie (the real iPhone 15 Plus movie and the H.264 Live movie from
// ../shared/corpus/real; the video suite's testsrc2 clip when they are absent),
// 640 px longest side, 15 fps:
//   shiying: `shiying convert MOVIE --to gif --size 640 --fps 15`;
//   ffmpeg:  every n-th frame (n = source rate / 15), lanczos scale, `split`,
//            `palettegen=stats_mode=diff`, `paletteuse=dither=floyd_steinberg`.
//   SSIM (ffmpeg's ssim filter, All) of each GIF frame against the source frame
//   shown at its time, against two references: the source scaled with exact
//   rounding by lanczos (the filter ffmpeg's GIF itself is scaled with, which
//   favours it) and by area averaging (neither pipeline's scaler).
// Motion Photo -> Live, per Motion Photo (made once from the corpus Live pairs
// with `shiying convert STILL MOVIE --to motion-photo`: the H.264 pair's JPEG form
// and the iPhone pair's HEIC form):
//   shiying: `shiying convert MP --to live` — still copied with its identifier,
//            movie remuxed, the pair verified (SPEC C3);
//   re-encoding: Benchmarks/motion_photo_reencode.py — the embedded MP4 cut out,
//            its video re-encoded (libx265 fast at the source's bitrate), the still
//            re-encoded at quality 90 (Pillow / pillow-heif); not a Live pair (no
//            identifier in the still).
//   Fidelity: the still's PSNR against the Motion Photo's photo, and whether the
//   movie's video packets equal the embedded movie's (ffmpeg framemd5 of a copy).
// Each repetition runs ours then the peer; medians of wall and user CPU seconds.
// Writes .build/benchmarks/convert-latest.json and convert-<timestamp>.json.
import Foundation

struct ConvertTiming: Codable {
    var seconds: Double
    var userSeconds: Double
    var peakRSSBytes: Int
}

struct GIFRow: Codable {
    var movie: String
    var tool: String
    var timing: ConvertTiming
    var bytes: Int
    var frames: Int
    var ssimLanczos: Double?
    var ssimArea: Double?
}

struct MotionPhotoRow: Codable {
    var motionPhoto: String
    var tool: String
    var timing: ConvertTiming
    var stillPSNR: String        // "inf" = the photo's pixels unchanged
    var moviePacketsIdentical: Bool
}

struct ConvertReport: Codable {
    var timestamp: String
    var cores: Int
    var loadAverageBefore: Double
    var loadAverageAfter: Double
    var runs: Int
    var gif: [GIFRow]
    var motionPhoto: [MotionPhotoRow]
}

/// Runs argv `runs` times; medians of wall and user seconds, the largest peak RSS.
private func timed(_ argv: [String], runs: Int, scratch: String) throws -> ConvertTiming {
    var walls: [Double] = [], users: [Double] = [], peak = 0
    for _ in 1...runs {
        let r = try runChild(argv, captureDirectory: scratch)
        guard r.succeeded else { throw SpawnError(description: "\(argv[0]) failed: \(r.stderr.suffix(600))") }
        walls.append(r.seconds)
        users.append(r.userSeconds)
        peak = max(peak, r.maxRSSKiB * 1024)
    }
    return ConvertTiming(seconds: median(walls), userSeconds: median(users), peakRSSBytes: peak)
}

private func output(_ argv: [String], scratch: String) -> String? {
    guard let r = try? runChild(argv, captureDirectory: scratch), r.succeeded else { return nil }
    return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
}

/// ffmpeg's SSIM (All) of `gif` against `source` scaled to the GIF's size with `flags`, frames paired by time.
private func gifSSIM(_ gif: String, _ source: String, flags: String, scratch: String) -> Double? {
    guard let size = output(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height",
                             "-of", "csv=p=0:s=x", gif], scratch: scratch) else { return nil }
    let wh = size.replacingOccurrences(of: "x", with: ":")
    let graph = "[0:v]setpts=PTS-STARTPTS+0.005/TB,format=rgb24[g];[1:v]setpts=PTS-STARTPTS,scale=\(wh):flags=\(flags),"
        + "format=rgb24[r];[g][r]ssim"
    guard let r = try? runChild(["ffmpeg", "-v", "info", "-i", gif, "-i", source, "-filter_complex", graph, "-f", "null", "-"],
                                captureDirectory: scratch),
          let tail = r.stderr.components(separatedBy: "All:").last, r.stderr.contains("All:") else { return nil }
    return Double(tail.prefix { $0 == "." || $0.isNumber })
}

private func gifRows(movies: [String], shiying: String, runs: Int, outDir: String, scratch: String) -> [GIFRow] {
    var rows: [GIFRow] = []
    let exact = "+accurate_rnd+full_chroma_int"
    for movie in movies {
        let name = (movie as NSString).lastPathComponent
        let rate = output(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=r_frame_rate",
                           "-of", "csv=p=0", movie], scratch: scratch) ?? "30/1"
        let parts = rate.split(separator: "/").compactMap { Double($0) }
        let fps = parts.count == 2 && parts[1] > 0 ? parts[0] / parts[1] : 30
        let step = max(1, Int((fps / 15).rounded()))
        let ours = outDir + "/\(name)-ours.gif", theirs = outDir + "/\(name)-ffmpeg.gif"
        let commands: [(String, String, [String])] = [
            ("shiying", ours, [shiying, "convert", movie, "--to", "gif", "--size", "640", "--fps", "15", "-o", ours]),
            ("ffmpeg", theirs, ["ffmpeg", "-v", "error", "-y", "-i", movie, "-filter_complex",
                                "select='not(mod(n\\,\(step)))',setpts=N/(15*TB),scale=w=640:h=640:"
                                + "force_original_aspect_ratio=decrease:flags=lanczos,split[a][b];"
                                + "[a]palettegen=stats_mode=diff[p];[b][p]paletteuse=dither=floyd_steinberg", theirs]),
        ]
        for (tool, gif, argv) in commands {
            progress("gif \(name): \(tool)")
            do {
                let timing = try timed(argv, runs: runs, scratch: scratch)
                let frames = Int(output(["ffprobe", "-v", "error", "-count_frames", "-show_entries", "stream=nb_read_frames",
                                         "-of", "csv=p=0", gif], scratch: scratch) ?? "") ?? 0
                rows.append(GIFRow(movie: name, tool: tool, timing: timing, bytes: fileSize(gif) ?? 0, frames: frames,
                                   ssimLanczos: gifSSIM(gif, movie, flags: "lanczos" + exact, scratch: scratch),
                                   ssimArea: gifSSIM(gif, movie, flags: "area" + exact, scratch: scratch)))
            } catch {
                progress("  \(tool) FAILED: \(error)")
            }
        }
    }
    return rows
}

/// Video packet hashes of a movie's first video track, copied (no decode).
private func packetHashes(_ movie: String, scratch: String) -> [Substring]? {
    output(["ffmpeg", "-v", "error", "-i", movie, "-map", "0:v:0", "-c", "copy", "-f", "framemd5", "-"], scratch: scratch)
        .map { $0.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last } }
}

private func motionPhotoRows(pairs: [(still: String, movie: String, form: String)], root: String, shiying: String,
                             runs: Int, outDir: String, scratch: String) -> [MotionPhotoRow] {
    let script = root + "/Benchmarks/motion_photo_reencode.py"
    var rows: [MotionPhotoRow] = []
    for pair in pairs {
        let mp = outDir + "/motion-photo-\(((pair.still as NSString).lastPathComponent as NSString).deletingPathExtension).\(pair.form)"
        if !isFile(mp) {
            guard output([shiying, "convert", pair.still, pair.movie, "--to", "motion-photo", "-o", mp], scratch: scratch) != nil
            else { progress("  cannot make \(mp)"); continue }
        }
        let name = (mp as NSString).lastPathComponent
        let embedded = outDir + "/\(name).embedded.mp4"
        guard output(["python3", script, "embedded", mp, embedded], scratch: scratch) != nil,
              let reference = packetHashes(embedded, scratch: scratch),
              let bitrate = output(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=bit_rate",
                                 "-of", "csv=p=0", embedded], scratch: scratch).flatMap({ Int($0) }) else { continue }
        let oursDir = outDir + "/\(name)-live", peerDir = outDir + "/\(name)-reencoded"
        for dir in [oursDir, peerDir] {
            try? FileManager.default.removeItem(atPath: dir)
            try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        }
        let stem = (name as NSString).deletingPathExtension
        let oursStill = oursDir + "/\(stem)_live.\(pair.form)", oursMovie = oursDir + "/\(stem)_live.mov"
        let cases: [(String, [String], String, String)] = [
            ("shiying", [shiying, "convert", mp, "--to", "live", "-o", oursDir, "--json"], oursStill, oursMovie),
            ("re-encoding", ["python3", script, "live", mp, peerDir, "\(bitrate)"], peerDir + "/still.\(pair.form)",
             peerDir + "/movie.mov"),
        ]
        for (tool, argv, still, movie) in cases {
            progress("motion photo -> live \(name): \(tool)")
            do {
                // ours refuses to overwrite its pair: each run writes into a fresh folder
                var timings: [ConvertTiming] = []
                for _ in 1...runs {
                    if tool == "shiying" {
                        try? FileManager.default.removeItem(atPath: oursDir)
                        try? FileManager.default.createDirectory(atPath: oursDir, withIntermediateDirectories: true)
                    }
                    timings.append(try timed(argv, runs: 1, scratch: scratch))
                }
                let timing = ConvertTiming(seconds: median(timings.map(\.seconds)),
                                           userSeconds: median(timings.map(\.userSeconds)),
                                           peakRSSBytes: timings.map(\.peakRSSBytes).max() ?? 0)
                rows.append(MotionPhotoRow(motionPhoto: name, tool: tool, timing: timing,
                                           stillPSNR: output(["python3", script, "psnr", mp, still], scratch: scratch) ?? "-",
                                           moviePacketsIdentical: packetHashes(movie, scratch: scratch) == reference))
            } catch {
                progress("  \(tool) FAILED: \(error)")
            }
        }
    }
    return rows
}

func runConvertSuite(root: String, shiying: String, runs: Int) {
    let benchDir = root + "/.build/benchmarks"
    let scratch = benchDir + "/scratch", outDir = benchDir + "/out/convert", inputs = benchDir + "/video-inputs"
    for dir in [scratch, outDir, inputs] { try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
    let real = URL(fileURLWithPath: root + "/../shared/corpus/real").standardized.path
    let iphone = (still: real + "/iphone15plus_IMG_3853.HEIC", movie: real + "/iphone15plus_IMG_3853.MOV", form: "heic")
    let h264 = (still: real + "/h264_live_keyPhoto.jpg", movie: real + "/h264_live_pairedVideo.mov", form: "jpg")
    let pairs = [h264, iphone].filter { isFile($0.still) && isFile($0.movie) }
    var movies = pairs.map(\.movie)
    if movies.isEmpty { movies = [testsrc2Clip(inputs: inputs, scratch: scratch)] }
    let before = loadAverage()
    let gif = gifRows(movies: movies, shiying: shiying, runs: runs, outDir: outDir, scratch: scratch)
    let motion = motionPhotoRows(pairs: pairs, root: root, shiying: shiying, runs: runs, outDir: outDir, scratch: scratch)
    let after = loadAverage()

    func ssim(_ v: Double?) -> String { v.map { String(format: "%.4f", $0) } ?? "  -   " }
    print("\nVideo -> GIF, 640 px, 15 fps (SSIM vs the source frame shown; lanczos favours ffmpeg's own scaler)")
    for row in gif {
        print("  \(row.movie.padding(toLength: 28, withPad: " ", startingAt: 0)) \(row.tool.padding(toLength: 8, withPad: " ", startingAt: 0))"
              + String(format: " %6.2f s (user %5.2f)  %8d bytes  %3d frames", row.timing.seconds, row.timing.userSeconds,
                       row.bytes, row.frames)
              + "  ssim lanczos \(ssim(row.ssimLanczos))  area \(ssim(row.ssimArea))")
    }
    for movie in Set(gif.map(\.movie)).sorted() {
        guard let a = gif.first(where: { $0.movie == movie && $0.tool == "shiying" }),
              let b = gif.first(where: { $0.movie == movie && $0.tool == "ffmpeg" }) else { continue }
        print("  \(movie): time \(String(format: "%.2fx", a.timing.seconds / b.timing.seconds)) (user "
              + String(format: "%.2fx", a.timing.userSeconds / b.timing.userSeconds) + "), bytes "
              + String(format: "%.2fx", Double(a.bytes) / Double(max(1, b.bytes))) + " (< 1: shiying faster, smaller)")
    }
    print("\nMotion Photo -> Live pair (shiying: still copied, movie remuxed, verified; peer: both re-encoded)")
    for row in motion {
        print("  \(row.motionPhoto.padding(toLength: 36, withPad: " ", startingAt: 0)) \(row.tool.padding(toLength: 11, withPad: " ", startingAt: 0))"
              + String(format: " %6.2f s (user %5.2f)", row.timing.seconds, row.timing.userSeconds)
              + "  still PSNR \(row.stillPSNR) dB  movie packets \(row.moviePacketsIdentical ? "identical" : "re-encoded")")
    }
    print(String(format: "  load average %.2f before, %.2f after", before, after))
    let stamp = ISO8601DateFormatter().string(from: Date()).replacingOccurrences(of: ":", with: "")
    let report = ConvertReport(timestamp: stamp, cores: ProcessInfo.processInfo.activeProcessorCount,
                               loadAverageBefore: before, loadAverageAfter: after, runs: runs, gif: gif,
                               motionPhoto: motion)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    encoder.keyEncodingStrategy = .convertToSnakeCase
    if let data = try? encoder.encode(report) {
        for name in ["convert-latest.json", "convert-\(stamp).json"] { try? data.write(to: URL(fileURLWithPath: benchDir + "/" + name)) }
        progress("wrote \(benchDir)/convert-latest.json")
    }
}
