import Foundation

/// Answers whether a Live photo's movie is already on the device, without
/// going to the network. The app's asks the photo library; tests script it.
public protocol LocalMovieChecking: Sendable {
    /// true when the movie is on the device, false when it is not.
    /// - Throws: when it cannot tell (counted as not local).
    func isMovieLocal(_ photo: String) async throws -> Bool
}

/// SPEC C15: which photos a post-review collage suggestion may take. A still
/// always may; a Live photo only when its movie is already on the device —
/// otherwise it would not move on a long press and its playback would spin
/// before giving up. Nothing is fetched to find out, and every answer not in
/// within 10 s (from when the rule starts) counts as not local.
public struct CollageSuggestionRule<C: Clock>: Sendable where C.Duration == Duration {
    /// SPEC C15: how long the local check may take.
    public static var decisionLimit: Duration { .seconds(10) }

    /// A photo that may join a suggested collage.
    public struct Candidate: Sendable, Hashable {
        /// The photo's path.
        public var photo: String
        /// The photo is a Live photo.
        public var isLive: Bool
        /// A candidate photo.
        public init(photo: String, isLive: Bool) {
            self.photo = photo
            self.isLive = isLive
        }
    }

    /// Why a Live candidate was left out, or that it joins.
    public enum Verdict: Sendable, Equatable {
        /// The candidate joins the collage.
        case joins
        /// Left out: its Live movie is not on the device.
        case movieNotLocal
        /// The check failed or did not answer within 10 s: not local.
        case undetermined
    }

    /// The clock its times and deadlines are measured on.
    public let clock: C
    /// What tells whether a Live movie is on the device.
    public let checker: any LocalMovieChecking

    /// A rule measuring its decision limit on `clock`.
    public init(clock: C, checker: any LocalMovieChecking) {
        self.clock = clock
        self.checker = checker
    }

    /// The candidates that may join, in their order, and each one's verdict.
    /// All Live checks run at once under one 10 s limit; a check still out at
    /// the limit is told to stop and abandoned.
    /// - Throws: `CancellationError` when the task is cancelled.
    public func eligible(_ candidates: [Candidate]) async throws -> (joining: [Candidate], verdicts: [Verdict]) {
        let live = candidates.indices.filter { candidates[$0].isLive }
        let answers = Locked([Int: Verdict]())
        let gate = ResumeOnce<Void>()
        let checker = self.checker, clock = self.clock
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                gate.attach(continuation)
                if live.isEmpty { gate.resume(.success(())) }
                let checks = live.map { index in
                    Task {
                        let verdict: Verdict
                        do {
                            verdict = try await checker.isMovieLocal(candidates[index].photo) ? .joins : .movieNotLocal
                        } catch {
                            verdict = .undetermined
                        }
                        let all = answers.withLock { a in
                            a[index] = verdict
                            return a.count == live.count
                        }
                        if all { gate.resume(.success(())) }
                    }
                }
                let timer = Task {
                    guard (try? await clock.sleep(for: Self.decisionLimit)) != nil else { return }
                    gate.resume(.success(()))
                }
                gate.whenDone {
                    timer.cancel()
                    checks.forEach { $0.cancel() }
                }
            }
        } onCancel: {
            gate.resume(.failure(CancellationError()))
        }
        let decided = answers.withLock { $0 }
        let verdicts = candidates.indices.map { i in candidates[i].isLive ? decided[i] ?? .undetermined : .joins }
        let joining = candidates.indices.filter { verdicts[$0] == .joins }.map { candidates[$0] }
        return (joining, verdicts)
    }
}

extension CollageSuggestionRule where C == ContinuousClock {
    /// A rule on the continuous clock.
    public init(checker: any LocalMovieChecking) { self.init(clock: ContinuousClock(), checker: checker) }
}
