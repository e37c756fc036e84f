// SPEC H1, H2, H4: opening a review, image swaps, offline video filtering.

/// SPEC H1: open a review only after its first item is prepared, waiting at
/// most 0.35 s; late preparation still opens it.
public final class ReviewOpening {
    /// Seconds the review may wait for its first page before it opens anyway.
    public static let maxWait = 0.35

    private let clock: PolicyClock
    private let start: Double
    private var opened = false

    /// A policy measuring time on `clock`.
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
        /// A version of the image at a size; `degraded` for a low-quality placeholder.
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
    /// A network interface's kind.
    public enum InterfaceKind: String, Sendable, Hashable {
        /// Wi-Fi.
        case wifi
        /// A cellular data link.
        case cellular
        /// Ethernet.
        case wired
        /// A VPN tunnel.
        case vpn
        /// The loopback interface.
        case loopback
        /// Anything else.
        case other
        var isPhysical: Bool { self == .wifi || self == .cellular || self == .wired }
    }

    /// One network interface.
    public struct Interface: Sendable, Hashable {
        /// The interface's kind.
        public var kind: InterfaceKind
        /// The interface is up.
        public var up: Bool
        /// An interface of `kind`, up or down.
        public init(kind: InterfaceKind, up: Bool) {
            self.kind = kind
            self.up = up
        }
    }

    /// A video in the grid.
    public struct Video: Sendable, Hashable {
        /// The video's identifier.
        public var id: Int64
        /// Only in the cloud: playable only online.
        public var cloudOnly: Bool
        /// A video; `cloudOnly` when its file is not on the device.
        public init(id: Int64, cloudOnly: Bool) {
            self.id = id
            self.cloudOnly = cloudOnly
        }
    }

    /// Start online (SPEC H4) until the first reading arrives.
    public private(set) var isOnline = true

    /// The filter.
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
