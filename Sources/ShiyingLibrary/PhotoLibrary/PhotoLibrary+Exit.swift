// The one exit path (SPEC S3, C9): every file the engine produces for the
// library — a conversion's copy, a creation such as a collage — enters it
// through `deposit`, which decides its album and the metadata it carries,
// places the files, registers the asset and reports where it went.
import Foundation

/// A new asset the engine produced into the library's staging folder.
public struct LibraryOutput: Sendable {
    /// Why it exists, which decides what it carries.
    public enum Purpose: Sendable, Hashable {
        /// SPEC S3: a copy of `source` (nil when the input was not a library
        /// asset) in another form: carries capture date, location, favourite,
        /// albums and tags; goes to 「拾映转换」.
        case conversion(source: Int64?)
        /// SPEC C9: a creation from `sources` (collage): album 「拾映创作」
        /// only, no location, no inherited album, tag or favourite.
        case creation(sources: [Int64])
    }

    /// Why the asset is deposited and what it inherits.
    public var purpose: Purpose
    /// The staged still (or a video's movie); from `PhotoLibrary.stagingPath`.
    public var primary: String
    /// The staged movie of a Live output.
    public var movie: String?
    /// The file name it gets in the library ("IMG_0001.heic"; the movie takes its stem).
    public var name: String
    /// A conversion's input that is not a library asset: its facts, whose
    /// capture date and location the copy carries when it states none itself
    /// (a GIF states neither).
    public var sourceFacts: LibraryMediaFacts?

    /// An output to deposit.
    public init(purpose: Purpose, primary: String, movie: String? = nil, name: String,
                sourceFacts: LibraryMediaFacts? = nil) {
        self.purpose = purpose
        self.primary = primary
        self.movie = movie
        self.name = name
        self.sourceFacts = sourceFacts
    }
}

/// Where a deposited asset went and what it carries.
public struct LibraryOutputReport: Sendable, Codable, Hashable {
    /// The new asset's identifier.
    public var id: Int64
    /// Photo, Live or video.
    public var kind: AssetKind
    /// The album the exit path put it in (「拾映转换」 or 「拾映创作」).
    public var album: String
    /// Absolute paths of its files.
    public var files: [String]
    /// The capture date (Exif form, local time), nil when unknown.
    public var captureDate: String?
    /// Where it was taken, when known.
    public var location: LibraryLocation?
    /// Marked as a favourite by the user.
    public var favorite: Bool
    /// Every album it is in, the exit path's included.
    public var albums: [String]
    /// User tags.
    public var tags: [String]
    /// The asset this one was made from (a conversion or edit), if any.
    public var sourceAssetID: Int64?
}

extension PhotoLibrary {
    /// A fresh path in the staging folder for the engine to write into (the
    /// name carries this process's id: recovery leaves it alone while we run).
    public nonisolated func stagingPath(extension ext: String) -> String { folder.stagingPath(extension: ext) }

    /// Finds the asset a file is: a catalogued file's path, an imported source
    /// path, or a catalogued original with the same bytes.
    public func assetID(forFile path: String, reader: some LibraryMediaReader) throws -> Int64? {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        if absolute.hasPrefix(folder.root + "/") {
            let relative = String(absolute.dropFirst(folder.root.count + 1))
            if let id = try store.query("SELECT asset_id FROM library_files WHERE path = ?", [.text(relative)]).first?.first?.int64 {
                return id
            }
        }
        if let id = try store.query("SELECT asset_id FROM library_sources WHERE path = ?", [.text(absolute)]).first?.first?.int64 {
            return id
        }
        let digest = try reader.digest(of: absolute)
        return try store.query("SELECT asset_id FROM library_files WHERE sha256 = ? ORDER BY asset_id LIMIT 1",
                               [.text(digest.sha256)]).first?.first?.int64
    }

