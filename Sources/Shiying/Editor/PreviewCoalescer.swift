// SPEC E5: the slider preview keeps up with the finger. Before the fix every
// new slider value cancelled the render in progress, so a drag of 7–21
// requests rendered 0–2 of them and the picture froze until release. Here a
// render is never cancelled by a newer value: one render runs, newer values
// wait in a single pending slot (each replacing the last), and when the
// render ends the latest value renders at once. The final value always renders.

/// Coalesces preview requests: one render in flight, at most one pending value.
///
/// - `submit(_:)` returns at once; it never waits for a render.
/// - A value submitted while a render runs replaces the pending one
///   (the replaced value is counted as dropped and never rendered).
/// - When a render ends, the latest pending value renders next; when nothing
///   is pending the coalescer goes idle, and the next value renders at once.
/// - `cancel()` (or cancelling the task inside `waitIdle`, `endDrag` or
///   `drag`) discards the pending value and cancels the render in flight.
///
/// The render closure runs off the actor, so submissions are accepted while
/// it works. The clock is only read (request and completion times for
/// `DragStatistics`); inject a manual clock in tests.
public actor PreviewCoalescer<Value: Sendable> {
    /// Renders (and presents) one value. Runs in the coalescer's worker task,
    /// so it sees `Task.isCancelled` after `cancel()`.
    public typealias Render = @Sendable (Value) async throws -> Void

    /// The newest value and the requests it stands for (itself plus the ones it replaced).
    private struct Slot {
        var value: Value
        var requests: Int
        var earliestRequest: Duration
        var requestTimeSum: Duration
        var drag: Int
    }

    private let now: @Sendable () -> Duration
    private let render: Render
    private var pending: Slot?
    private var worker: Task<Void, Never>?
    private var rendersRunning = 0
    /// Counts idle→busy transitions, so a late cancellation from an earlier
    /// wait cannot cancel a later drag's work.
    private var epoch = 0
    private var drag = 0
    private var stats = DragStatistics()
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []

    /// - Parameters:
    ///   - clock: read for request and completion times (tests pass a manual clock).
    ///   - render: renders and presents one value.
    public init<C: Clock>(clock: C, render: @escaping Render) where C.Duration == Duration {
        let origin = clock.now
        self.now = { origin.duration(to: clock.now) }
        self.render = render
    }

    /// A coalescer on the `ContinuousClock`.
    /// - Parameter render: renders and presents one value.
    public init(render: @escaping Render) {
        self.init(clock: ContinuousClock(), render: render)
    }

    /// Whether nothing is rendering and nothing is pending.
    public var isIdle: Bool { worker == nil && pending == nil }

    /// The current drag's figures so far.
    public var statistics: DragStatistics { stats }

    /// Asks for a preview of `value`; returns without waiting for any render.
    public func submit(_ value: Value) {
        let time = now()
        stats.requests += 1
        if let old = pending, old.drag == drag {
            // SPEC E5: a newer value replaces the pending one; the older never renders.
            stats.dropped += 1
            pending = Slot(value: value, requests: old.requests + 1, earliestRequest: old.earliestRequest,
                           requestTimeSum: old.requestTimeSum + time, drag: drag)
        } else {
            pending = Slot(value: value, requests: 1, earliestRequest: time, requestTimeSum: time, drag: drag)
        }
        if worker == nil { startWorker() }
    }

    /// Starts a new drag: resets the statistics. Work still running for the
    /// previous drag finishes but is not counted in the new one.
    public func beginDrag() {
        drag += 1
        stats = DragStatistics()
    }

    /// Waits until the drag's last value has rendered, then returns its figures.
    /// - Throws: `CancellationError` if the waiting task is cancelled; the
    ///   pending work is stopped first (see `waitIdle()`).
    public func endDrag() async throws -> DragStatistics {
        try await waitIdle()
        return stats
    }

    /// One whole drag: `beginDrag()`, submits every value of `values` as it
    /// arrives, then `endDrag()`.
    /// - Throws: `CancellationError` when the calling task is cancelled (the
    ///   pending value is discarded and the render in flight cancelled and
    ///   awaited before this returns); an error of `values` likewise.
    public func drag<S: AsyncSequence & Sendable>(_ values: S) async throws -> DragStatistics where S.Element == Value {
        beginDrag()
        do {
            for try await value in values {
                try Task.checkCancellation()
                submit(value)
            }
            try Task.checkCancellation()
        } catch {
            cancel()
            await idle()
            throw error
        }
        return try await endDrag()
    }

    /// Waits until everything submitted so far has rendered (and anything
    /// submitted meanwhile too).
    /// - Throws: `CancellationError` if the waiting task is cancelled. The
    ///   cancellation stops the pending work (as `cancel()` does) and this
    ///   returns once the cancelled render has ended, so nothing runs after it.
    public func waitIdle() async throws {
        if !isIdle {
            let epochAtStart = epoch
            await withTaskCancellationHandler {
                await idle()
            } onCancel: {
                Task { await self.cancel(ifEpoch: epochAtStart) }
            }
        }
        try Task.checkCancellation()
    }

    /// Discards the pending value and cancels the render in flight. The
    /// final value is then not rendered: this is the one exception to
    /// "the last value always renders", for a drag that was abandoned.
    public func cancel() {
        if let slot = pending {
            if slot.drag == drag { stats.abandoned += 1 }
            pending = nil
        }
        worker?.cancel()
    }

    // MARK: - Worker

    private func cancel(ifEpoch expected: Int) {
        guard epoch == expected, !isIdle else { return }
        cancel()
    }

    private func idle() async {
        guard !isIdle else { return }
        await withCheckedContinuation { idleWaiters.append($0) }
    }

    private func startWorker() {
        epoch += 1
        worker = Task { await self.drain() }
    }

    /// Renders pending values one at a time until none is left.
    private func drain() async {
        while !Task.isCancelled, let slot = pending {
            pending = nil
            let counted = slot.drag == drag
            rendersRunning += 1
            if counted { stats.maxConcurrentRenders = max(stats.maxConcurrentRenders, rendersRunning) }
            var failed = false
            do { try await render(slot.value) } catch { failed = true }
            rendersRunning -= 1
            let end = now()
            // A render of an earlier drag's value counts for no drag.
            guard slot.drag == drag else { continue }
            if Task.isCancelled {
                stats.cancelledRenders += 1
                break
            }
            stats.renders += 1
            if failed {
                stats.failedRenders += 1
            } else {
                // Every request this slot stood for is on screen now.
                stats.coveredRequests += slot.requests
                stats.latencySum += end * slot.requests - slot.requestTimeSum
                let longest = end - slot.earliestRequest
                stats.maxLatency = max(stats.maxLatency ?? longest, longest)
            }
        }
        worker = nil
        if pending != nil {
            // Submitted after a cancel(): a fresh worker renders it.
            startWorker()
        } else {
            let waiters = idleWaiters
            idleWaiters.removeAll()
            for waiter in waiters { waiter.resume() }
        }
    }
}
