// Long-image mix suite (issue 23): ten inputs as phones leave them — turned
// portraits (EXIF orientation 6), one progressive JPEG and two unreadable
// files (one truncated, one not an image) — ours over all ten (the two come
// out grey) against the pyvips rows over the eight readable ones, same run.
//
//   swift run -c release Benchmarks --suite mix [--runs 3]
import Foundation

/// Eight of the benchmark photos (their portraits are stored turned, orientation 6),
/// the eighth re-encoded progressive, plus a truncated copy and a file of noise.
func prepareMixInputs(from photos: [String], directory: String, scratch: String) -> (all: [String], readable: [String]) {
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    var readable: [String] = []
    for (i, photo) in photos.prefix(7).enumerated() {
        let path = String(format: "%@/mix-%02d.jpg", directory, i + 1)
        if !isFile(path) { try? FileManager.default.copyItem(atPath: photo, toPath: path) }
        readable.append(path)
    }
    let progressive = directory + "/mix-08-progressive.jpg"
    if !isFile(progressive) {
        let made = try? runChild(["jpegtran", "-progressive", "-copy", "all", "-outfile", progressive, photos[7]],
                                 captureDirectory: scratch)
        guard made?.succeeded == true else { fail("jpegtran -progressive failed: \(made?.stderr.suffix(400) ?? "spawn error")") }
    }
    readable.append(progressive)
    let truncated = directory + "/mix-09-truncated.jpg", noise = directory + "/mix-10-noise.jpg"
    if let data = FileManager.default.contents(atPath: photos[8]) {
        try? data.prefix(data.count / 4).write(to: URL(fileURLWithPath: truncated))
    }
    var seed: UInt32 = 23
    let bytes = (0..<200_000).map { _ -> UInt8 in
        seed = seed &* 1_664_525 &+ 1_013_904_223
        return UInt8(truncatingIfNeeded: seed >> 24)
    }
    try? Data(bytes).write(to: URL(fileURLWithPath: noise))
    return (readable + [truncated, noise], readable)
}

func runMixSuite(root: String, shiying: String, photos: [String], runs: Int, context: BenchContext) {
    let benchDir = root + "/.build/benchmarks"
    let (all, readable) = prepareMixInputs(from: photos, directory: benchDir + "/mix-inputs",
                                           scratch: context.scratchDirectory)
    let cores = ProcessInfo.processInfo.activeProcessorCount
    let loadBefore = loadAverage()
    progress("mix suite: \(all.count) inputs (\(readable.count) readable); runs \(runs)")
    var results: [CaseResult] = []
    for benchCase in [BenchCase.strip, .pyvips, .pyvipsPipeline] {
        let inputs = benchCase.isShiying ? all : readable
        var measurements: [RunMeasurement] = []
        var failure: String?
        for run in 1...runs {
            do {
                let m = try runCase(benchCase, n: inputs.count, inputs: inputs, context: context)
                measurements.append(m)
                progress("  \(benchCase.rawValue) mix run \(run)/\(runs): "
                         + String(format: "%.3f s, %.2f s user", m.seconds, m.userSeconds))
            } catch {
                failure = "\(error)"
                progress("  \(benchCase.rawValue) mix FAILED: \(error)")
                break
            }
        }
        // One N for the table: the job (the readable eight for vips, all ten for us).
        var result = CaseResult(name: benchCase.rawValue, n: all.count, measurements: measurements, note: nil, error: failure)
        result.note = "\(inputs.count) inputs"
        let output = "\(context.outputDirectory)/\(benchCase.rawValue)-N\(inputs.count).jpg"
        if result.ok, let size = imageSize(output, scratch: context.scratchDirectory) {
            (result.outputWidth, result.outputHeight) = (size.width, size.height)
        }
        results.append(result)
    }
    print("\nLong-image mix: \(all.count) inputs (orientation-6 portraits, one progressive, one truncated, one not an image), width 1080, Q90")
    print("ours over all of them (the unreadable two grey), vips rows over the \(readable.count) readable; ratios vs the fastest vips row\n")
    printTable(results)
    let loadAfter = loadAverage()
    print(String(format: "\nload average %.2f before, %.2f after, %d cores", loadBefore, loadAfter, cores)
          + (max(loadBefore, loadAfter) > 0.5 * Double(cores) ? " - machine was busy, timings are unreliable" : ""))
    if let ours = results.first(where: { $0.name == BenchCase.strip.rawValue && $0.ok }),
       let vips = fastestVips(results, n: all.count) {
        let speedup = vips.wallSecondsMedian! / ours.wallSecondsMedian!
        let status = speedup >= 1.5 ? "PASS" : "MISS"
        print("\nTarget:\n  \(status)  strip >= 1.5x faster than fastest vips on the mix: "
              + String(format: "%.2fx (strip %.3f s vs ", speedup, ours.wallSecondsMedian!)
              + vips.name + String(format: " %.3f s)", vips.wallSecondsMedian!))
    }
}