    /// THE exit path: registers `output` as a new asset, in its album, with
    /// the metadata its purpose carries (see `LibraryOutput.Purpose`), and
    /// reports where it went. Under the file lock: the staged files are
    /// renamed into originals/YYYY/MM/, synced, then the rows are committed;
    /// if the commit fails the files are removed (SPEC D4) and nothing is
    /// registered. The staged files are consumed either way.
    /// - Throws: `LibraryError` (unknown source asset, unreadable output, D4).
    public func deposit(_ output: LibraryOutput, reader: some LibraryMediaReader) throws -> LibraryOutputReport {
        defer {
            unlink(output.primary)
            if let movie = output.movie { unlink(movie) }
        }
        let facts = try reader.facts(of: output.primary)
        let digest = try reader.digest(of: output.primary)
        let movieFacts = try output.movie.map { try reader.facts(of: $0) }
        let movieDigest = try output.movie.map { try reader.digest(of: $0) }
        let now = clock()
        let kind: AssetKind = output.movie != nil ? .live : facts.medium == .movie ? .video : .photo

        // what it carries (S3 / C9): a Live pair's date and place are the
        // still's, else its movie's (a video made Live dates its still from the movie)
        var captureDate = facts.captureDate ?? movieFacts?.captureDate
        var location = facts.location ?? movieFacts?.location
        let camera = facts.camera ?? movieFacts?.camera
        var favorite = false, albums: [String] = [], tags: [String] = [], source: Int64?
        let album: String
        switch output.purpose {
        case .conversion(let from):
            album = LibraryAlbum.conversions
            if let from {
                let s = try asset(from)
                source = from
                captureDate = s.captureDate ?? captureDate
                location = s.location ?? location
                favorite = s.favorite
                albums = s.albums
                tags = s.tags
            } else if let input = output.sourceFacts {
                captureDate = captureDate ?? input.captureDate
                location = location ?? input.location
            }
        case .creation(let sources):
            album = LibraryAlbum.creations
            try requireCatalogued(sources)
            location = nil
            captureDate = captureDate ?? Self.exifDate(now)
        }
        albums = Array(Set(albums + [album])).sorted()

        let lock = try LibraryFileLock(folder)
        defer { lock.release() }
        let ms = captureDate.flatMap(ExifCaptureTime.milliseconds)
        let stillPath = folder.freeOriginalPath(name: output.name, capturedAtMs: ms, taken: { _ in false })
        let moviePath = output.movie.map { staged in
            folder.freeOriginalPath(name: ((output.name as NSString).deletingPathExtension as NSString)
                                        .appendingPathExtension((staged as NSString).pathExtension) ?? output.name,
                                    capturedAtMs: ms, taken: { $0 == stillPath })
        }
        var placed: [String] = []
        let journaled = [stillPath] + (moviePath.map { [$0] } ?? [])
        do {
            try journal(journaled)
            try LibraryFolder.move(output.primary, to: folder.absolute(stillPath))
            placed.append(stillPath)
            if let movie = output.movie, let moviePath {
                try LibraryFolder.move(movie, to: folder.absolute(moviePath))
                placed.append(moviePath)
            }
            try folder.sync(fallback: placed.map(folder.absolute))
        } catch {
            for p in placed { unlink(folder.absolute(p)) }
            clearJournal(journaled)
            throw error
        }
        let id: Int64
        do {
            id = try write { s in
                try Self.clearJournal(journaled, in: s)
                let id = try s.query("""
                    INSERT INTO library_assets(kind, capture_date, captured_at_ms, latitude, longitude, width, height,
                        duration_ms, content_identifier, camera, favorite, origin, source_asset_id, added_at_ms)
                    VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?) RETURNING id
                    """, [.text(kind.rawValue), captureDate.map(SQLValue.text) ?? .null,
                          .integer(ms ?? now),
                          location.map { .real($0.latitude) } ?? .null, location.map { .real($0.longitude) } ?? .null,
                          .int(facts.width), .int(facts.height), .int(movieFacts?.durationMs ?? facts.durationMs),
                          (movieFacts?.contentIdentifier ?? facts.contentIdentifier).map(SQLValue.text) ?? .null,
                          camera.map(SQLValue.text) ?? .null, .bool(favorite), .text(Self.origin(output.purpose).rawValue),
                          source.map(SQLValue.integer) ?? .null, .integer(now)])[0][0].int64!
                try s.execute("INSERT INTO library_files(asset_id, role, path, bytes, sha256, width, height) VALUES (?,?,?,?,?,?,?)",
                              [.integer(id), .text(FileRole.original.rawValue),
                               .text(stillPath), .integer(digest.bytes), .text(digest.sha256), .int(facts.width), .int(facts.height)])
                if let moviePath, let movieDigest, let movieFacts {
                    try s.execute("INSERT INTO library_files(asset_id, role, path, bytes, sha256, width, height) VALUES (?,?,?,?,?,?,?)",
                                  [.integer(id), .text(FileRole.originalMovie.rawValue), .text(moviePath),
                                   .integer(movieDigest.bytes), .text(movieDigest.sha256), .int(movieFacts.width),
                                   .int(movieFacts.height)])
                }
                for name in albums { try Self.add([id], toAlbum: name, nowMs: now, in: s) }
                for tag in tags {
                    try s.execute("INSERT OR IGNORE INTO library_tags(asset_id, tag) VALUES (?, ?)", [.integer(id), .text(tag)])
                }
                return id
            }
        } catch {
            for p in placed { unlink(folder.absolute(p)) }
            clearJournal(journaled)
            throw error
        }
        return LibraryOutputReport(id: id, kind: kind, album: album, files: placed.map(folder.absolute),
                                   captureDate: captureDate, location: location, favorite: favorite, albums: albums,
                                   tags: tags.sorted(), sourceAssetID: source)
    }

    private static func origin(_ purpose: LibraryOutput.Purpose) -> AssetOrigin {
        if case .conversion = purpose { return .conversion }
        return .creation
    }

    /// Unix ms as an Exif-style date, UTC ("YYYY:MM:DD HH:MM:SS").
    static func exifDate(_ ms: Int64) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy:MM:dd HH:mm:ss"
        return formatter.string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
    }
}
