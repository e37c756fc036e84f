// Searching the library (issue 21; SPEC Q1–Q3): date phrases → capture-date
// ranges, the rest → words each asset is found by, results newest first in
// batches, the state SPEC Q3 judges late batches by, and recent searches.

/// Where the next batch of a search starts (keyset: newest first).
public struct LibrarySearchCursor: Sendable, Hashable {
    /// The last shown asset's `captured_at_ms` (nil: undated, which come last).
    public var capturedAtMs: Int64?
    /// The last shown asset's id.
    public var id: Int64
}

/// One batch of a search's results.
public struct LibrarySearchBatch: Sendable {
    /// The parsed query.
    public let query: LibrarySearchQuery
    /// Matching assets, newest capture first (then larger id first; undated last).
    public let ids: [Int64]
    /// Where the following batch starts; nil when this is the last.
    public let next: LibrarySearchCursor?
    /// The library's state when this batch was read (SPEC Q3's "requested").
    public let context: SearchContext
}

/// Every match of a search.
public struct LibrarySearchResult: Sendable {
    /// The parsed query.
    public let query: LibrarySearchQuery
    /// Matching assets, newest capture first.
    public let ids: [Int64]
}

extension PhotoLibrary {
    /// 200 thumbnails: a few screens of a grid.
    public static let searchBatchSize = 200

    /// One batch of a search.
    ///
    /// Order of operations: words made stale by earlier writes are rebuilt
    /// (one write transaction, nothing when none is stale); then the read:
    /// a date-only query through the timeline index (`LibrarySearchSQL`), one
    /// with words through the gram index in capture order (`LibrarySearchGramQuery`).
    /// Recently Deleted and hidden assets are never found.
    /// - Parameters:
    ///   - text: the query as typed.
    ///   - today: the day 「今天」 means.
    ///   - after: the previous batch's `next`; nil for the first batch.
    ///   - limit: assets per batch.
    ///   - access: the library access the caller has now (none: nothing is found).
    /// - Throws: `LibraryError` (D4 when the rebuild cannot be recorded).
    public func searchBatch(_ text: String, today: Day, after: LibrarySearchCursor? = nil,
                            limit: Int = PhotoLibrary.searchBatchSize, access: LibraryAccess = .full) throws -> LibrarySearchBatch {
        let query = LibrarySearchQuery(text, today: today)
        try refreshSearchWords()
        let context = try searchContext(query: text, access: access)
        guard !query.isEmpty, access != .none, limit > 0 else {
            return LibrarySearchBatch(query: query, ids: [], next: nil, context: context)
        }
        var rows: [(id: Int64, at: Int64?)]
        if query.terms.isEmpty {
            rows = try matches(LibrarySearchSQL.select(query, after: after, limit: limit + 1))
        } else {
            rows = try LibrarySearchGramQuery.rows(query, after: after, limit: limit + 1, in: store)
        }
        let more = rows.count > limit
        if more { rows.removeLast() }
        let next = more ? rows.last.map { LibrarySearchCursor(capturedAtMs: $0.at, id: $0.id) } : nil
        return LibrarySearchBatch(query: query, ids: rows.map(\.id), next: next, context: context)
    }

    /// Every match of a search, newest first: `searchBatch` until the last batch.
    /// - Parameters: as `searchBatch`.
    public func search(_ text: String, today: Day, access: LibraryAccess = .full) throws -> LibrarySearchResult {
        var batch = try searchBatch(text, today: today, access: access)
        var ids = batch.ids
        while let next = batch.next {
            batch = try searchBatch(text, today: today, after: next, access: access)
            ids += batch.ids
        }
        return LibrarySearchResult(query: batch.query, ids: ids)
    }

    /// The state SPEC Q3 compares: `query` and `access` as given, the
    /// library's change count and version token as the catalogue has them now.
    public func searchContext(query: String, access: LibraryAccess = .full) throws -> SearchContext {
        let row = try store.query("SELECT changes, token FROM library_change_state WHERE id = 1").first
        let changes = row?[0].int64 ?? 0, token = row?[1].int64 ?? 0
        return SearchContext(query: query, access: access, libraryChangeCount: UInt64(max(0, changes)),
                             versionToken: "\(changes).\(token)")
    }

    /// Rebuilds the words of assets changed since the last search.
    /// - Returns: how many assets were rebuilt.
    @discardableResult
    public func refreshSearchWords() throws -> Int {
        guard try !store.query("SELECT 1 FROM library_search_stale UNION ALL SELECT 1 FROM library_search_stale_paths LIMIT 1").isEmpty
        else { return 0 }
        let root = folder.root
        return try write { s in try LibrarySearchWords.refresh(in: s, root: root, places: PlaceNames()) }
    }

    private func matches(_ statement: (String, [SQLValue])) throws -> [(id: Int64, at: Int64?)] {
        var rows: [(id: Int64, at: Int64?)] = []
        try store.forEachRow(statement.0, statement.1) { c in rows.append((c.int64(0), c.isNull(1) ? nil : c.int64(1))) }
        return rows
    }

    // MARK: - recent searches (SPEC Q1), per library

    /// This library's recent searches, newest first (at most 10).
    public func recentSearches() throws -> [RecentSearch] { try recent().list() }

    /// Records a search the user ran (a repeat moves to the front).
    public func recordRecentSearch(_ text: String) throws { try recent().add(text) }

    /// Removes one recent search (any spelling with the same key).
    @discardableResult
    public func removeRecentSearch(_ text: String) throws -> Bool { try recent().remove(text) }

    /// Removes every recent search of this library.
    public func clearRecentSearches() throws { try recent().clear() }

    private func recent() -> RecentSearches { RecentSearches(store: store, clock: clock) }
}

/// The SELECT of a date-only search batch: candidates in order from the timeline index.
enum LibrarySearchSQL {
    static func select(_ query: LibrarySearchQuery, after: LibrarySearchCursor?, limit: Int) -> (String, [SQLValue]) {
        var values: [SQLValue] = []
        let all = conditions(query, after: after, &values)
        values.append(.integer(Int64(limit)))
        let sql = """
            SELECT a.id, a.captured_at_ms FROM library_assets a
            WHERE \(all.joined(separator: " AND "))
            ORDER BY a.captured_at_ms DESC, a.id DESC LIMIT ?\(values.count)
            """
        return (sql, values)
    }

    /// In the library, not hidden, in a date range, after the cursor.
    private static func conditions(_ query: LibrarySearchQuery, after: LibrarySearchCursor?, _ values: inout [SQLValue]) -> [String] {
        var conditions = ["a.deleted_at_ms IS NULL", "a.hidden = 0"]
        func bind(_ v: SQLValue) -> String {
            values.append(v)
            return "?\(values.count)"
        }
        let bounds = query.capturedAtBounds
        if !bounds.isEmpty {
            conditions.append("(" + bounds.map {
                "(a.captured_at_ms >= \(bind(.integer($0.lowerBound))) AND a.captured_at_ms < \(bind(.integer($0.upperBound))))"
            }.joined(separator: " OR ") + ")")
        }
        if let after {
            if let at = after.capturedAtMs {
                let t = bind(.integer(at)), i = bind(.integer(after.id))
                conditions.append("(a.captured_at_ms < \(t) OR (a.captured_at_ms = \(t) AND a.id < \(i)) OR a.captured_at_ms IS NULL)")
            } else {
                conditions.append("(a.captured_at_ms IS NULL AND a.id < \(bind(.integer(after.id))))")
            }
        }
        return conditions
    }
}
