import Foundation

/// SPEC C8: who is waiting for a Live pair decides how long the wait may be.
/// The limits only keep a pair that could still be assembled from being
/// declared dead; a stop (`ExportStop`) ends the wait at once whatever is left.
public enum LiveWait: String, Sendable, Codable, CaseIterable {
    /// Saving a collage: up to 45 s.
    case collage
    /// A share poster (screenshot poster): up to 8 s by default.
    case sharePoster

    /// SPEC C8: how long this wait may take.
    public var deadline: Duration {
        switch self {
        case .collage: .seconds(45)
        case .sharePoster: .seconds(8)
        }
    }
}

extension LiveVerifier {
    /// A verifier with the SPEC C8 deadline for `wait`.
    public init(for wait: LiveWait, clock: C, checker: any LivePairChecking = EngineLivePairChecker()) {
        self.init(clock: clock, deadline: wait.deadline, checker: checker)
    }

    /// SPEC C8: verifies unless `stop` comes first. A stop (the panel closed,
    /// the background time ran out) returns at once — the check is told to stop
    /// and abandoned, as on task cancellation — and is not a failure: it shows
    /// neither C8 message.
    /// - Throws: `CancellationError` when the calling task is cancelled; errors the checker throws.
    public func verify(still: String, movie: String, stop: ExportStop) async throws -> LiveWaitEnd {
        let check = Task { try await verify(still: still, movie: movie) }
        stop.onStop { check.cancel() }
        do {
            return .verified(try await withTaskCancellationHandler { try await check.value } onCancel: { check.cancel() })
        } catch is CancellationError {
            if let reason = stop.reason { return .stopped(reason) }
            throw CancellationError()
        }
    }
}

/// How a wait for a Live pair ended.
public enum LiveWaitEnd: Sendable, Equatable {
    /// The check answered (ok, mismatch) or its deadline passed (timeout).
    case verified(LiveVerification)
    /// Stopped before it answered; nothing is delivered and nothing is shown.
    case stopped(ExportStop.Reason)

    /// The SPEC C8 title and message the user sees, nil when there is none
    /// (a real Live pair, or a stop the user caused or the system imposed).
    public var failure: LiveFailure? {
        if case let .verified(outcome) = self { return outcome.failure }
        return nil
    }
}

/// SPEC C8: a stop signal for an export in flight (thread-safe). The first
/// stop wins; handlers run at once, on the stopping thread.
public final class ExportStop: @unchecked Sendable {
    /// Why the export stopped.
    public enum Reason: String, Sendable, Codable {
        /// The export panel was closed.
        case panelClosed
        /// The background time iOS gave the app ran out.
        case backgroundTimeOver
    }

    private let token = LiveCancellation()
    private let lock = NSLock()
    private var stoppedFor: Reason?

    /// A stop not yet triggered.
    public init() {}

    /// Why it stopped, nil while running.
    public var reason: Reason? { lock.withLock { stoppedFor } }

    /// Stops for `reason`; the first stop wins and runs the handlers at once.
    public func stop(_ reason: Reason) {
        let first = lock.withLock { () -> Bool in
            guard stoppedFor == nil else { return false }
            stoppedFor = reason
            return true
        }
        if first { token.cancel() }
    }

    /// Runs `handler` when stopped (at once when already stopped).
    public func onStop(_ handler: @escaping @Sendable () -> Void) { token.onCancel(handler) }
}
