// Per-drag preview figures (SPEC E5). The seed measured, before the fix,
// 7–21 requests per drag with 0–2 of them rendered; these are the same
// figures so the fix can be measured the same way.

/// What one slider drag cost and delivered. When the coalescer is idle,
/// `requests == renders + cancelledRenders + dropped + abandoned`.
public struct DragStatistics: Sendable, Hashable, CustomStringConvertible {
    /// Values submitted during the drag.
    public var requests = 0
    /// Renders that ran to the end (successfully or with an error).
    public var renders = 0
    /// Of `renders`, those whose closure threw (other than by cancellation).
    public var failedRenders = 0
    /// Renders interrupted by `cancel()` (their value was never shown).
    public var cancelledRenders = 0
    /// Values replaced by a newer one before their render started.
    public var dropped = 0
    /// Values still pending when `cancel()` discarded them (0 or 1 per cancel).
    public var abandoned = 0
    /// Requests covered by a successful render (their own or a newer value's).
    public var coveredRequests = 0
    /// Longest time from a request to the end of the render that covered it.
    public var maxLatency: Duration?
    /// Mean of those times over `coveredRequests`.
    public var meanLatency: Duration? {
        coveredRequests == 0 ? nil : latencySum / coveredRequests
    }
    /// Most renders seen running at once (1 when the rule holds, 0 if none ran).
    public var maxConcurrentRenders = 0

    /// Sum of covered latencies (for `meanLatency`).
    var latencySum: Duration = .zero

    /// Statistics with nothing recorded.
    public init() {}

    public var description: String {
        let mean = meanLatency.map { "\($0)" } ?? "-"
        let max = maxLatency.map { "\($0)" } ?? "-"
        return "requests \(requests), renders \(renders), dropped \(dropped), cancelled \(cancelledRenders + abandoned), latency mean \(mean) max \(max)"
    }
}
