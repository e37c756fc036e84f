import Foundation

/// SPEC C10: whether an export that finished (or failed) while the user was
/// away gets a notification. Only when the user left the app at least 30 s
/// before it finished — counted from the moment they left, so tapping save and
/// leaving at once differs from waiting 20 s first — and only when
/// notifications are already allowed. The policy never asks for permission:
/// nothing here can, and "not asked yet" means no notice.
public struct BackgroundFinishNotice<C: Clock>: Sendable where C.Duration == Duration {
    /// SPEC C10: how long the user must have been away.
    public static var minimumAway: Duration { .seconds(30) }

    /// The app's notification permission as the system reports it.
    public enum Authorization: String, Sendable, Codable, CaseIterable {
        /// The user has not been asked yet.
        case notDetermined
        /// The user refused notifications.
        case denied
        /// The user allowed notifications.
        case authorized
        /// Quiet notifications allowed without asking.
        case provisional
        /// Allowed for a limited time (an App Clip).
        case ephemeral

        /// Allowed already: the system delivers without asking.
        public var allowsDelivery: Bool { self == .authorized || self == .provisional || self == .ephemeral }
    }

    /// Whether to post a notice when the export finishes, and why not.
    public enum Decision: Sendable, Equatable {
        /// Post the notice.
        case notify
        /// The user is in the app when it finishes: they see it there.
        case quietUserInApp
        /// Away for less than 30 s: a notice would only interrupt.
        case quietAwayTooShort(Duration)
        /// Notifications are not allowed (or not asked for: we never ask).
        case quietNotAllowed
    }

    /// The clock its times and deadlines are measured on.
    public let clock: C
    /// When the user last left the app; nil while they are in it.
    public private(set) var leftAt: C.Instant?

    /// A notice policy measuring time on `clock`.
    public init(clock: C) { self.clock = clock }

    /// The app went to the background (or the user switched away).
    public mutating func userLeft() { if leftAt == nil { leftAt = clock.now } }

    /// The app is in front again: a later finish is seen in the app.
    public mutating func userReturned() { leftAt = nil }

    /// Decides now, when the export has just finished or failed.
    public func decisionAtFinish(authorization: Authorization) -> Decision {
        Self.decide(leftAt: leftAt, finishedAt: clock.now, authorization: authorization)
    }

    /// The rule itself, pure.
    public static func decide(leftAt: C.Instant?, finishedAt: C.Instant, authorization: Authorization) -> Decision {
        guard let leftAt else { return .quietUserInApp }
        let away = leftAt.duration(to: finishedAt)
        guard away >= minimumAway else { return .quietAwayTooShort(away) }
        return authorization.allowsDelivery ? .notify : .quietNotAllowed
    }
}

extension BackgroundFinishNotice where C == ContinuousClock {
    /// A notice policy on the continuous clock.
    public init() { self.init(clock: ContinuousClock()) }
}
