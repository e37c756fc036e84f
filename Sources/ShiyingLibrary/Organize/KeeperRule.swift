// SPEC D6 and D8: which member of a group is kept by default.

/// One member as the keeper rule sees it.
public struct KeeperCandidate: Sendable, Hashable {
    /// The asset's identifier.
    public var id: Int64
    /// nil = no quality score.
    public var quality: Double?
    /// The user marked this one to keep.
    public var userMarked: Bool

    /// A member with its quality score (nil = none) and whether the user marked it.
    public init(id: Int64, quality: Double?, userMarked: Bool = false) {
        self.id = id
        self.quality = quality
        self.userMarked = userMarked
    }
}

/// SPEC D6: which member of a group is kept.
public enum KeeperRule {
    /// SPEC D6: a user-marked photo wins; else the highest quality score (the
    /// first of equals); no score at all → the first. Members are in display order.
    /// - Returns: the keeper's id, nil for an empty group.
    public static func similarKeeper(_ members: [KeeperCandidate]) -> Int64? {
        if let marked = members.first(where: \.userMarked) { return marked.id }
        var best: KeeperCandidate?
        for m in members {
            guard let q = m.quality else { continue }
            if best == nil || q > best!.quality! { best = m }
        }
        return best?.id ?? members.first?.id
    }

    /// SPEC D8: a system burst keeps the system's representative (a user mark
    /// still wins); a burst Shiying cut by capture time follows the D6 rule.
    public static func burstKeeper(_ members: [KeeperCandidate], systemRepresentative: Int64?) -> Int64? {
        if let marked = members.first(where: \.userMarked) { return marked.id }
        if let rep = systemRepresentative, members.contains(where: { $0.id == rep }) { return rep }
        return similarKeeper(members)
    }
}
