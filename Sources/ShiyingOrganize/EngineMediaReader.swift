// The photo library's reader backed by the engine (issue 18): stills through
// `sy_still_read_facts` (its Live identifier too), movies through the
// QuickTime reader (nothing decoded), digests through `sy_file_identity`.
import Foundation
import Shiying
import ShiyingLibrary

/// Reads files for `PhotoLibrary` with the engine. Stateless: each call makes
/// its own engine context, so any number of threads may call it.
public struct EngineMediaReader: LibraryMediaReader {
    public init() {}

    public func digest(of path: String) throws -> LibraryDigest {
        let identity = try Editor.fileIdentity(path)
        return LibraryDigest(bytes: identity.byteSize, sha256: identity.contentDigest)
    }

    public func facts(of path: String) throws -> LibraryMediaFacts {
        let ext = (path as NSString).pathExtension.lowercased()
        if LibraryFileTypes.movies.contains(ext) { return try movieFacts(path) }
        if LibraryFileTypes.animations.contains(ext) { return try gifFacts(path) }
        let still = try StillFactsReader().read(path) // a truncated copy is not catalogued as a photo
        return LibraryMediaFacts(medium: .still, width: still.info.width, height: still.info.height,
                                 captureDate: still.captureDate,
                                 location: still.location.map { LibraryLocation(latitude: $0.latitude, longitude: $0.longitude) },
                                 contentIdentifier: still.contentIdentifier, camera: still.camera)
    }

    /// A GIF's logical screen size (its header: "GIF87a"/"GIF89a", then
    /// width and height, little-endian). A GIF states no date, place or camera.
    private func gifFacts(_ path: String) throws -> LibraryMediaFacts {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ShiyingError(code: .io, message: "\(path): cannot open", file: path)
        }
        defer { try? handle.close() }
        let head = [UInt8](handle.readData(ofLength: 10))
        guard head.count == 10, head[0..<6].elementsEqual(Array("GIF87a".utf8)) || head[0..<6].elementsEqual(Array("GIF89a".utf8)) else {
            throw ShiyingError(code: .invalidInput, message: "\(path): not a GIF", file: path)
        }
        let width = Int(head[6]) | Int(head[7]) << 8, height = Int(head[8]) | Int(head[9]) << 8
        guard width > 0, height > 0 else {
            throw ShiyingError(code: .invalidInput, message: "\(path): a GIF of \(width)x\(height) pixels", file: path)
        }
        return LibraryMediaFacts(medium: .still, width: width, height: height)
    }

    /// QuickTime keys a phone writes (Apple's `mdta` names).
    private static let identifierKey = "com.apple.quicktime.content.identifier"
    private static let creationKey = "com.apple.quicktime.creationdate"
    private static let locationKey = "com.apple.quicktime.location.ISO6709"
    private static let makeKey = "com.apple.quicktime.make"
    private static let modelKey = "com.apple.quicktime.model"

    /// "Apple" + "iPhone 15 Plus" → "Apple iPhone 15 Plus" (the make once when the model repeats it).
    static func cameraName(make: String?, model: String?) -> String? {
        let make = make?.trimmingCharacters(in: .whitespaces) ?? "", model = model?.trimmingCharacters(in: .whitespaces) ?? ""
        if make.isEmpty || model.lowercased().hasPrefix(make.lowercased()) { return model.isEmpty ? nil : model }
        return model.isEmpty ? make : make + " " + model
    }

    private func movieFacts(_ path: String) throws -> LibraryMediaFacts {
        let info = try VideoInfo.read(path)
        guard let video = info.mainVideoTrack else {
            throw ShiyingError(code: .unsupported, message: "\(path): a movie without a video track", file: path)
        }
        return LibraryMediaFacts(medium: .movie, width: video.displayWidth, height: video.displayHeight,
                                 durationMs: Int((info.durationSeconds * 1000).rounded()),
                                 captureDate: info.metadataValue(Self.creationKey).flatMap(Self.exifDate)
                                     ?? info.creationDate.map(Self.exifDate),
                                 location: info.metadataValue(Self.locationKey).flatMap(Self.iso6709),
                                 contentIdentifier: info.metadataValue(Self.identifierKey),
                                 camera: Self.cameraName(make: info.metadataValue(Self.makeKey), model: info.metadataValue(Self.modelKey)))
    }

    /// "2023-10-01T12:34:56+0800" → "2023:10:01 12:34:56" (the local time as written, like Exif).
    static func exifDate(_ text: String) -> String? {
        let chars = Array(text)
        guard chars.count >= 19, chars[4] == "-", chars[7] == "-", chars[10] == "T" else { return nil }
        let date = String(chars[0..<10]).replacingOccurrences(of: "-", with: ":") + " " + String(chars[11..<19])
        return ExifCaptureTime.milliseconds(date) != nil ? date : nil
    }

    /// The movie header's time as Exif text, in UTC (what the header holds): for a movie
    /// without Apple's creation-date key (older iPhones' Live movies, most cameras).
    static func exifDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy:MM:dd HH:mm:ss"
        return formatter.string(from: date)
    }

    /// ISO 6709 "+31.2304+121.4737+010.000/" → latitude, longitude.
    static func iso6709(_ text: String) -> LibraryLocation? {
        var numbers: [Double] = []
        var current = ""
        for ch in text {
            if (ch == "+" || ch == "-" || ch == "/") && !current.isEmpty {
                guard let v = Double(current) else { return nil }
                numbers.append(v)
                current = ""
            }
            if ch != "/" { current.append(ch) }
        }
        guard numbers.count >= 2, abs(numbers[0]) <= 90, abs(numbers[1]) <= 180 else { return nil }
        return LibraryLocation(latitude: numbers[0], longitude: numbers[1])
    }
}
