// A generated folder to import (issue 18): sample photos (one with GPS when
// exiftool is installed), an exact copy of one, two Live pairs made by the
// engine from a short generated movie, and that movie as a plain video.
import Foundation
import Shiying
import ShiyingFixtures
import ShiyingLibrary
import ShiyingOrganize
import Testing

enum ExternalTool {
    /// The first executable of `name` on the usual paths, nil when not installed.
    static func find(_ name: String) -> String? {
        ["/usr/bin/", "/usr/local/bin/", "/bin/"].map { $0 + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

struct LibraryFixture {
    /// The folder to import.
    let input: String
    let photos: [String]
    /// The copy of photos[0] (same bytes).
    let duplicate: String
    /// photos[1] with GPS 31.2304 N, 121.4737 E when exiftool could write it.
    let gpsPhoto: String?
    /// (still, movie) of each Live pair (empty without ffmpeg).
    let livePairs: [(still: String, movie: String)]
    /// The plain movie (nil without ffmpeg).
    let video: String?

    static let latitude = 31.2304, longitude = 121.4737

    /// Builds the fixture in `dir`/in.
    static func make(in dir: TempFolder, photos count: Int = 5, lives: Int = 2) async throws -> LibraryFixture {
        let input = dir.file("in")
        let photos = try SamplePhotos.write(count: count, seed: 18, width: 320, height: 240, to: input + "/photos")
        let copies = input + "/copies"
        try FileManager.default.createDirectory(atPath: copies, withIntermediateDirectories: true)
        let duplicate = copies + "/copy-of-first.jpg"
        try FileManager.default.copyItem(atPath: photos[0], toPath: duplicate)
        var gps: String?
        if photos.count > 1, let exiftool = ExternalTool.find("exiftool") {
            let r = try await ShiyingBinary.run(exiftool, ["-q", "-overwrite_original", "-GPSLatitude=\(latitude)", "-GPSLatitudeRef=N",
                                                           "-GPSLongitude=\(longitude)", "-GPSLongitudeRef=E", photos[1]])
            if r.status == 0 { gps = photos[1] }
        }
        var pairs: [(String, String)] = []
        var video: String?
        if let ffmpeg = ExternalTool.find("ffmpeg") {
            let clip = input + "/video/clip.mov"
            try FileManager.default.createDirectory(atPath: input + "/video", withIntermediateDirectories: true)
            let r = try await ShiyingBinary.run(ffmpeg, ["-v", "error", "-y", "-f", "lavfi", "-i", "mandelbrot=size=160x120:rate=15",
                                                         "-t", "1", "-pix_fmt", "yuv420p", clip])
            if r.status == 0 {
                video = clip
                try FileManager.default.createDirectory(atPath: input + "/live", withIntermediateDirectories: true)
                for n in 0..<lives {
                    let still = input + "/live/IMG_\(n + 1).JPG", movie = input + "/live/IMG_\(n + 1).MOV"
                    var options = LivePhoto.SaveOptions()
                    options.stillTime = 0.2 + 0.3 * Double(n)
                    _ = try LivePhoto.saveBlocking(movie: clip, stillOut: still, movieOut: movie, options: options)
                    pairs.append((still, movie))
                }
            }
        }
        return LibraryFixture(input: input, photos: photos, duplicate: duplicate, gpsPhoto: gps, livePairs: pairs, video: video)
    }

    /// Assets an import of `input` should create.
    var expectedAssets: Int { photos.count + livePairs.count + (video == nil ? 0 : 1) }
}

/// SHA-256 of a file through the engine.
func sha256(_ path: String) throws -> String { try Editor.fileIdentity(path).contentDigest }

/// `PRAGMA integrity_check` and `foreign_key_check` of a catalogue.
func catalogueConsistent(_ path: String) throws -> (integrity: String, foreignKeyProblems: Int) {
    let store = try RecordStore(path: path)
    let integrity = try store.query("PRAGMA integrity_check").first?.first?.string ?? ""
    let problems = try store.query("PRAGMA foreign_key_check").count
    return (integrity, problems)
}

/// Every regular file under `dir` (relative paths).
func filesUnder(_ dir: String) -> [String] {
    var found: [String] = []
    let walker = FileManager.default.enumerator(atPath: dir)
    while let rel = walker?.nextObject() as? String {
        if (walker?.fileAttributes?[.type] as? FileAttributeType) == .typeRegular { found.append(rel) }
    }
    return found.sorted()
}
