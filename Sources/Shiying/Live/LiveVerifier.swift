import Foundation
internal import CShiying

/// The outcome of SPEC C3's re-assembly check.
public enum LiveVerification: Sendable, Equatable {
    /// A real Live pair.
    case ok(contentIdentifier: String, stillTime: Double)
    /// The pair is broken; `reason` names the file and what is wrong.
    case mismatch(reason: String)
    /// The check did not finish before its deadline.
    case timeout

    /// The SPEC C8 failure this outcome shows the user, nil when ok.
    public var failure: LiveFailure? {
        switch self {
        case .ok: nil
        case .mismatch: .mismatch
        case .timeout: .timeout
        }
    }
}

/// SPEC C8: the two failures look different to the user.
public enum LiveFailure: String, Sendable, Codable {
    /// The check did not finish before its deadline.
    case timeout
    /// The still and movie do not belong together.
    case mismatch

    /// A short title for the user.
    public var title: String {
        switch self {
        case .timeout: "这次没能生成实况"
        case .mismatch: "无法生成这张实况"
        }
    }

    /// A sentence for the user.
    public var message: String {
        switch self {
        case .timeout: "实况准备超时了，稍后再试。"
        case .mismatch: "这件作品的实况对子已经损坏，只能当静态图片用了。"
        }
    }
}

/// A cancellation flag the blocking check polls or subscribes to (thread-safe).
public final class LiveCancellation: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false
    private var handlers: [@Sendable () -> Void] = []

    /// A token not yet cancelled.
    public init() {}

    /// True once `cancel()` was called.
    public var isCancelled: Bool { lock.withLock { cancelled } }

    /// Runs `handler` on cancellation (at once when already cancelled).
    public func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let now = lock.withLock { () -> Bool in
            if !cancelled { handlers.append(handler) }
            return cancelled
        }
        if now { handler() }
    }

    /// Cancels: runs the registered actions once.
    public func cancel() {
        let run = lock.withLock { () -> [@Sendable () -> Void] in
            guard !cancelled else { return [] }
            cancelled = true
            defer { handlers = [] }
            return handlers
        }
        run.forEach { $0() }
    }
}

/// Does the blocking work of one check. The engine's is `EngineLivePairChecker`;
/// tests inject stalled or scripted ones.
public protocol LivePairChecking: Sendable {
    /// `.mismatch` or `.ok`; throws only for cancellation or a usage error.
    func check(still: String, movie: String, cancellation: LiveCancellation) throws -> LiveVerification
}

/// `sy_live_verify` on its own engine context; cancellation sets the context's
/// flag, which the engine polls per frame.
public struct EngineLivePairChecker: LivePairChecking {
    /// One non-decreasing fraction from the engine's thread (phase "verify frames").
    public let progress: (@Sendable (ShiyingProgress) -> Void)?

    /// A checker reporting to `progress`.
    public init(progress: (@Sendable (ShiyingProgress) -> Void)? = nil) { self.progress = progress }

    public func check(still: String, movie: String, cancellation: LiveCancellation) throws -> LiveVerification {
        let meter = ProgressMeter.make(ProgressMeter.Plan(phases: [("verify frames", 1)]), progress)
        let engine = try EngineContext(progress: meter?.report)
        // Weak: the token outlives the check (the verifier's timer and cancel
        // handler hold it), the engine must not — it is destroyed when this
        // returns, on the check's own thread, never during process exit.
        cancellation.onCancel { [weak engine] in engine?.cancel() }
        var verdict = sy_live_verdict()
        var error = sy_error()
        try engineCheck(sy_live_verify(engine.raw, still, movie, &verdict, &error), error, file: movie)
        meter?.finish()
        if verdict.ok != 0 {
            return .ok(contentIdentifier: cString(verdict.content_identifier), stillTime: verdict.still_time)
        }
        return .mismatch(reason: cString(verdict.reason))
    }
}

/// `check` under another name: inside a checker, `check` means the protocol method.
private func engineCheck(_ status: Int32, _ error: sy_error, file: String) throws { try check(status, error, file: file) }

/// SPEC C3 + C8: runs a check with a deadline on an injectable clock. The
/// deadline and task cancellation both return at once — without waiting for a
/// stalled check, which is told to stop (engine cancellation) and abandoned.
public struct LiveVerifier<C: Clock>: Sendable where C.Duration == Duration {
    /// SPEC C8 default deadlines.
    public static var collageDeadline: Duration { .seconds(45) }
    /// SPEC C8: the deadline for a share poster's check.
    public static var sharePosterDeadline: Duration { .seconds(8) }

