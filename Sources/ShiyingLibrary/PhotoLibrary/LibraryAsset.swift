// What the photo library's catalogue holds: assets, their files, their metadata.

/// Photo, Live photo (a still + a movie, one asset) or video.
public enum AssetKind: String, Sendable, Codable, Hashable {
    /// A still photo.
    case photo
    /// A Live photo (still + movie).
    case live
    /// A video.
    case video
}

/// Which file of an asset: the original (the still, or a video's movie), a
/// Live original's movie, and the current rendition's still and movie.
public enum FileRole: String, Sendable, Codable, Hashable, CaseIterable {
    /// The original still.
    case original
    /// The original movie (a Live photo's or a video).
    case originalMovie = "original_movie"
    /// An edited still.
    case rendition
    /// An edited movie.
    case renditionMovie = "rendition_movie"

    /// An edit's files; the originals are never touched by an edit (SPEC E1).
    public var isRendition: Bool { self == .rendition || self == .renditionMovie }
}

/// Where an asset came from: an import, a conversion (SPEC S3) or a creation (SPEC C9).
public enum AssetOrigin: String, Sendable, Codable, Hashable {
    /// Made in the app (a collage, an edit saved as new).
    case `import`, conversion, creation
}

/// A position in signed decimal degrees (north and east positive).
public struct LibraryLocation: Sendable, Codable, Hashable {
    /// Latitude in degrees (WGS 84, north positive).
    public var latitude: Double
    /// Longitude in degrees (WGS 84, east positive).
    public var longitude: Double

    /// A location in degrees.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// One file of an asset, as catalogued.
public struct LibraryFile: Sendable, Codable, Hashable {
    /// What the file is to its asset.
    public var role: FileRole
    /// Relative to the library folder ("originals/2024/05/IMG_0001.HEIC").
    public var path: String
    /// The file's size in bytes.
    public var bytes: Int64
    /// SHA-256 of the bytes, lowercase hex.
    public var sha256: String
    /// Upright pixels (stills) or display size (movies).
    public var width: Int
    /// Height in pixels.
    public var height: Int
}

/// One asset with its current version and its metadata.
public struct LibraryAsset: Sendable, Codable, Hashable {
    /// The catalogue's identifier of the asset.
    public var id: Int64
    /// The kind of the original (a Live photo stays Live after an edit made it a still: revert brings it back).
    public var originalKind: AssetKind
    /// The capture date (Exif form, local time), nil when unknown.
    public var captureDate: String?
    /// `captureDate` read as UTC, Unix ms (for ordering).
    public var capturedAtMs: Int64?
    /// Where it was taken, when known.
    public var location: LibraryLocation?
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// Duration in milliseconds; nil or 0 for a still.
    public var durationMs: Int
    /// The Live content identifier (a 36-character UUID) shared by the still and the movie.
    public var contentIdentifier: String?
    /// Marked as a favourite by the user.
    public var favorite: Bool
    /// Hidden from the library views and search.
    public var hidden: Bool
    /// How it came into the library.
    public var origin: AssetOrigin
    /// The asset this one was made from (a conversion or edit), if any.
    public var sourceAssetID: Int64?
    /// When it was added, in milliseconds since 1970.
    public var addedAtMs: Int64
    /// In Recently Deleted since (Unix ms); nil = in the library.
    public var deletedAtMs: Int64?
    /// Set aside by the organize review (not deleted).
    public var setAside: Bool
    /// Every catalogued file, originals first.
    public var allFiles: [LibraryFile]
    /// Albums the asset is in.
    public var albums: [String]
    /// User tags.
    public var tags: [String]

    /// Whether a rendition (an edit) is the current version.
    public var edited: Bool { allFiles.contains { $0.role.isRendition } }

    /// The files of the current version: the rendition when edited, else the originals.
    public var currentFiles: [LibraryFile] {
        edited ? allFiles.filter { $0.role.isRendition } : allFiles.filter { !$0.role.isRendition }
    }

    /// What the current version is: an edited Live photo whose rendition has no
    /// movie is a photo (SPEC E1: a border makes a still).
    public var kind: AssetKind {
        guard edited, originalKind == .live else { return originalKind }
        return allFiles.contains { $0.role == .renditionMovie } ? .live : .photo
    }

    /// The file of `role`, if catalogued.
    public func file(_ role: FileRole) -> LibraryFile? { allFiles.first { $0.role == role } }
}

/// The album names the exit path writes into.
public enum LibraryAlbum {
    /// SPEC S3: every conversion's copy.
    public static let conversions = "拾映转换"
    /// SPEC C9: every creation (collage).
    public static let creations = "拾映创作"
}
