// Rebuilding the words each asset is found by (issue 21): what the triggers of
// `LibrarySearchSchema` marked stale, in one write transaction.
import Foundation

/// The words of assets, rebuilt from the catalogue.
///
/// Order of operations: organize rows whose recognized text changed are
/// mapped to library assets (their path = library folder + a file's relative
/// path); then, for every stale asset, the fields are read in five set-wise
/// queries, folded and written (the FTS5 index follows by trigger, the
/// gram index is written here); then the
/// queues are emptied and the version token moves once. Cost: linear in the
/// stale assets; nothing when none is stale.
enum LibrarySearchWords {
    /// Rebuilds stale words; call inside a write transaction.
    /// - Parameters:
    ///   - store: the catalogue.
    ///   - root: the library folder (absolute), to map organize paths.
    ///   - places: GPS → place names.
    /// - Returns: how many assets were rebuilt.
    @discardableResult
    static func refresh(in store: RecordStore, root: String, places: PlaceNames) throws -> Int {
        let prefix = root + "/"
        try store.execute("""
            INSERT OR IGNORE INTO library_search_stale(asset_id)
            SELECT f.asset_id FROM library_search_stale_paths d
            JOIN library_files f ON f.path = substr(d.path, length(?1) + 1)
            WHERE substr(d.path, 1, length(?1)) = ?1
            """, [.text(prefix)])
        try store.execute("DELETE FROM library_search_stale_paths")
        guard try !store.query("SELECT 1 FROM library_search_stale LIMIT 1").isEmpty else { return 0 }
        var fields: [Int64: [String]] = [:]
        var capturedAt: [Int64: Int64] = [:]
        let stale = "(SELECT asset_id FROM library_search_stale)"
        try store.forEachRow("""
            SELECT id, camera, latitude, longitude, captured_at_ms FROM library_assets WHERE id IN \(stale)
            """) { c in
            var list: [String] = []
            if let camera = c.text(1) { list.append(camera) }
            if !c.isNull(2) { list += places.names(latitude: c.double(2), longitude: c.double(3)) }
            fields[c.int64(0)] = list
            capturedAt[c.int64(0)] = c.isNull(4) ? LibrarySearchGrams.undatedAt : c.int64(4)
        }
        func append(_ sql: String, _ values: [SQLValue] = [], transform: (String) -> String = { $0 }) throws {
            try store.forEachRow(sql, values) { c in
                if let text = c.text(1), fields[c.int64(0)] != nil { fields[c.int64(0)]!.append(transform(text)) }
            }
        }
        try append("SELECT asset_id, path FROM library_files WHERE asset_id IN \(stale) AND role IN ('original', 'original_movie')",
                   transform: { ($0 as NSString).lastPathComponent })
        try append("""
            SELECT m.asset_id, l.name FROM library_album_members m JOIN library_albums l ON l.id = m.album_id
            WHERE m.asset_id IN \(stale)
            """)
        try append("SELECT asset_id, tag FROM library_tags WHERE asset_id IN \(stale)")
        try append("""
            SELECT f.asset_id, o.recognized_text FROM library_files f JOIN organize_assets o ON o.path = ?1 || f.path
            WHERE f.asset_id IN \(stale) AND o.recognized_text IS NOT NULL
            """, [.text(prefix)])
        try store.execute("DELETE FROM library_search_words WHERE asset_id IN \(stale)")
        var grams: [(gram: Int64, at: Int64, id: Int64)] = []
        for (id, list) in fields {
            let text = words(list)
            try store.execute("INSERT INTO library_search_words(asset_id, words) VALUES (?, ?)", [.integer(id), .text(text)])
            let at = capturedAt[id] ?? LibrarySearchGrams.undatedAt
            for gram in LibrarySearchGrams.keys(ofWords: text) { grams.append((gram, at, id)) }
        }
        // the trigger removed the old grams with the old words; in key order the
        // new ones append to the B-tree's pages instead of splitting random ones
        grams.sort { ($0.gram, $0.at, $0.id) < ($1.gram, $1.at, $1.id) }
        for g in grams {
            try store.execute("INSERT INTO library_search_grams(gram, at, asset_id) VALUES (?, ?, ?)", [.integer(g.gram), .integer(g.at), .integer(g.id)])
        }
        try store.execute("DELETE FROM library_search_stale")
        try store.execute("UPDATE library_change_state SET token = token + 1 WHERE id = 1")
        return fields.count
    }

    /// Folded fields, one per line (a line break inside a field becomes a
    /// space, so no search term can match across two fields).
    static func words(_ fields: [String]) -> String {
        var seen = Set<String>()
        var lines: [String] = []
        for field in fields {
            let line = SearchFolding.fold(field).split(whereSeparator: \.isNewline).joined(separator: " ")
                .trimmingCharacters(in: .whitespaces)
            if !line.isEmpty, seen.insert(line).inserted { lines.append(line) }
        }
        return lines.joined(separator: "\n")
    }
}
