// What `OrganizeScanner.scan` did: the `organize scan` report.

/// Counts after a scan (the CLI prints it as JSON with snake_case keys).
public struct OrganizeScanReport: Sendable, Codable, Equatable {
    /// A file that was not recorded, with the engine's reason.
    public struct Skipped: Sendable, Codable, Equatable {
        public var path: String
        public var error: String
    }

    /// Items recorded: stills (a Live photo's still and movie count once) and movies.
    public var scanned: Int
    /// In folder order.
    public var skipped: [Skipped]
    /// Groups in the store after the regroup, by kind.
    public var duplicateGroups: Int
    public var similarGroups: Int
    public var burstGroups: Int
    public var ocr: Bool
    /// Fingerprinting (and OCR) time, without the store updates.
    public var seconds: Double
    /// Files decoded per second.
    public var photosPerSecond: Double
    /// Sum of the workers' engine allocator peaks (stills).
    public var enginePeakBytes: UInt64
    /// Live photos (still + movie) and other movies among `scanned`.
    public var livePhotos: Int = 0
    public var videos: Int = 0
    /// Items fingerprinted in this scan, and items taken unchanged from the store.
    public var decoded: Int = 0
    public var unchanged: Int = 0
}

/// Why a scan could not start.
public enum OrganizeScanError: Error, Equatable, CustomStringConvertible {
    /// The folder does not exist or is a file.
    case notADirectory(String)
    /// OCR was asked for but no Tesseract is installed.
    case ocrUnavailable

    public var description: String {
        switch self {
        case .notADirectory(let path): "\(path): not a directory"
        case .ocrUnavailable: "OCR needs tesseract (apt-get install tesseract-ocr tesseract-ocr-chi-sim)"
        }
    }
}
