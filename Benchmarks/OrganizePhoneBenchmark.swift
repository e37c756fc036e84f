// Organize phone-library suite (issue 22): `shiying organize scan` of a mix
// like an iPhone library — a fifth 24 MP grid HEICs (5712x4284, the iPhone
// Pro size, in 640x896 tiles), the rest 12 MP JPEGs (4032x3024) — against Python imagehash
// (SHA-256 + phash per file, pillow-heif for the HEICs), in one run, then a
// second scan of the unchanged folder (nothing is decoded again).
//
//   swift run -c release Benchmarks --suite organize-phone [--runs 3] [--phone-photos 50]
//
// Each tool runs as a child process; wall time, user CPU seconds and peak RSS
// come from wait4. Writes .build/benchmarks/organize-phone-latest.json.
import Foundation
import ShiyingFixtures

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
    let scratch = benchDir + "/scratch", cache = benchDir + "/organize-phone-inputs", inDir = benchDir + "/organize-phone-run"
    let heics = max(1, photos / 5), jpegs = max(1, photos - photos / 5)
    // The HEICs as an iPhone Pro writes them: 5712x4284 in 640x896 tiles
    // (x265 ultrafast, the sample writer's speed setting). The cache keeps
    // every photo made so far (sample-0001... by index); a run scans hard
    // links to the first `count` of each kind.
    let samples: [(sub: String, count: Int, heic: Bool, w: Int, h: Int, seed: UInt64)] = [
        ("heic-5712x4284-tiles640x896", heics, true, 5712, 4284, 31), ("jpeg-4032x3024", jpegs, false, 4032, 3024, 37)]
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: cache)) ?? []
    where !samples.contains(where: { $0.sub == entry }) {
        try? FileManager.default.removeItem(atPath: cache + "/" + entry)  // an older shape of the inputs
    }
    try? FileManager.default.removeItem(atPath: inDir)
    for s in samples {
        let dir = cache + "/" + s.sub, run = inDir + "/" + s.sub
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try? FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
        let name = { (i: Int) in String(format: "sample-%04d.%@", i + 1, s.heic ? "heic" : "jpg") }
        let have = (0..<s.count).prefix { FileManager.default.fileExists(atPath: dir + "/" + name($0)) }.count
        if have < s.count {
            progress("generating \(s.count - have) \(s.heic ? "HEIC" : "JPEG") sample photos (\(s.w)x\(s.h)) into \(dir)")
            do {
                _ = try SamplePhotos.write(count: s.count - have, startIndex: have, seed: s.seed, width: s.w, height: s.h,
                                           heic: s.heic, heicTile: s.heic ? (640, 896) : nil, to: dir) { done, total in
                    if done % 10 == 0 || done == total { progress("  \(done)/\(total)") }
                }
            } catch {
                fail("sample photos failed: \(error)")
            }
        }
        for i in 0..<s.count where link(dir + "/" + name(i), run + "/" + name(i)) != 0 {
            fail("cannot link \(name(i)) into \(run): \(String(cString: strerror(errno)))")
        }
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
            let (again, rescan) = try jsonChild(scan, scratch: scratch)
            second.add(again)
            second.files = rescan["scanned"] as? Int
            if (rescan["decoded"] as? Int) != 0 { second.error = "the unchanged rescan decoded \(rescan["decoded"] ?? "?")" }
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
    print("organize-phone: \(heics) HEICs 5712x4284 (640x896 tiles) + \(jpegs) JPEGs 4032x3024, runs \(runs), "
          + "load before \(String(format: "%.2f", loadBefore)), cores \(ProcessInfo.processInfo.activeProcessorCount)")
    for t in [first, second, theirs] {
        if let e = t.error { print("  \(t.tool): FAILED \(e)"); continue }
        print(String(format: "  %-48@ %7.2f s wall %7.2f s user  %6.1f files/s  peak RSS %6.1f MiB", t.tool as NSString,
                     median(t.wallSeconds), median(t.userSeconds), filesPerSecond(t), Double(t.peakRSSBytes) / 1_048_576)
              + (t.enginePeakBytes.map { String(format: "  engine peak %.2f MiB", Double($0) / 1_048_576) } ?? ""))
    }
    if first.error == nil, theirs.error == nil {
        print(String(format: "  rate: ours %.1f files/s, imagehash %.1f files/s -> %.2fx (target >= 2x); "
                     + "user CPU imagehash / ours: %.2f", filesPerSecond(first), filesPerSecond(theirs),
                     filesPerSecond(first) / max(filesPerSecond(theirs), 1e-9),
                     median(theirs.userSeconds) / max(median(first.userSeconds), 1e-9)))
        print(String(format: "  unchanged rescan: %.1fx faster than the first scan (wall; target >= 20x)",
                     median(first.wallSeconds) / max(median(second.wallSeconds), 1e-9)))
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    encoder.keyEncodingStrategy = .convertToSnakeCase
    if let data = try? encoder.encode(report) {
        try? data.write(to: URL(fileURLWithPath: "\(benchDir)/organize-phone-latest.json"))
        progress("wrote \(benchDir)/organize-phone-latest.json")
    }
}

/// Files per wall second (median of the runs).
private func filesPerSecond(_ t: PhoneScanTiming) -> Double {
    Double(t.files ?? 0) / max(median(t.wallSeconds), 1e-9)
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
