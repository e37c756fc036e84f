// The photo library (issue 18): a folder of originals and renditions plus a
// SQLite catalogue. This file: opening, reading, and the catalogue-only edits
// (favourite, hidden, tags, albums). Import, the exit path, versions and
// deletion are the extensions beside it.
import Foundation

/// Unix milliseconds now; injectable (tests pass a manual clock).
public typealias LibraryClock = @Sendable () -> Int64

/// The system's wall clock in Unix milliseconds.
public let systemLibraryClock: LibraryClock = { Int64(Date().timeIntervalSince1970 * 1000) }

/// One photo library. An actor: its catalogue connection is used by one task
/// at a time; any number of processes may open the same library (SQLite WAL,
/// one writer at a time through `BEGIN IMMEDIATE` with retry; file changes
/// under the folder's lock, `LibraryFileLock`).
///
/// Every catalogue write that fails for a reason other than a passing lock
/// throws `LibraryError.couldNotRecord` (SPEC D4, 「无法完成这次整理」) and
/// changes nothing.
public actor PhotoLibrary {
    /// The library's folder layout.
    public nonisolated let folder: LibraryFolder
    let store: RecordStore
    let clock: LibraryClock

    /// Makes `directory` a library (folders + catalogue) and opens it;
    /// opening an existing library is not an error.
    /// - Throws: `LibraryError` (`.notALibrary` when the folder cannot be made or
    ///   holds another program's database).
    public static func create(at directory: String, clock: @escaping LibraryClock = systemLibraryClock) throws -> PhotoLibrary {
        let folder = LibraryFolder(directory)
        // What this call makes, so a library it could not finish (a full disk, a file-size limit) goes again:
        // the missing folders (the root's missing parents too); the catalogue goes with RecordStore's own rule.
        var missing: [String] = []
        var up = folder.root
        while !up.isEmpty, up != "/", !FileManager.default.fileExists(atPath: up) {
            missing.append(up)
            up = (up as NSString).deletingLastPathComponent
        }
        missing += [folder.originals, folder.renditions, folder.trash, folder.staging].filter {
            !FileManager.default.fileExists(atPath: $0)
        }
        do {
            try folder.create()
            return try PhotoLibrary(folder: folder, clock: clock)
        } catch {
            for dir in missing.sorted(by: { $0.count > $1.count }) { rmdir(dir) } // deepest first; only while empty
            if let error = error as? LibraryError, error.kind == .io {
                throw LibraryError(.notALibrary, "\(directory): cannot create the library folders", detail: error.message)
            }
            throw error
        }
    }

    /// Opens an existing library (its catalogue must exist).
    /// - Throws: `LibraryError.notALibrary`.
    public init(at directory: String, clock: @escaping LibraryClock = systemLibraryClock) throws {
        let folder = LibraryFolder(directory)
        guard FileManager.default.fileExists(atPath: folder.catalogue) else {
            throw LibraryError(.notALibrary, "\(directory) is not a photo library (no catalogue.sqlite; run `shiying library init \(directory)`)")
        }
        try self.init(folder: folder, clock: clock)
    }

    private init(folder: LibraryFolder, clock: @escaping LibraryClock) throws {
        self.folder = folder
        self.clock = clock
        do {
            store = try RecordStore(path: folder.catalogue)
        } catch {
            throw LibraryError(.notALibrary, "\(folder.root): the catalogue cannot be opened", detail: "\(error)")
        }
    }

    /// The catalogue's record store, for the organize tables beside the library's.
    /// Use it only from this actor's tasks (see `withStore`).
    public func withStore<T: Sendable>(_ body: (RecordStore) throws -> T) rethrows -> T { try body(store) }

    // MARK: - writes

    /// One catalogue write transaction, retried while another writer holds the
    /// lock; any other failure is SPEC D4.
    func write<T>(_ body: (RecordStore) throws -> T) throws -> T {
        do {
            return try store.writeTransaction(body)
        } catch let error as LibraryError {
            throw error
        } catch {
            throw LibraryError.couldNotRecord(error)
        }
    }

    // MARK: - reading

    /// Assets by id (those not catalogued are left out), in the order asked.
    public func assets(_ ids: [Int64]) throws -> [LibraryAsset] {
        guard !ids.isEmpty else { return [] }
        let list = ids.map(String.init).joined(separator: ",")
        let found = try load(where: "a.id IN (\(list))")
        let byID = Dictionary(found.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        return ids.compactMap { byID[$0] }
    }

    /// One asset.
    /// - Throws: `LibraryError.unknownAsset`.
    public func asset(_ id: Int64) throws -> LibraryAsset {
        guard let a = try assets([id]).first else { throw LibraryError.unknown(id) }
        return a
    }

    /// Which assets a listing shows.
    public enum Scope: String, Sendable {
        /// In the library (not in Recently Deleted), hidden ones included.
        case library
        /// Recently Deleted only (SPEC D1).
        case recentlyDeleted = "recently-deleted"
        /// The set-aside list (放一边).
        case setAside = "set-aside"
        /// Everything catalogued.
        case all
    }

    /// Every asset of `scope`, by capture date (undated first), then id; with an
    /// album name, only its members.
    public func list(_ scope: Scope = .library, album: String? = nil) throws -> [LibraryAsset] {
        var conditions: [String] = []
        switch scope {
        case .library: conditions.append("a.deleted_at_ms IS NULL")
        case .recentlyDeleted: conditions.append("a.deleted_at_ms IS NOT NULL")
        case .setAside: conditions.append("a.deleted_at_ms IS NULL AND a.id IN (SELECT asset_id FROM library_set_aside)")
        case .all: break
        }
        var values: [SQLValue] = []
        if let album {
            conditions.append("a.id IN (SELECT m.asset_id FROM library_album_members m JOIN library_albums l ON l.id = m.album_id WHERE l.name = ?)")
            values.append(.text(album))
        }
        return try load(where: conditions.isEmpty ? "1" : conditions.joined(separator: " AND "), values)
    }

    /// One row of the timeline: what a grid of thumbnails needs.
    public struct TimelineEntry: Sendable, Hashable {
        /// The catalogue's identifier of the asset.
        public var id: Int64
        /// Photo, Live or video.
        public var kind: AssetKind
        /// Capture time in milliseconds since 1970, nil when unknown.
        public var capturedAtMs: Int64?
        /// Marked as a favourite by the user.
        public var favorite: Bool
        /// Hidden from the library views and search.
        public var hidden: Bool
    }

    /// The library by capture date (undated first), then id, Recently Deleted
    /// left out: read from one covering index, nothing else.
    public func timeline() throws -> [TimelineEntry] {
        var entries: [TimelineEntry] = []
        entries.reserveCapacity(Int(try store.query("SELECT COUNT(*) FROM library_assets INDEXED BY library_timeline WHERE deleted_at_ms IS NULL")[0][0].int64 ?? 0))
        // the kind as a number: no String per row
        try store.forEachRow("""
            SELECT id, CASE kind WHEN 'live' THEN 1 WHEN 'video' THEN 2 ELSE 0 END, captured_at_ms, favorite, hidden
            FROM library_assets INDEXED BY library_timeline WHERE deleted_at_ms IS NULL ORDER BY captured_at_ms, id
            """) { c in
            let kind: AssetKind = switch c.int64(1) { case 1: .live; case 2: .video; default: .photo }
            entries.append(TimelineEntry(id: c.int64(0), kind: kind, capturedAtMs: c.isNull(2) ? nil : c.int64(2),
                                         favorite: c.int64(3) != 0, hidden: c.int64(4) != 0))
        }
        return entries
    }

    /// Album names with their member counts (Recently Deleted not counted).
    public func albums() throws -> [(name: String, count: Int)] {
        try store.query("""
            SELECT l.name, COUNT(a.id) FROM library_albums l
            LEFT JOIN library_album_members m ON m.album_id = l.id
            LEFT JOIN library_assets a ON a.id = m.asset_id AND a.deleted_at_ms IS NULL
            GROUP BY l.id ORDER BY l.name
            """).map { ($0[0].string ?? "", Int($0[1].int64 ?? 0)) }
    }

    /// Assets matching `condition` (SQL over alias `a`), by date then id, with
    /// their files, albums and tags: four queries, joined here.
    private func load(where condition: String, _ values: [SQLValue] = []) throws -> [LibraryAsset] {
        var assets: [LibraryAsset] = []
        var index: [Int64: Int] = [:]
        try store.forEachRow("""
            SELECT a.id, a.kind, a.capture_date, a.captured_at_ms, a.latitude, a.longitude, a.width, a.height,
                   a.duration_ms, a.content_identifier, a.favorite, a.hidden, a.origin, a.source_asset_id,
                   a.added_at_ms, a.deleted_at_ms, s.asset_id IS NOT NULL
            FROM library_assets a LEFT JOIN library_set_aside s ON s.asset_id = a.id
            WHERE \(condition) ORDER BY a.captured_at_ms, a.id
            """, values) { c in
            index[c.int64(0)] = assets.count
            assets.append(LibraryAsset(
                id: c.int64(0), originalKind: AssetKind(rawValue: c.text(1) ?? "") ?? .photo, captureDate: c.text(2),
                capturedAtMs: c.isNull(3) ? nil : c.int64(3),
                location: c.isNull(4) ? nil : LibraryLocation(latitude: c.double(4), longitude: c.double(5)),
                width: Int(c.int64(6)), height: Int(c.int64(7)), durationMs: Int(c.int64(8)),
                contentIdentifier: c.text(9), favorite: c.int64(10) != 0, hidden: c.int64(11) != 0,
                origin: AssetOrigin(rawValue: c.text(12) ?? "") ?? .import, sourceAssetID: c.isNull(13) ? nil : c.int64(13),
                addedAtMs: c.int64(14), deletedAtMs: c.isNull(15) ? nil : c.int64(15), setAside: c.int64(16) != 0,
                allFiles: [], albums: [], tags: []))
        }
        guard !assets.isEmpty else { return [] }
        let selected = "(SELECT a.id FROM library_assets a WHERE \(condition))"
        try store.forEachRow("""
            SELECT asset_id, role, path, bytes, sha256, width, height FROM library_files
            WHERE asset_id IN \(selected) ORDER BY asset_id, role
            """, values) { c in
            guard let n = index[c.int64(0)], let role = FileRole(rawValue: c.text(1) ?? "") else { return }
            assets[n].allFiles.append(LibraryFile(role: role, path: c.text(2) ?? "", bytes: c.int64(3), sha256: c.text(4) ?? "",
                                                  width: Int(c.int64(5)), height: Int(c.int64(6))))
        }
        try store.forEachRow("""
            SELECT m.asset_id, l.name FROM library_album_members m JOIN library_albums l ON l.id = m.album_id
            WHERE m.asset_id IN \(selected) ORDER BY l.name
            """, values) { c in
            if let n = index[c.int64(0)] { assets[n].albums.append(c.text(1) ?? "") }
        }
        try store.forEachRow("SELECT asset_id, tag FROM library_tags WHERE asset_id IN \(selected) ORDER BY tag", values) { c in
            if let n = index[c.int64(0)] { assets[n].tags.append(c.text(1) ?? "") }
        }
        return assets
    }

    // MARK: - catalogue-only edits

    /// Sets or clears the favourite mark.
    public func setFavorite(_ value: Bool, _ ids: [Int64]) throws {
        try requireCatalogued(ids)
        try write { s in
            for id in ids { try s.execute("UPDATE library_assets SET favorite = ? WHERE id = ?", [.bool(value), .integer(id)]) }
        }
    }

    /// Hides or shows assets.
    public func setHidden(_ value: Bool, _ ids: [Int64]) throws {
        try requireCatalogued(ids)
        try write { s in
            for id in ids { try s.execute("UPDATE library_assets SET hidden = ? WHERE id = ?", [.bool(value), .integer(id)]) }
        }
    }

    /// Adds tags (trimmed; empty ones refused); adding one twice is a no-op.
    public func addTags(_ tags: [String], to ids: [Int64]) throws {
        let tags = try Self.names(tags, what: "tag")
        try requireCatalogued(ids)
        try write { s in
            for id in ids {
                for tag in tags {
                    try s.execute("INSERT OR IGNORE INTO library_tags(asset_id, tag) VALUES (?, ?)", [.integer(id), .text(tag)])
                }
            }
        }
    }

    /// Removes tags.
    public func removeTags(_ tags: [String], from ids: [Int64]) throws {
        let tags = try Self.names(tags, what: "tag")
        try write { s in
            for id in ids {
                for tag in tags { try s.execute("DELETE FROM library_tags WHERE asset_id = ? AND tag = ?", [.integer(id), .text(tag)]) }
            }
        }
    }

    /// Adds assets to an album, creating it when new.
    public func addToAlbum(_ name: String, _ ids: [Int64]) throws {
        let name = try Self.names([name], what: "album name")[0]
        try requireCatalogued(ids)
        let now = clock()
        try write { s in try Self.add(ids, toAlbum: name, nowMs: now, in: s) }
    }

    /// Removes assets from an album (the album stays, possibly empty).
    public func removeFromAlbum(_ name: String, _ ids: [Int64]) throws {
        try write { s in
            for id in ids {
                try s.execute("""
                    DELETE FROM library_album_members WHERE asset_id = ?
                    AND album_id = (SELECT id FROM library_albums WHERE name = ?)
                    """, [.integer(id), .text(name)])
            }
        }
    }

    /// Renames an album (its members stay; search finds them by the new name).
    /// - Throws: `LibraryError.invalid` when the album does not exist or the new name is taken.
    public func renameAlbum(_ name: String, to newName: String) throws {
        let newName = try Self.names([newName], what: "album name")[0]
        try write { s in
            guard try !s.query("SELECT 1 FROM library_albums WHERE name = ?", [.text(name)]).isEmpty else {
                throw LibraryError(.invalid, "there is no album named \(name)")
            }
            let taken = try !s.query("SELECT 1 FROM library_albums WHERE name = ?", [.text(newName)]).isEmpty
            guard newName == name || !taken else {
                throw LibraryError(.invalid, "an album named \(newName) already exists")
            }
            try s.execute("UPDATE library_albums SET name = ? WHERE name = ?", [.text(newName), .text(name)])
        }
    }

    static func add(_ ids: [Int64], toAlbum name: String, nowMs: Int64, in s: RecordStore) throws {
        try s.execute("INSERT OR IGNORE INTO library_albums(name, created_at_ms) VALUES (?, ?)", [.text(name), .integer(nowMs)])
        for id in ids {
            try s.execute("""
                INSERT OR IGNORE INTO library_album_members(album_id, asset_id, added_at_ms)
                SELECT id, ?, ? FROM library_albums WHERE name = ?
                """, [.integer(id), .integer(nowMs), .text(name)])
        }
    }

    /// Trimmed, non-empty names.
    static func names(_ raw: [String], what: String) throws -> [String] {
        try raw.map {
            let name = $0.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !name.isEmpty else { throw LibraryError(.invalid, "an empty \(what) is not allowed") }
            return name
        }
    }

    /// Every id must be catalogued.
    func requireCatalogued(_ ids: [Int64]) throws {
        let known = Set(try assets(ids).map(\.id))
        if let missing = ids.first(where: { !known.contains($0) }) { throw LibraryError.unknown(missing) }
    }
}
