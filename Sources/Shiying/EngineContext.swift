internal import CShiying

/// Owns one `sy_context` (allocator accounting, cancellation flag, progress).
/// Not `Sendable`: one job at a time; `cancel()` is the only cross-thread call.
package final class EngineContext: @unchecked Sendable {
    package let raw: OpaquePointer
    private let progressBox: ProgressBox?

    /// Receives (phase, done, total) from the C engine on the thread running the job.
    final class ProgressBox {
        let report: (String, UInt64, UInt64) -> Void
        init(_ report: @escaping (String, UInt64, UInt64) -> Void) { self.report = report }
    }

    package init(budgetBytes: Int = 0, progress: ((String, UInt64, UInt64) -> Void)? = nil) throws {
        var options = sy_context_options()
        sy_context_options_init(&options)
        options.budget_bytes = budgetBytes
        progressBox = progress.map(ProgressBox.init)
        if let box = progressBox {
            options.progress_user = Unmanaged.passUnretained(box).toOpaque()
            options.progress = { user, phase, done, total in
                guard let user, let phase else { return }
                let box = Unmanaged<ProgressBox>.fromOpaque(user).takeUnretainedValue()
                box.report(String(cString: phase), done, total)
            }
        }
        var error = sy_error()
        var ctx: OpaquePointer?
        try check(sy_context_create(&options, &ctx, &error), error)
        raw = ctx!
    }

    deinit { sy_context_destroy(raw) }

    func cancel() { sy_context_cancel(raw) }

    var memoryStats: MemoryStats {
        var stats = sy_memory_stats()
        sy_context_memory_stats(raw, &stats)
        return MemoryStats(currentBytes: stats.current_bytes, peakBytes: stats.peak_bytes,
                           allocations: stats.allocations)
    }
}

/// The engine's accounting allocator figures (`sy_context_memory_stats`).
public struct MemoryStats: Sendable, Codable, Equatable {
    /// Bytes allocated now.
    public var currentBytes: UInt64
    /// The most bytes allocated at once.
    public var peakBytes: UInt64
    /// Allocations made.
    public var allocations: UInt64
}

/// What a process being interrupted does to the engine.
public enum ProcessInterruption {
    /// Cancels every engine job of the process, running or about to run, for
    /// good (`sy_cancel_everything`): each stops at its next strip and removes
    /// its temporary files, so an interrupted command leaves nothing behind.
    public static func cancelEveryJob() { sy_cancel_everything() }
}
