// SPEC E7: saving an edit writes new pixels over a library photo, so first
// prove the pixels came from the full-size original and not from a smaller
// stand-in (thumbnail, proxy, preview cache). The old code had no such gate.
// When the proof is incomplete ("unsure"), write nothing: not writing is
// safer than overwriting an original with a smaller copy.
import Foundation

/// Pixel dimensions of an upright image (file orientation applied).
public struct PixelSize: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// - Parameters: width and height in pixels.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public var description: String { "\(width)×\(height)" }
}

/// Which file: its byte size and a content digest (e.g. SHA-256 hex).
public struct FileIdentity: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The file's size in bytes.
    public var byteSize: Int64
    /// SHA-256 of the file's bytes, lowercase hex.
    public var contentDigest: String

    /// - Parameters: the file's size in bytes and its content digest.
    public init(byteSize: Int64, contentDigest: String) {
        self.byteSize = byteSize
        self.contentDigest = contentDigest
    }

    public var description: String { "\(byteSize) bytes, digest \(contentDigest)" }
}

/// What the decode that produced the pixels actually saw. Every field is
/// optional because the caller may not know it; a missing field means "unsure".
public struct SourceEvidence: Sendable, Hashable {
    /// Where the decoded pixels came from.
    public enum Origin: String, Sendable, Hashable, Codable {
        /// The library's original file itself.
        case originalFile
        /// A thumbnail (embedded or generated).
        case thumbnail
        /// A reduced-size proxy rendition.
        case proxy
        /// A cached preview rendition.
        case previewCache

        /// Words for messages.
        var label: String {
            switch self {
            case .originalFile: return "original file"
            case .thumbnail: return "thumbnail"
            case .proxy: return "proxy"
            case .previewCache: return "preview cache"
            }
        }
    }

    /// Size of the decoded pixels, after orientation.
    public var decodedSize: PixelSize?
    /// Where those pixels came from.
    public var origin: Origin?
    /// The full dimensions recorded in the header of the file that was read (upright).
    public var headerFullSize: PixelSize?
    /// Identity of the file that was read.
    public var fileIdentity: FileIdentity?

    /// - Parameters: see the properties; nil = not known.
    public init(decodedSize: PixelSize? = nil, origin: Origin? = nil, headerFullSize: PixelSize? = nil,
                fileIdentity: FileIdentity? = nil) {
        self.decodedSize = decodedSize
        self.origin = origin
        self.headerFullSize = headerFullSize
        self.fileIdentity = fileIdentity
    }
}

/// What the library records about the original about to be overwritten.
public struct OriginalRecord: Sendable, Hashable {
    /// The original's full pixel size (upright).
    public var fullSize: PixelSize?
    /// The original file's identity.
    public var fileIdentity: FileIdentity?

    /// - Parameters: see the properties; nil = not known.
    public init(fullSize: PixelSize? = nil, fileIdentity: FileIdentity? = nil) {
        self.fullSize = fullSize
        self.fileIdentity = fileIdentity
    }
}

/// The gate refused: the pixels are not proven to be the full-size original,
/// and nothing was written.
public struct FullSizeGateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why the gate refused.
    public enum Reason: Sendable, Hashable {
        /// Evidence is missing (names of the missing facts).
        case unsure(missing: [String])
        /// The pixels came from a stand-in, not the original file.
        case notOriginalFile(SourceEvidence.Origin)
        /// The file read is not the library's original file.
        case differentFile(read: FileIdentity, original: FileIdentity)
        /// The file's header does not record the original's full size.
        case headerMismatch(header: PixelSize, original: PixelSize)
        /// The decode produced fewer (or other) pixels than the full size.
        case notFullSize(decoded: PixelSize, fullSize: PixelSize)
    }

    /// Why the gate refused.
    public let reason: Reason

    /// - Parameter reason: why the gate refused.
    public init(_ reason: Reason) { self.reason = reason }

    /// One sentence: what is wrong, then "Nothing was written."
    public var message: String {
        let detail: String
        switch reason {
        case .unsure(let missing):
            return "Cannot confirm the source is the full-size original (unknown: \(missing.joined(separator: ", "))). Nothing was written."
        case .notOriginalFile(let origin):
            detail = "the pixels came from a \(origin.label), not the original file"
        case .differentFile(let read, let original):
            detail = "the file read (\(read)) is not the original (\(original))"
        case .headerMismatch(let header, let original):
            detail = "the file read records \(header) pixels but the original is \(original)"
        case .notFullSize(let decoded, let fullSize):
            detail = "decoded \(decoded) pixels but the full size is \(fullSize)"
        }
        return "The source is not the full-size original: \(detail). Nothing was written."
    }

    public var description: String { message }
}

/// SPEC E7: the check before writing edited pixels over a library original.
public enum FullSizeGate {
    /// Passes only when the pixels provably come from the full-size original:
    /// every fact is known, the source is the original file, the file read is
    /// the original (same size and digest), its header records the original's
    /// full size, and the decode produced exactly that many pixels.
    /// - Parameters:
    ///   - source: what the decode actually produced and read.
    ///   - original: the library's record of the photo to overwrite.
    /// - Throws: `FullSizeGateError` with the first failed condition
    ///   (missing facts first: unsure → refuse).
    public static func check(source: SourceEvidence, original: OriginalRecord) throws {
        var missing: [String] = []
        if !isKnown(source.decodedSize) { missing.append("decoded size") }
        if source.origin == nil { missing.append("source origin") }
        if !isKnown(source.headerFullSize) { missing.append("file header size") }
        if !isKnown(source.fileIdentity) { missing.append("identity of the file read") }
        if !isKnown(original.fullSize) { missing.append("original's full size") }
        if !isKnown(original.fileIdentity) { missing.append("original's file identity") }
        guard missing.isEmpty, let decoded = source.decodedSize, let origin = source.origin,
              let header = source.headerFullSize, let readFile = source.fileIdentity,
              let fullSize = original.fullSize, let originalFile = original.fileIdentity else {
            throw FullSizeGateError(.unsure(missing: missing))
        }
        guard origin == .originalFile else { throw FullSizeGateError(.notOriginalFile(origin)) }
        guard readFile == originalFile else { throw FullSizeGateError(.differentFile(read: readFile, original: originalFile)) }
        guard header == fullSize else { throw FullSizeGateError(.headerMismatch(header: header, original: fullSize)) }
        guard decoded == fullSize else { throw FullSizeGateError(.notFullSize(decoded: decoded, fullSize: fullSize)) }
    }

    /// Checks, then replaces the file at `path` with `data` (temp file +
    /// rename). On refusal or failure the existing file is untouched.
    /// - Throws: `FullSizeGateError` (nothing written) or `ShiyingError` (`.io`).
    public static func overwrite(_ path: String, with data: Data, source: SourceEvidence, original: OriginalRecord) throws {
        try check(source: source, original: original)
        try AtomicFile.replace(path, with: data)
    }

    /// A size is known when both sides are positive (0×0 is how unknown sizes often arrive).
    private static func isKnown(_ size: PixelSize?) -> Bool {
        guard let size else { return false }
        return size.width > 0 && size.height > 0
    }

    /// An identity is known when it has a positive size and a digest.
    private static func isKnown(_ identity: FileIdentity?) -> Bool {
        guard let identity else { return false }
        return identity.byteSize > 0 && !identity.contentDigest.isEmpty
    }
}
