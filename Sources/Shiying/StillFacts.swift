// What a photo library catalogues about a still (`sy_still_read_facts`): the
// header, the capture date, the GPS position and the camera, without decoding a pixel.
internal import CShiying

/// A position in signed decimal degrees (north and east positive).
public struct GeoPosition: Sendable, Codable, Hashable {
    /// Latitude in degrees (WGS 84, north positive).
    public var latitude: Double
    /// Longitude in degrees (WGS 84, east positive).
    public var longitude: Double

    /// - Parameters: latitude in -90...90, longitude in -180...180.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// A still's catalogue facts.
public struct StillFacts: Sendable, Codable, Equatable {
    /// Format and upright size, as `ImageInfo.probe` gives them.
    public var info: ImageInfo
    /// Exif "YYYY:MM:DD HH:MM:SS" (DateTimeOriginal, else DateTime); nil when absent.
    public var captureDate: String?
    /// The Exif GPS position; nil when absent or incomplete.
    public var location: GeoPosition?
    /// Exif Make + Model ("Apple iPhone 15 Plus"); nil when absent.
    public var camera: String? = nil
    /// The Live photo content identifier (Apple MakerNote) the paired movie shares; nil when absent.
    public var contentIdentifier: String? = nil
}

/// Reads stills' catalogue facts with one engine context (reuse it for a batch).
/// Not Sendable in spirit: one reader per thread.
public final class StillFactsReader: @unchecked Sendable {
    private let engine: EngineContext

    /// - Throws: `ShiyingError` when the engine context cannot be made.
    public init() throws { engine = try EngineContext() }

    /// One whole-file probe and one metadata read of `path`.
    /// - Throws: `ShiyingError` naming the file when it is not a readable still
    ///   (a truncated copy included).
    public func read(_ path: String) throws -> StillFacts {
        var facts = sy_still_facts()
        var error = sy_error()
        try check(sy_still_read_facts(engine.raw, path, &facts, &error), error, file: path)
        let i = facts.info
        let info = ImageInfo(format: String(cString: sy_image_format_name(i.format)), width: Int(i.width),
                             height: Int(i.height), storedWidth: Int(i.stored_width), storedHeight: Int(i.stored_height),
                             orientation: Int(i.orientation), progressive: i.progressive != 0)
        func text<T>(_ field: T) -> String? {
            let s = withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            return s.isEmpty ? nil : s
        }
        return StillFacts(info: info, captureDate: text(facts.capture_date),
                          location: facts.has_location != 0
                              ? GeoPosition(latitude: facts.latitude, longitude: facts.longitude) : nil,
                          camera: text(facts.camera), contentIdentifier: text(facts.content_identifier))
    }
}
