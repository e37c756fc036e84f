// SPEC Q3: whether a search-result batch that arrives late may still join the list.

/// Photo-library access, ordered from none to full.
public enum LibraryAccess: Int, Sendable, Hashable, Comparable, Codable {
    /// Not determined, denied or restricted.
    case none = 0
    /// Limited to the photos the user picked.
    case limited = 1
    /// The whole library.
    case full = 2

    public static func < (a: LibraryAccess, b: LibraryAccess) -> Bool { a.rawValue < b.rawValue }
}

/// What the search page knew when it asked for results, or knows now.
public struct SearchContext: Sendable, Hashable {
    /// The query as typed; compared through `RecentSearchKey.normalize`.
    public var query: String
    /// Library access.
    public var access: LibraryAccess
    /// Counts real library changes (a change notification that inserted,
    /// removed or changed assets); a different value = the library changed.
    public var libraryChangeCount: UInt64
    /// The system's version token (a persistent change token). It moves every
    /// second or two for reasons unrelated to the results, so it alone never
    /// rejects a batch.
    public var versionToken: String

    /// - Parameters: see the properties.
    public init(query: String, access: LibraryAccess, libraryChangeCount: UInt64, versionToken: String) {
        self.query = query
        self.access = access
        self.libraryChangeCount = libraryChangeCount
        self.versionToken = versionToken
    }
}

/// The decision for one late batch.
public enum LateBatchDecision: Sendable, Hashable {
    /// Append the batch to the list.
    case merge
    /// Drop the batch, for this reason.
    case reject(LateBatchRejection)
}

/// Why a late batch was rejected (the first that applies, in this order).
public enum LateBatchRejection: String, Sendable, Hashable, Codable {
    /// Access was revoked or narrowed since the batch was requested.
    case permissionRevoked
    /// The user typed a different query.
    case queryChanged
    /// The library itself changed (assets added, removed or changed).
    case libraryChanged
}

/// SPEC Q3 as a pure function: a late batch merges unless permission was
/// revoked, the query changed or the library changed; a change of the version
/// token alone is tolerated.
public enum LateResultsPolicy {
    /// Decides whether a late batch may merge.
    /// - Parameters:
    ///   - requested: the context when the batch was requested.
    ///   - current: the context now.
    /// - Returns: `.merge` or `.reject(reason)`.
    public static func decide(requested: SearchContext, current: SearchContext) -> LateBatchDecision {
        if current.access < requested.access || current.access == .none { return .reject(.permissionRevoked) }
        if RecentSearchKey.normalize(current.query) != RecentSearchKey.normalize(requested.query) {
            return .reject(.queryChanged)
        }
        if current.libraryChangeCount != requested.libraryChangeCount { return .reject(.libraryChanged) }
        return .merge   // versionToken may differ: tolerated
    }

    /// Appends a batch to the shown identifiers, skipping ones already shown (order kept).
    /// - Parameters:
    ///   - shown: identifiers on screen, in order.
    ///   - batch: the late batch's identifiers.
    /// - Returns: `shown` followed by the batch's new identifiers.
    public static func merged<ID: Hashable>(_ shown: [ID], _ batch: [ID]) -> [ID] {
        var seen = Set(shown)
        var result = shown
        for id in batch where seen.insert(id).inserted { result.append(id) }
        return result
    }

    /// `decide` then `merged`: the list after a late batch arrives.
    /// - Returns: the new list and the decision.
    public static func apply<ID: Hashable>(batch: [ID], to shown: [ID], requested: SearchContext,
                                           current: SearchContext) -> (list: [ID], decision: LateBatchDecision) {
        let decision = decide(requested: requested, current: current)
        return (decision == .merge ? merged(shown, batch) : shown, decision)
    }
}
