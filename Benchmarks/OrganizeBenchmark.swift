// Organize suite (issue 9): `shiying organize scan` of 1,000 generated photos
// (1600x1200 sample JPEGs) against Python imagehash (SHA-256 + phash per
// file, scripts/organize_imagehash.py) on the same folder, in one run.
//
//   swift run -c release Benchmarks --suite organize [--runs 1]
//
// Each tool runs as a child process: wall time and peak RSS from wait4; each
// also reports its own photos/s (ours from --json, which adds the engine
// allocator's peak). Writes .build/benchmarks/organize-latest.json.
import Foundation

struct OrganizeTiming: Codable {
    var tool: String
    var wallSeconds: [Double] = []
    var photosPerSecond: [Double] = []
    var peakRSSBytes: Int = 0
    var enginePeakBytes: Int?
    var photos: Int?
    var error: String?
}

struct OrganizeReport: Codable {
    var timestamp: String
    var cores: Int
    var loadAverageBefore: Double
    var photos: Int
    var photoSize: String
    var shiying: OrganizeTiming
    var imagehash: OrganizeTiming
}

private let organizeCount = 1000
private let organizeSize = (1600, 1200)

func runOrganizeSuite(root: String, shiying: String, runs: Int) {
    let benchDir = root + "/.build/benchmarks"
    let scratch = benchDir + "/scratch", inDir = benchDir + "/organize-inputs"
    for dir in [scratch, inDir] { try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
    let existing = ((try? FileManager.default.contentsOfDirectory(atPath: inDir)) ?? []).filter { $0.hasSuffix(".jpg") }
    if existing.count != organizeCount {
        progress("generating \(organizeCount) sample photos (\(organizeSize.0)x\(organizeSize.1)) into \(inDir)")
        for f in existing { unlink(inDir + "/" + f) }
        let made = try? runChild([shiying, "sample-photos", "--count", "\(organizeCount)", "--seed", "11",
                                  "--width", "\(organizeSize.0)", "--height", "\(organizeSize.1)", "-o", inDir],
                                 captureDirectory: scratch)
        guard made?.succeeded == true else { fail("sample-photos failed: \(made?.stderr.suffix(600) ?? "spawn error")") }
    }
    let loadBefore = loadAverage()
    var ours = OrganizeTiming(tool: "shiying organize scan")
    var theirs = OrganizeTiming(tool: "python imagehash (sha256 + phash)")
    for run in 1...runs {
        let db = scratch + "/organize-bench.sqlite"
        for suffix in ["", "-wal", "-shm"] { unlink(db + suffix) }
        do {
            let json = try timedScan([shiying, "organize", "scan", inDir, "--db", db, "--json"], scratch: scratch,
                                     label: "shiying run \(run)/\(runs)", photosKey: "scanned", into: &ours)
            ours.enginePeakBytes = json["engine_peak_bytes"] as? Int
        } catch {
            ours.error = "\(error)"
        }
        do {
            _ = try timedScan(["python3", root + "/scripts/organize_imagehash.py", inDir], scratch: scratch,
                              label: "imagehash run \(run)/\(runs)", photosKey: "photos", into: &theirs)
        } catch {
            theirs.error = "\(error) (pip install imagehash)"
        }
    }
    let report = OrganizeReport(timestamp: timestamp(), cores: ProcessInfo.processInfo.activeProcessorCount,
                                loadAverageBefore: loadBefore, photos: organizeCount,
                                photoSize: "\(organizeSize.0)x\(organizeSize.1)", shiying: ours, imagehash: theirs)
    print("organize: \(organizeCount) photos \(report.photoSize), load before \(String(format: "%.2f", loadBefore))")
    for t in [ours, theirs] {
        if let e = t.error { print("  \(t.tool): FAILED \(e)"); continue }
        print(String(format: "  %-36@ %7.2f s wall  %7.1f photos/s  peak RSS %6.1f MiB", t.tool as NSString,
                     median(t.wallSeconds), median(t.photosPerSecond), Double(t.peakRSSBytes) / 1_048_576)
              + (t.enginePeakBytes.map { String(format: "  engine peak %.2f MiB", Double($0) / 1_048_576) } ?? ""))
    }
    if ours.error == nil, theirs.error == nil, median(theirs.photosPerSecond) > 0 {
        print(String(format: "  ratio (ours / imagehash photos/s): %.2f", median(ours.photosPerSecond) / median(theirs.photosPerSecond)))
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    encoder.keyEncodingStrategy = .convertToSnakeCase
    if let data = try? encoder.encode(report) {
        try? data.write(to: URL(fileURLWithPath: "\(benchDir)/organize-latest.json"))
        progress("wrote \(benchDir)/organize-latest.json")
    }
}

/// Runs one timed child that prints a JSON line with photos_per_second; records
/// wall time, peak RSS, rate and photo count into `timing`; returns the JSON.
private func timedScan(_ argv: [String], scratch: String, label: String, photosKey: String,
                       into timing: inout OrganizeTiming) throws -> [String: Any] {
    let child = try runChild(argv, captureDirectory: scratch)
    guard child.succeeded, let line = child.lastStdoutLine,
          let json = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
        throw SpawnError(description: "exit \(child.exitCode): \(child.stderr.suffix(600))")
    }
    timing.wallSeconds.append(child.seconds)
    timing.peakRSSBytes = max(timing.peakRSSBytes, child.maxRSSKiB * 1024)
    timing.photosPerSecond.append(json["photos_per_second"] as? Double ?? 0)
    timing.photos = json[photosKey] as? Int
    progress("  \(label): " + String(format: "%.2f s wall, %.1f photos/s, peak RSS %.1f MiB", child.seconds,
                                     timing.photosPerSecond.last ?? 0, Double(child.maxRSSKiB) / 1024))
    return json
}
