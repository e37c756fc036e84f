// Aggregation, the printed table, the target checks and the JSON files.
import Foundation

let mib = 1_048_576.0

/// All runs of one case at one N, aggregated.
struct CaseResult: Codable {
    var name: String
    var n: Int
    var method: String
    var runs: Int
    var runSeconds: [Double]
    var wallSecondsMedian: Double?
    var userSecondsMedian: Double?    // CPU seconds in user mode (all cores), median over runs
    var peakRSSBytes: Int?            // max over runs (and over pipeline steps) of ru_maxrss
    var pipelineSteps: Int?
    var jobRSSDeltaBytes: Int?        // shiying: max over runs of peak_rss_delta_bytes
    var enginePeakBytes: Int?         // shiying: max over runs of engine_peak_bytes
    var shiyingSecondsMedian: Double? // shiying: median of its own `seconds`
    var outputWidth: Int?
    var outputHeight: Int?
    var note: String?
    var error: String?

    init(name: String, n: Int, measurements: [RunMeasurement], note: String?, error: String?) {
        self.name = name
        self.n = n
        method = BenchCase(rawValue: name)?.method ?? ""
        self.note = note
        self.error = error
        runs = measurements.count
        runSeconds = measurements.map(\.seconds)
        guard !measurements.isEmpty else { return }
        wallSecondsMedian = median(runSeconds)
        userSecondsMedian = median(measurements.map(\.userSeconds))
        peakRSSBytes = measurements.map(\.maxRSSKiB).max()! * 1024
        pipelineSteps = measurements[0].steps
        let reports = measurements.compactMap(\.shiying)
        jobRSSDeltaBytes = reports.compactMap(\.peakRSSDeltaBytes).max()
        enginePeakBytes = reports.compactMap(\.enginePeakBytes).max()
        let own = reports.compactMap(\.seconds)
        shiyingSecondsMedian = own.isEmpty ? nil : median(own)
    }

    var ok: Bool { wallSecondsMedian != nil && error == nil }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let mid = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/// Targets; Benchmarks/Thresholds/longimage.json (snake_case keys) overrides any of them.
struct Thresholds: Codable {
    var stripJobDeltaMaxMib = 12.0
    var stripJobDeltaFlatMib = 2.0
    var naiveExpectedMibAtN7 = 365.0
    var naiveTolerance = 0.10
    var stripSpeedupVsVipsAtN50 = 1.5

    init() {}

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = Thresholds()
        stripJobDeltaMaxMib = try c.decodeIfPresent(Double.self, forKey: .stripJobDeltaMaxMib) ?? d.stripJobDeltaMaxMib
        stripJobDeltaFlatMib = try c.decodeIfPresent(Double.self, forKey: .stripJobDeltaFlatMib) ?? d.stripJobDeltaFlatMib
        naiveExpectedMibAtN7 = try c.decodeIfPresent(Double.self, forKey: .naiveExpectedMibAtN7) ?? d.naiveExpectedMibAtN7
        naiveTolerance = try c.decodeIfPresent(Double.self, forKey: .naiveTolerance) ?? d.naiveTolerance
        stripSpeedupVsVipsAtN50 = try c.decodeIfPresent(Double.self, forKey: .stripSpeedupVsVipsAtN50) ?? d.stripSpeedupVsVipsAtN50
    }

    static func load(root: String) -> Thresholds {
        let path = root + "/Benchmarks/Thresholds/longimage.json"
        guard let data = FileManager.default.contents(atPath: path) else { return Thresholds() }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do { return try decoder.decode(Thresholds.self, from: data) } catch {
            progress("warning: cannot read \(path): \(error); using built-in thresholds")
            return Thresholds()
        }
    }
}

struct TargetCheck: Codable {
    var name: String
    var status: String   // PASS, MISS, INFO, N/A
    var detail: String
}

struct BenchmarkReport: Codable {
    var timestamp: String
    var host: String
    var cores: Int
    var loadAverageBefore: Double
    var loadAverageAfter: Double
    var ns: [Int]
    var runsRequested: Int
    var width: Int
    var quality: Int
    var pyvipsVariant: String
    var imagemagickShrinkHint: String
    var results: [CaseResult]
    var targets: [TargetCheck]
}

/// Fastest successful vips row (vips-cli, pyvips, pyvips-pipeline) at N.
func fastestVips(_ results: [CaseResult], n: Int) -> CaseResult? {
    results.filter { $0.n == n && $0.ok && (BenchCase(rawValue: $0.name)?.isVips ?? false) }
        .min { $0.wallSecondsMedian! < $1.wallSecondsMedian! }
}

private func ratioText(_ mine: Double, _ theirs: Double, less: String, more: String) -> String {
    guard mine > 0, theirs > 0 else { return "-" }
    return mine <= theirs ? String(format: "%.2fx ", theirs / mine) + less
                          : String(format: "%.2fx ", mine / theirs) + more
}

private func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
    let gap = String(repeating: " ", count: max(0, width - text.count))
    return right ? gap + text : text + gap
}

