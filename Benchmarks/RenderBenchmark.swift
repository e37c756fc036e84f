// Render suite (issue 5): `shiying edit` of a 12 MP sample JPEG with the
// typical recipe (crop 90 % + straighten 3° + exposure +0.3 + saturation +0.2
// + the film.amber filter at 80 %) to full size and to a 1170-px preview,
// against pyvips doing the closest equivalent file to file in the same run
// (scripts/edit_vips.py: shrink-on-load, resize, similarity, crop, recomb,
// maplut, JPEG Q90).
//
//   swift run -c release Benchmarks --suite render [--runs 5]
//
// Each case runs as a child process (wall and peak RSS from wait4); both
// tools also print their own in-process time (ours: the --json "seconds",
// decode + render + encode; vips: the pipeline after `import pyvips`), so
// the ratio is reported with and without process start-up.
// Writes .build/benchmarks/render-latest.json and render-<timestamp>.json.
import Foundation
import Shiying

struct RenderTiming: Codable {
    var tool: String
    var command: String
    var wallSeconds: [Double]
    var innerSeconds: [Double]
    var wallMedian: Double?
    var innerMedian: Double?
    var peakRSSBytes: Int?
    var width: Int?
    var height: Int?
    var error: String?
}

struct RenderCase: Codable {
    var name: String          // full, preview
    var shiying: RenderTiming
    var vips: RenderTiming
    var wallRatio: Double?    // shiying / vips; > 1: shiying slower
    var innerRatio: Double?
}

struct RenderReport: Codable {
    var timestamp: String
    var host: String
    var cores: Int
    var loadAverageBefore: Double
    var loadAverageAfter: Double
    var runs: Int
    var input: String
    var inputWidth: Int?
    var inputHeight: Int?
    var recipe: String
    var cases: [RenderCase]
}

/// The recipe of the issue's benchmark line (docs/recipe-schema.md example).
private let typicalRecipe = #"{"adjustments":{"exposure":0.3,"saturation":0.2},"crop":{"height":0.9,"width":0.9,"x":0.05,"y":0.05},"filter":{"id":"film.amber","intensity":0.8},"straighten":3}"#

/// Runs argv `runs` times; `inner` pulls the tool's own seconds (and output size) from its last stdout line.
private func timeRuns(_ tool: String, _ argv: [String], runs: Int, output: String, scratch: String) -> RenderTiming {
    var timing = RenderTiming(tool: tool, command: argv.joined(separator: " "), wallSeconds: [], innerSeconds: [])
    var rss = 0
    for run in 1...runs {
        unlink(output)
        do {
            let child = try runChild(argv, captureDirectory: scratch)
            guard child.succeeded, FileManager.default.fileExists(atPath: output) else {
                throw SpawnError(description: "exit \(child.exitCode): \(child.stderr.suffix(600))")
            }
            timing.wallSeconds.append(child.seconds)
            rss = max(rss, child.maxRSSKiB)
            if let line = child.lastStdoutLine, let json = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] {
                if let s = json["seconds"] as? Double { timing.innerSeconds.append(s) }
                timing.width = json["width"] as? Int
                timing.height = json["height"] as? Int
            }
            progress("  \(tool) run \(run)/\(runs): " + String(format: "%.3f s wall, %.3f s inside, peak RSS %.1f MiB",
                                                              child.seconds, timing.innerSeconds.last ?? .nan,
                                                              Double(child.maxRSSKiB) / 1024))
        } catch {
            timing.error = "\(error)"
            progress("  \(tool) FAILED: \(error)")
            return timing
        }
    }
    timing.wallMedian = median(timing.wallSeconds)
    timing.innerMedian = timing.innerSeconds.isEmpty ? nil : median(timing.innerSeconds)
    timing.peakRSSBytes = rss * 1024
    return timing
}

