// The organizer's per-photo facts from the engine (sy_fingerprint_file).
internal import CShiying

/// What a scan records about one still (issue 9; SPEC D6–D9).
public struct PhotoFingerprint: Sendable, Codable, Equatable {
    /// The photo's path.
    public var path: String
    /// "jpeg", "png" or "heif".
    public var format: String
    /// Upright size.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// The EXIF orientation, 1…8.
    public var orientation: Int
    /// The file's size in bytes.
    public var fileBytes: Int64
    /// SHA-256 of the file's bytes.
    public var fileSHA256: String
    /// SHA-256 of the decoded full-resolution pixels (+ size and orientation).
    public var pixelSHA256: String
    /// 64-bit DCT perceptual hash (imagehash.phash layout).
    public var phash: UInt64
    /// The pHash of the upright picture turned 90, 180, 270 degrees clockwise.
    public var phashTurned: [UInt64] = []
    /// Laplacian variance of the analysis plane.
    public var sharpness: Double
    /// Share of pixels clipped to black or white, 0…1.
    public var clippedFraction: Double
    /// Mean luma of the analysis plane, 0…255.
    public var meanLuma: Double
    /// Quality score in [0, 1] (sy_fingerprint.h documents the formula).
    public var quality: Double
    /// Exif "YYYY:MM:DD HH:MM:SS", nil when absent.
    public var captureDate: String?
    /// The file names a camera (Exif Make or Model).
    public var hasCamera: Bool
    /// A real screenshot marker (Exif UserComment / XMP), never "no camera data".
    public var screenshotMarker: Bool
    /// An animated image.
    public var animated: Bool
    /// Movies (`Fingerprinter.fingerprintMovie`): the video track's duration and
    /// how many frames were measured; 0 for stills.
    public var durationMs: Int = 0
    /// Frames measured; 0 for stills.
    public var framesSampled: Int = 0
}

/// Computes fingerprints with one engine context (accounting allocator, budget).
/// Not Sendable: one scan at a time; `cancel()` may be called from any thread.
public final class Fingerprinter: @unchecked Sendable {
    private let engine: EngineContext
    private let movieEngine: EngineContext

    /// - Parameters:
    ///   - budgetBytes: the engine's hard cap for stills (12 MB by default, the strip budget).
    ///   - movieBudgetBytes: the cap for movies, whose decoder holds whole
    ///     frames (a 1440p HEVC movie needs about 64 MB); a context of its own.
    public init(budgetBytes: Int = 12 << 20, movieBudgetBytes: Int = 192 << 20) throws {
        engine = try EngineContext(budgetBytes: budgetBytes)
        movieEngine = try EngineContext(budgetBytes: movieBudgetBytes)
    }

    /// Fingerprints one still: JPEG and PNG in one full-resolution strip-wise
    /// decode, HEVC HEIF at the analysis size (sy_fingerprint.h).
    /// - Parameters:
    ///   - path: the still's path.
    ///   - pixelDigest: false leaves `pixelSHA256` "" for JPEG and PNG,
    ///     which then decode at the analysis size too (HEVC HEIF keeps its coded digest).
    /// - Throws: `ShiyingError` naming the file and the reason.
    /// Wraps `sy_fingerprint_file_ex`.
    public func fingerprint(_ path: String, pixelDigest: Bool = true) throws -> PhotoFingerprint {
        var fp = sy_fingerprint()
        var error = sy_error()
        let flags = pixelDigest ? 0 : UInt32(SY_FINGERPRINT_NO_PIXEL_DIGEST)
        try check(sy_fingerprint_file_ex(engine.raw, path, flags, &fp, &error), error, file: path)
        return Self.facts(path, fp)
    }

    /// Fingerprints a movie's video track from a few frames (format "movie";
    /// metadata flags are not read). Wraps `sy_fingerprint_movie`.
    /// - Throws: `ShiyingError` naming the file and the reason.
    public func fingerprintMovie(_ path: String) throws -> PhotoFingerprint {
        var fp = sy_fingerprint()
        var error = sy_error()
        try check(sy_fingerprint_movie(movieEngine.raw, path, &fp, &error), error, file: path)
        var facts = Self.facts(path, fp)
        facts.format = "movie"
        return facts
    }

    private static func facts(_ path: String, _ fp: sy_fingerprint) -> PhotoFingerprint {
        let date = fixedString(fp.capture_date)
        return PhotoFingerprint(
            path: path, format: String(cString: sy_image_format_name(fp.format)), width: Int(fp.width),
            height: Int(fp.height), orientation: Int(fp.orientation), fileBytes: Int64(fp.file_bytes),
            fileSHA256: fixedString(fp.file_sha256), pixelSHA256: fixedString(fp.pixel_sha256), phash: fp.phash,
            phashTurned: [fp.phash_turned.0, fp.phash_turned.1, fp.phash_turned.2], sharpness: fp.sharpness, clippedFraction: fp.clipped_fraction, meanLuma: fp.mean_luma,
            quality: fp.quality, captureDate: date.isEmpty ? nil : date, hasCamera: fp.has_camera != 0,
            screenshotMarker: fp.screenshot_marker != 0, animated: fp.animated != 0,
            durationMs: Int(fp.duration_ms), framesSampled: Int(fp.frames_sampled))
    }

    /// The still engine's allocator figures (peak since the last `resetPeak()`).
    public var memoryStats: MemoryStats { engine.memoryStats }
    /// The movie engine's figures.
    public var movieMemoryStats: MemoryStats { movieEngine.memoryStats }

    /// Restarts both engines' peaks from current use.
    public func resetPeak() {
        sy_context_reset_peak(engine.raw)
        sy_context_reset_peak(movieEngine.raw)
    }

    /// Stops a running fingerprint at its next strip or frame.
    public func cancel() {
        engine.cancel()
        movieEngine.cancel()
    }

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
