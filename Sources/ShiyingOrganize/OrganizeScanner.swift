// The organize scan pipeline (issue 9; SPEC D6–D9): folder walk, one
// fingerprint worker per core with its own engine context, optional OCR, then
// the store's record and regroup. The CLI's `organize scan` is a thin caller.
import Foundation
import Shiying
import Synchronization
import ShiyingLibrary

/// Scans a folder of stills and movies into an `OrganizeStore`.
public enum OrganizeScanner {
    /// File extensions the scan picks up (case-insensitive).
    public static let stillExtensions: Set<String> = ["jpg", "jpeg", "png", "heic", "heif"]
    public static let movieExtensions: Set<String> = ["mov", "mp4", "m4v"]

    /// Every still under `folder` (recursively), sorted by path.
    /// - Throws: `OrganizeScanError.notADirectory`.
    public static func stills(in folder: String) throws -> [String] {
        try files(in: folder, extensions: stillExtensions)
    }

    /// Every still and movie under `folder` (recursively), sorted by path.
    /// - Throws: `OrganizeScanError.notADirectory`.
    public static func media(in folder: String) throws -> [String] {
        try files(in: folder, extensions: stillExtensions.union(movieExtensions))
    }

    private static func files(in folder: String, extensions: Set<String>) throws -> [String] {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDir), isDir.boolValue else {
            throw OrganizeScanError.notADirectory(folder)
        }
        let walker = FileManager.default.enumerator(atPath: folder)
        var found: [String] = []
        while let rel = walker?.nextObject() as? String {
            if extensions.contains((rel as NSString).pathExtension.lowercased()) {
                found.append((folder as NSString).appendingPathComponent(rel))
            }
        }
        return found.sorted()
    }

    /// Scans the folder at the `file:` URL `folder`: `scan(folder:store:ocr:progress:)` (a path)
    /// with a URL at the API edge (same work, progress and cancellation).
    /// - Throws: `OrganizeScanError.notADirectory` for a URL that is not a `file:` URL, then as the path form.
    public static func scan(folder: URL, store: OrganizeStore, ocr: Bool = false,
                            progress: (@Sendable (ShiyingProgress) -> Void)? = nil) async throws -> OrganizeScanReport {
        guard folder.isFileURL else { throw OrganizeScanError.notADirectory(folder.absoluteString) }
        return try await scan(folder: folder.path, store: store, ocr: ocr, progress: progress)
    }

    /// Fingerprints every still and movie under `folder` (with `ocr`, also
    /// recognizes the stills' text with Tesseract), records them in `store`
    /// in folder order and re-forms the groups. A still and a movie with the
    /// same Live content identifier are one Live photo: the still's
    /// fingerprint with the movie's duration (the movie is not decoded).
    /// Other movies are fingerprinted from a few frames. A file whose size
    /// and modification time are as the store recorded them is not decoded
    /// again. A file the engine cannot read is skipped and named in the
    /// report; any other failure (e.g. OCR could not run) fails the scan.
    ///
    /// Workers: one per core (at most 4), each with its own engine contexts
    /// (12 MB for stills), off the calling task; the store is only touched by
    /// the calling task, before and after the workers. Task cancellation stops
    /// the workers (the engine's cancel flag, polled per strip) and throws
    /// `CancellationError`; the store is then left as it was.
    /// - Parameter progress: one `ShiyingProgress` for the whole scan, from
    ///   the worker threads: phase `"photos"` (one value per decoded file),
    ///   `"movies"` (unpaired movies sampled), `"pixels"` (full-resolution
    ///   digests where a duplicate is possible), then `"done"` (fraction 1)
    ///   once the store is updated.
    /// - Throws: `OrganizeScanError` (not a folder, no Tesseract), `CancellationError`,
    ///   store errors, OCR launch errors.
    public static func scan(folder: String, store: OrganizeStore, ocr: Bool = false,
                            progress: (@Sendable (ShiyingProgress) -> Void)? = nil) async throws
        -> OrganizeScanReport {
        let progress = ProgressMeter.make(.organizeScan, progress)
        // One spelling per file: through a symlink to the folder (or a library
        // opened by another name) the same photos must not be recorded twice —
        // two records of one file would be "duplicates" of each other.
        let folder = LibraryFolder.resolved(folder)
        let paths = try media(in: folder).map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        if ocr && TesseractOCR.executable == nil { throw OrganizeScanError.ocrUnavailable }
        let plan = ScanPlan(paths: paths, known: try store.assets(), ocr: ocr)
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 4, max(plan.decode.count, 1)))
        let fingerprinters = try (0..<workers).map { _ in try Fingerprinter() }
        let start = ContinuousClock.now
        let first = try await runAll(plan.decode, with: fingerprinters, phase: "photos", progress: progress) { fp, path in
            try plan.read(path, with: fp)
        }
        var skipped: [OrganizeScanReport.Skipped] = []
        var facts = plan.reused
        for (n, outcome) in first.enumerated() {
            switch outcome {
            case .success(let f): facts[plan.decode[n]] = f
            case .failure(let e as ShiyingError) where e.code != .cancelled:
                skipped.append(.init(path: plan.decode[n], error: e.message))
            case .failure(let e): throw e  // not a photo's fault: the scan fails
            }
        }
        var pairing = LivePairing(paths: paths, facts: facts)
        let movies = pairing.unpairedMoviesToDecode
        let known = facts
        let second = try await runAll(movies, with: fingerprinters, phase: "movies", progress: progress) { fp, path in
            try ScanPlan.fingerprintMovie(path, facts: known[path]!, with: fp)
        }
        for (n, outcome) in second.enumerated() {
            switch outcome {
            case .success(let a): pairing.videos[movies[n]] = a
            case .failure(let e as ShiyingError) where e.code != .cancelled:
                skipped.append(.init(path: movies[n], error: e.message))
            case .failure(let e): throw e
            }
        }
        var assets = pairing.assets()
        // Exact-duplicate evidence only where a duplicate is possible: a
        // full-resolution decode of those stills (HEVC HEIF has its coded digest).
        let exact = ScanPlan.needingPixelDigest(assets)
        let digests = try await runAll(exact, with: fingerprinters, phase: "pixels", progress: progress) { fp, path in
            try fp.fingerprint(path)
        }
        var digestByFile: [String: String] = [:]
        for outcome in digests {
            switch outcome {
            case .success(let fp): digestByFile[fp.fileSHA256] = fp.pixelSHA256
            case .failure(let e as ShiyingError) where e.code != .cancelled:
                continue  // the still keeps its byte evidence: no pixel duplicate is claimed
            case .failure(let e): throw e
            }
        }
        for i in assets.indices where assets[i].pixelSHA256.hasPrefix(ScanPlan.byteEvidence) {
            if let digest = digestByFile[assets[i].fileSHA256] { assets[i].pixelSHA256 = digest }
        }
        try Task.checkCancellation()  // the last point before the store changes
        let elapsed = ContinuousClock.now - start
        let nowMs = Int64(Date().timeIntervalSince1970 * 1000)
        try store.forget(paths: pairing.pairedMoviePaths.filter { plan.knownPaths.contains($0) })
        // files recorded that are gone (deleted, moved to the trash, their folder moved or renamed): no
        // longer photos to group — never a keeper whose "copy" is then set aside as the only one left, nor
        // the old name of a moved file grouped with its new one
        let present = Set(paths)
        try store.forget(paths: plan.knownPaths.filter { !present.contains($0) && access($0, F_OK) != 0 }.sorted())
        try store.record(assets, nowMs: nowMs)
        let groups = try store.regroup(nowMs: nowMs)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        progress?.finish()
        let decoded = first.filter { if case .success(let f) = $0 { !f.isMovie } else { false } }.count
            + pairing.videos.count - pairing.reusedVideos
        return OrganizeScanReport(
            scanned: assets.count, skipped: skipped.sorted { $0.path < $1.path },
            duplicateGroups: groups.filter { $0.kind == .duplicate }.count,
            similarGroups: groups.filter { $0.kind == .similar }.count,
            burstGroups: groups.filter { $0.kind == .burst }.count, ocr: ocr, seconds: seconds,
            photosPerSecond: seconds > 0 ? Double(decoded) / seconds : 0,
            enginePeakBytes: fingerprinters.reduce(0) { $0 + $1.memoryStats.peakBytes },
            livePhotos: assets.filter { $0.pairedPath != nil }.count,
            videos: assets.filter { $0.mediaType == .video }.count,
            decoded: decoded, unchanged: assets.count - decoded)
    }

    /// Every job's outcome in `jobs` order, from `fingerprinters.count`
    /// workers on a thread of their own (the calling task only waits).
    private static func runAll<T: Sendable>(_ jobs: [String], with fingerprinters: [Fingerprinter], phase: String,
                                            progress: ProgressMeter?,
                                            _ work: @escaping @Sendable (Fingerprinter, String) throws -> T)
        async throws -> [Result<T, Error>] {
        guard !jobs.isEmpty else { return [] }
        let queue = ScanQueue<T>(count: jobs.count)
        let workers = min(fingerprinters.count, jobs.count)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                Thread.detachNewThread {
                    DispatchQueue.concurrentPerform(iterations: workers) { w in
                        while let n = queue.claim() {
                            let outcome = Result<T, Error> { try work(fingerprinters[w], jobs[n]) }
                            queue.finish(n, outcome) { done in progress?.report(phase, UInt64(done), UInt64(jobs.count)) }
                        }
                    }
                    continuation.resume(with: Result { try queue.results() })
                }
            }
        } onCancel: {
            queue.cancel()
            fingerprinters.forEach { $0.cancel() }
        }
    }
}

