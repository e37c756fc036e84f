// What the photo library's catalogue holds: assets, their files, their metadata.

/// Photo, Live photo (a still + a movie, one asset) or video.
public enum AssetKind: String, Sendable, Codable, Hashable {
    case photo, live, video
}

/// Which file of an asset: the original (the still, or a video's movie), a
/// Live original's movie, and the current rendition's still and movie.
public enum FileRole: String, Sendable, Codable, Hashable {
    case original
    case originalMovie = "original_movie"
    case rendition
    case renditionMovie = "rendition_movie"

    /// An edit's files; the originals are never touched by an edit (SPEC E1).
    public var isRendition: Bool { self == .rendition || self == .renditionMovie }
}

/// Where an asset came from: an import, a conversion (SPEC S3) or a creation (SPEC C9).
public enum AssetOrigin: String, Sendable, Codable, Hashable {
    case `import`, conversion, creation
}

/// A position in signed decimal degrees (north and east positive).
public struct LibraryLocation: Sendable, Codable, Hashable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// One file of an asset, as catalogued.
public struct LibraryFile: Sendable, Codable, Hashable {
    public var role: FileRole
    /// Relative to the library folder ("originals/2024/05/IMG_0001.HEIC").
    public var path: String
    public var bytes: Int64
    /// SHA-256 of the bytes, lowercase hex.
    public var sha256: String
    /// Upright pixels (stills) or display size (movies).
    public var width: Int
    public var height: Int
}

/// One asset with its current version and its metadata.
public struct LibraryAsset: Sendable, Codable, Hashable {
    public var id: Int64
    /// The kind of the original (a Live photo stays Live after an edit made it a still: revert brings it back).
    public var originalKind: AssetKind
    public var captureDate: String?
    /// `captureDate` read as UTC, Unix ms (for ordering).
    public var capturedAtMs: Int64?
    public var location: LibraryLocation?
    public var width: Int
    public var height: Int
    public var durationMs: Int
    public var contentIdentifier: String?
    public var favorite: Bool
    public var hidden: Bool
    public var origin: AssetOrigin
    public var sourceAssetID: Int64?
    public var addedAtMs: Int64
    /// In Recently Deleted since (Unix ms); nil = in the library.
    public var deletedAtMs: Int64?
    public var setAside: Bool
    /// Every catalogued file, originals first.
    public var allFiles: [LibraryFile]
    public var albums: [String]
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
