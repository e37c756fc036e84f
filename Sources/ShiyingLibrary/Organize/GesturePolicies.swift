// SPEC G2–G5: the rules behind the screenshot clean-up gestures.
import Foundation

/// A point in screen points.
public struct GesturePoint: Sendable, Hashable {
    /// Horizontal position in points.
    public var x: Double
    /// Vertical position in points.
    public var y: Double
    /// A point in points.
    public init(x: Double, y: Double) { self.x = x; self.y = y }
}

/// SPEC G2: double tap = favourite; a single tap waits ≈ 0.45 s for a second
/// tap nearby. One instance serves screenshots, video scrubbing and review zoom.
public final class TapDisambiguator {
    /// What a tap turned out to be.
    public enum Action: Sendable, Hashable {
        /// A single tap at a point.
        case singleTap(GesturePoint)
        /// A double tap at a point.
        case doubleTap(GesturePoint)
    }

    /// The wait after a first tap.
    public static let window = 0.45
    /// How close the second tap must land (points).
    public static let nearby = 44.0

    private let clock: PolicyClock
    private var pending: (point: GesturePoint, at: Double)?

    /// A disambiguator measuring time on `clock`.
    public init(clock: PolicyClock = .system) { self.clock = clock }

    /// A tap landed. Returns what to do now (possibly the earlier tap's single action).
    public func tap(at p: GesturePoint) -> [Action] {
        let now = clock.now()
        var actions = expire(now)
        if let first = pending {
            pending = nil
            if hypot(p.x - first.point.x, p.y - first.point.y) <= Self.nearby {
                return actions + [.doubleTap(first.point)]
            }
            actions.append(.singleTap(first.point))
        }
        pending = (p, now)
        return actions
    }

    /// Call from a timer; returns the single tap once its wait is over.
    public func tick() -> [Action] { expire(clock.now()) }

    private func expire(_ now: Double) -> [Action] {
        guard let first = pending, now - first.at >= Self.window else { return [] }
        pending = nil
        return [.singleTap(first.point)]
    }
}

/// SPEC G3: swipe up = set aside. The progress ring and the commit come from
/// this one rule: released at progress 1 commits, anything less does not.
public enum SwipeUpRule {
    /// Upward travel that fills the ring (points).
    public static let fullTravel = 120.0
    /// Largest angle from vertical still counted as "up" (degrees); wider is
    /// sideways or diagonal.
    public static let maxAngle = 20.0

    /// Ring progress 0…1 for a drag from `start` to `current`. 0 when the drag
    /// began on the note row or is not (mostly) upward.
    public static func progress(start: GesturePoint, current: GesturePoint, noteRow: ClosedRange<Double>) -> Double {
        if noteRow.contains(start.y) { return 0 }
        let up = start.y - current.y, side = abs(current.x - start.x)
        guard up > 0, atan2(side, up) * 180 / .pi <= maxAngle else { return 0 }
        return min(1, up / fullTravel)
    }

    /// Whether releasing here sets the screenshot aside (the ring is full).
    public static func commits(start: GesturePoint, end: GesturePoint, noteRow: ClosedRange<Double>) -> Bool {
        progress(start: start, current: end, noteRow: noteRow) >= 1
    }
}

/// SPEC G4: set aside always answers. Applied at once when the page is on
/// screen, else queued; after 0.6 s in the queue the pager advances one page.
/// Real deletion happens only on leaving, after the system confirms.
public final class SetAsideQueue {
    /// What the queue did.
    public enum Event: Sendable, Hashable {
        /// The asset was set aside.
        case setAside(Int64)
        /// The asset waits to be set aside.
        case queued(Int64)
        /// The review moves to the next page.
        case advancePage
    }

    /// Seconds after the last set-aside before the page advances.
    public static let advanceAfter = 0.6

    private let clock: PolicyClock
    private var queue: [(id: Int64, since: Double)] = []
    private var advanced: Set<Int64> = []
    /// Everything set aside in this visit, in order (deleted on leave).
    public private(set) var setAside: [Int64] = []

    /// A queue measuring time on `clock`.
    public init(clock: PolicyClock = .system) { self.clock = clock }

    /// The user set `id` aside (button or swipe).
    public func request(_ id: Int64, pageOnScreen: Bool) -> [Event] {
        if pageOnScreen {
            setAside.append(id)
            return [.setAside(id)]
        }
        queue.append((id, clock.now()))
        return [.queued(id)]
    }

    /// The page for `id` came on screen: a queued request is applied now.
    public func pageShown(_ id: Int64) -> [Event] {
        guard let at = queue.firstIndex(where: { $0.id == id }) else { return [] }
        queue.remove(at: at)
        setAside.append(id)
        return [.setAside(id)]
    }

    /// Call from a timer: one advance per request that waited 0.6 s.
    public func tick() -> [Event] {
        let now = clock.now()
        var events: [Event] = []
        for item in queue where now - item.since >= Self.advanceAfter && !advanced.contains(item.id) {
            advanced.insert(item.id)
            events.append(.advancePage)
        }
        return events
    }

    /// Leaving: the items to hand to the system for deletion (it confirms).
    public func leave() -> [Int64] {
        defer { queue.removeAll(); setAside.removeAll() }
        return setAside + queue.map(\.id) // a queued request still counts: it always answers
    }
}

/// SPEC G5: counts are kept in memory while browsing and written once, on leaving.
public final class CleanupCounter {
    private var counts: [String: Int] = [:]

    /// A counter with nothing counted.
    public init() {}

    /// Counts one event (a screenshot viewed, set aside, favourited …). No write.
    public func count(_ key: String, by n: Int = 1) { counts[key, default: 0] += n }

    /// Writes everything counted in one transaction and starts over.
    public func leave(store: OrganizeStore) throws {
        guard !counts.isEmpty else { return }
        try store.addToStats(counts)
        counts.removeAll()
    }
}
