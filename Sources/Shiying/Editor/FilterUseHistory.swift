// Which built-in filters the user applied, most recent first (SPEC E3:
// the strip shows recently used filters, "only once used").

/// One use of a filter.
public struct FilterUse: Sendable, Hashable, Codable {
    /// The filter's id.
    public var filterID: String
    /// When it was applied, Unix milliseconds from the injected clock.
    public var usedAtMilliseconds: Int64

    /// - Parameters: the `filterID` and the time of use.
    public init(filterID: String, usedAtMilliseconds: Int64) {
        self.filterID = filterID
        self.usedAtMilliseconds = usedAtMilliseconds
    }
}

/// Filter uses, most recent first, one entry per filter id, at most `storedLimit`.
public struct FilterUseHistory: Sendable, Hashable, Codable {
    /// Kept entries: well above any strip's recent section so uses of
    /// filters that were later removed from the catalogue do not crowd it out.
    public static let storedLimit = 32

    /// Most recent first.
    public private(set) var uses: [FilterUse]

    /// - Parameter uses: most recent first; later duplicates of an id are dropped.
    public init(uses: [FilterUse] = []) {
        var seen = Set<String>()
        self.uses = Array(uses.filter { seen.insert($0.filterID).inserted }.prefix(Self.storedLimit))
    }

    /// Records that `filterID` was applied at `time`: it moves to the front.
    public mutating func record(_ filterID: String, at time: Int64) {
        guard !filterID.isEmpty else { return }
        uses.removeAll { $0.filterID == filterID }
        uses.insert(FilterUse(filterID: filterID, usedAtMilliseconds: time), at: 0)
        if uses.count > Self.storedLimit { uses.removeLast(uses.count - Self.storedLimit) }
    }

    /// Filter ids used at or before `time`, most recent first.
    /// Why the cut-off: the strip is fixed when the page opens (SPEC E3), so
    /// uses recorded after that moment belong to the next opening.
    public func recentIDs(asOf time: Int64) -> [String] {
        uses.filter { $0.usedAtMilliseconds <= time }.map(\.filterID)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        self.init(uses: try c.decode([FilterUse].self))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(uses)
    }
}
