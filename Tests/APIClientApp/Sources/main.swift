// Uses only Shiying's public async API: cancels a HEIC save and a Live save
// mid-way (no output, `CancellationError`, the job stopped before its end),
// drives one progress value to 1, refuses a non-file URL, and imports into
// and scans a photo library with the same progress value and cancellation.
// Usage: APIClientApp PHOTO.jpg LIVE_STILL.jpg LIVE_MOVIE.mov WORK_DIR
import Foundation
import Shiying
import ShiyingLibrary
import ShiyingOrganize

/// Every progress value a job reported; cancels the job's task at the first
/// value `trigger` accepts, from the engine's own thread (no timing).
final class ProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [ShiyingProgress] = []
    private var cancelAt: ((ShiyingProgress) -> Bool)?
    private var task: Task<Void, Error>?
    private(set) var fractionAtCancel: Double?

    func note(_ value: ShiyingProgress) {
        lock.lock()
        values.append(value)
        var toCancel: Task<Void, Error>?
        if fractionAtCancel == nil, let cancelAt, cancelAt(value), let task {
            fractionAtCancel = value.fraction
            toCancel = task
        }
        lock.unlock()
        toCancel?.cancel()
    }

    func cancel(_ task: Task<Void, Error>, at trigger: @escaping (ShiyingProgress) -> Bool) {
        lock.lock()
        self.task = task
        cancelAt = trigger
        lock.unlock()
    }

    var all: [ShiyingProgress] { lock.withLock { values } }
}

var failures = 0
@MainActor func check(_ ok: Bool, _ what: String) {
    print(ok ? "ok   \(what)" : "FAIL \(what)")
    if !ok { failures += 1 }
}

/// Files left in `dir` (outputs, temporaries).
func leftovers(_ dir: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).sorted()
}

/// Runs `job` as a task cancelled at the first progress value `trigger`
/// accepts; checks the one cancellation error, that the job stopped before
/// its end, and that `dir` is left empty.
@MainActor func cancelMidway(_ name: String, in dir: URL, at trigger: @escaping (ShiyingProgress) -> Bool,
                  _ job: @escaping @Sendable (@escaping @Sendable (ShiyingProgress) -> Void) async throws -> Void) async {
    let log = ProgressLog()
    let task = Task { try await job { log.note($0) } }
    log.cancel(task, at: trigger)
    let result = await task.result
    switch result {
    case .success:
        check(false, "\(name): finished although cancelled at \(log.fractionAtCancel.map { "\($0)" } ?? "no progress")")
    case .failure(let error):
        check(error is CancellationError, "\(name): throws CancellationError (got \(type(of: error)): \(error))")
    }
    let at = log.fractionAtCancel ?? -1
    check(at >= 0 && at < 1, "\(name): cancelled mid-way (fraction \(at) at cancel)")
    check(log.all.allSatisfy { $0.fraction < 1 }, "\(name): never reached 1 (returned before the job would have finished)")
    check(leftovers(dir).isEmpty, "\(name): no output or temporary file left (\(leftovers(dir)))")
}

let arguments = CommandLine.arguments
guard arguments.count == 5 else {
    FileHandle.standardError.write(Data("usage: APIClientApp PHOTO.jpg LIVE_STILL.jpg LIVE_MOVIE.mov WORK_DIR\n".utf8))
    exit(2)
}
let photo = URL(fileURLWithPath: arguments[1])
let liveStill = URL(fileURLWithPath: arguments[2]), liveMovie = URL(fileURLWithPath: arguments[3])
let work = URL(fileURLWithPath: arguments[4])
let heicDir = work.appendingPathComponent("heic-cancel"), liveDir = work.appendingPathComponent("live-cancel")
let progressDir = work.appendingPathComponent("progress")
let mediaDir = work.appendingPathComponent("media"), libraryDir = work.appendingPathComponent("library")
for dir in [heicDir, liveDir, progressDir, mediaDir, libraryDir] {
    try? FileManager.default.removeItem(at: dir)
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
}

// 1. A full-size HEIC save, cancelled at its first encoded tile.
await cancelMidway("HEIC save", in: heicDir, at: { $0.phase == "heif tiles" }) { progress in
    _ = try await Editor.save(photo, recipe: .identity, to: heicDir.appendingPathComponent("edited.heic"),
                              progress: progress)
}

// 2. A Live edit (still + movie), cancelled at its first movie frame: neither file is left.
await cancelMidway("Live save", in: liveDir, at: { $0.phase == "frames" }) { progress in
    _ = try await LivePhoto.save(movie: liveMovie, still: liveStill,
                                 stillOut: liveDir.appendingPathComponent("edited.jpg"),
                                 movieOut: liveDir.appendingPathComponent("edited.mov"), progress: progress)
}

