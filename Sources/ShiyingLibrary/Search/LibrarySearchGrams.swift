// The one- and two-character index of search (issue 21): what serves the
// terms FTS5 trigram cannot (「本」, 「海边」, "a"), in capture order.

/// Schema step 6 and the grams of folded words.
///
/// `library_search_grams` holds one row per distinct unigram and bigram of an
/// asset's folded words (`LibrarySearchWords.words`), keyed by (gram, capture
/// time, asset): a gram's posting list is already in the timeline's order, so
/// "newest 200 assets holding 「本」 last week" is one backward range scan that
/// stops after 200 rows — a narrow date range and a rare gram both bound it.
/// Grams never span a line break (two fields) or a space (terms hold none).
/// `at` is `captured_at_ms`, or `undatedAt` for undated assets, so they sort
/// last as `ORDER BY captured_at_ms DESC` puts NULLs. Rows are written with the
/// words (Swift folds, so Swift cuts grams) and removed by trigger with them.
public enum LibrarySearchGrams {
    /// Below any capture time Exif can hold (year −2490): undated assets sort last.
    static let undatedAt: Int64 = -(1 << 47)

    /// Appended to `RecordSchema.migrations` (version 6).
    public static let migration = RecordStoreMigration(version: 6, name: "search: unigram + bigram index in capture order (issue 21)", statements: [
        """
        CREATE TABLE library_search_grams (
            gram INTEGER NOT NULL,       -- LibrarySearchGrams.key: a scalar, or a pair of scalars
            at INTEGER NOT NULL,         -- captured_at_ms; undatedAt when undated
            asset_id INTEGER NOT NULL,
            PRIMARY KEY (gram, at, asset_id)
        ) WITHOUT ROWID
        """,
        "CREATE INDEX library_search_grams_asset ON library_search_grams(asset_id)",   // removal with the words
        """
        CREATE TRIGGER library_search_words_grams_ad AFTER DELETE ON library_search_words BEGIN
            DELETE FROM library_search_grams WHERE asset_id = old.asset_id;
        END
        """,
        // every asset's words are rebuilt once, which writes its grams
        """
        INSERT INTO library_search_stale(asset_id) SELECT id FROM library_assets a
        WHERE NOT EXISTS (SELECT 1 FROM library_search_stale s WHERE s.asset_id = a.id)
        """,
    ])

    /// The key of a one-scalar gram (its value) or of a pair (above every scalar).
    static func key(_ first: UInt32, _ second: UInt32? = nil) -> Int64 {
        guard let second else { return Int64(first) }
        return 0x110000 + Int64(first) * 0x110000 + Int64(second)
    }

    /// Distinct unigram and bigram keys of folded words (no gram holds a space or line break).
    static func keys(ofWords words: String) -> Set<Int64> {
        var out = Set<Int64>()
        var previous: UInt32?
        for s in words.unicodeScalars {
            if s.properties.isWhitespace {
                previous = nil
                continue
            }
            out.insert(key(s.value))
            if let p = previous { out.insert(key(p, s.value)) }
            previous = s.value
        }
        return out
    }

    /// The keys a term is found through: its scalar, or each adjacent pair.
    static func keys(ofTerm term: String) -> [Int64] {
        let v = term.unicodeScalars.map(\.value)
        if v.count == 1 { return [key(v[0])] }
        var out: [Int64] = []
        for i in 0..<(v.count - 1) where !out.contains(key(v[i], v[i + 1])) { out.append(key(v[i], v[i + 1])) }
        return out
    }
}