    /// The clock its times and deadlines are measured on.
    public let clock: C
    /// How long a check may take before it is abandoned.
    public let deadline: Duration
    /// What checks a pair.
    public let checker: any LivePairChecking

    /// A verifier on `clock` with `deadline`, checking with `checker`.
    public init(clock: C, deadline: Duration, checker: any LivePairChecking = EngineLivePairChecker()) {
        self.clock = clock
        self.deadline = deadline
        self.checker = checker
    }

    /// - Returns: `.ok`, `.mismatch(reason)` or `.timeout`.
    /// - Throws: `CancellationError` when the task is cancelled; errors the checker throws.
    public func verify(still: String, movie: String) async throws -> LiveVerification {
        let token = LiveCancellation()
        let gate = ResumeOnce<LiveVerification>()
        let checker = self.checker, clock = self.clock, deadline = self.deadline
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<LiveVerification, Error>) in
                gate.attach(continuation)
                let timer = Task {
                    try? await clock.sleep(for: deadline)
                    if !Task.isCancelled, gate.resume(.success(.timeout)) { token.cancel() }
                }
                gate.whenDone { timer.cancel() }
                // the check blocks in C: a thread of its own, never a cooperative-pool thread
                RunningChecks.shared.started()
                Thread.detachNewThread {
                    let result = Result { try checker.check(still: still, movie: movie, cancellation: token) }
                    gate.resume(result)
                    RunningChecks.shared.finished()
                }
            }
        } onCancel: {
            if gate.resume(.failure(CancellationError())) { token.cancel() }
        }
    }
}

extension LiveVerifier {
    /// Waits until every check thread — also those a deadline or cancellation
    /// abandoned, which were told to stop — has left the engine, or `timeout`
    /// passes; true when none is left. A process calls this before it exits, so
    /// no check is inside a codec while the process's libraries shut down.
    public static func waitForRunningChecks(timeout: Duration = .seconds(10)) -> Bool {
        RunningChecks.shared.waitUntilIdle(timeout: timeout)
    }
}

/// The check threads alive now (started, not yet out of the engine).
final class RunningChecks: @unchecked Sendable {
    static let shared = RunningChecks()
    private let condition = NSCondition()
    private var count = 0

    func started() { condition.withLock { count += 1 } }

    func finished() {
        condition.withLock {
            count -= 1
            condition.broadcast()
        }
    }

    func waitUntilIdle(timeout: Duration) -> Bool {
        let (seconds, attoseconds) = timeout.components
        let deadline = Date(timeIntervalSinceNow: Double(seconds) + Double(attoseconds) / 1e18)
        return condition.withLock {
            while count > 0 { if !condition.wait(until: deadline) { break } }
            return count == 0
        }
    }
}

extension LiveVerifier where C == ContinuousClock {
    /// A verifier on the continuous clock.
    public init(deadline: Duration, checker: any LivePairChecking = EngineLivePairChecker()) {
        self.init(clock: ContinuousClock(), deadline: deadline, checker: checker)
    }
}

/// Resumes a continuation exactly once, whoever comes first; a result that
/// arrives before the continuation is attached is delivered on attach.
final class ResumeOnce<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, Error>?
    private var pending: Result<T, Error>?
    private var done = false
    private var completions: [@Sendable () -> Void] = []

    func attach(_ c: CheckedContinuation<T, Error>) {
        let ready = lock.withLock { () -> Result<T, Error>? in
            if let pending { self.pending = nil; return pending }
            continuation = c
            return nil
        }
        if let ready { c.resume(with: ready) }
    }

    func whenDone(_ f: @escaping @Sendable () -> Void) {
        let now = lock.withLock { () -> Bool in
            if !done { completions.append(f) }
            return done
        }
        if now { f() }
    }

    /// true when this call delivered the result.
    @discardableResult
    func resume(_ result: Result<T, Error>) -> Bool {
        lock.lock()
        if done {
            lock.unlock()
            return false
        }
        done = true
        let c = continuation
        continuation = nil
        if c == nil { pending = result }
        let run = completions
        completions = []
        lock.unlock()
        c?.resume(with: result)
        run.forEach { $0() }
        return true
    }
}
