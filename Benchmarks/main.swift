// Long-image benchmark: shiying (strip-wise and naive) vs ImageMagick, the vips
// CLI and pyvips, every case as a child process measured with wait4() rusage.
// Mix suite (MixBenchmark.swift): the long image of 10 phone-like inputs (portraits, progressive, 2 unreadable) vs pyvips.
// Search suite (SearchBenchmark.swift): date-phrase parse throughput, in-process.
// HEIC suite (HeicBenchmark.swift): long image from grid HEICs, decode vs libheif, encode vs heif-enc.
// Video suite (VideoBenchmark.swift): decode and transcode fps vs ffmpeg.
// Organize suite (OrganizeBenchmark.swift): `organize scan` of 1,000 photos vs Python imagehash.
// Live suite (LiveBenchmark.swift): Live photo edit save vs ffmpeg crop+eq+libx265.
// Render suite (RenderBenchmark.swift): `shiying edit` full size and 1170-px preview vs pyvips.
// HDR suite (HDRBenchmark.swift): keeping the gain map vs an SDR-only save, same photo, same run.
// Motion suite (MotionBenchmark.swift): moving collage exported as a verified Live photo vs ffmpeg xstack.
// Convert suite (ConvertBenchmark.swift): video -> GIF vs ffmpeg palettegen; Motion Photo -> Live vs re-encoding.
// Library suite (LibraryBenchmark.swift): `library import` of 1,000 photos + Live pairs vs exiftool -json -r; 100,000-row timeline.
//
//   swift run -c release Benchmarks [--suite longimage|mix|search|heic|heic-save|video|render|organize|organize-phone|hdr|live|motion|convert|library|all] [--n 7,20,50] [--width 1080] [--runs 3] [--skip-imagemagick]
//                                   [--cases a,b] [--pyvips-variant V] [--single-run-over 60] [--search-seconds 2]
//                                   [--search-assets 100000] [--search-reps 30]
//
// Environment: SHIYING_BIN overrides the `shiying` binary.
// Writes .build/benchmarks/longimage-<timestamp>.json and latest.json (long image),
// .build/benchmarks/search-latest.json (search), heic-<timestamp>.json and heic-latest.json (heic).
import Foundation

struct Options {
    var ns = [7, 20, 50]
    var nsGiven = false        // --n given: the HEIC suite uses it too (else N = 7, 20)
    var heicLongOnly = false   // HEIC suite: the long image only (no decode / encode tables)
    var runs = 3
    var phonePhotos = 50       // organize-phone suite: files in the mixed library (a fifth 24 MP HEICs)
    var cases = BenchCase.allCases
    var pyvipsVariant = "threads"   // fastest of the vips_longimage.py variants here (6.1 s vs 7.5 s "runs" at N=50)
    var singleRunOver = 60.0   // a case whose first run exceeds this many seconds runs once
    var suite = "all"          // longimage, search, heic, video, render, hdr or all
    var searchSeconds = 2.0
    var searchAssets = 100_000
    var searchRepetitions = 30
    /// Long image and mix width. 1080 stops at N=50: 200 landscape cells 810 high pass JPEG's 65,535-row
    /// limit (ours then scales the strip narrower, vips fails); 320 keeps every N to 200 a valid JPEG at the
    /// same width for both engines, so "flat in N" is measurable.
    var width = 1080

    static let usage = """
        usage: Benchmarks [--suite longimage|mix|search|heic|heic-save|video|render|organize|organize-phone|hdr|live|motion|convert|library|all] [--search-seconds 2] [--search-assets 100000] [--search-reps 30] [--n 7,20,50] [--width 1080] [--runs 3] [--skip-imagemagick] [--cases \(BenchCase.allCases.map(\.rawValue).joined(separator: ","))]
                          [--pyvips-variant runs|runs-nocache|fold|memory] [--single-run-over SECONDS] [--heic-long-only]
        """

    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var args = arguments[...]
        func value(_ flag: String) -> String {
            guard let v = args.popFirst() else { fail("\(flag) needs a value") }
            return v
        }
        while let flag = args.popFirst() {
            switch flag {
            case "--n":
                options.ns = value(flag).split(separator: ",").map { required(Int($0), "bad N \($0)") }
                options.nsGiven = true
            case "--width":
                options.width = required(Int(value(flag)).flatMap { (16...8192).contains($0) ? $0 : nil }, "bad --width (16...8192)")
            case "--heic-long-only":
                options.heicLongOnly = true
            case "--runs":
                options.runs = max(1, required(Int(value(flag)), "bad --runs"))
            case "--skip-imagemagick":
                options.cases.removeAll(where: \.isImageMagick)
            case "--cases":
                let wanted = value(flag).split(separator: ",").map(String.init)
                options.cases = wanted.map { required(BenchCase(rawValue: $0), "unknown case \($0)") }
            case "--pyvips-variant":
                options.pyvipsVariant = value(flag)
            case "--suite":
                options.suite = value(flag)
                guard ["longimage", "mix", "search", "heic", "heic-save", "video", "render", "organize", "organize-phone", "hdr", "live", "motion", "convert", "library", "all"].contains(options.suite) else { fail("unknown suite \(options.suite)\n\(usage)") }
            case "--phone-photos":
                options.phonePhotos = required(Int(value(flag)), "bad --phone-photos")
            case "--search-seconds":
                options.searchSeconds = required(Double(value(flag)), "bad --search-seconds")
            case "--search-assets":
                options.searchAssets = required(Int(value(flag)).flatMap { $0 > 0 ? $0 : nil }, "bad --search-assets")
            case "--search-reps":
                options.searchRepetitions = required(Int(value(flag)).flatMap { $0 > 0 ? $0 : nil }, "bad --search-reps")
            case "--single-run-over":
                options.singleRunOver = required(Double(value(flag)), "bad --single-run-over")
            case "-h", "--help":
                print(usage); exit(0)
            default:
                fail("unknown argument \(flag)\n\(usage)")
            }
        }
        return options
    }
}

