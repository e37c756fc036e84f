// SPEC C11: one save at a time; the same photos + same settings requested
// again join the request in flight and run once. Jobs "take" their time by
// sleeping on a manual clock and count starts, overlaps and cancellations, so
// nothing depends on wall time.
import Foundation
import Shiying
import Synchronization
import Testing

/// Export jobs that sleep `duration` on the manual clock; records what ran.
private final class CountingJobs: Sendable {
    struct Record: Sendable {
        var starts: [(name: String, at: Duration)] = []
        var ends: [(name: String, at: Duration)] = []
        var cancelled: [String] = []
        var running = 0, maxRunning = 0
    }

    let clock: LiveTestClock
    let duration: Duration
    private let record = Mutex(Record())

    init(clock: LiveTestClock, duration: Duration) {
        self.clock = clock
        self.duration = duration
    }

    var snapshot: Record { record.withLock { $0 } }

    /// Returns "name#k" for the k-th job started, or throws `fail` after sleeping.
    func job(_ name: String, fail: Bool = false) async throws -> String {
        let k = record.withLock { r -> Int in
            r.running += 1
            r.maxRunning = max(r.maxRunning, r.running)
            r.starts.append((name, clock.now.offset))
            return r.starts.count
        }
        defer { record.withLock { $0.running -= 1 } }
        do {
            try await clock.sleep(for: duration)
        } catch {
            record.withLock { $0.cancelled.append(name) }
            throw error
        }
        record.withLock { $0.ends.append((name, clock.now.offset)) }
        if fail { throw TestFailure("export \(name) failed on purpose") }
        return "\(name)#\(k)"
    }
}

/// Settings as the moving collage might have them.
private struct Settings: Codable {
    var layout = "grid"
    var motion = "together"
    var export = "live"
}

private func key(_ photos: [String], _ settings: Settings = Settings()) throws -> ExportRequestKey {
    try ExportRequestKey(photos: photos, settings: settings)
}

@Suite("Export queue (SPEC C11)")
struct ExportQueueTests {
    @Test("SPEC C11: the request key — same photos in the same order + same settings; the output path is not part of it")
    func requestKey() throws {
        #expect(try key(["a.heic", "b.heic"]) == key(["a.heic", "./b.heic"]))
        #expect(try key(["a.heic", "b.heic"]) != key(["b.heic", "a.heic"]))
        #expect(try key(["a.heic", "b.heic"]) != key(["a.heic", "b.heic"], Settings(motion: "relay")))
        var one = CollageRequest(layout: .grid, inputs: ["a.jpg", "b.jpg"], output: "/tmp/x/1.jpg")
        var two = one
        two.output = "/tmp/y/2.jpg"
        #expect(try ExportRequestKey(collage: one) == ExportRequestKey(collage: two))
        one.columns = 2
        #expect(try ExportRequestKey(collage: one) != ExportRequestKey(collage: two))
    }

    @Test("SPEC C11: two identical requests run once and both get the same result")
    func identicalRunOnce() async throws {
        let clock = LiveTestClock()
        let jobs = CountingJobs(clock: clock, duration: .seconds(5))
        let queue = ExportQueue<ExportRequestKey, String>()
        let k = try key(["a.heic", "b.heic"])
        let first = Task { try await queue.run(k) { try await jobs.job("first") } }
        await eventually("the first export is running") { jobs.snapshot.starts.count == 1 && clock.sleeperCount == 1 }
        let second = Task { try await queue.run(k) { try await jobs.job("second") } }
        await eventually("the second request joined") { await queue.callers == 2 }
        clock.advance(by: .seconds(5))
        #expect(try await first.value == "first#1")
        #expect(try await second.value == "first#1")
        #expect(jobs.snapshot.starts.map(\.name) == ["first"])
        #expect(await queue.jobsStarted == 1)
        #expect(await queue.inFlight == 0)
    }

    @Test("SPEC C11: a request identical to a waiting one joins it too (three requests, two jobs)")
    func joinsWaiting() async throws {
        let clock = LiveTestClock()
        let jobs = CountingJobs(clock: clock, duration: .seconds(5))
        let queue = ExportQueue<ExportRequestKey, String>()
        let a = try key(["a.heic"]), b = try key(["b.heic"])
        let runA = Task { try await queue.run(a) { try await jobs.job("A") } }
        await eventually("A is running") { jobs.snapshot.starts.count == 1 }
        let runB1 = Task { try await queue.run(b) { try await jobs.job("B1") } }
        await eventually("B waits") { await queue.callers == 2 }
        let runB2 = Task { try await queue.run(b) { try await jobs.job("B2") } }
        await eventually("B2 joined B") { await queue.callers == 3 }
        clock.advance(by: .seconds(5))
        await eventually("B started") { jobs.snapshot.starts.count == 2 && clock.sleeperCount == 1 }
        clock.advance(by: .seconds(5))
        #expect(try await runA.value == "A#1")
        #expect(try await runB1.value == "B1#2")
        #expect(try await runB2.value == "B1#2")
    }

