// The organizer's per-photo facts from the engine (sy_fingerprint_file).
internal import CShiying

/// What a scan records about one still (issue 9; SPEC D6–D9).
public struct PhotoFingerprint: Sendable, Codable, Equatable {
    public var path: String
    /// "jpeg", "png" or "heif".
    public var format: String
    /// Upright size.
    public var width: Int
    public var height: Int
    public var orientation: Int
    public var fileBytes: Int64
    /// SHA-256 of the file's bytes.
    public var fileSHA256: String
    /// SHA-256 of the decoded full-resolution pixels (+ size and orientation).
    public var pixelSHA256: String
    /// 64-bit DCT perceptual hash (imagehash.phash layout).
    public var phash: UInt64
    /// Laplacian variance of the analysis plane.
    public var sharpness: Double
    public var clippedFraction: Double
    public var meanLuma: Double
    /// Quality score in [0, 1] (sy_fingerprint.h documents the formula).
    public var quality: Double
    /// Exif "YYYY:MM:DD HH:MM:SS", nil when absent.
    public var captureDate: String?
    public var hasCamera: Bool
    /// A real screenshot marker (Exif UserComment / XMP), never "no camera data".
    public var screenshotMarker: Bool
    public var animated: Bool
}

/// Computes fingerprints with one engine context (accounting allocator, budget).
/// Not Sendable: one scan at a time; `cancel()` may be called from any thread.
public final class Fingerprinter: @unchecked Sendable {
    private let engine: EngineContext

    /// - Parameter budgetBytes: the engine's hard cap (12 MB by default, the strip budget).
    public init(budgetBytes: Int = 12 << 20) throws {
        engine = try EngineContext(budgetBytes: budgetBytes)
    }

    /// Fingerprints one still: one full-resolution strip-wise decode.
    /// - Throws: `ShiyingError` naming the file and the reason.
    /// Wraps `sy_fingerprint_file`.
    public func fingerprint(_ path: String) throws -> PhotoFingerprint {
        var fp = sy_fingerprint()
        var error = sy_error()
        try check(sy_fingerprint_file(engine.raw, path, &fp, &error), error, file: path)
        let date = fixedString(fp.capture_date)
        return PhotoFingerprint(
            path: path, format: String(cString: sy_image_format_name(fp.format)), width: Int(fp.width),
            height: Int(fp.height), orientation: Int(fp.orientation), fileBytes: Int64(fp.file_bytes),
            fileSHA256: fixedString(fp.file_sha256), pixelSHA256: fixedString(fp.pixel_sha256), phash: fp.phash,
            sharpness: fp.sharpness, clippedFraction: fp.clipped_fraction, meanLuma: fp.mean_luma,
            quality: fp.quality, captureDate: date.isEmpty ? nil : date, hasCamera: fp.has_camera != 0,
            screenshotMarker: fp.screenshot_marker != 0, animated: fp.animated != 0)
    }

    /// The engine allocator's figures (peak since the last `resetPeak()`).
    public var memoryStats: MemoryStats { engine.memoryStats }

    /// Restarts the engine's peak from current use.
    public func resetPeak() { sy_context_reset_peak(engine.raw) }

    /// Stops a running fingerprint at its next strip.
    public func cancel() { engine.cancel() }

    /// Hamming distance of two perceptual hashes (`sy_phash_distance`).
    public static func distance(_ a: UInt64, _ b: UInt64) -> Int { Int(sy_phash_distance(a, b)) }
}

/// A NUL-terminated fixed C array (imported as a tuple) as a String.
private func fixedString<T>(_ tuple: T) -> String {
    withUnsafeBytes(of: tuple) { raw in
        let end = raw.firstIndex(of: 0) ?? raw.count
        return String(decoding: raw[..<end], as: UTF8.self)
    }
}
