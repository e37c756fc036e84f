// What the organizer knows about one photo or video: scan facts only, no pixels.

/// Photo or video (the media type of a candidate bucket, SPEC D7).
public enum OrganizeMediaType: String, Sendable, Codable, Hashable {
    /// A photo.
    case photo
    /// A video.
    case video
}

/// One asset as a scan recorded it.
public struct OrganizeAsset: Sendable, Codable, Hashable {
    /// The store's id (0 until stored).
    public var id: Int64 = 0
    /// The file's path.
    public var path: String
    /// Photo or video.
    public var mediaType: OrganizeMediaType = .photo
    /// Upright pixel size.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// 0 for photos.
    public var durationMs: Int = 0
    /// Size of the current version.
    public var fileBytes: Int64
    /// Size including pre-edit originals; nil when it cannot be measured (SPEC D2).
    public var fullResourceBytes: Int64? = nil
    /// SHA-256 of the file's bytes.
    public var fileSHA256: String
    /// SHA-256 of the decoded pixels (exact-content evidence, SPEC D7).
    public var pixelSHA256: String
    /// 64-bit DCT perceptual hash.
    public var phash: UInt64
    /// The pHash of the picture turned 90, 180, 270 degrees clockwise ([] = not recorded).
    public var phashTurned: [UInt64] = []
    /// Quality score in [0, 1]; nil = no score (SPEC D6: the first is kept).
    public var quality: Double? = nil
    /// Capture time (Unix ms, Exif local time read as UTC); nil = unknown.
    public var capturedAtMs: Int64? = nil
    /// The file names a camera (Exif Make/Model). Informational only: its
    /// absence never makes a screenshot (SPEC D9).
    public var hasCamera: Bool = false
    /// System flags (SPEC D9): a real screenshot marker, screen recording, animated.
    public var isScreenshot: Bool = false
    /// A screen recording.
    public var isScreenRecording: Bool = false
    /// An animated image (GIF, animated HEIC/PNG).
    public var isAnimated: Bool = false
    /// The system's burst identifier and whether this is its representative (SPEC D8).
    public var burstID: String? = nil
    /// The camera chose this shot to represent its burst.
    public var isBurstRepresentative: Bool = false
    /// Marked as a favourite by the user.
    public var isFavorite: Bool = false
    /// Text already recognized in the image (OCR), nil = none recorded (SPEC D9).
    public var recognizedText: String? = nil
    /// "jpeg", "png", "heif", "movie" ("" when not recorded).
    public var format: String = ""
    /// Modification time of the file (Unix ms) when it was scanned; nil = unknown.
    public var fileModifiedMs: Int64? = nil
    /// The Live photo content identifier (Apple MakerNote of a still, QuickTime
    /// key of a movie) that pairs a still with its movie; nil = none.
    public var contentIdentifier: String? = nil
    /// A Live photo's movie (the still is `path`), with its size and
    /// modification time when scanned; nil for anything else.
    public var pairedPath: String? = nil
    /// Size of the paired Live movie in bytes, if any.
    public var pairedBytes: Int64? = nil
    /// Modification time of the paired Live movie (ms since 1970), if any.
    public var pairedModifiedMs: Int64? = nil

    /// - Parameters: see the properties.
    public init(id: Int64 = 0, path: String, mediaType: OrganizeMediaType = .photo, width: Int, height: Int,
                durationMs: Int = 0, fileBytes: Int64, fullResourceBytes: Int64? = nil, fileSHA256: String,
                pixelSHA256: String, phash: UInt64, quality: Double? = nil, capturedAtMs: Int64? = nil,
                hasCamera: Bool = false, isScreenshot: Bool = false, isScreenRecording: Bool = false,
                isAnimated: Bool = false, burstID: String? = nil, isBurstRepresentative: Bool = false,
                isFavorite: Bool = false, recognizedText: String? = nil) {
        self.id = id
        self.path = path
        self.mediaType = mediaType
        self.width = width
        self.height = height
        self.durationMs = durationMs
        self.fileBytes = fileBytes
        self.fullResourceBytes = fullResourceBytes
        self.fileSHA256 = fileSHA256
        self.pixelSHA256 = pixelSHA256
        self.phash = phash
        self.quality = quality
        self.capturedAtMs = capturedAtMs
        self.hasCamera = hasCamera
        self.isScreenshot = isScreenshot
        self.isScreenRecording = isScreenRecording
        self.isAnimated = isAnimated
        self.burstID = burstID
        self.isBurstRepresentative = isBurstRepresentative
        self.isFavorite = isFavorite
        self.recognizedText = recognizedText
    }
}

/// Exif "YYYY:MM:DD HH:MM:SS" to Unix milliseconds, read as UTC (only
/// differences matter for grouping). Nil for anything else.
public enum ExifCaptureTime {
    /// An Exif "YYYY:MM:DD HH:MM:SS" as milliseconds since 1970 (UTC); nil when malformed.
    /// "24:00:00", which some cameras write for midnight, is the next day's
    /// start (ISO 8601's end of day), not an undated photo.
    public static func milliseconds(_ text: String) -> Int64? {
        let digits = Array(text.utf8)
        guard digits.count == 19 else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for i in range {
                guard digits[i] >= 48 && digits[i] <= 57 else { return nil }
                value = value * 10 + Int(digits[i] - 48)
            }
            return value
        }
        guard let y = number(0..<4), let mo = number(5..<7), let d = number(8..<10), let h = number(11..<13),
              let mi = number(14..<16), let s = number(17..<19), (1...12).contains(mo), (1...31).contains(d),
              h < 24 || (h == 24 && mi == 0 && s == 0), mi < 60, s < 61 else { return nil }
        // days from civil (proleptic Gregorian), Howard Hinnant's formula
        let yy = mo <= 2 ? y - 1 : y
        let era = (yy >= 0 ? yy : yy - 399) / 400
        let yoe = yy - era * 400
        let doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146097 + doe - 719468
        return Int64(((days * 24 + h) * 60 + mi) * 60 + s) * 1000
    }
}