// 3. One progress value over a whole job: decode, rows, HEIF tiles → 1.
let log = ProgressLog()
let output = progressDir.appendingPathComponent("small.heic")
do {
    let report = try await Editor.save(photo, recipe: .identity, to: output, maxSize: PixelSize(width: 1200, height: 900),
                                       progress: { log.note($0) })
    check(report.width <= 1200 && report.height <= 900, "progress job: saved \(report.width)x\(report.height)")
} catch {
    check(false, "progress job: \(error)")
}
let values = log.all
check(values.count >= 3, "progress: \(values.count) values")
check(zip(values, values.dropFirst()).allSatisfy { $0.fraction <= $1.fraction }, "progress: never decreases")
check(values.allSatisfy { (0...1).contains($0.fraction) }, "progress: within 0...1")
check(values.last?.fraction == 1 && values.last?.phase == "done", "progress: ends at 1 (\(values.last.map { "\($0)" } ?? "none"))")
check(Set(values.map(\.phase)).isSuperset(of: ["heif tiles", "done"]), "progress: phases \(Array(Set(values.map(\.phase))).sorted())")
check(FileManager.default.fileExists(atPath: output.path), "progress job: output written")

// 4. A URL that is not a file URL is refused, naming it.
do {
    _ = try await Editor.save(URL(string: "https://example.com/a.jpg")!, recipe: .identity,
                              to: progressDir.appendingPathComponent("web.jpg"))
    check(false, "a web URL was accepted")
} catch let error as ShiyingError {
    check(error.code == .usage && error.message.contains("https://example.com/a.jpg"), "non-file URL refused: \(error)")
} catch {
    check(false, "non-file URL: unexpected \(error)")
}

/// The checks every job's progress log must pass: non-decreasing, in 0...1,
/// 1 only in the last value ("done"), and the phases `expected` seen.
@MainActor func checkProgress(_ name: String, _ values: [ShiyingProgress], phases expected: Set<String>) {
    check(zip(values, values.dropFirst()).allSatisfy { $0.fraction <= $1.fraction }, "\(name) progress: never decreases")
    check(values.dropLast().allSatisfy { (0..<1).contains($0.fraction) }, "\(name) progress: below 1 until the end")
    check(values.last?.fraction == 1 && values.last?.phase == "done",
          "\(name) progress: ends at 1 (\(values.last.map { "\($0)" } ?? "none"))")
    check(Set(values.map(\.phase)).isSuperset(of: expected), "\(name) progress: phases \(Array(Set(values.map(\.phase))).sorted())")
}

// 5. A library import: cancelled at its first file read (nothing catalogued,
//    no staged copy left), then run through with one progress value.
for source in [photo, liveStill, liveMovie] {
    try FileManager.default.copyItem(at: source, to: mediaDir.appendingPathComponent(source.lastPathComponent))
}
let library = try PhotoLibrary.create(at: libraryDir.path)
let importLog = ProgressLog()
let cancelledImport = Task {
    _ = try await library.importFiles([mediaDir], reader: EngineMediaReader(), progress: { importLog.note($0) })
}
importLog.cancel(cancelledImport, at: { $0.phase == "read" })
switch await cancelledImport.result {
case .success: check(false, "library import: finished although cancelled")
case .failure(let error): check(error is CancellationError, "library import: throws CancellationError (got \(error))")
}
check(leftovers(URL(fileURLWithPath: library.folder.staging)).isEmpty, "library import: no staged copy left after cancel")
let importValues = ProgressLog()
do {
    let report = try await library.importFiles([mediaDir], reader: EngineMediaReader(), progress: { importValues.note($0) })
    check(report.imported.count == 2 && report.photos == 1 && report.lives == 1,
          "library import after the cancel: everything new (\(report.imported.count) assets, \(report.photos) photo, \(report.lives) Live)")
} catch {
    check(false, "library import: \(error)")
}
checkProgress("library import", importValues.all, phases: ["read", "import"])

// 6. An organize scan of the same folder: one progress value to 1.
let scanLog = ProgressLog()
do {
    let store = OrganizeStore(store: try RecordStore(path: work.appendingPathComponent("organize.sqlite").path))
    let report = try await OrganizeScanner.scan(folder: mediaDir, store: store, progress: { scanLog.note($0) })
    check(report.scanned == 2 && report.livePhotos == 1, "organize scan: \(report.scanned) items, \(report.livePhotos) Live")
} catch {
    check(false, "organize scan: \(error)")
}
checkProgress("organize scan", scanLog.all, phases: ["photos"])

print(failures == 0 ? "APIClientApp: all checks passed" : "APIClientApp: \(failures) check(s) failed")
exit(failures == 0 ? 0 : 1)
