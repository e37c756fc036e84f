// HEIC suite: long image from grid HEICs, tile decode vs libheif, HEIC encode vs heif-enc.
//
//   swift run -c release Benchmarks --suite heic [--runs 3] [--n 7] [--cases shiying-strip,pyvips] [--heic-long-only]
//
// 1. inputs: `shiying sample-photos --count 20 --seed 2 --format heic` (cached in
//    .build/benchmarks/heic-inputs), plus ../shared/corpus/real/iphoneSE2_grid.heic if present;
// 2. long image (width 1080) at N = 7, 20: the long-image cases of Cases.swift on HEIC inputs
//    (ours strip-wise and naive, pyvips thumbnail + join, the vips CLI, ImageMagick), their
//    runs interleaved; wall and user CPU medians, peak RSS, ours' job delta and engine peak;
// 3. decode: `shiying convert IN -o OUT.jpg` vs `heif-convert -q 90`, and (full-width cell)
//    `shiying collage --width 4032` vs `vips thumbnail IN OUT.jpg 4032`;
// 4. encode: `shiying convert IN.png -o OUT.heic --quality 90` vs `heif-enc -q 90`, sizes and PSNR;
// 5. save (HeicSaveBenchmark.swift): an 80 % crop of the real iPhone HEICs saved as HEIC vs the
//    same edit as JPEG vs `vips heifsave`, bits/pixel, PSNR and time ratios;
// 6. HEIC long image (HeicCollageBenchmark.swift): 7 HEICs -> `collage --format heic` vs pyvips
//    join + heifsave, PSNR against each side's own PNG, bits/pixel, time ratio.
// Writes .build/benchmarks/heic-latest.json and heic-<timestamp>.json.
import Foundation

struct ToolTiming: Codable {
    var tool: String
    var command: String
    var runSeconds: [Double]
    var secondsMedian: Double?
    var peakRSSBytes: Int?
    var mpixPerSecond: Double?
    var outputBytes: Int?
    var psnrDB: Double?
    var error: String?
}

/// One input file measured with two tools (ours first).
struct ToolPair: Codable {
    var kind: String      // decode, cell-decode, encode
    var input: String
    var width: Int?
    var height: Int?
    var shiying: ToolTiming
    var peer: ToolTiming
    var shiyingOverPeerTime: Double?   // > 1: shiying slower
}

struct HeicReport: Codable {
    var timestamp: String
    var host: String
    var cores: Int
    var loadAverageBefore: Double
    var loadAverageAfter: Double
    var runsRequested: Int
    var syntheticInputs: Int
    var realInput: String?
    var imagemagickReadsHEIC: Bool
    var longImage: [CaseResult]
    var targets: [TargetCheck]
    var decode: [ToolPair]
    var encode: [ToolPair]
    var save: [HeicSaveRow]
    var collageHeic: [ToolPair]
}

/// Runs argv `runs` times (a first run over `singleRunOver` s stays the only one).
func timeTool(_ tool: String, _ argv: [String], runs: Int, output: String?, pixels: Int?,
                      scratch: String, singleRunOver: Double) -> ToolTiming {
    var timing = ToolTiming(tool: tool, command: argv.map { $0.contains(" ") ? "'\($0)'" : $0 }.joined(separator: " "),
                            runSeconds: [])
    var maxRSS = 0
    let label = argv.dropFirst().first { $0.hasSuffix(".heic") || $0.hasSuffix(".png") }.map { ($0 as NSString).lastPathComponent } ?? ""
    for run in 1...runs {
        if let output { unlink(output) }
        do {
            var pipeline = Pipeline(captureDirectory: scratch)
            try pipeline.run(argv)
            timing.runSeconds.append(pipeline.elapsedSeconds)
            maxRSS = max(maxRSS, pipeline.maxRSSKiB)
            if let output, fileSize(output) == nil { throw SpawnError(description: "\(tool) wrote no \(output)") }
            progress("  \(tool) \(label) run \(run)/\(runs): "
                     + String(format: "%.3f s, peak RSS %.1f MiB", pipeline.elapsedSeconds, Double(pipeline.maxRSSKiB) / 1024))
            if pipeline.elapsedSeconds > singleRunOver { break }
        } catch {
            timing.error = "\(error)"
            progress("  \(tool) FAILED: \(error)")
            return timing
        }
    }
    let med = median(timing.runSeconds)
    timing.secondsMedian = med
    timing.peakRSSBytes = maxRSS * 1024
    if let pixels { timing.mpixPerSecond = Double(pixels) / 1e6 / med }
    if let output { timing.outputBytes = fileSize(output) }
    return timing
}

