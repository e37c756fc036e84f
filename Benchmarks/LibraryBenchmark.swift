// Library suite (issue 18): `shiying library import` of 1,000 generated
// photos (1600x1200 sample JPEGs) plus Live pairs against `exiftool -json -r`
// reading the same folder's metadata, in one run, back to back; and a listing
// of 100,000 catalogue rows by date (the timeline, in process).
//
//   swift run -c release Benchmarks --suite library [--runs 3]
//
// Each tool runs as a child process: wall time, CPU time (user + system) and
// peak RSS from wait4. Our import starts from an empty library each run, so it
// hashes, reads, copies, syncs and catalogues every file. Writes
// .build/benchmarks/library-latest.json.
import Foundation
import ShiyingLibrary

struct LibraryTiming: Codable {
    var tool: String
    var wallSeconds: [Double] = []
    var cpuSeconds: [Double] = []
    var filesPerSecond: [Double] = []
    var peakRSSBytes: Int = 0
    var error: String?
}

struct LibraryBenchReport: Codable {
    var timestamp: String
    var cores: Int
    var loadAverageBefore: Double
    var photos: Int
    var livePairs: Int
    var files: Int
    var photoSize: String
    var shiying: LibraryTiming
    var exiftool: LibraryTiming
    var importRatio: Double?
    var timelineRows: Int
    var timelineMilliseconds: [Double]
    var fullListMilliseconds: [Double]
    /// Recovery after a killed import on the imported library: the whole-folder
    /// sweep (what every import ran before the journal) vs the journal's paths only.
    var recoveryFiles: Int
    var recovery: [String: RecoveryTiming]
}

private let libraryPhotos = 1000
private let libraryLivePairs = 20
private let librarySize = (1600, 1200)
private let timelineRows = 100_000