func fail(_ message: String) -> Never {
    progress("Benchmarks: \(message)")
    exit(2)
}

func required<T>(_ value: T?, _ message: String) -> T {
    guard let value else { fail(message) }
    return value
}

// MARK: - locations

func isFile(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

/// The file's size in bytes; nil when it cannot be read.
func fileSize(_ path: String) -> Int? {
    (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue
}

/// ffmpeg's psnr filter of a movie against a reference: the Y'CbCr average over every frame (inf when identical).
func videoPSNR(_ test: String, _ reference: String, scratch: String) -> Double? {
    guard let r = try? runChild(["ffmpeg", "-v", "info", "-nostats", "-i", test, "-i", reference, "-lavfi",
                                 "[0:v][1:v]psnr", "-f", "null", "-"], captureDirectory: scratch), r.succeeded,
          let line = r.stderr.split(separator: "\n").last(where: { $0.contains("average:") }),
          let range = line.range(of: "average:") else { return nil }
    let value = line[range.upperBound...].prefix { !$0.isWhitespace }
    return value == "inf" ? .infinity : Double(value)
}

/// Directory of this executable (…/.build/<triple>/release).
let executableDirectory: String = {
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    return URL(fileURLWithPath: exe).deletingLastPathComponent().path
}()

/// Nearest ancestor holding Package.swift, from the executable, then from the current directory.
func packageRoot() -> String {
    for start in [executableDirectory, FileManager.default.currentDirectoryPath] {
        var url = URL(fileURLWithPath: start)
        while url.path != "/" {
            if isFile(url.appendingPathComponent("Package.swift").path) { return url.path }
            url.deleteLastPathComponent()
        }
    }
    fail("cannot find Package.swift above \(executableDirectory) or the current directory")
}

func locateShiying(root: String, scratch: String) -> String {
    if let override = ProcessInfo.processInfo.environment["SHIYING_BIN"], !override.isEmpty {
        guard isFile(override) else { fail("SHIYING_BIN=\(override) does not exist") }
        return override
    }
    // Always brought up to date: `swift run Benchmarks` builds only the Benchmarks product, and a shiying
    // left from before a source change would be measured as if it were the current code (a no-op when current).
    let sibling = executableDirectory + "/shiying"
    progress("swift build -c release --product shiying (so the binary measured is the current source)")
    let build = try? runChild(["swift", "build", "--package-path", root, "-c", "release", "--product", "shiying"],
                              captureDirectory: scratch)
    guard let build, build.succeeded else { fail("swift build failed:\n\(build?.stderr.suffix(2000) ?? "")") }
    if isFile(sibling) { return sibling }
    let binPath = try? runChild(["swift", "build", "--package-path", root, "-c", "release", "--show-bin-path"],
                                captureDirectory: scratch)
    let candidate = (binPath?.stdout.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") + "/shiying"
    guard isFile(candidate) else { fail("built shiying, but cannot find it at \(sibling) or \(candidate)") }
    return candidate
}

/// `shiying sample-photos --count 50 --seed 1` into inputs/, unless already there.
func prepareInputs(shiying: String, directory: String, count: Int, scratch: String) -> [String] {
    func listing() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasPrefix("sample-") && $0.hasSuffix(".jpg") }.sorted()
            .map { directory + "/" + $0 }
    }
    var files = listing()
    if files.count != count {
        progress("generating \(count) sample photos into \(directory)")
        try? FileManager.default.removeItem(atPath: directory)
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let result = try? runChild([shiying, "sample-photos", "--count", "\(count)", "--seed", "1", "-o", directory],
                                   captureDirectory: scratch)
        guard let result, result.succeeded else { fail("sample-photos failed: \(result?.stderr.suffix(1000) ?? "spawn error")") }
        files = listing()
        guard files.count == count else { fail("sample-photos wrote \(files.count) files, expected \(count)") }
    } else {
        progress("reusing \(count) inputs in \(directory)")
    }
    for file in files { _ = FileManager.default.contents(atPath: file) }  // warm the page cache for every case
    return files
}

/// 1-minute load average; benchmarks on a busy machine are flagged.
func loadAverage() -> Double {
    let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
    return Double(text.split(separator: " ").first ?? "") ?? 0
}

func timestamp() -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
    return formatter.string(from: Date())
}