func makePair(_ kind: String, input: String, size: (width: Int, height: Int)?,
                      _ ours: ToolTiming, _ peer: ToolTiming) -> ToolPair {
    var pair = ToolPair(kind: kind, input: input, width: size?.width, height: size?.height, shiying: ours, peer: peer)
    if let a = ours.secondsMedian, let b = peer.secondsMedian, b > 0 { pair.shiyingOverPeerTime = a / b }
    return pair
}

/// PSNR (dB) of a HEIC against the reference PNG: heif-convert to PNG, then `compare -metric PSNR`.
private func psnr(heic: String, reference: String, scratch: String, magickConfig: String) -> Double? {
    let decoded = heic + ".decoded.png"
    defer { unlink(decoded) }
    guard let dec = try? runChild(["heif-convert", heic, decoded], captureDirectory: scratch), dec.succeeded,
          let cmp = try? runChild(["compare", "-metric", "PSNR", reference, decoded, "null:"],
                                  extraEnvironment: ["MAGICK_CONFIGURE_PATH": magickConfig], captureDirectory: scratch)
    else { return nil }
    // compare exits 1 when the images differ and prints the metric (e.g. "57.4572", or "inf") on stderr
    for word in cmp.stderr.split(whereSeparator: { $0 == " " || $0.isNewline }).reversed() {
        if word == "inf" { return .infinity }
        if let value = Double(word) { return value }
    }
    return nil
}

private func listFiles(_ directory: String, prefix: String, suffix: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
        .filter { $0.hasPrefix(prefix) && $0.hasSuffix(suffix) }.sorted().map { directory + "/" + $0 }
}

/// `shiying sample-photos` into `directory` unless exactly `count` files with `suffix` are there.
private func cachedSamples(shiying: String, directory: String, count: Int, seed: Int, heic: Bool, scratch: String) -> [String] {
    let suffix = heic ? ".heic" : ".jpg"
    var files = listFiles(directory, prefix: "sample-", suffix: suffix)
    if files.count == count {
        progress("reusing \(count) inputs in \(directory)")
    } else {
        progress("generating \(count) sample photos\(heic ? " (HEIC, ~7 s each)" : "") into \(directory)")
        try? FileManager.default.removeItem(atPath: directory)
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var argv = [shiying, "sample-photos", "--count", "\(count)", "--seed", "\(seed)"]
        if heic { argv += ["--format", "heic"] }
        let result = try? runChild(argv + ["-o", directory], captureDirectory: scratch)
        guard let result, result.succeeded else { fail("sample-photos failed: \(result?.stderr.suffix(1000) ?? "spawn error")") }
        files = listFiles(directory, prefix: "sample-", suffix: suffix)
        guard files.count == count else { fail("sample-photos wrote \(files.count) files, expected \(count)") }
    }
    for file in files { _ = FileManager.default.contents(atPath: file) }   // warm the page cache
    return files
}

private func imageMagickReadsHEIC(scratch: String) -> Bool {
    guard let r = try? runChild(["convert", "-list", "format"], captureDirectory: scratch) else { return false }
    // e.g. "     HEIC* HEIC      rw+   Apple High efficiency Image Format (1.15.1)"
    return r.stdout.split(separator: "\n").contains { line in
        let words = line.split(separator: " ")
        return words.first.map { $0.uppercased().hasPrefix("HEIC") } == true && words.count > 2 && words[2].hasPrefix("r")
    }
}

