// One batch of a search with word terms, through the gram index (issue 21).

/// Finds the newest assets whose words hold every term, in timeline order.
///
/// Plan: the capture-date ranges merged into disjoint intervals, newest first
/// (none: every capture time, undated last); each gram a term is found
/// through (its scalar, or each adjacent pair) counted in those intervals,
/// capped at `countCap` index steps; the least frequent one drives: a backward
/// range scan of its posting list — already in capture order — that stops at
/// the batch size. So a narrow date range and a rare gram both bound the
/// work, and a common gram fills the batch from its newest rows. Each driven
/// row is checked: hidden / Recently Deleted through the asset row; other one-
/// and two-character terms by their gram (a key look-up, exact); terms of
/// three or more characters (the driver's too) by substring on the words.
enum LibrarySearchGramQuery {
    /// Index steps spent per gram on choosing the driver.
    static let countCap = 2048

    static func rows(_ query: LibrarySearchQuery, after: LibrarySearchCursor?, limit: Int,
                     in store: RecordStore) throws -> [(id: Int64, at: Int64?)] {
        let intervals = merged(query.capturedAtBounds)
        let cursor = after.map { ($0.capturedAtMs ?? LibrarySearchGrams.undatedAt, $0.id) }
        var driver: (term: String, key: Int64, count: Int)?
        for term in query.terms {
            for key in LibrarySearchGrams.keys(ofTerm: term) {
                let n = try count(key, intervals, cursor, in: store)
                if n == 0 { return [] }
                if n < driver?.count ?? .max { driver = (term, key, n) }
            }
        }
        guard let driver else { return [] }
        var rows: [(id: Int64, at: Int64?)] = []
        for interval in intervals where rows.count < limit {
            let (sql, values) = select(query, driver: (driver.term, driver.key), interval: interval, cursor: cursor,
                                       limit: limit - rows.count)
            try store.forEachRow(sql, values) { c in rows.append((c.int64(0), c.isNull(1) ? nil : c.int64(1))) }
        }
        return rows
    }

    /// Disjoint intervals of `bounds`, newest first; every capture time when there are none.
    static func merged(_ bounds: [Range<Int64>]) -> [Range<Int64>] {
        guard !bounds.isEmpty else { return [LibrarySearchGrams.undatedAt..<Int64.max] }
        var out: [Range<Int64>] = []
        for b in bounds.sorted(by: { $0.lowerBound < $1.lowerBound }) where !b.isEmpty {
            if let last = out.last, b.lowerBound <= last.upperBound {
                out[out.count - 1] = last.lowerBound..<max(last.upperBound, b.upperBound)
            } else {
                out.append(b)
            }
        }
        return out.reversed()
    }

    /// Rows of `key` in the intervals after the cursor, at most `countCap`.
    private static func count(_ key: Int64, _ intervals: [Range<Int64>], _ cursor: (Int64, Int64)?,
                              in store: RecordStore) throws -> Int {
        var total = 0
        for interval in intervals where total < countCap {
            var values: [SQLValue] = [.integer(key), .integer(interval.lowerBound), .integer(interval.upperBound)]
            var sql = "SELECT count(*) FROM (SELECT 1 FROM library_search_grams WHERE gram = ?1 AND at >= ?2 AND at < ?3"
            if let cursor {
                values += [.integer(cursor.0), .integer(cursor.1)]
                sql += " AND (at, asset_id) < (?4, ?5)"
            }
            values.append(.integer(Int64(countCap - total)))
            sql += " LIMIT ?\(values.count))"
            total += Int(try store.query(sql, values).first?[0].int64 ?? 0)
        }
        return total
    }

    /// The driven scan of one interval.
    static func select(_ query: LibrarySearchQuery, driver: (term: String, key: Int64), interval: Range<Int64>,
                       cursor: (Int64, Int64)?, limit: Int) -> (String, [SQLValue]) {
        var values: [SQLValue] = []
        func bind(_ v: SQLValue) -> String {
            values.append(v)
            return "?\(values.count)"
        }
        var conditions = ["g.gram = \(bind(.integer(driver.key)))", "g.at >= \(bind(.integer(interval.lowerBound)))",
                          "g.at < \(bind(.integer(interval.upperBound)))", "a.deleted_at_ms IS NULL", "a.hidden = 0"]
        if let cursor {
            conditions.append("(g.at, g.asset_id) < (\(bind(.integer(cursor.0))), \(bind(.integer(cursor.1))))")
        }
        var needsWords = false
        for term in query.terms {
            let keys = LibrarySearchGrams.keys(ofTerm: term)
            let length = term.unicodeScalars.count
            if length <= 2 {
                // exact: a one- or two-scalar term occurs iff its gram was cut from the words
                if term != driver.term {
                    conditions.append("EXISTS (SELECT 1 FROM library_search_grams x WHERE x.gram = \(bind(.integer(keys[0]))) "
                                      + "AND x.at = g.at AND x.asset_id = g.asset_id)")
                }
            } else {
                needsWords = true
                conditions.append("instr(w.words, \(bind(.text(term)))) > 0")
            }
        }
        let join = needsWords ? " CROSS JOIN library_search_words w ON w.asset_id = g.asset_id" : ""
        // CROSS JOIN: the posting list is the outer loop, so its order is the result's
        let sql = """
            SELECT a.id, a.captured_at_ms FROM library_search_grams g CROSS JOIN library_assets a ON a.id = g.asset_id\(join)
            WHERE \(conditions.joined(separator: " AND "))
            ORDER BY g.at DESC, g.asset_id DESC LIMIT \(bind(.integer(Int64(limit))))
            """
        return (sql, values)
    }
}