    @Test("SPEC C11: two different requests run one after the other, never together")
    func differentRunSequentially() async throws {
        let clock = LiveTestClock()
        let jobs = CountingJobs(clock: clock, duration: .seconds(5))
        let queue = ExportQueue<ExportRequestKey, String>()
        let a = try key(["a.heic", "b.heic"]), b = try key(["a.heic", "b.heic"], Settings(motion: "relay"))
        let runA = Task { try await queue.run(a) { try await jobs.job("A") } }
        await eventually("A is running") { jobs.snapshot.starts.count == 1 && clock.sleeperCount == 1 }
        let runB = Task { try await queue.run(b) { try await jobs.job("B") } }
        await eventually("B is queued") { await queue.callers == 2 }
        #expect(jobs.snapshot.starts.count == 1, "B started while A runs")
        clock.advance(by: .seconds(5))
        #expect(try await runA.value == "A#1")
        await eventually("B started after A") { jobs.snapshot.starts.count == 2 && clock.sleeperCount == 1 }
        clock.advance(by: .seconds(5))
        #expect(try await runB.value == "B#2")
        let r = jobs.snapshot
        #expect(r.starts.map(\.name) == ["A", "B"] && r.maxRunning == 1)
        #expect(r.starts[1].at >= r.ends[0].at, "B started at \(r.starts[1].at), A ended at \(r.ends[0].at)")
    }

    @Test("SPEC C11: one joiner cancelling does not cancel the job the other waits for")
    func oneJoinerCancels() async throws {
        let clock = LiveTestClock()
        let jobs = CountingJobs(clock: clock, duration: .seconds(5))
        let queue = ExportQueue<ExportRequestKey, String>()
        let k = try key(["a.heic"])
        let first = Task { try await queue.run(k) { try await jobs.job("A") } }
        await eventually("A is running") { jobs.snapshot.starts.count == 1 && clock.sleeperCount == 1 }
        let second = Task { try await queue.run(k) { try await jobs.job("A again") } }
        await eventually("the second joined") { await queue.callers == 2 }
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        await eventually("the first caller left") { await queue.callers == 1 }
        #expect(jobs.snapshot.cancelled.isEmpty && clock.sleeperCount == 1, "the job was stopped for the other caller")
        clock.advance(by: .seconds(5))
        #expect(try await second.value == "A#1")
    }

    @Test("SPEC C11: when every caller cancels, a running job is cancelled and a waiting one never runs")
    func allJoinersCancel() async throws {
        let clock = LiveTestClock()
        let jobs = CountingJobs(clock: clock, duration: .seconds(5))
        let queue = ExportQueue<ExportRequestKey, String>()
        let a = try key(["a.heic"]), b = try key(["b.heic"])
        let runA = Task { try await queue.run(a) { try await jobs.job("A") } }
        await eventually("A is running") { jobs.snapshot.starts.count == 1 && clock.sleeperCount == 1 }
        let runB = Task { try await queue.run(b) { try await jobs.job("B") } }
        await eventually("B waits") { await queue.callers == 2 }
        runB.cancel()
        await #expect(throws: CancellationError.self) { try await runB.value }
        await eventually("B was dropped") { await queue.inFlight == 1 }
        runA.cancel()
        await #expect(throws: CancellationError.self) { try await runA.value }
        await eventually("A's job saw the cancellation") { jobs.snapshot.cancelled == ["A"] }
        await eventually("the queue is empty") { await queue.inFlight == 0 }
        #expect(jobs.snapshot.starts.map(\.name) == ["A"], "B ran although nobody wanted it")
        // The same request asked again afterwards is a new save, not the cancelled one.
        let again = Task { try await queue.run(a) { try await jobs.job("A again") } }
        await eventually("the new save is running") { jobs.snapshot.starts.count == 2 && clock.sleeperCount == 1 }
        clock.advance(by: .seconds(5))
        #expect(try await again.value == "A again#2")
    }

    @Test("SPEC C11: a failure reaches every joiner; a finished request asked again runs again")
    func failureAndRepeat() async throws {
        let clock = LiveTestClock()
        let jobs = CountingJobs(clock: clock, duration: .seconds(1))
        let queue = ExportQueue<ExportRequestKey, String>()
        let k = try key(["a.heic"])
        let first = Task { try await queue.run(k) { try await jobs.job("A", fail: true) } }
        await eventually("A is running") { jobs.snapshot.starts.count == 1 && clock.sleeperCount == 1 }
        let second = Task { try await queue.run(k) { try await jobs.job("unused") } }
        await eventually("the second joined") { await queue.callers == 2 }
        clock.advance(by: .seconds(1))
        await #expect(throws: TestFailure.self) { try await first.value }
        await #expect(throws: TestFailure.self) { try await second.value }
        let third = Task { try await queue.run(k) { try await jobs.job("A") } }
        await eventually("a new run started") { jobs.snapshot.starts.count == 2 && clock.sleeperCount == 1 }
        clock.advance(by: .seconds(1))
        #expect(try await third.value == "A#2")
    }
}