func runHeicSuite(root: String, shiying: String, runs: Int, singleRunOver: Double, pyvipsVariant: String,
                  cases wanted: [BenchCase], ns: [Int], longImageOnly: Bool) {
    let benchDir = root + "/.build/benchmarks"
    let scratch = benchDir + "/scratch"
    let magickDir = benchDir + "/magick"
    let outDir = benchDir + "/heic-out"
    for dir in [scratch, magickDir, outDir] {
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }
    try? magickPolicy.write(toFile: magickDir + "/policy.xml", atomically: true, encoding: .utf8)

    let cores = ProcessInfo.processInfo.activeProcessorCount
    let loadBefore = loadAverage()
    let heics = cachedSamples(shiying: shiying, directory: benchDir + "/heic-inputs", count: 20, seed: 2, heic: true, scratch: scratch)
    let realPath = URL(fileURLWithPath: root + "/../shared/corpus/real/iphoneSE2_grid.heic").standardized.path
    let real = isFile(realPath) ? realPath : nil
    let magickHEIC = imageMagickReadsHEIC(scratch: scratch)
    progress("HEIC suite: shiying \(shiying); real input \(real ?? "absent"); ImageMagick HEIC \(magickHEIC ? "yes" : "no"); runs \(runs)")
    if loadBefore > 0.5 * Double(cores) {
        progress("warning: load average \(loadBefore) on \(cores) cores before starting; timings will be noisy")
    }

    // 2. long image
    let context = BenchContext(shiying: shiying, pyScript: root + "/Benchmarks/vips_longimage.py",
                               pyvipsVariant: pyvipsVariant, outputDirectory: outDir,
                               scratchDirectory: scratch, magickConfigDirectory: magickDir)
    let cases = ([.strip, .naive, .pyvips, .vipsCLI, .imagemagick] as [BenchCase]).filter(wanted.contains)
    var longImage: [CaseResult] = []
    for n in ns {
        let subset = Array(heics.prefix(n))
        // Runs interleave the cases (ours, then each peer, then ours again...), so a
        // change of load on a shared machine falls on every case alike.
        var measurements: [BenchCase: [RunMeasurement]] = [:]
        var notes: [BenchCase: String] = [:], failures: [BenchCase: String] = [:]
        var skipped: Set<BenchCase> = []
        for benchCase in cases where benchCase.isImageMagick && !magickHEIC {
            failures[benchCase] = "not supported by this ImageMagick build"
            skipped.insert(benchCase)
        }
        for run in 1...runs {
            for benchCase in cases where !skipped.contains(benchCase) {
                do {
                    let m = try runCase(benchCase, n: n, inputs: subset, context: context)
                    measurements[benchCase, default: []].append(m)
                    var line = "  \(benchCase.rawValue) HEIC N=\(n) run \(run)/\(runs): "
                        + String(format: "%.3f s (user %.2f s), peak RSS %.1f MiB", m.seconds, m.userSeconds, Double(m.maxRSSKiB) / 1024)
                    if let d = m.shiying?.peakRSSDeltaBytes { line += String(format: ", job Δ %.1f MiB", Double(d) / mib) }
                    progress(line)
                    if run == 1, runs > 1, m.seconds > singleRunOver {
                        notes[benchCase] = String(format: "single run: first run took %.0f s > %.0f s", m.seconds, singleRunOver)
                        skipped.insert(benchCase)
                    }
                } catch {
                    failures[benchCase] = "\(error)"
                    progress("  \(benchCase.rawValue) HEIC N=\(n) FAILED: \(error)")
                    skipped.insert(benchCase)
                }
            }
        }
        for benchCase in cases {
            var result = CaseResult(name: benchCase.rawValue, n: n, measurements: measurements[benchCase] ?? [],
                                    note: notes[benchCase], error: failures[benchCase])
            if result.ok, let size = imageSize("\(outDir)/\(benchCase.rawValue)-N\(n).jpg", scratch: scratch) {
                (result.outputWidth, result.outputHeight) = (size.width, size.height)
            }
            longImage.append(result)
        }
    }
    var targets = checkTargets(longImage, thresholds: Thresholds.load(root: root))
        .filter { $0.name.hasPrefix("strip job delta") }
    if let naive = longImage.first(where: { $0.name == BenchCase.naive.rawValue && $0.n == 7 }), let d = naive.jobRSSDeltaBytes {
        targets.append(.init(name: "naive job delta at N=7 (HEIC)", status: "INFO", detail: String(format: "%.1f MiB", Double(d) / mib)))
    }

    // 3. decode throughput: 4 synthetic + the real file (5 synthetic without it)
    let decodeInputs = longImageOnly ? [] : Array(heics.prefix(real == nil ? 5 : 4)) + (real.map { [$0] } ?? [])
    var decode: [ToolPair] = []
    for input in decodeInputs {
        let size = imageSize(input, scratch: scratch)
        let pixels = size.map { $0.width * $0.height }
        let name = ((input as NSString).lastPathComponent as NSString).deletingPathExtension
        let ours = "\(outDir)/\(name)-shiying.jpg", theirs = "\(outDir)/\(name)-heif-convert.jpg"
        decode.append(makePair("decode", input: input, size: size,
            timeTool("shiying convert", [shiying, "convert", input, "-o", ours, "--quality", "90"],
                     runs: runs, output: ours, pixels: pixels, scratch: scratch, singleRunOver: singleRunOver),
            timeTool("heif-convert", ["heif-convert", "-q", "90", input, theirs],
                     runs: runs, output: theirs, pixels: pixels, scratch: scratch, singleRunOver: singleRunOver)))
        let cellOurs = "\(outDir)/\(name)-cell4032-shiying.jpg", cellTheirs = "\(outDir)/\(name)-cell4032-vips.jpg"
        let cellWidth = size?.width ?? 4032
        decode.append(makePair("cell-decode", input: input, size: size,
            timeTool("shiying collage", [shiying, "collage", "--layout", "long", "--width", "\(cellWidth)",
                                         "--quality", "90", "-o", cellOurs, input],
                     runs: runs, output: cellOurs, pixels: pixels, scratch: scratch, singleRunOver: singleRunOver),
            timeTool("vips thumbnail", ["vips", "thumbnail", input, cellTheirs + "[Q=90]", "\(cellWidth)",
                                        "--height", "10000000"],
                     runs: runs, output: cellTheirs, pixels: pixels, scratch: scratch, singleRunOver: singleRunOver)))
    }

    // 4. encode: 3 sample JPEGs -> PNG (untimed) -> HEIC
    let encodeDir = benchDir + "/heic-encode"
    let jpegs = longImageOnly ? []
        : cachedSamples(shiying: shiying, directory: encodeDir, count: 3, seed: 3, heic: false, scratch: scratch)
    var encode: [ToolPair] = []
    for jpeg in jpegs {
        let png = (jpeg as NSString).deletingPathExtension + ".png"
        if fileSize(png) == nil {
            let r = try? runChild(["convert", jpeg, png], extraEnvironment: ["MAGICK_CONFIGURE_PATH": magickDir],
                                  captureDirectory: scratch)
            guard r?.succeeded == true else { progress("convert \(jpeg) -> PNG failed; skipping"); continue }
        }
        let size = imageSize(png, scratch: scratch)
        let pixels = size.map { $0.width * $0.height }
        let name = ((png as NSString).lastPathComponent as NSString).deletingPathExtension
        let ours = "\(outDir)/\(name)-shiying.heic", theirs = "\(outDir)/\(name)-heif-enc.heic"
        var a = timeTool("shiying convert", [shiying, "convert", png, "-o", ours, "--quality", "90"],
                         runs: runs, output: ours, pixels: pixels, scratch: scratch, singleRunOver: singleRunOver)
        var b = timeTool("heif-enc", ["heif-enc", "-q", "90", png, "-o", theirs],
                         runs: runs, output: theirs, pixels: pixels, scratch: scratch, singleRunOver: singleRunOver)
        if a.error == nil { a.psnrDB = psnr(heic: ours, reference: png, scratch: scratch, magickConfig: magickDir) }
        if b.error == nil { b.psnrDB = psnr(heic: theirs, reference: png, scratch: scratch, magickConfig: magickDir) }
        encode.append(makePair("encode", input: png, size: size, a, b))
    }

    // 5. save: real iPhone crops as HEIC vs JPEG vs vips heifsave
    let save = heicSaveRows(root: root, shiying: shiying, runs: runs, scratch: scratch, outDir: outDir,
                            magickDir: magickDir, singleRunOver: singleRunOver)

    // 6. a long image written as HEIC (HeicCollageBenchmark.swift)
    let collageHeic = longImageOnly ? [] : heicCollageRows(root: root, shiying: shiying, inputs: Array(heics.prefix(7)),
                                                          runs: runs, scratch: scratch, outDir: outDir, magickDir: magickDir,
                                                          singleRunOver: singleRunOver)

    let loadAfter = loadAverage()
    let stamp = timestamp()
    let report = HeicReport(
        timestamp: stamp, host: ProcessInfo.processInfo.hostName, cores: cores,
        loadAverageBefore: loadBefore, loadAverageAfter: loadAfter, runsRequested: runs,
        syntheticInputs: heics.count, realInput: real, imagemagickReadsHEIC: magickHEIC,
        longImage: longImage, targets: targets, decode: decode, encode: encode, save: save, collageHeic: collageHeic)
    printHeicReport(report)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    do {
        let data = try encoder.encode(report)
        let paths = ["\(benchDir)/heic-\(stamp).json", "\(benchDir)/heic-latest.json"]
        for path in paths { try data.write(to: URL(fileURLWithPath: path)) }
        progress("wrote \(paths.joined(separator: " and "))")
    } catch {
        fail("cannot write HEIC JSON: \(error)")
    }
}

