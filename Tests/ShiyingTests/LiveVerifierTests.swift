// SPEC C3 + C8 as policy: the verifier's deadline runs on an injectable clock
// (no wall-clock waits decide a result), a stalled check is abandoned at the
// deadline and told to stop, task cancellation returns at once, and the two
// failures carry the exact SPEC C8 title and message.
import Foundation
import Shiying
import Testing

/// A clock that moves only when the test says so.
final class LiveTestClock: Clock, @unchecked Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by d: Duration) -> Instant { Instant(offset: offset + d) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
    }

    private let lock = NSLock()
    private var current = Instant(offset: .zero)
    private var sleepers: [UUID: (Instant, CheckedContinuation<Void, Error>)] = [:]

    var now: Instant { lock.withLock { current } }
    var minimumResolution: Duration { .zero }
    var sleeperCount: Int { lock.withLock { sleepers.count } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, Error>) in
                enum Now { case fire, cancelled, wait }
                let now = lock.withLock { () -> Now in
                    if Task.isCancelled { return .cancelled } // cancelled before the handler could see a sleeper
                    if deadline <= current { return .fire }
                    sleepers[id] = (deadline, c)
                    return .wait
                }
                switch now {
                case .fire: c.resume()
                case .cancelled: c.resume(throwing: CancellationError())
                case .wait: break
                }
            }
        } onCancel: {
            let c = lock.withLock { sleepers.removeValue(forKey: id)?.1 }
            c?.resume(throwing: CancellationError())
        }
    }

    func advance(by d: Duration) {
        let due = lock.withLock { () -> [CheckedContinuation<Void, Error>] in
            current = current.advanced(by: d)
            let ready = sleepers.filter { $0.value.0 <= current }
            ready.keys.forEach { sleepers.removeValue(forKey: $0) }
            return ready.values.map(\.1)
        }
        due.forEach { $0.resume() }
    }
}

/// A check that blocks until released or cancelled, recording what happened.
final class StalledChecker: LivePairChecking, @unchecked Sendable {
    let honoursCancellation: Bool
    private let release = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var startedFlag = false, cancelledFlag = false, finishedFlag = false

    init(honoursCancellation: Bool) { self.honoursCancellation = honoursCancellation }

    var started: Bool { lock.withLock { startedFlag } }
    var sawCancel: Bool { lock.withLock { cancelledFlag } }
    var finished: Bool { lock.withLock { finishedFlag } }

    func check(still: String, movie: String, cancellation: LiveCancellation) throws -> LiveVerification {
        lock.withLock { startedFlag = true }
        if honoursCancellation {
            cancellation.onCancel { [self] in
                lock.withLock { cancelledFlag = true }
                release.signal()
            }
        }
        release.wait()
        lock.withLock { finishedFlag = true }
        return .ok(contentIdentifier: "stalled", stillTime: 0)
    }

    func unblock() { release.signal() }
}

/// A check that answers at once.
struct ScriptedChecker: LivePairChecking {
    let answer: LiveVerification
    func check(still: String, movie: String, cancellation: LiveCancellation) throws -> LiveVerification { answer }
}