func runRenderSuite(root: String, shiying: String, runs: Int) {
    let benchDir = root + "/.build/benchmarks"
    let scratch = benchDir + "/scratch", outDir = benchDir + "/render-out", inDir = benchDir + "/render-inputs"
    for dir in [scratch, outDir, inDir] { try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
    let input = inDir + "/sample-0001.jpg"
    if !isFile(input) {
        progress("generating a 12 MP sample photo into \(inDir)")
        let made = try? runChild([shiying, "sample-photos", "--count", "1", "--seed", "4", "-o", inDir], captureDirectory: scratch)
        guard made?.succeeded == true, isFile(input) else { fail("sample-photos failed: \(made?.stderr.suffix(600) ?? "spawn error")") }
    }
    _ = FileManager.default.contents(atPath: input) // warm the page cache
    let recipePath = benchDir + "/render-recipe.json"
    try? typicalRecipe.write(toFile: recipePath, atomically: true, encoding: .utf8)
    let script = root + "/scripts/edit_vips.py"
    let cores = ProcessInfo.processInfo.activeProcessorCount
    let loadBefore = loadAverage()
    if loadBefore > 0.5 * Double(cores) {
        progress("warning: load average \(loadBefore) on \(cores) cores before starting; timings will be noisy")
    }
    progress("render suite: shiying \(shiying); input \(input); runs \(runs)")

    var cases: [RenderCase] = []
    var nativeWidth = 0
    for (name, size) in [("full", nil), ("preview", "1170x1170")] as [(String, String?)] {
        let ours = "\(outDir)/\(name)-shiying.jpg", theirs = "\(outDir)/\(name)-vips.jpg"
        var argv = [shiying, "edit", input, "--recipe", recipePath, "-o", ours, "--quality", "90", "--json"]
        if let size { argv += ["--size", size] }
        let a = timeRuns("shiying edit", argv, runs: runs, output: ours, scratch: scratch)
        if name == "full" { nativeWidth = a.width ?? 3628 }
        let (w, h) = (a.width ?? 0, a.height ?? 0)
        let b = timeRuns("pyvips", ["python3", script, name, input, theirs, "\(w)", "\(h)", "\(nativeWidth)"],
                         runs: runs, output: theirs, scratch: scratch)
        var c = RenderCase(name: name, shiying: a, vips: b)
        if let x = a.wallMedian, let y = b.wallMedian, y > 0 { c.wallRatio = x / y }
        if let x = a.innerMedian, let y = b.innerMedian, y > 0 { c.innerRatio = x / y }
        cases.append(c)
    }
    let slider = measureSliderPreview(input, scratch: scratch)
    let size = imageSize(input, scratch: scratch)
    let stamp = timestamp()
    let report = RenderReport(timestamp: stamp, host: ProcessInfo.processInfo.hostName, cores: cores,
                              loadAverageBefore: loadBefore, loadAverageAfter: loadAverage(), runs: runs, input: input,
                              inputWidth: size?.width, inputHeight: size?.height, recipe: typicalRecipe, cases: cases)
    printRenderReport(report)
    if let slider {
        print(String(format: "slider preview (EditSession, %@, exposure steps, one core via taskset): median %.1f ms, p90 %.1f ms, CPU %.1f ms over %d renders (seed window 1-73 ms: %@)",
                     slider.size, slider.median * 1000, slider.p90 * 1000, (slider.cpuMedian ?? .nan) * 1000, slider.renders,
                     slider.median * 1000 <= 73 ? "within" : "OUTSIDE"))
    } else {
        print("slider preview: not measured (taskset or the preview loop failed)")
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    encoder.keyEncodingStrategy = .convertToSnakeCase
    do {
        let data = try encoder.encode(report)
        let paths = ["\(benchDir)/render-\(stamp).json", "\(benchDir)/render-latest.json"]
        for path in paths { try data.write(to: URL(fileURLWithPath: path)) }
        progress("wrote \(paths.joined(separator: " and "))")
    } catch {
        fail("cannot write render JSON: \(error)")
    }
}

private func printRenderReport(_ r: RenderReport) {
    print("\nRender: \(r.inputWidth ?? 0)x\(r.inputHeight ?? 0) JPEG, typical recipe, JPEG Q90 out; median of \(r.runs)")
    print("wall = whole process; inside = the tool's own timing (ours: decode + render + encode; vips: after import)\n")
    func ms(_ v: Double?) -> String { v.map { String(format: "%.0f", $0 * 1000) } ?? "FAILED" }
    func ratio(_ v: Double?) -> String {
        guard let v else { return "-" }
        return v <= 1 ? String(format: "%.2fx faster", 1 / v) : String(format: "%.2fx slower", v)
    }
    let header = ["case", "size", "shiying wall ms", "inside ms", "RSS MiB", "vips wall ms", "inside ms", "RSS MiB",
                  "wall", "inside"]
    let rows = r.cases.map { c -> [String] in
        [c.name, "\(c.shiying.width ?? 0)x\(c.shiying.height ?? 0)", ms(c.shiying.wallMedian), ms(c.shiying.innerMedian),
         c.shiying.peakRSSBytes.map { String(format: "%.1f", Double($0) / 1048576) } ?? "-",
         ms(c.vips.wallMedian), ms(c.vips.innerMedian),
         c.vips.peakRSSBytes.map { String(format: "%.1f", Double($0) / 1048576) } ?? "-",
         ratio(c.wallRatio), ratio(c.innerRatio)]
    }
    let widths = header.indices.map { i in ([header[i]] + rows.map { $0[i] }).map(\.count).max()! }
    for line in [header] + rows {
        print(line.indices.map { i in String(repeating: " ", count: widths[i] - line[i].count) + line[i] }.joined(separator: "  "))
    }
    print(String(format: "\nload average %.2f before, %.2f after, %d cores", r.loadAverageBefore, r.loadAverageAfter, r.cores))
}

// MARK: - slider previews (SPEC E5): one decode, many renders, one core

/// What `--preview-loop` prints: render times of an `EditSession` re-rendered
/// for each slider value, as the editor's preview does.
struct SliderPreview: Codable {
    var size: String
    var renders: Int
    var median: Double
    var p90: Double
    /// CPU seconds of the process per render (all its threads), median: the
    /// figure that holds when other jobs share the core.
    var cpuMedian: Double?
}

/// Runs this executable's `--preview-loop` under `taskset -c 0`, so the renders
/// get one core, as the target states.
func measureSliderPreview(_ input: String, scratch: String) -> SliderPreview? {
    let me = executableDirectory + "/Benchmarks"
    guard let run = try? runChild(["taskset", "-c", "0", me, "--preview-loop", input], captureDirectory: scratch),
          run.succeeded, let line = run.stdout.split(separator: "\n").last else { return nil }
    return try? JSONDecoder().decode(SliderPreview.self, from: Data(line.utf8))
}

/// The child: one session on `input` in a 1170-px box with the typical recipe,
/// then 41 renders with the exposure moving as a slider drag would; prints one
/// JSON line of the render times (the first, warm-up render excluded).
func runPreviewLoop(_ input: String) -> Never {
    do {
        var recipe = try JSONDecoder().decode(EditRecipe.self, from: Data(typicalRecipe.utf8))
        let session = try EditSession(input, recipe: recipe, maxSize: (1170, 1170))
        var image = try session.render(recipe)
        var times: [Double] = [], cpu: [Double] = []
        let clock = ContinuousClock()
        func cpuSeconds() -> Double {
            var t = timespec()
            clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
            return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
        }
        for step in 0...40 {
            recipe.adjustments.exposure = -0.5 + Double(step) * 0.025
            let start = clock.now, cpuStart = cpuSeconds()
            image = try session.render(recipe)
            let took = clock.now - start
            cpu.append(cpuSeconds() - cpuStart)
            times.append(Double(took.components.seconds) + Double(took.components.attoseconds) * 1e-18)
        }
        times.sort()
        cpu.sort()
        let result = SliderPreview(size: "\(image.width)x\(image.height)", renders: times.count,
                                   median: times[times.count / 2], p90: times[times.count * 9 / 10],
                                   cpuMedian: cpu[cpu.count / 2])
        print(String(decoding: try JSONEncoder().encode(result), as: UTF8.self))
        exit(session.decodeCount == 1 ? 0 : 1)
    } catch {
        FileHandle.standardError.write(Data("preview loop: \(error)\n".utf8))
        exit(1)
    }
}
