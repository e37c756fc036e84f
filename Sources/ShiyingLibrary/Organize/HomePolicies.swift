// SPEC H1, H2, H4: opening a review, image swaps, offline video filtering.

/// SPEC H1: open a review only after its first item is prepared, waiting at
/// most 0.35 s; late preparation still opens it.
public final class ReviewOpening {
    public static let maxWait = 0.35

    private let clock: PolicyClock
    private let start: Double
    private var opened = false

    public init(clock: PolicyClock = .system) {
        self.clock = clock
        start = clock.now()
    }

    /// The first item's pixels are ready. Returns true when the review opens now.
    public func firstItemPrepared() -> Bool { open() }

    /// Call from a timer. Returns true when the wait ran out and the review opens now.
    public func tick() -> Bool { clock.now() - start >= Self.maxWait ? open() : false }

    private func open() -> Bool {
        guard !opened else { return false }
        opened = true
        return true
    }
}

/// SPEC H2: never swap an image for a blurrier one.
public enum ImageSwapRule {
    /// Pixel size of a displayed or candidate version.
    public struct Version: Sendable, Hashable {
        /// Width in pixels.
        public var width: Int
        /// Height in pixels.
        public var height: Int
        /// A degraded placeholder (e.g. a low-quality fast-format thumbnail).
        public var degraded: Bool
        public init(width: Int, height: Int, degraded: Bool = false) {
            self.width = width
            self.height = height
            self.degraded = degraded
        }
    }

    /// True only when the candidate is sharper than what is shown: more pixels,
    /// or the same pixels no longer degraded. Nothing shown → take it.
    public static func shouldSwap(showing: Version?, candidate: Version) -> Bool {
        guard let showing else { return true }
        let a = showing.width * showing.height, b = candidate.width * candidate.height
        if b != a { return b > a }
        return showing.degraded && !candidate.degraded
    }
}

/// SPEC H4: offline → drop unplayable (cloud-only) videos before queueing.
/// "Online" means a physical interface (Wi-Fi, cellular, wired) is up, not a
/// VPN tunnel; before the first reading, assume online.
public final class OfflineVideoFilter {
    public enum InterfaceKind: String, Sendable, Hashable {
        case wifi, cellular, wired, vpn, loopback, other
        var isPhysical: Bool { self == .wifi || self == .cellular || self == .wired }
    }

    public struct Interface: Sendable, Hashable {
        public var kind: InterfaceKind
        public var up: Bool
        public init(kind: InterfaceKind, up: Bool) {
            self.kind = kind
            self.up = up
        }
    }

    public struct Video: Sendable, Hashable {
        /// The video's identifier.
        public var id: Int64
        /// Only in the cloud: playable only online.
        public var cloudOnly: Bool
        public init(id: Int64, cloudOnly: Bool) {
            self.id = id
            self.cloudOnly = cloudOnly
        }
    }

    /// Start online (SPEC H4) until the first reading arrives.
    public private(set) var isOnline = true

    public init() {}

    /// A network reading: online iff some physical interface is up.
    public func update(_ interfaces: [Interface]) {
        isOnline = interfaces.contains { $0.up && $0.kind.isPhysical }
    }

    /// The videos to queue: all when online; offline, only local ones.
    public func queueable(_ videos: [Video]) -> [Video] {
        isOnline ? videos : videos.filter { !$0.cloudOnly }
    }
}
