// Cancellation of the async API: Swift task cancellation → the engine's flag,
// polled once per strip; nothing is left behind (SPEC C8 "cancelling stops at
// once", C13 strip-wise rendering, nothing at the output path on failure).
import Foundation
import Shiying
import Testing

/// Thread-safe progress record shared with the engine's progress callback.
/// It can also cancel a task at the first strip, from the engine's own thread, so
/// the test does not race a fast job.
final class ProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var strips: (done: UInt64, total: UInt64)?
    private var firstStrips: (done: UInt64, total: UInt64)?
    private var task: Task<CollageReport, Error>?

    func note(_ progress: ShiyingProgress) {
        guard progress.phase == "strips" else { return }
        let (done, total) = (progress.phaseDone, progress.phaseTotal)
        lock.lock()
        strips = (done, total)
        if firstStrips == nil { firstStrips = (done, total) }
        let toCancel = task
        lock.unlock()
        toCancel?.cancel()
    }

    /// Cancels `task` at the next strip report (at once if one was already seen).
    func cancelOnFirstStrip(_ task: Task<CollageReport, Error>) {
        lock.lock()
        self.task = task
        let seen = firstStrips != nil
        lock.unlock()
        if seen { task.cancel() }
    }

    var firstStrip: (done: UInt64, total: UInt64)? {
        lock.lock()
        defer { lock.unlock() }
        return firstStrips
    }

    var lastStrips: (done: UInt64, total: UInt64)? {
        lock.lock()
        defer { lock.unlock() }
        return strips
    }
}

@Suite("Async cancellation")
struct CancellationTests {
    static func photos() async throws -> [String] {
        try await FixtureCache.shared.samples("cancel12", count: 12, seed: 21, width: 2000, height: 1500)
    }

    // Cancel the Swift task once the first strip has been written: the job stops
    // with CancellationError, well before the last strip, and the folder has
    // neither the output nor a temporary (*.tmp-*) file.
    @Test("cancelling the task mid-job throws CancellationError and leaves no output or temp file")
    func cancelMidJob() async throws {
        let photos = try await Self.photos()
        let dir = try TempDir("cancel")
        defer { dir.remove() }
        var request = CollageRequest(layout: .long, inputs: photos, output: dir.file("long.jpg"))
        request.width = 1080
        let log = ProgressLog()
        let task = Task { try await Collage.render(request, progress: { log.note($0) }) }
        log.cancelOnFirstStrip(task)
        let result = await task.result
        let started = try #require(log.firstStrip, "the job never reported a strip")
        switch result {
        case .success(let report):
            Issue.record("the job finished (\(report.height) rows) although it was cancelled after strip \(started.done)/\(started.total)")
        case .failure(let error):
            #expect(error is CancellationError, "unexpected error \(type(of: error)): \(error)")
        }
        #expect(started.total > 700, "expected a long job, got \(started.total) strips")
        if let last = log.lastStrips { #expect(last.done < last.total, "all \(last.total) strips were written") }
        #expect(dir.contents().isEmpty, "left behind: \(dir.contents())")
    }

    // A task cancelled before the job starts: the engine sees the flag at once.
    @Test("a task cancelled before it runs throws CancellationError and writes nothing")
    func cancelBeforeStart() async throws {
        let photos = try await Self.photos()
        let dir = try TempDir("cancel0")
        defer { dir.remove() }
        let request = CollageRequest(layout: .long, inputs: photos, output: dir.file("long.jpg"))
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await Collage.render(request)
        }
        let result = await task.result
        if case .failure(let error) = result {
            #expect(error is CancellationError, "\(error)")
        } else {
            Issue.record("expected CancellationError, got \(result)")
        }
        #expect(dir.contents().isEmpty, "left behind: \(dir.contents())")
    }

    // The synchronous API's cancel hook works from another thread as well.
    @Test("sync render: the handed cancel closure stops the job from another thread")
    func syncCancelHook() async throws {
        let photos = try await Self.photos()
        let dir = try TempDir("cancelsync")
        defer { dir.remove() }
        let request = CollageRequest(layout: .long, inputs: photos, output: dir.file("long.png"))
        // Handshake, no timing: at the first strip the job thread waits until a
        // second thread has called the cancel closure, then carries on.
        let firstStrip = DispatchSemaphore(value: 0), cancelled = DispatchSemaphore(value: 0)
        let once = ProgressLog()
        let outcome: Result<CollageReport, Error> = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: Result {
                    try Collage.renderBlocking(request, progress: { progress in
                        guard progress.phase == "strips", once.firstStrip == nil else { return }
                        once.note(progress)
                        firstStrip.signal()
                        cancelled.wait()
                    }, cancel: { cancel in
                        Thread.detachNewThread {
                            firstStrip.wait()
                            cancel()
                            cancelled.signal()
                        }
                    })
                })
            }
        }
        if case .failure(let error) = outcome {
            #expect(error is CancellationError, "\(error)")
        } else {
            Issue.record("expected CancellationError, got \(outcome)")
        }
        #expect(dir.contents().isEmpty, "left behind: \(dir.contents())")
    }
}