func printTable(_ results: [CaseResult]) {
    let header = ["case", "N", "wall s", "user s", "peak RSS MiB", "job Δ MiB", "engine MiB", "time vs vips", "RSS vs vips", "output", "note"]
    var rows: [[String]] = []
    for r in results {
        guard r.ok, let wall = r.wallSecondsMedian, let peak = r.peakRSSBytes else {
            rows.append([r.name, "\(r.n)", "FAILED", "-", "-", "-", "-", "-", "-", "-", r.error ?? ""])
            continue
        }
        let vips = fastestVips(results, n: r.n)
        let timeVs = vips.map { $0.name == r.name ? "(fastest vips)" : ratioText(wall, $0.wallSecondsMedian!, less: "faster", more: "slower") } ?? "-"
        let rssVs = vips.map { $0.name == r.name ? "-" : ratioText(Double(peak), Double($0.peakRSSBytes!), less: "less", more: "more") } ?? "-"
        rows.append([
            r.name, "\(r.n)", String(format: "%.3f", wall), r.userSecondsMedian.map { String(format: "%.2f", $0) } ?? "-",
            String(format: "%.1f", Double(peak) / mib),
            r.jobRSSDeltaBytes.map { String(format: "%.1f", Double($0) / mib) } ?? "-",
            r.enginePeakBytes.map { String(format: "%.1f", Double($0) / mib) } ?? "-",
            timeVs, rssVs,
            r.outputWidth.map { "\($0)x\(r.outputHeight ?? 0)" } ?? "?",
            [r.runs == 1 ? "1 run" : "median of \(r.runs)", r.note].compactMap { $0 }.joined(separator: "; "),
        ])
    }
    let widths = header.indices.map { i in ([header[i]] + rows.map { $0[i] }).map(\.count).max()! }
    let numeric: Set<Int> = [1, 2, 3, 4, 5, 6]
    func line(_ cells: [String]) -> String {
        cells.indices.map { pad(cells[$0], widths[$0], right: numeric.contains($0)) }.joined(separator: "  ")
    }
    print(line(header))
    print(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "))
    var lastN: Int?
    for (row, r) in zip(rows, results) {
        if let lastN, lastN != r.n { print("") }
        lastN = r.n
        print(line(row))
    }
}

func checkTargets(_ results: [CaseResult], thresholds t: Thresholds) -> [TargetCheck] {
    var checks: [TargetCheck] = []
    let strip = results.filter { $0.name == BenchCase.strip.rawValue }
    let deltas = strip.compactMap { r in r.jobRSSDeltaBytes.map { (r.n, Double($0) / mib) } }

    if deltas.isEmpty || deltas.count < strip.count {
        checks.append(.init(name: "strip job delta <= \(t.stripJobDeltaMaxMib) MiB", status: "N/A",
                            detail: "no peak_rss_delta_bytes for some N"))
    }
    if !deltas.isEmpty {
        let worst = deltas.max { $0.1 < $1.1 }!
        checks.append(.init(name: "strip job delta <= \(t.stripJobDeltaMaxMib) MiB at every N",
                            status: worst.1 <= t.stripJobDeltaMaxMib ? "PASS" : "MISS",
                            detail: deltas.map { String(format: "N=%d %.2f", $0.0, $0.1) }.joined(separator: ", ") + " MiB"))
        let spread = deltas.map(\.1).max()! - deltas.map(\.1).min()!
        checks.append(.init(name: "strip job delta flat in N (max-min < \(t.stripJobDeltaFlatMib) MiB)",
                            status: deltas.count < 2 ? "N/A" : (spread < t.stripJobDeltaFlatMib ? "PASS" : "MISS"),
                            detail: String(format: "spread %.2f MiB over %d N", spread, deltas.count)))
    }

    if let naive7 = results.first(where: { $0.name == BenchCase.naive.rawValue && $0.n == 7 }),
       let delta = naive7.jobRSSDeltaBytes {
        let mb = Double(delta) / mib
        let within = abs(mb - t.naiveExpectedMibAtN7) <= t.naiveTolerance * t.naiveExpectedMibAtN7
        checks.append(.init(name: "naive job delta ≈ \(t.naiveExpectedMibAtN7) MiB at N=7",
                            status: within ? "PASS" : "MISS",
                            detail: String(format: "%.1f MiB job delta (±%.0f%%), whole-process peak %.1f MiB",
                                           mb, t.naiveTolerance * 100, Double(naive7.peakRSSBytes ?? 0) / mib)))
    } else {
        checks.append(.init(name: "naive job delta ≈ \(t.naiveExpectedMibAtN7) MiB at N=7", status: "N/A",
                            detail: "no naive N=7 result"))
    }

    let speedName = "strip >= \(t.stripSpeedupVsVipsAtN50)x faster than fastest vips at N=50"
    if let s50 = strip.first(where: { $0.n == 50 && $0.ok }), let vips = fastestVips(results, n: 50) {
        let speedup = vips.wallSecondsMedian! / s50.wallSecondsMedian!
        checks.append(.init(name: speedName, status: speedup >= t.stripSpeedupVsVipsAtN50 ? "PASS" : "MISS",
                            detail: String(format: "%.2fx (strip %.3f s vs ", speedup, s50.wallSecondsMedian!)
                                + vips.name + String(format: " %.3f s)", vips.wallSecondsMedian!)))
    } else {
        checks.append(.init(name: speedName, status: "N/A", detail: "needs strip and a vips row at N=50"))
    }
    return checks
}

func printTargets(_ checks: [TargetCheck]) {
    print("\nTargets:")
    for c in checks { print("  \(pad(c.status, 4))  \(c.name): \(c.detail)") }
}

func writeJSON(_ report: BenchmarkReport, to directory: String, stamp: String) throws -> [String] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    encoder.keyEncodingStrategy = .convertToSnakeCase
    let data = try encoder.encode(report)
    let paths = ["\(directory)/longimage-\(stamp).json", "\(directory)/latest.json"]
    for path in paths { try data.write(to: URL(fileURLWithPath: path)) }
    return paths
}
