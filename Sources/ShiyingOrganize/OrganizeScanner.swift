// The organize scan pipeline (issue 9; SPEC D6–D9): folder walk, one
// fingerprint worker per core with its own engine context, optional OCR, then
// the store's record and regroup. The CLI's `organize scan` is a thin caller.
import Foundation
import Shiying
import Synchronization
import ShiyingLibrary

/// Scans a folder of stills into an `OrganizeStore`.
public enum OrganizeScanner {
    /// File extensions the scan picks up (case-insensitive).
    public static let stillExtensions: Set<String> = ["jpg", "jpeg", "png", "heic", "heif"]

    /// Every still under `folder` (recursively), sorted by path.
    /// - Throws: `OrganizeScanError.notADirectory`.
    public static func stills(in folder: String) throws -> [String] {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDir), isDir.boolValue else {
            throw OrganizeScanError.notADirectory(folder)
        }
        let walker = FileManager.default.enumerator(atPath: folder)
        var found: [String] = []
        while let rel = walker?.nextObject() as? String {
            if stillExtensions.contains((rel as NSString).pathExtension.lowercased()) {
                found.append((folder as NSString).appendingPathComponent(rel))
            }
        }
        return found.sorted()
    }

    /// Fingerprints every still under `folder` (with `ocr`, also recognizes
    /// its text with Tesseract), records the photos in `store` in folder
    /// order and re-forms the groups. A file the engine cannot read is
    /// skipped and named in the report; any other failure (e.g. OCR could
    /// not run) fails the scan.
    ///
    /// Workers: one per core (at most 4), each with its own engine context
    /// and 12 MB budget, off the calling task; the store is only touched by
    /// the calling task, after every photo is done. Task cancellation stops
    /// the workers (the engine's cancel flag, polled per strip) and throws
    /// `ShiyingError` `.cancelled`; the store is then left as it was.
    /// - Parameter progress: ("photos", done, total) from the worker threads, one call per photo.
    /// - Throws: `OrganizeScanError` (not a folder, no Tesseract), `ShiyingError` `.cancelled`,
    ///   store errors, OCR launch errors.
    public static func scan(folder: String, store: OrganizeStore, ocr: Bool = false,
                            progress: (@Sendable (String, UInt64, UInt64) -> Void)? = nil) async throws
        -> OrganizeScanReport {
        let paths = try stills(in: folder).map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        if ocr && TesseractOCR.executable == nil { throw OrganizeScanError.ocrUnavailable }
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 4, paths.count))
        let fingerprinters = try (0..<workers).map { _ in try Fingerprinter() }
        let start = ContinuousClock.now
        let outcomes = try await fingerprintAll(paths, with: fingerprinters, ocr: ocr, progress: progress)
        var assets: [OrganizeAsset] = []
        var skipped: [OrganizeScanReport.Skipped] = []
        for (n, outcome) in outcomes.enumerated() {
            switch outcome {
            case .success(let a): assets.append(a)
            case .failure(let e as ShiyingError) where e.code != .cancelled:
                skipped.append(.init(path: paths[n], error: e.message))
            case .failure(let e): throw e  // not a photo's fault: the scan fails
            }
        }
        let elapsed = ContinuousClock.now - start
        let nowMs = Int64(Date().timeIntervalSince1970 * 1000)
        try store.record(assets, nowMs: nowMs)
        let groups = try store.regroup(nowMs: nowMs)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return OrganizeScanReport(
            scanned: assets.count, skipped: skipped,
            duplicateGroups: groups.filter { $0.kind == .duplicate }.count,
            similarGroups: groups.filter { $0.kind == .similar }.count,
            burstGroups: groups.filter { $0.kind == .burst }.count, ocr: ocr, seconds: seconds,
            photosPerSecond: seconds > 0 ? Double(assets.count) / seconds : 0,
            enginePeakBytes: fingerprinters.reduce(0) { $0 + $1.memoryStats.peakBytes })
    }

    /// Every photo's outcome in `paths` order, from `fingerprinters.count`
    /// workers on a thread of their own (the calling task only waits).
    private static func fingerprintAll(_ paths: [String], with fingerprinters: [Fingerprinter], ocr: Bool,
                                       progress: (@Sendable (String, UInt64, UInt64) -> Void)?) async throws
        -> [Result<OrganizeAsset, Error>] {
        let queue = ScanQueue(count: paths.count)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                Thread.detachNewThread {
                    DispatchQueue.concurrentPerform(iterations: fingerprinters.count) { w in
                        while let n = queue.claim() {
                            let outcome = Result<OrganizeAsset, Error> {
                                let fp = try fingerprinters[w].fingerprint(paths[n])
                                return OrganizeAsset(fp, recognizedText: ocr ? try TesseractOCR.recognize(paths[n]) : nil)
                            }
                            queue.finish(n, outcome) { done in progress?("photos", UInt64(done), UInt64(paths.count)) }
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
    }
}

/// The scan's work queue and results, shared by the workers. Progress is
/// reported under the lock (counts arrive in order), so the cancel flag is
/// an atomic of its own: a progress callback may cancel the scan.
private final class ScanQueue: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0, done = 0
    private let cancelled = Atomic(false)
    private var outcomes: [Result<OrganizeAsset, Error>?]

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
    func finish(_ n: Int, _ outcome: Result<OrganizeAsset, Error>, report: (Int) -> Void) {
        lock.withLock {
            outcomes[n] = outcome
            done += 1
            report(done)
        }
    }

    /// Stops handing out photos; those in flight stop at the engine's cancel.
    func cancel() { cancelled.store(true, ordering: .relaxed) }

    /// Every outcome, once the workers are done; cancellation wins over any result.
    func results() throws -> [Result<OrganizeAsset, Error>] {
        try lock.withLock {
            let all = outcomes.compactMap { $0 }
            guard !cancelled.load(ordering: .relaxed), all.count == outcomes.count else {
                throw ShiyingError(code: .cancelled, message: "organize scan cancelled after \(done) of \(outcomes.count) photos")
            }
            return all
        }
    }
}
