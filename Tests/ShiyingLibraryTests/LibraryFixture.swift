// A generated folder to import (issue 18): sample photos (one with GPS when
// exiftool is installed), an exact copy of one, two Live pairs made by the
// engine from a short generated movie, that movie as a plain video and, when
// asked (with exiftool), a burst and screenshots.
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
    /// A burst: frames of one scene a quarter second apart in one capture second (empty without exiftool).
    var burst: [String] = []
    /// Phone screenshots: PNG at 750×1334 with no camera Exif, only iOS's "Screenshot" user comment.
    var screenshots: [String] = []

    static let burstSecond = "2025:06:01 10:00:00"
    static let screenSize = (width: 750, height: 1334)

    static let latitude = 31.2304, longitude = 121.4737

    /// Builds the fixture in `dir`/in.
    static func make(in dir: TempFolder, photos count: Int = 5, lives: Int = 2, burst: Int = 0,
                     screenshots: Int = 0) async throws -> LibraryFixture {
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
        var fixture = LibraryFixture(input: input, photos: photos, duplicate: duplicate, gpsPhoto: gps, livePairs: pairs, video: video)
        if let exiftool = ExternalTool.find("exiftool") {
            fixture.burst = try await makeBurst(burst, exiftool: exiftool, in: input + "/burst")
            fixture.screenshots = try await makeScreenshots(screenshots, exiftool: exiftool, in: input + "/screenshots")
        }
        return fixture
    }

    /// `count` frames of one scene, each a touch brighter than the last (as a
    /// moving subject changes a burst), in one capture second, 250 ms apart.
    private static func makeBurst(_ count: Int, exiftool: String, in dir: String) async throws -> [String] {
        guard count > 0 else { return [] }
        let scene = try SamplePhotos.write(count: 1, seed: 77, width: 320, height: 240, to: dir + "/scene")[0]
        var frames: [String] = []
        for n in 0..<count {
            let frame = dir + String(format: "/IMG_%04d.JPG", 9001 + n)
            _ = try Editor.saveBlocking(scene, recipe: EditRecipe(adjustments: .init(exposure: 0.03 * Double(n))), to: frame)
            let r = try await ShiyingBinary.run(exiftool, ["-q", "-overwrite_original", "-DateTimeOriginal=\(burstSecond)",
                                                           "-SubSecTimeOriginal=\(String(format: "%03d", n * 250))", frame])
            guard r.status == 0 else { throw ShiyingError(code: .io, message: "exiftool: \(r.stderr)", file: frame) }
            frames.append(frame)
        }
        try FileManager.default.removeItem(atPath: dir + "/scene")
        return frames
    }

    /// PNG screenshots: no camera Exif, the "Screenshot" user comment iOS writes.
    private static func makeScreenshots(_ count: Int, exiftool: String, in dir: String) async throws -> [String] {
        guard count > 0 else { return [] }
        var shots: [String] = []
        for n in 0..<count {  // one photo per call: the first of a call is upright (no Exif rotation)
            let scene = try SamplePhotos.write(count: 1, seed: 88 + UInt64(n), width: screenSize.width, height: screenSize.height,
                                               to: dir + "/scene")[0]
            let shot = dir + String(format: "/Screenshot-%02d.png", n + 1)
            _ = try Conversion.convertBlocking(scene, to: shot, format: .png)
            unlink(scene)
            let r = try await ShiyingBinary.run(exiftool, ["-q", "-overwrite_original", "-all=", "-EXIF:UserComment=Screenshot", shot])
            guard r.status == 0 else { throw ShiyingError(code: .io, message: "exiftool: \(r.stderr)", file: shot) }
            shots.append(shot)
        }
        try FileManager.default.removeItem(atPath: dir + "/scene")
        return shots
    }

    /// Assets an import of `input` should create.
    var expectedAssets: Int { photos.count + livePairs.count + (video == nil ? 0 : 1) + burst.count + screenshots.count }
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
