import Foundation
internal import CShiying

/// What a still image file is, from its header (`sy_image_probe`).
public struct ImageInfo: Sendable, Codable, Equatable {
    /// The file's format ("jpeg", "png", "heic").
    public var format: String
    /// Upright size (EXIF orientation applied).
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// Width as stored, before the orientation is applied.
    public var storedWidth: Int
    /// Height as stored, before the orientation is applied.
    public var storedHeight: Int
    /// The EXIF orientation, 1…8 (1 = upright).
    public var orientation: Int
    /// A progressive JPEG.
    public var progressive: Bool

    /// Reads only the header of `path`; with `whole`, also checks that the file
    /// holds its whole image (a JPEG reaches its end marker, a HEIF's tiles lie
    /// inside it) — a truncated copy's header reads fine.
    /// - Throws: `ShiyingError` naming the file and the reason.
    public static func probe(_ path: String, whole: Bool = false) throws -> ImageInfo {
        let engine = try EngineContext()
        var info = sy_image_info()
        var error = sy_error()
        let status = whole ? sy_image_probe_whole(engine.raw, path, &info, &error)
                           : sy_image_probe(engine.raw, path, &info, &error)
        try check(status, error, file: path)
        return ImageInfo(format: String(cString: sy_image_format_name(info.format)), width: Int(info.width),
                         height: Int(info.height), storedWidth: Int(info.stored_width),
                         storedHeight: Int(info.stored_height), orientation: Int(info.orientation),
                         progressive: info.progressive != 0)
    }
}