// MARK: - main

if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "--preview-loop" {
    runPreviewLoop(CommandLine.arguments[2])  // the render suite's child, pinned to one core
}
let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
if options.suite == "hdr" || options.suite == "all" {
    runHDRSuite(root: packageRoot(), runs: options.runs)
    if options.suite == "hdr" { exit(0) }
}
if options.suite == "search" || options.suite == "all" {
    runSearchSuite(root: packageRoot(), seconds: options.searchSeconds)
    runLibrarySearchSuite(root: packageRoot(), assets: options.searchAssets, repetitions: options.searchRepetitions)
    if options.suite == "search" { exit(0) }
}
let root = packageRoot()
let benchDir = root + "/.build/benchmarks"
let scratch = benchDir + "/scratch"
let magickDir = benchDir + "/magick"
for dir in [benchDir, scratch, magickDir, benchDir + "/out"] {
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
}
try? magickPolicy.write(toFile: magickDir + "/policy.xml", atomically: true, encoding: .utf8)

let shiying = locateShiying(root: root, scratch: scratch)
func runHeicIfWanted() {
    guard options.suite == "heic" || options.suite == "all" else { return }
    runHeicSuite(root: root, shiying: shiying, runs: options.runs, singleRunOver: options.singleRunOver,
                 pyvipsVariant: options.pyvipsVariant, cases: options.cases, ns: options.nsGiven ? options.ns : [7, 20],
                 longImageOnly: options.heicLongOnly)
}
if options.suite == "heic" { runHeicIfWanted(); exit(0) }
if options.suite == "heic-save" { // the HEIC suite's save rows alone (issue 15)
    let out = benchDir + "/heic-out"
    try? FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    printHeicSaveRows(heicSaveRows(root: root, shiying: shiying, runs: options.runs, scratch: scratch, outDir: out,
                                   magickDir: magickDir, singleRunOver: options.singleRunOver), runs: options.runs)
    print(String(format: "load average %.2f after", loadAverage()))
    exit(0)
}
func runVideoIfWanted() {
    guard options.suite == "video" || options.suite == "all" else { return }
    runVideoSuite(root: root, shiying: shiying, runs: options.runs, singleRunOver: options.singleRunOver)
}
if options.suite == "video" { runVideoIfWanted(); exit(0) }
func runRenderIfWanted() {
    guard options.suite == "render" || options.suite == "all" else { return }
    runRenderSuite(root: root, shiying: shiying, runs: options.runs)
}
if options.suite == "render" { runRenderIfWanted(); exit(0) }
func runOrganizeIfWanted() {
    guard options.suite == "organize" || options.suite == "all" else { return }
    runOrganizeSuite(root: root, shiying: shiying, runs: options.runs)
}
if options.suite == "organize" { runOrganizeIfWanted(); exit(0) }
func runOrganizePhoneIfWanted() {
    guard options.suite == "organize-phone" || options.suite == "all" else { return }
    runOrganizePhoneSuite(root: root, shiying: shiying, runs: options.runs, photos: options.phonePhotos)
}
if options.suite == "organize-phone" { runOrganizePhoneIfWanted(); exit(0) }
func runLibraryIfWanted() {
    guard options.suite == "library" || options.suite == "all" else { return }
    runLibrarySuite(root: root, shiying: shiying, runs: options.runs)
}
if options.suite == "library" { runLibraryIfWanted(); exit(0) }
if options.suite == "convert" {
    runConvertSuite(root: root, shiying: shiying, runs: options.runs)
    exit(0)
}
if options.suite == "motion" {
    runMotionSuite(root: root, shiying: shiying, runs: options.runs)
    exit(0)
}
if options.suite == "live" {
    runLiveSuite(root: root, shiying: shiying, runs: options.runs, singleRunOver: options.singleRunOver)
    exit(0)
}
let maxN = options.ns.max() ?? 50
let inputs = prepareInputs(shiying: shiying, directory: benchDir + "/inputs", count: max(50, maxN), scratch: scratch)
let context = BenchContext(shiying: shiying, pyScript: root + "/Benchmarks/vips_longimage.py",
                           pyvipsVariant: options.pyvipsVariant, outputDirectory: benchDir + "/out",
                           scratchDirectory: scratch, magickConfigDirectory: magickDir, width: options.width)
