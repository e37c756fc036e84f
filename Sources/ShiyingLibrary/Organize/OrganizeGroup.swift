// A group of assets the organizer offers for one decision.

/// Exact duplicates, similar photos or a burst.
public enum OrganizeGroupKind: String, Sendable, Codable, Hashable {
    /// The same picture (SPEC D7).
    case duplicate
    /// Near-identical shots.
    case similar
    /// A burst.
    case burst
}

/// A group as formed by `OrganizeGrouping` (member ids in display order).
public struct OrganizeGroup: Sendable, Codable, Hashable {
    /// The store's id (0 until stored).
    public var id: Int64 = 0
    /// Duplicate, similar or burst.
    public var kind: OrganizeGroupKind
    /// Asset ids, in order (the "first" of SPEC D6/D8 is members[0]).
    public var members: [Int64]
    /// Duplicate: the shared pixel SHA-256; system burst: the burst id.
    public var evidence: String?
    /// System burst: the representative the system chose (SPEC D8).
    public var systemRepresentative: Int64?

    /// A group of members with its evidence.
    public init(id: Int64 = 0, kind: OrganizeGroupKind, members: [Int64], evidence: String? = nil,
                systemRepresentative: Int64? = nil) {
        self.id = id
        self.kind = kind
        self.members = members
        self.evidence = evidence
        self.systemRepresentative = systemRepresentative
    }
}