func runLibrarySuite(root: String, shiying: String, runs: Int) {
    let benchDir = root + "/.build/benchmarks"
    let scratch = benchDir + "/scratch", inDir = benchDir + "/library-inputs"
    for dir in [scratch, inDir + "/photos", inDir + "/live"] {
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }
    prepareLibraryInputs(shiying: shiying, inDir: inDir, scratch: scratch)
    let files = (FileManager.default.enumerator(atPath: inDir)?.allObjects as? [String] ?? [])
        .filter { LibraryFileTypes.isMedia($0) }.count
    let pairs = ((try? FileManager.default.contentsOfDirectory(atPath: inDir + "/live")) ?? []).filter { $0.hasSuffix(".mov") }.count
    let loadBefore = loadAverage()
    var ours = LibraryTiming(tool: "shiying library import")
    var theirs = LibraryTiming(tool: "exiftool -json -r")
    for run in 1...runs {
        let lib = scratch + "/library-bench"
        try? FileManager.default.removeItem(atPath: lib)
        do {
            guard try runChild([shiying, "library", "init", lib], captureDirectory: scratch).succeeded else {
                throw SpawnError(description: "library init failed")
            }
            let child = try runChild([shiying, "library", "import", inDir, "--library", lib, "--json"], captureDirectory: scratch)
            guard child.succeeded, let line = child.lastStdoutLine,
                  let json = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let imported = json["imported"] as? [Any] else {
                throw SpawnError(description: "exit \(child.exitCode): \(child.stderr.suffix(600))")
            }
            let assets = libraryPhotos + pairs
            guard imported.count == assets else { throw SpawnError(description: "imported \(imported.count) of \(assets) assets") }
            record(child, files: files, into: &ours, label: "shiying run \(run)/\(runs)")
        } catch {
            ours.error = "\(error)"
        }
        do {
            let child = try runChild(["exiftool", "-json", "-r", "-q", inDir], captureDirectory: scratch)
            guard child.succeeded else { throw SpawnError(description: "exit \(child.exitCode): \(child.stderr.suffix(300))") }
            record(child, files: files, into: &theirs, label: "exiftool run \(run)/\(runs)")
        } catch {
            theirs.error = "\(error) (apt-get install libimage-exiftool-perl)"
        }
    }
    let recovery = measureRecovery(scratch + "/library-bench")
    let (timeline, full) = measureTimeline(scratch: scratch)
    let ratio = ours.error == nil && theirs.error == nil && median(theirs.filesPerSecond) > 0
        ? median(ours.filesPerSecond) / median(theirs.filesPerSecond) : nil
    let report = LibraryBenchReport(
        timestamp: timestamp(), cores: ProcessInfo.processInfo.activeProcessorCount, loadAverageBefore: loadBefore,
        photos: libraryPhotos, livePairs: pairs, files: files, photoSize: "\(librarySize.0)x\(librarySize.1)", shiying: ours,
        exiftool: theirs, importRatio: ratio, timelineRows: timelineRows, timelineMilliseconds: timeline,
        fullListMilliseconds: full, recoveryFiles: recovery.files, recovery: recovery.timings)
    print("library: \(libraryPhotos) photos \(report.photoSize) + \(pairs) Live pairs = \(files) files, load before \(String(format: "%.2f", loadBefore))")
    for t in [ours, theirs] {
        if let e = t.error { print("  \(t.tool): FAILED \(e)"); continue }
        print(String(format: "  %-26@ %6.2f s wall  %6.2f s CPU  %7.1f files/s  peak RSS %6.1f MiB", t.tool as NSString,
                     median(t.wallSeconds), median(t.cpuSeconds), median(t.filesPerSecond), Double(t.peakRSSBytes) / 1_048_576))
    }
    if let ratio { print(String(format: "  ratio (import / exiftool files/s): %.2f  (target >= 3)", ratio)) }
    print(String(format: "  timeline of %d rows by date: %.1f ms median (target <= 50); full listing with files, albums, tags: %.0f ms",
                 timelineRows, median(timeline), median(full)))
    for (label, key) in [("after a killed import (16 orphans)", "killed"), ("after a clean import", "clean")] {
        let sweep = recovery.timings[key + "_sweep"] ?? RecoveryTiming(), journal = recovery.timings[key + "_journal"] ?? RecoveryTiming()
        print(String(format: "  recovery %@, %d catalogued files: sweep %.1f ms wall %.1f ms CPU; journal %.2f ms wall %.2f ms CPU (median)",
                     label as NSString, recovery.files, median(sweep.wallMilliseconds), median(sweep.cpuMilliseconds),
                     median(journal.wallMilliseconds), median(journal.cpuMilliseconds)))
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    encoder.keyEncodingStrategy = .convertToSnakeCase
    if let data = try? encoder.encode(report) {
        try? data.write(to: URL(fileURLWithPath: "\(benchDir)/library-latest.json"))
        progress("wrote \(benchDir)/library-latest.json")
    }
}

private func record(_ child: ChildResult, files: Int, into timing: inout LibraryTiming, label: String) {
    timing.wallSeconds.append(child.seconds)
    timing.cpuSeconds.append(child.cpuSeconds)
    timing.filesPerSecond.append(Double(files) / max(child.seconds, 1e-9))
    timing.peakRSSBytes = max(timing.peakRSSBytes, child.maxRSSKiB * 1024)
    progress("  \(label): " + String(format: "%.2f s wall, %.2f s CPU, %.1f files/s", child.seconds, child.cpuSeconds,
                                     Double(files) / max(child.seconds, 1e-9)))
}

/// 1,000 sample photos and the Live pairs (made by `shiying live make` from a
/// short ffmpeg test movie), generated once and kept.
private func prepareLibraryInputs(shiying: String, inDir: String, scratch: String) {
    let photos = ((try? FileManager.default.contentsOfDirectory(atPath: inDir + "/photos")) ?? []).filter { $0.hasSuffix(".jpg") }
    if photos.count != libraryPhotos {
        progress("generating \(libraryPhotos) sample photos (\(librarySize.0)x\(librarySize.1)) into \(inDir)/photos")
        for f in photos { unlink(inDir + "/photos/" + f) }
        let made = try? runChild([shiying, "sample-photos", "--count", "\(libraryPhotos)", "--seed", "18",
                                  "--width", "\(librarySize.0)", "--height", "\(librarySize.1)", "-o", inDir + "/photos"],
                                 captureDirectory: scratch)
        guard made?.succeeded == true else { fail("sample-photos failed: \(made?.stderr.suffix(600) ?? "spawn error")") }
    }
    let live = ((try? FileManager.default.contentsOfDirectory(atPath: inDir + "/live")) ?? []).filter { $0.hasSuffix(".mov") }
    guard live.count != libraryLivePairs else { return }
    let clip = scratch + "/library-clip.mov"
    guard (try? runChild(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=480x360:rate=30", "-t", "2",
                          "-pix_fmt", "yuv420p", clip], captureDirectory: scratch))?.succeeded == true else {
        progress("ffmpeg not available: no Live pairs in the library benchmark")
        return
    }
    progress("making \(libraryLivePairs) Live pairs into \(inDir)/live")
    for n in 0..<libraryLivePairs {
        let out = scratch + "/live-\(n)"
        try? FileManager.default.removeItem(atPath: out)
        let made = try? runChild([shiying, "live", "make", "--video", clip, "--at", String(format: "%.2f", 0.1 + 0.09 * Double(n)),
                                  "-o", out], captureDirectory: scratch)
        guard made?.succeeded == true else { fail("live make failed: \(made?.stderr.suffix(600) ?? "spawn error")") }
        for ext in ["jpg", "mov"] {
            try? FileManager.default.moveItem(atPath: out + "/library-clip_live.\(ext)", toPath: inDir + "/live/LIVE_\(n + 1).\(ext)")
        }
    }
}

private let recoveryOrphans = 16

/// CPU time of this process so far (user + system), ms.
private func cpuMs() -> Double {
    var u = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &u)
    return Double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1000 + Double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1000
}

/// Recovery timings of one mode: wall ms and CPU ms (this process, rusage) per pass.
struct RecoveryTiming: Codable {
    var wallMilliseconds: [Double] = []
    var cpuMilliseconds: [Double] = []
}

