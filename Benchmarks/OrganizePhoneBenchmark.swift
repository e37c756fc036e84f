// Organize phone-library suite (issue 22): `shiying organize scan` of a mix
// like an iPhone library — a fifth 24 MP grid HEICs (5712x4284, the iPhone
// Pro size), the rest 12 MP JPEGs (4032x3024) — against Python imagehash
// (SHA-256 + phash per file, pillow-heif for the HEICs), in one run, then a
// second scan of the unchanged folder (nothing is decoded again).
//
//   swift run -c release Benchmarks --suite organize-phone [--runs 3] [--phone-photos 50]
//
// Each tool runs as a child process; wall time, user CPU seconds and peak RSS
// come from wait4. Writes .build/benchmarks/organize-phone-latest.json.
import Foundation

struct PhoneScanTiming: Codable {
    var tool: String
    var wallSeconds: [Double] = []
    var userSeconds: [Double] = []
    var peakRSSBytes: Int = 0
    var enginePeakBytes: Int?
    var files: Int?
    var error: String?

    mutating func add(_ child: ChildResult) {
        wallSeconds.append(child.seconds)
        userSeconds.append(child.userSeconds)
        peakRSSBytes = max(peakRSSBytes, child.maxRSSKiB * 1024)
    }
}

struct PhoneScanReport: Codable {
    var timestamp: String
    var cores: Int
    var loadAverageBefore: Double
    var heics: Int
    var jpegs: Int
    var firstScan: PhoneScanTiming
    var secondScan: PhoneScanTiming
    var imagehash: PhoneScanTiming
}

func runOrganizePhoneSuite(root: String, shiying: String, runs: Int, photos: Int) {
    let benchDir = root + "/.build/benchmarks"
    let scratch = benchDir + "/scratch", inDir = benchDir + "/organize-phone-inputs"
    let heics = max(1, photos / 5), jpegs = max(1, photos - photos / 5)
    for (sub, count, format, w, h, seed) in [("heic", heics, "heic", 5712, 4284, 31), ("jpeg", jpegs, "jpeg", 4032, 3024, 37)] {
        let dir = inDir + "/" + sub
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let existing = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { !$0.hasPrefix(".") }
        if existing.count == count { continue }
        progress("generating \(count) \(format) sample photos (\(w)x\(h)) into \(dir)")
        for f in existing { unlink(dir + "/" + f) }
        let made = try? runChild([shiying, "sample-photos", "--count", "\(count)", "--seed", "\(seed)", "--format", format,
                                  "--width", "\(w)", "--height", "\(h)", "-o", dir], captureDirectory: scratch)
        guard made?.succeeded == true else { fail("sample-photos failed: \(made?.stderr.suffix(600) ?? "spawn error")") }
    }
    try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    let loadBefore = loadAverage()
    var first = PhoneScanTiming(tool: "shiying organize scan (first)")
    var second = PhoneScanTiming(tool: "shiying organize scan (unchanged)")
    var theirs = PhoneScanTiming(tool: "python imagehash + pillow-heif (sha256 + phash)")
    for run in 1...runs {
        let db = scratch + "/organize-phone.sqlite"
        for suffix in ["", "-wal", "-shm"] { unlink(db + suffix) }
        let scan = [shiying, "organize", "scan", inDir, "--db", db, "--json"]
        do {
            let (child, json) = try jsonChild(scan, scratch: scratch)
            first.add(child)
            first.enginePeakBytes = json["engine_peak_bytes"] as? Int
            first.files = json["scanned"] as? Int
            if let skipped = json["skipped"] as? [Any], !skipped.isEmpty { first.error = "skipped \(skipped)" }
            let (again, _) = try jsonChild(scan, scratch: scratch)
            second.add(again)
            progress(String(format: "  run %d/%d: first %.2f s (%.2f s user), unchanged %.3f s", run, runs, child.seconds,
                            child.userSeconds, again.seconds))
        } catch {
            first.error = "\(error)"
        }
        do {
            let (child, json) = try jsonChild(["python3", root + "/scripts/organize_imagehash.py", inDir], scratch: scratch)
            theirs.add(child)
            theirs.files = json["photos"] as? Int
            progress(String(format: "  run %d/%d: imagehash %.2f s (%.2f s user)", run, runs, child.seconds, child.userSeconds))
        } catch {
            theirs.error = "\(error) (pip install imagehash pillow-heif)"
        }
    }
    let report = PhoneScanReport(timestamp: timestamp(), cores: ProcessInfo.processInfo.activeProcessorCount,
                                 loadAverageBefore: loadBefore, heics: heics, jpegs: jpegs, firstScan: first,
                                 secondScan: second, imagehash: theirs)
    print("organize-phone: \(heics) HEICs 5712x4284 + \(jpegs) JPEGs 4032x3024, load before \(String(format: "%.2f", loadBefore))")
    for t in [first, second, theirs] {
        if let e = t.error { print("  \(t.tool): FAILED \(e)"); continue }
        print(String(format: "  %-48@ %7.2f s wall %7.2f s user  %6.1f files/s  peak RSS %6.1f MiB", t.tool as NSString,
                     median(t.wallSeconds), median(t.userSeconds), Double(t.files ?? 0) / max(median(t.wallSeconds), 1e-9),
                     Double(t.peakRSSBytes) / 1_048_576)
              + (t.enginePeakBytes.map { String(format: "  engine peak %.2f MiB", Double($0) / 1_048_576) } ?? ""))
    }
    if first.error == nil, theirs.error == nil {
        print(String(format: "  rate ratio, ours / imagehash (wall): %.2f; user CPU ratio imagehash / ours: %.2f",
                     median(theirs.wallSeconds) / median(first.wallSeconds), median(theirs.userSeconds) / median(first.userSeconds)))
        print(String(format: "  unchanged rescan: %.1fx faster than the first scan (wall)",
                     median(first.wallSeconds) / median(second.wallSeconds)))
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    encoder.keyEncodingStrategy = .convertToSnakeCase
    if let data = try? encoder.encode(report) {
        try? data.write(to: URL(fileURLWithPath: "\(benchDir)/organize-phone-latest.json"))
        progress("wrote \(benchDir)/organize-phone-latest.json")
    }
}

/// Runs a child that prints one JSON line last; the child's figures and that JSON.
private func jsonChild(_ argv: [String], scratch: String) throws -> (ChildResult, [String: Any]) {
    let child = try runChild(argv, captureDirectory: scratch)
    guard child.succeeded, let line = child.lastStdoutLine,
          let json = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
        throw SpawnError(description: "exit \(child.exitCode): \(child.stderr.suffix(600))")
    }
    return (child, json)
}
