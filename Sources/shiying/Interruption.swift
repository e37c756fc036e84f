// Ctrl-C and SIGTERM: the running job is cancelled (it removes its temporary
// files and any output it had not finished), then the process exits 130. A
// job that does not stop within a few seconds is not waited for.
import Dispatch
import Foundation
import Shiying

enum Interruption {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []
    nonisolated(unsafe) private static var interrupted = false
    nonisolated(unsafe) private static var first = Date.distantPast

    /// Whether a signal arrived (the exit status is then 130).
    static var happened: Bool { lock.withLock { interrupted } }

    /// Installs the handlers once, before any work.
    static func install() {
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
                FileHandle.standardError.write(Data("shiying: interrupted; stopping\n".utf8))
                ProcessInterruption.cancelEveryJob()
                DispatchQueue.global().asyncAfter(deadline: .now() + 5) { exit(130) }
            }
            source.resume()
            lock.withLock { sources.append(source) }
        }
    }
}
