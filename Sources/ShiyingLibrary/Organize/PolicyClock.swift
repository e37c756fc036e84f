// The injectable clock of the organize and home policies.
import Foundation

/// Seconds on a monotonic timeline. Tests pass a `ManualClock`; apps pass `.system`.
public struct PolicyClock: Sendable {
    /// The current time.
    public let now: @Sendable () -> Double

    /// A clock reading `now`.
    public init(now: @escaping @Sendable () -> Double) { self.now = now }

    /// The process's monotonic clock (`ProcessInfo.systemUptime`).
    public static let system = PolicyClock { ProcessInfo.processInfo.systemUptime }
}

/// A clock tests advance by hand.
public final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Double

    /// A clock that starts at the given time.
    public init(_ start: Double = 0) { value = start }

    /// The current time, in milliseconds.
    public var now: Double { lock.withLock { value } }
    /// Moves the time forward.
    public func advance(_ seconds: Double) { lock.withLock { value += seconds } }
    /// The clock its times and deadlines are measured on.
    public var clock: PolicyClock { PolicyClock { [self] in now } }
}