/// The recovery pass on the imported library, 7 times per case: after a kill
/// -9 in the middle of an import batch (`recoveryOrphans` files renamed into
/// originals/ and journaled, never catalogued), and after a clean import (what
/// every import's pass meets); each by the whole-folder sweep (what every import
/// ran before the journal) and by the journal alone.
private func measureRecovery(_ lib: String) -> (files: Int, timings: [String: RecoveryTiming]) {
    let result = waitFor {
        let library = try PhotoLibrary(at: lib)
        let files = try await library.withStore { Int(try $0.query("SELECT COUNT(*) FROM library_files")[0][0].int64 ?? 0) }
        var timings: [String: RecoveryTiming] = [:]
        for rep in 0..<28 {
            let sweep = rep % 2 == 0, killed = rep % 4 < 2
            let paths = killed ? (0..<recoveryOrphans).map { "originals/2099/01/killed-\(rep)-\($0).jpg" } : []
            try FileManager.default.createDirectory(atPath: lib + "/originals/2099/01", withIntermediateDirectories: true)
            try await library.withStore { s in
                for p in paths {
                    _ = FileManager.default.createFile(atPath: lib + "/" + p, contents: Data(repeating: 7, count: 4096))
                    try s.execute("INSERT INTO library_pending(path, since_ms) VALUES (?, 0)", [.text(p)])
                }
            }
            let start = ContinuousClock.now, cpu = cpuMs()
            let report = try await library.recoverNow(sweep: sweep)
            let key = (killed ? "killed" : "clean") + (sweep ? "_sweep" : "_journal")
            timings[key, default: RecoveryTiming()].wallMilliseconds.append(seconds(ContinuousClock.now - start) * 1000)
            timings[key, default: RecoveryTiming()].cpuMilliseconds.append(cpuMs() - cpu)
            guard report.orphansRemoved == paths.count else {
                throw SpawnError(description: "recovery removed \(report.orphansRemoved) of \(paths.count) orphans")
            }
        }
        return (files, timings)
    }
    switch result {
    case .success(let r): return r
    case .failure(let e): fail("recovery: \(e)")
    }
}

/// A catalogue of 100,000 assets (with their files, tags every tenth, albums
/// every hundredth), then the timeline and the full listing, 7 times each.
private func measureTimeline(scratch: String) -> (timeline: [Double], full: [Double]) {
    let dir = scratch + "/library-100k"
    try? FileManager.default.removeItem(atPath: dir)
    let result = waitFor {
        let library = try PhotoLibrary.create(at: dir)
        try await library.withStore { store in
            try store.transaction { s in
                try s.execute("INSERT INTO library_albums(id, name, created_at_ms) VALUES (1, 'Trip', 0)")
                for n in 0..<timelineRows {
                    let id = Int64(n + 1)
                    let ms = 1_600_000_000_000 + Int64((n &* 7919) % timelineRows) * 60_000  // dates not in id order
                    try s.execute("""
                        INSERT INTO library_assets(id, kind, captured_at_ms, capture_date, width, height, origin, added_at_ms)
                        VALUES (?, 'photo', ?, '2020:09:13 12:26:40', 4032, 3024, 'import', 0)
                        """, [.integer(id), .integer(ms)])
                    try s.execute("INSERT INTO library_files(asset_id, role, path, bytes, sha256) VALUES (?, 'original', ?, 2000000, ?)",
                                  [.integer(id), .text("originals/2020/09/IMG_\(n).JPG"), .text(String(n, radix: 16))])
                    if n % 10 == 0 { try s.execute("INSERT INTO library_tags(asset_id, tag) VALUES (?, 'beach')", [.integer(id)]) }
                    if n % 100 == 0 {
                        try s.execute("INSERT INTO library_album_members(album_id, asset_id, added_at_ms) VALUES (1, ?, 0)", [.integer(id)])
                    }
                }
            }
        }
        var timeline: [Double] = [], full: [Double] = []
        for _ in 0..<7 {
            let start = ContinuousClock.now
            let rows = try await library.timeline()
            timeline.append(seconds(ContinuousClock.now - start) * 1000)
            guard rows.count == timelineRows else { throw SpawnError(description: "timeline gave \(rows.count) rows") }
        }
        for _ in 0..<3 {
            let start = ContinuousClock.now
            let assets = try await library.list()
            full.append(seconds(ContinuousClock.now - start) * 1000)
            guard assets.count == timelineRows else { throw SpawnError(description: "list gave \(assets.count) rows") }
        }
        return (timeline, full)
    }
    switch result {
    case .success(let r): return r
    case .failure(let e): fail("timeline: \(e)")
    }
}

/// Runs `work` and waits for it from synchronous code (the benchmark's main thread).
func waitFor<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) -> Result<T, Error> {
    let box = BenchResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        do { box.value = .success(try await work()) } catch { box.value = .failure(error) }
        done.signal()
    }
    done.wait()
    return box.value!
}

private final class BenchResultBox<T>: @unchecked Sendable { var value: Result<T, Error>? }
