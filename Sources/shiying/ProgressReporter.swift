import Foundation

/// The one progress reporter of the command line, on stderr. A terminal gets
/// one redrawn line with a bar; a pipe gets plain lines, at most one a second
/// per phase plus each phase's last (`convert: heif tiles 12/12 (100%)`), so a
/// log stays short. Work with no progress callback runs under `waiting`, which
/// shows the elapsed time once it has taken more than a second.
final class ProgressReporter: @unchecked Sendable {
    private let label: String
    private let quietFor: Duration
    private let isTerminal: Bool
    private let start = ContinuousClock.now
    private let lock = NSLock()
    private var last: ContinuousClock.Instant?
    private var lastPhase = ""
    private var shown = false

    /// - Parameter quietFor: nothing is shown before the job has run this long (short jobs stay quiet).
    init(label: String, quietFor: Duration = .zero, terminal: Bool = isatty(2) != 0) {
        self.label = label
        self.quietFor = quietFor
        isTerminal = terminal
    }

    /// The engine's `(phase, done, total)` callback.
    func report(_ phase: String, _ done: UInt64, _ total: UInt64) {
        let now = ContinuousClock.now
        lock.lock()
        defer { lock.unlock() }
        guard now - start >= quietFor else { return }
        let final = done >= total
        let interval: Duration = isTerminal ? .milliseconds(100) : .seconds(1)
        let due = last.map { now - $0 >= interval } ?? (now - start >= .milliseconds(250))
        guard final || due || phase != lastPhase && isTerminal else { return }
        last = now
        lastPhase = phase
        let percent = total > 0 ? Int(min(done, total) * 100 / total) : 0
        let text = isTerminal ? "\(label): \(phase) \(bar(percent)) \(percent)% \(done)/\(total)"
                              : "\(label): \(phase) \(done)/\(total) (\(percent)%)"
        write(text)
    }

    /// A `(done, total)` callback counted in `phase`.
    func counter(_ phase: String) -> @Sendable (Int, Int) -> Void {
        { [self] done, total in report(phase, UInt64(max(done, 0)), UInt64(max(total, 0))) }
    }

    /// Runs `body`, which reports no progress of its own, showing the elapsed
    /// seconds while it runs past a second (a Live verification, a frame render).
    func waiting<T>(_ phase: String, _ body: () throws -> T) rethrows -> T {
        let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        let began = ContinuousClock.now
        timer.schedule(deadline: .now() + 1, repeating: isTerminal ? 0.5 : 2)
        timer.setEventHandler { [self] in
            let seconds = (ContinuousClock.now - began).components.seconds
            lock.lock()
            write("\(label): \(phase)… \(seconds) s")
            lock.unlock()
        }
        timer.resume()
        defer { timer.cancel() }
        return try body()
    }

    /// Ends the redrawn line on a terminal (call once the job is done or failed).
    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if shown && isTerminal { writeStderr(Data("\n".utf8)) }
        shown = false
    }

    /// Caller holds the lock.
    private func write(_ text: String) {
        writeStderr(Data((isTerminal ? "\r\(text)\u{1B}[K" : "\(text)\n").utf8))
        shown = true
    }

    private func bar(_ percent: Int) -> String {
        let filled = percent * 20 / 100
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: 20 - filled) + "]"
    }
}
