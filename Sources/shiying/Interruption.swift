// Ctrl-C and SIGTERM: the running job is cancelled (it removes its temporary
// files and any output it had not finished), then the process exits 130 — or
// 0 when the job had finished anyway (its output is whole). A job that does
// not stop within a few seconds is not waited for. SIGXFSZ (a file-size
// limit) and SIGPIPE (a reader of our output gone) are ignored: the write
// fails with EFBIG / EPIPE and the job reports it as any write failure,
// removing its temporary files, instead of the process dying mid-write.
import Dispatch
import Foundation
import Shiying

enum Interruption {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []
    nonisolated(unsafe) private static var interrupted = false
    nonisolated(unsafe) private static var first = Date.distantPast
    nonisolated(unsafe) private static var handlers: [Int: @Sendable () -> Void] = [:]
    nonisolated(unsafe) private static var nextHandler = 0

    /// Runs `handler` on an interruption (at once if one already came); the
    /// token removes it.
    static func onInterrupt(_ handler: @escaping @Sendable () -> Void) -> Int {
        let (token, now) = lock.withLock { () -> (Int, Bool) in
            nextHandler += 1
            handlers[nextHandler] = handler
            return (nextHandler, interrupted)
        }
        if now { handler() }
        return token
    }

    static func remove(_ token: Int) { lock.withLock { _ = handlers.removeValue(forKey: token) } }

    /// Whether a signal arrived (the exit status is then 130).
    static var happened: Bool { lock.withLock { interrupted } }

    /// Installs the handlers once, before any work.
    static func install() {
        signal(SIGXFSZ, SIG_IGN)
        signal(SIGPIPE, SIG_IGN)
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN) // delivered to the dispatch source instead
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                // One signal may come twice (to the process and to its group, as `timeout` sends it); a
                // second Ctrl-C a second later or more means "now".
                let repeated = lock.withLock { () -> Bool? in
                    if !interrupted {
                        interrupted = true
                        first = Date()
                        return false
                    }
                    return Date().timeIntervalSince(first) >= 1 ? true : nil
                }
                guard let repeated else { return }
                if repeated { exit(130) }
                writeStderr(Data("shiying: interrupted; stopping\n".utf8))
                ProcessInterruption.cancelEveryJob()
                for handler in lock.withLock({ Array(handlers.values) }) { handler() }
                DispatchQueue.global().asyncAfter(deadline: .now() + 5) { exit(130) }
            }
            source.resume()
            lock.withLock { sources.append(source) }
        }
    }
}
