// Versions (SPEC E1, E7): an edit writes a rendition beside the original,
// never over it; revert removes the rendition and the original is current
// again (a Live photo whose edit became a still is Live again).
import Foundation

/// What the library recorded of an asset's original when it was catalogued:
/// the E7 gate compares the pixels about to be written against it.
public struct LibraryOriginal: Sendable, Hashable {
    /// The asset's identifier.
    public var assetID: Int64
    /// Photo, Live or video.
    public var kind: AssetKind
    /// Absolute path of the original still (or a video's movie).
    public var path: String
    /// Absolute path of a Live original's movie.
    public var moviePath: String?
    /// Upright pixels as catalogued.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// The file's size in bytes.
    public var bytes: Int64
    /// SHA-256 of the file's bytes, lowercase hex.
    public var sha256: String
    /// A Live original's movie as catalogued: display size, bytes, SHA-256 (nil otherwise).
    public var movie: LibraryFile?
}

extension PhotoLibrary {
    /// The catalogued original of an asset in the library.
    /// - Throws: `LibraryError.unknownAsset` (also for one in Recently Deleted).
    public func original(of id: Int64) throws -> LibraryOriginal {
        let a = try asset(id)
        guard a.deletedAtMs == nil, let still = a.file(.original) else { throw LibraryError.unknown(id) }
        return LibraryOriginal(assetID: id, kind: a.originalKind, path: folder.absolute(still.path),
                               moviePath: a.file(.originalMovie).map { folder.absolute($0.path) },
                               width: still.width, height: still.height, bytes: still.bytes, sha256: still.sha256,
                               movie: a.file(.originalMovie))
    }

    /// Makes staged files the asset's current rendition (replacing an older
    /// one): renamed into renditions/ID/, synced, committed; then the old
    /// rendition's files are removed. `movie` nil for a still rendition (a
    /// Live photo edited with a border, SPEC E1). The staged files are consumed.
    /// - Throws: `LibraryError` (unknown asset, I/O, D4 — nothing changes then).
    public func setRendition(_ id: Int64, still: String, movie: String? = nil,
                             reader: some LibraryMediaReader) throws -> LibraryAsset {
        defer {
            unlink(still)
            if let movie { unlink(movie) }
        }
        let before = try asset(id)
        guard before.deletedAtMs == nil else { throw LibraryError.unknown(id) }
        let stillFacts = try reader.facts(of: still), stillDigest = try reader.digest(of: still)
        let movieFacts = try movie.map { try reader.facts(of: $0) }, movieDigest = try movie.map { try reader.digest(of: $0) }
        let lock = try LibraryFileLock(folder)
        defer { lock.release() }
        let version = clock()
        func target(_ staged: String) -> String {
            "renditions/\(id)/\(version)-\(UInt32.random(in: 0...UInt32.max)).\((staged as NSString).pathExtension)"
        }
        var placed: [(FileRole, String)] = [(.rendition, target(still))]
        if let movie { placed.append((.renditionMovie, target(movie))) }
        let journaled = placed.map(\.1)
        do {
            try journal(journaled)
            try LibraryFolder.move(still, to: folder.absolute(placed[0].1))
            if let movie { try LibraryFolder.move(movie, to: folder.absolute(placed[1].1)) }
            try folder.sync(fallback: placed.map { folder.absolute($0.1) })
        } catch {
            for (_, p) in placed { unlink(folder.absolute(p)) }
            clearJournal(journaled)
            throw error
        }
        do {
            try write { s in
                try Self.clearJournal(journaled, in: s)
                try s.execute("DELETE FROM library_files WHERE asset_id = ? AND role IN ('rendition', 'rendition_movie')", [.integer(id)])
                try s.execute("INSERT INTO library_files(asset_id, role, path, bytes, sha256, width, height) VALUES (?,?,?,?,?,?,?)",
                              [.integer(id), .text(FileRole.rendition.rawValue), .text(placed[0].1), .integer(stillDigest.bytes),
                               .text(stillDigest.sha256), .int(stillFacts.width), .int(stillFacts.height)])
                if let movieFacts, let movieDigest {
                    try s.execute("INSERT INTO library_files(asset_id, role, path, bytes, sha256, width, height) VALUES (?,?,?,?,?,?,?)",
                                  [.integer(id), .text(FileRole.renditionMovie.rawValue), .text(placed[1].1),
                                   .integer(movieDigest.bytes), .text(movieDigest.sha256), .int(movieFacts.width),
                                   .int(movieFacts.height)])
                }
            }
        } catch {
            for (_, p) in placed { unlink(folder.absolute(p)) }
            clearJournal(journaled)
            throw error
        }
        for old in before.allFiles where old.role.isRendition { unlink(folder.absolute(old.path)) }
        rmdir(folder.absolute("renditions/\(id)")) // emptied: no folder of a version that is gone
        return try asset(id)
    }

    /// SPEC E1: the original is current again; the rendition's files are removed.
    /// - Throws: `LibraryError.invalid` when there is no edit to revert.
    public func revert(_ id: Int64) throws -> LibraryAsset {
        let before = try asset(id)
        guard before.edited else { throw LibraryError(.invalid, "asset \(id) has no edit to revert") }
        let lock = try LibraryFileLock(folder)
        defer { lock.release() }
        try write { s in
            try s.execute("DELETE FROM library_files WHERE asset_id = ? AND role IN ('rendition', 'rendition_movie')", [.integer(id)])
        }
        for old in before.allFiles where old.role.isRendition { unlink(folder.absolute(old.path)) }
        return try asset(id)
    }
}