extension OrganizeAsset {
    /// The organizer's record of one fingerprinted still.
    public init(_ fp: PhotoFingerprint, recognizedText: String?) {
        self.init(path: fp.path, mediaType: .photo, width: fp.width, height: fp.height, fileBytes: fp.fileBytes,
                  fileSHA256: fp.fileSHA256, pixelSHA256: fp.pixelSHA256, phash: fp.phash, quality: fp.quality,
                  capturedAtMs: fp.captureDate.flatMap(ExifCaptureTime.milliseconds), hasCamera: fp.hasCamera,
                  isScreenshot: fp.screenshotMarker, isAnimated: fp.animated, recognizedText: recognizedText)
        format = fp.format
        phashTurned = fp.phashTurned
    }
}

/// The scan's work queue and results, shared by the workers. Progress is
/// reported under the lock (counts arrive in order), so the cancel flag is
/// an atomic of its own: a progress callback may cancel the scan.
private final class ScanQueue<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0, done = 0
    private let cancelled = Atomic(false)
    private var outcomes: [Result<T, Error>?]

    init(count: Int) { outcomes = Array(repeating: nil, count: count) }

    /// The next photo index to fingerprint, or nil when all are taken or the scan is cancelled.
    func claim() -> Int? {
        lock.withLock {
            guard !cancelled.load(ordering: .relaxed), next < outcomes.count else { return nil }
            next += 1
            return next - 1
        }
    }

    /// Records photo `n`'s outcome, then tells `report` (under the lock) how many are done.
    func finish(_ n: Int, _ outcome: Result<T, Error>, report: (Int) -> Void) {
        lock.withLock {
            outcomes[n] = outcome
            done += 1
            report(done)
        }
    }

    /// Stops handing out photos; those in flight stop at the engine's cancel.
    func cancel() { cancelled.store(true, ordering: .relaxed) }

    /// Every outcome, once the workers are done; cancellation wins over any result.
    func results() throws -> [Result<T, Error>] {
        try lock.withLock {
            let all = outcomes.compactMap { $0 }
            guard !cancelled.load(ordering: .relaxed), all.count == outcomes.count else {
                throw CancellationError()
            }
            return all
        }
    }
}