private func printHeicReport(_ r: HeicReport) {
    print("\nHEIC long image, width 1080, JPEG Q90, \(r.syntheticInputs) synthetic 12 MP grid HEICs (512x512 HEVC tiles)")
    print("wall = median, peak RSS = max ru_maxrss (MiB = 2^20 B); ratios vs the fastest vips row at that N\n")
    printTable(r.longImage)
    printTargets(r.targets)

    func cell(_ t: ToolTiming, mpix: Bool = true) -> [String] {
        guard let s = t.secondsMedian else { return ["FAILED", "-", "-"] }
        return [String(format: "%.3f", s), mpix ? t.mpixPerSecond.map { String(format: "%.2f", $0) } ?? "-"
                                                : t.outputBytes.map { String(format: "%.2f", Double($0) / mib) } ?? "-",
                t.peakRSSBytes.map { String(format: "%.1f", Double($0) / mib) } ?? "-"]
    }
    func ratio(_ p: ToolPair) -> String {
        guard let x = p.shiyingOverPeerTime else { return "-" }
        return x <= 1 ? String(format: "%.2fx faster", 1 / x) : String(format: "%.2fx slower", x)
    }
    func table(_ header: [String], _ rows: [[String]]) {
        let widths = header.indices.map { i in ([header[i]] + rows.map { $0[i] }).map(\.count).max()! }
        func line(_ cells: [String]) -> String {
            cells.indices.map { i in
                let gap = String(repeating: " ", count: widths[i] - cells[i].count)
                return i == 0 || i == cells.count - 1 ? cells[i] + gap : gap + cells[i]
            }.joined(separator: "  ")
        }
        print(line(header))
        print(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "))
        rows.forEach { print(line($0)) }
    }
    let name = { (p: ToolPair) in (p.input as NSString).lastPathComponent }

    for (kind, peer, title) in [("decode", "heif-convert", "Decode to JPEG Q90: shiying convert (libavcodec tiles) vs heif-convert (libheif whole image)"),
                                ("cell-decode", "vips", "Full-width collage cell: shiying collage --width W vs vips thumbnail IN OUT.jpg W")] {
        guard r.decode.contains(where: { $0.kind == kind }) else { continue }
        print("\n\(title); median of \(r.runsRequested), MPix/s = input pixels / wall s\n")
        table(["input", "shiying s", "MPix/s", "RSS MiB", "\(peer) s", "MPix/s", "RSS MiB", "shiying time"],
              r.decode.filter { $0.kind == kind }.map { p in
                  [name(p)] + cell(p.shiying) + cell(p.peer) + [ratio(p)]
              })
    }

    func db(_ t: ToolTiming) -> String { t.psnrDB.map { $0.isInfinite ? "inf" : String(format: "%.2f", $0) } ?? "-" }
    if !r.encode.isEmpty {
        print("\nHEIC encode from PNG at quality 90: shiying convert vs heif-enc -q 90; median of \(r.runsRequested); PSNR vs the PNG\n")
        table(["input", "shiying s", "MiB", "RSS MiB", "PSNR dB", "heif-enc s", "MiB", "RSS MiB", "PSNR dB", "shiying time"],
          r.encode.map { p in
              [name(p)] + cell(p.shiying, mpix: false) + [db(p.shiying)] + cell(p.peer, mpix: false) + [db(p.peer)] + [ratio(p)]
          })
    }
    printHeicSaveRows(r.save, runs: r.runsRequested)
    printHeicCollageRows(r.collageHeic)
    print(String(format: "\nload average %.2f before, %.2f after, %d cores", r.loadAverageBefore, r.loadAverageAfter, r.cores)
          + (max(r.loadAverageBefore, r.loadAverageAfter) > 0.5 * Double(r.cores) ? " - machine was busy, timings are unreliable" : ""))
}