if options.suite == "mix" {
    runMixSuite(root: root, shiying: shiying, photos: inputs, runs: options.runs, context: context)
    exit(0)
}
progress("root \(root)\nshiying \(shiying)\ncases \(options.cases.map(\.rawValue).joined(separator: ", ")); N \(options.ns); runs \(options.runs)")

let cores = ProcessInfo.processInfo.activeProcessorCount
let loadBefore = loadAverage()
if loadBefore > 0.5 * Double(cores) {
    progress("warning: load average \(loadBefore) on \(cores) cores before starting; timings will be noisy")
}

var results: [CaseResult] = []
for n in options.ns {
    let subset = Array(inputs.prefix(n))
    for benchCase in options.cases {
        var measurements: [RunMeasurement] = []
        var note: String?
        var failure: String?
        for run in 1...options.runs {
            do {
                let m = try runCase(benchCase, n: n, inputs: subset, context: context)
                measurements.append(m)
                var line = "  \(benchCase.rawValue) N=\(n) run \(run)/\(options.runs): "
                    + String(format: "%.3f s, peak RSS %.1f MiB", m.seconds, Double(m.maxRSSKiB) / 1024)
                if let d = m.shiying?.peakRSSDeltaBytes { line += String(format: ", job Δ %.1f MiB", Double(d) / mib) }
                progress(line)
                if run == 1, options.runs > 1, m.seconds > options.singleRunOver {
                    note = String(format: "single run: first run took %.0f s > %.0f s", m.seconds, options.singleRunOver)
                    progress("  \(note!)")
                    break
                }
            } catch {
                failure = "\(error)"
                progress("  \(benchCase.rawValue) N=\(n) run \(run) FAILED: \(error)")
                break
            }
        }
        var result = CaseResult(name: benchCase.rawValue, n: n, measurements: measurements, note: note, error: failure)
        if result.ok, let size = imageSize("\(context.outputDirectory)/\(benchCase.rawValue)-N\(n).jpg", scratch: scratch) {
            (result.outputWidth, result.outputHeight) = (size.width, size.height)
        }
        results.append(result)
    }
}

// outputs of one N should agree in size
for n in options.ns {
    let sizes = Set(results.filter { $0.n == n && $0.ok }.compactMap { r in r.outputHeight.map { "\(r.outputWidth ?? 0)x\($0)" } })
    if sizes.count > 1 { progress("warning: output sizes differ at N=\(n): \(sizes.sorted())") }
}

let loadAfter = loadAverage()
print("\nLong image, width \(context.width), JPEG Q\(context.quality); wall = median, peak RSS = max of ru_maxrss (whole process, MiB = 2^20 B)")
print("vips rows: vips-cli = thumbnail/arrayjoin/join pipeline, pyvips variant '\(options.pyvipsVariant)', pyvips-pipeline = new_from_file(shrink=2) + resize + join tree; ratios vs the fastest vips row at that N\n")
printTable(results)
print(String(format: "\nload average %.2f before, %.2f after, %d cores", loadBefore, loadAfter, cores)
      + (max(loadBefore, loadAfter) > 0.5 * Double(cores) ? " - machine was busy, timings are unreliable" : ""))
let checks = checkTargets(results, thresholds: Thresholds.load(root: root))
printTargets(checks)

let stamp = timestamp()
let report = BenchmarkReport(
    timestamp: stamp, host: ProcessInfo.processInfo.hostName, cores: cores,
    loadAverageBefore: loadBefore, loadAverageAfter: loadAfter, ns: options.ns, runsRequested: options.runs,
    width: context.width, quality: context.quality, pyvipsVariant: options.pyvipsVariant,
    imagemagickShrinkHint: magickShrinkHint, results: results, targets: checks)
do {
    let paths = try writeJSON(report, to: benchDir, stamp: stamp)
    progress("wrote \(paths.joined(separator: " and "))")
} catch {
    fail("cannot write JSON: \(error)")
}
if options.suite == "all" { runMixSuite(root: root, shiying: shiying, photos: inputs, runs: options.runs, context: context) }
runHeicIfWanted()
runVideoIfWanted()
runRenderIfWanted()
runOrganizeIfWanted()
runOrganizePhoneIfWanted()
runLibraryIfWanted()