/// Waits (bounded, generously: other suites' synchronous engine tests may hold
/// both threads of the cooperative pool for a while) for a condition another
/// thread makes true.
func liveEventually(_ what: String, _ condition: () -> Bool) async throws {
    for _ in 0..<12000 {
        if condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    throw TestFailure("never happened: \(what)")
}

@Suite("Live verifier: deadline, cancellation, SPEC C8 messages")
struct LiveVerifierTests {
    @Test("SPEC C8: timeout and mismatch have their own exact title and message")
    func c8Strings() {
        #expect(LiveFailure.timeout.title == "这次没能生成实况")
        #expect(LiveFailure.timeout.message == "实况准备超时了，稍后再试。")
        #expect(LiveFailure.mismatch.title == "无法生成这张实况")
        #expect(LiveFailure.mismatch.message == "这件作品的实况对子已经损坏，只能当静态图片用了。")
        #expect(LiveVerification.timeout.failure == .timeout)
        #expect(LiveVerification.mismatch(reason: "x").failure == .mismatch)
        #expect(LiveVerification.ok(contentIdentifier: "A", stillTime: 1).failure == nil)
        // SPEC C8 default deadlines: collage 45 s, share poster 8 s
        #expect(LiveVerifier<ContinuousClock>.collageDeadline == .seconds(45))
        #expect(LiveVerifier<ContinuousClock>.sharePosterDeadline == .seconds(8))
    }

    @Test("a check stalled past the deadline → timeout, and the check is told to stop")
    func stalledCheckTimesOut() async throws {
        let clock = LiveTestClock()
        let checker = StalledChecker(honoursCancellation: true)
        let verifier = LiveVerifier(clock: clock, deadline: .seconds(8), checker: checker)
        let task = Task { try await verifier.verify(still: "s.jpg", movie: "m.mov") }
        try await liveEventually("the check started and the deadline is armed") { checker.started && clock.sleeperCount == 1 }
        clock.advance(by: .seconds(7))
        #expect(!checker.sawCancel, "cancelled before the deadline")
        clock.advance(by: .seconds(1))
        #expect(try await task.value == .timeout)
        try await liveEventually("the stalled check saw the cancellation") { checker.sawCancel && checker.finished }
    }

    @Test("an answer before the deadline wins, and the deadline is disarmed")
    func answerBeforeDeadline() async throws {
        let clock = LiveTestClock()
        let verifier = LiveVerifier(clock: clock, deadline: .seconds(45),
                                    checker: ScriptedChecker(answer: .mismatch(reason: "content identifiers differ")))
        #expect(try await verifier.verify(still: "s", movie: "m") == .mismatch(reason: "content identifiers differ"))
        try await liveEventually("the deadline timer was cancelled") { clock.sleeperCount == 0 }
    }

    @Test("cancelling returns at once even when the check ignores cancellation (< 100 ms)")
    func cancellationReturnsAtOnce() async throws {
        let clock = LiveTestClock()
        let checker = StalledChecker(honoursCancellation: false)
        defer { checker.unblock() }
        let verifier = LiveVerifier(clock: clock, deadline: .seconds(45), checker: checker)
        let task = Task { try await verifier.verify(still: "s.jpg", movie: "m.mov") }
        try await liveEventually("the check started") { checker.started }
        let wall = ContinuousClock()
        // Task.cancel() runs the verifier's cancellation handler synchronously: when it
        // returns, the caller's continuation has been resumed with CancellationError.
        // That is the verifier's latency; the awaiting task then runs when the
        // cooperative pool schedules it (shared with every other suite in this process).
        let start = wall.now
        task.cancel()
        let released = wall.now - start
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(released < .milliseconds(100), "cancellation took \(released) to release the caller")
        #expect(!checker.finished, "the fake check is still stalled: the verifier did not wait for it")
    }

    @Test("the engine check stops when the deadline passes (C cancellation mid-decode)",
          .enabled(if: Paths.corpusAvailable, "../shared/corpus is not present"))
    func engineCheckIsCancelled() async throws {
        let real = Paths.corpus.appendingPathComponent("real").path
        let clock = LiveTestClock()
        // at the first decoded frame: wait for the deadline timer, then let 45 s pass.
        // The timer task needs a cooperative thread; with every suite in the process
        // blocking them (and other jobs on the machine) that took over 120 s once, so
        // the wait is bounded at 10 minutes, not 2 (it ends as soon as the timer is there).
        let recorder = RecordingChecker {
            for _ in 0..<600_000 where clock.sleeperCount == 0 { usleep(1000) }
            clock.advance(by: .seconds(45))
        }
        let verifier = LiveVerifier(clock: clock, deadline: .seconds(45), checker: recorder)
        let outcome = try await verifier.verify(still: real + "/iphone15plus_IMG_3853.HEIC",
                                                movie: real + "/iphone15plus_IMG_3853.MOV")
        #expect(outcome == .timeout)
        try await liveEventually("the engine check returned") { recorder.outcome != nil }
        let engineResult = try #require(recorder.outcome)
        guard case .failure(let error) = engineResult, error is CancellationError else {
            throw TestFailure("the engine was not cancelled: \(engineResult)")
        }
    }

    @Test("the real engine: the iPhone pair verifies ok, a crossed pair is a mismatch",
          .enabled(if: Paths.corpusAvailable, "../shared/corpus is not present"))
    func engineVerdicts() async throws {
        let real = Paths.corpus.appendingPathComponent("real").path
        // a clock that never moves: the verdict never depends on how fast this machine is
        let verifier = LiveVerifier(clock: LiveTestClock(), deadline: LiveVerifier<ContinuousClock>.collageDeadline)
        let ok = try await verifier.verify(still: real + "/iphone15plus_IMG_3853.HEIC", movie: real + "/iphone15plus_IMG_3853.MOV")
        let stillTime = try #require(try LivePhoto.movieInfo(real + "/iphone15plus_IMG_3853.MOV").stillTime)
        #expect(ok == .ok(contentIdentifier: "71DCA213-5710-4A6C-BC6D-CE6306AEB8D8", stillTime: stillTime))
        let crossed = try await verifier.verify(still: real + "/iphone15plus_IMG_3853.HEIC", movie: real + "/h264_live_pairedVideo.mov")
        #expect(crossed == .mismatch(reason: "content identifiers differ: still 71DCA213-5710-4A6C-BC6D-CE6306AEB8D8, "
            + "movie 7A7D4193-1D91-4907-98F8-3B7E41D991D7"))
    }
}

/// True the first time only, from any thread.
private final class Once: @unchecked Sendable {
    private let lock = NSLock()
    private var done = false
    func first() -> Bool { lock.withLock { defer { done = true }; return !done } }
}

/// The engine's checker, recording how its (abandoned) run ended. At the first
/// decoded frame it runs `atFirstFrame` and then holds the engine thread until
/// cancellation is requested, so the deadline always wins the race, whatever
/// the machine's speed; the engine must then stop with "cancelled".
final class RecordingChecker: LivePairChecking, @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<LiveVerification, Error>?
    private var began = false
    let atFirstFrame: @Sendable () -> Void
    var outcome: Result<LiveVerification, Error>? { lock.withLock { result } }
    var started: Bool { lock.withLock { began } }

    init(atFirstFrame: @escaping @Sendable () -> Void) { self.atFirstFrame = atFirstFrame }

    func check(still: String, movie: String, cancellation: LiveCancellation) throws -> LiveVerification {
        lock.withLock { began = true }
        let hook = atFirstFrame
        let once = Once()
        let engine = EngineLivePairChecker { progress in
            // the first report of the frame check (its count includes the samples it skipped, so it may start above 1)
            guard progress.phase == "verify frames", progress.phaseDone >= 1, once.first() else { return }
            hook()
            for _ in 0..<120_000 where !cancellation.isCancelled { usleep(1000) }
        }
        let r = Result { try engine.check(still: still, movie: movie, cancellation: cancellation) }
        lock.withLock { result = r }
        return try r.get()
    }
}
