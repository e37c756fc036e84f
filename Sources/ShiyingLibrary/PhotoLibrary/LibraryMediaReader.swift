// What the library needs to know of a file before cataloguing it. The
// library itself reads no image format: the engine-backed reader
// (ShiyingOrganize's EngineMediaReader) is passed in, so this layer stays
// pure Swift + SQLite and its rules are testable with a scripted reader.
import Foundation

/// One file's catalogue facts.
public struct LibraryMediaFacts: Sendable, Hashable {
    /// Still or movie.
    public enum Medium: String, Sendable, Hashable {
        /// A still.
        case still
        /// A movie.
        case movie
    }

    /// Still or movie.
    public var medium: Medium
    /// Upright pixels (stills) or display size (movies).
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// 0 for stills.
    public var durationMs: Int
    /// "YYYY:MM:DD HH:MM:SS" as the file states it (local time), nil when absent.
    public var captureDate: String?
    /// Where it was taken, when known.
    public var location: LibraryLocation?
    /// The Live content identifier (still MakerNote / movie metadata), nil when none.
    public var contentIdentifier: String?
    /// The camera's make and model ("Apple iPhone 15 Plus"), nil when unknown.
    public var camera: String?

    /// Facts read from a file.
    public init(medium: Medium, width: Int, height: Int, durationMs: Int = 0, captureDate: String? = nil,
                location: LibraryLocation? = nil, contentIdentifier: String? = nil, camera: String? = nil) {
        self.medium = medium
        self.width = width
        self.height = height
        self.durationMs = durationMs
        self.captureDate = captureDate
        self.location = location
        self.contentIdentifier = contentIdentifier
        self.camera = camera
    }
}

/// A file's size and content digest.
public struct LibraryDigest: Sendable, Hashable {
    /// The file's size in bytes.
    public var bytes: Int64
    /// SHA-256, lowercase hex.
    public var sha256: String

    /// A digest from the size and the SHA-256.
    public init(bytes: Int64, sha256: String) {
        self.bytes = bytes
        self.sha256 = sha256
    }
}

/// Reads files for the library. Called from several worker threads at once.
public protocol LibraryMediaReader: Sendable {
    /// The facts of a still or movie.
    /// - Throws: when the file is not a still or movie the reader understands
    ///   (the import skips it and names it in its report).
    func facts(of path: String) throws -> LibraryMediaFacts
    /// Size and SHA-256 of the bytes.
    func digest(of path: String) throws -> LibraryDigest
}

/// The file types an import picks up, by extension (lowercased).
public enum LibraryFileTypes {
    /// Still file extensions the library imports.
    public static let stills: Set<String> = ["jpg", "jpeg", "png", "heic", "heif"]
    /// Movie file extensions the library imports.
    public static let movies: Set<String> = ["mov", "mp4", "m4v"]
    /// Animated image extensions (a video converted to GIF, SPEC S3): catalogued
    /// as photos; the file states no date or place, the conversion's source does.
    public static let animations: Set<String> = ["gif"]
    /// Whether a file name has one of those extensions.
    public static func isMedia(_ path: String) -> Bool {
        let ext = (path as NSString).pathExtension.lowercased()
        return stills.contains(ext) || movies.contains(ext) || animations.contains(ext)
    }
}
