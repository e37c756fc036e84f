import Synchronization

/// A value shared between the tasks of one policy call, behind a lock (a
/// `Mutex` cannot be captured by escaping closures; a reference to this can).
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}
