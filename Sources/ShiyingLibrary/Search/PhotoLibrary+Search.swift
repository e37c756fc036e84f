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
    /// (one write transaction, nothing when none is stale); then the read
    /// (`LibrarySearchSQL`): the capture-date ranges through the timeline
    /// index; terms first by substring over the newest 4096 candidates' words,
    /// and when those do not fill the batch, terms of three or more characters
    /// through the trigram index (shorter ones, 「本」 「海边」, by substring).
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
            rows = try matches(LibrarySearchSQL.select(query, after: after, limit: limit + 1, way: .index))
        } else {
            // A common term fills the batch from the newest candidates; a rare one
            // goes through the trigram index unless the window held every candidate.
            let window = max(LibrarySearchSQL.window, limit + 1)
            let edge = LibrarySearchSQL.windowEdge(query, after: after, window: window)
            let last = try store.query(edge.0, edge.1).first
            if let last, last[0] != .null, let id = last[1].int64 {
                rows = try matches(LibrarySearchSQL.select(query, after: after, limit: limit + 1,
                                                           way: .substring(from: LibrarySearchCursor(capturedAtMs: last[0].int64, id: id))))
                if rows.count <= limit {
                    rows = try matches(LibrarySearchSQL.select(query, after: after, limit: limit + 1, way: .index))
                }
            } else {
                // at most `window` candidates (or the window reaches undated ones): look at all of them
                rows = try matches(LibrarySearchSQL.select(query, after: after, limit: limit + 1,
                                                           way: last == nil ? .substring(from: nil) : .index))
            }
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

/// The SELECTs of one search batch, two ways.
///
/// - Substring: candidates (date and cursor conditions) in order from the
///   timeline index, each term checked with `instr` on their words, no older
///   than the window's edge. A term on more than a few percent of the library
///   fills a batch within the newest 4096 candidates and the scan stops there.
/// - Index: every term of three or more characters through FTS5 trigram,
///   shorter ones by `instr` in one pass over the words table, then ordered:
///   fast for rare terms, which the window would not reach.
enum LibrarySearchSQL {
    /// Terms this long or longer can go through the trigram index (FTS5 needs three characters).
    static let trigramLength = 3
    /// Candidates the substring way looks at: a term on 1 in 20 assets fills a batch of 200 within them.
    static let window = 4096

    enum Way {
        /// Substring checks down to (and including) `from`; nil = every candidate.
        case substring(from: LibrarySearchCursor?)
        case index
    }

    static func select(_ query: LibrarySearchQuery, after: LibrarySearchCursor?, limit: Int, way: Way) -> (String, [SQLValue]) {
        var values: [SQLValue] = []
        var all = conditions(query, after: after, &values)
        let bind = { (v: SQLValue) -> String in
            values.append(v)
            return "?\(values.count)"
        }
        var long: [String] = []
        switch way {
        case .substring(let edge?):
            let t = bind(edge.capturedAtMs.map(SQLValue.integer) ?? .null), i = bind(.integer(edge.id))
            all.append("(a.captured_at_ms > \(t) OR (a.captured_at_ms = \(t) AND a.id >= \(i)))")
        case .substring(nil):
            break
        case .index:
            long = query.terms.filter { $0.unicodeScalars.count >= trigramLength }
        }
        if !long.isEmpty {
            let match = long.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }.joined(separator: " AND ")
            all.append("a.id IN (SELECT rowid FROM library_search_fts WHERE library_search_fts MATCH \(bind(.text(match))))")
        }
        let short = query.terms.filter { !long.contains($0) }
        var join = ""
        if case .index = way, !short.isEmpty {
            // one sequential pass over the words table, not one look-up per candidate
            let checks = short.map { "instr(words, \(bind(.text($0)))) > 0" }.joined(separator: " AND ")
            all.append("a.id IN (SELECT asset_id FROM library_search_words WHERE \(checks))")
        } else if !short.isEmpty {
            for term in short { all.append("instr(w.words, \(bind(.text(term)))) > 0") }
            join = " JOIN library_search_words w ON w.asset_id = a.id"
        }
        let sql = """
            SELECT a.id, a.captured_at_ms FROM library_assets a\(join)
            WHERE \(all.joined(separator: " AND "))
            ORDER BY a.captured_at_ms DESC, a.id DESC LIMIT \(bind(.integer(Int64(limit))))
            """
        return (sql, values)
    }

    /// The `window`-th newest candidate (captured_at_ms, id); no row when there are fewer.
    static func windowEdge(_ query: LibrarySearchQuery, after: LibrarySearchCursor?, window: Int) -> (String, [SQLValue]) {
        var values: [SQLValue] = []
        let candidates = conditions(query, after: after, &values)
        values.append(.integer(Int64(window - 1)))
        return ("""
            SELECT a.captured_at_ms, a.id FROM library_assets a WHERE \(candidates.joined(separator: " AND "))
            ORDER BY a.captured_at_ms DESC, a.id DESC LIMIT 1 OFFSET ?\(values.count)
            """, values)
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
