import Foundation
import Shiying
internal import CShiyingFixtures

/// Deterministic, photo-like 12 MP sample JPEGs: the built-in inputs of
/// `make demo`, the tests and the benchmarks (a fixture generator, not part
/// of the engine a photo app links).
public enum SamplePhotos {
    /// Writes `count` photos named `sample-0001.jpg`… into `directory`.
    /// Every third photo is a portrait stored landscape with EXIF orientation 6,
    /// as phones store them; the rest are 4032×3024 landscapes.
    /// - Parameters:
    ///   - seed: same seed, same bytes (`sy_sample_write_jpeg`).
    ///   - progressive: write progressive JPEGs instead of baseline.
    /// - Returns: the written paths in order.
    /// With `heic`, each photo is written as an iPhone-shaped HEIC instead: a grid of
    /// 512×512 HEVC tiles, portraits stored landscape with `irot`, the same Exif
    /// (`sy_sample_write_heic`); `heicTile` sets other tile sides (an iPhone
    /// Pro's 24 MP grid has 640×896 tiles).
    /// `quality`: the JPEG quality, or the HEIC's (nil: the writer's default, 92).
    /// `startIndex`: the first photo's index (`sample-0001` is index 0), so a
    /// cache can be topped up with the photos a call from 0 would have written.
    public static func write(count: Int, startIndex: Int = 0, seed: UInt64 = 1, width: Int = 4032, height: Int = 3024,
                             progressive: Bool = false, heic: Bool = false, heicTile: (width: Int, height: Int)? = nil,
                             quality: Int? = nil, to directory: String,
                             progress: ((Int, Int) -> Void)? = nil) throws -> [String] {
        // a folder it made goes again when the first photo cannot be written (a file-size limit, a full disk)
        try OutputFolder.using(directory) {
            let engine = try EngineContext()
            var paths: [String] = []
            for index in startIndex..<(startIndex + count) {
                var options = sy_sample_options()
                sy_sample_options_init(&options)
                options.width = UInt32(width)
                options.height = UInt32(height)
                options.seed = seed &* 1000 &+ UInt64(index)
                options.orientation = index % 3 == 1 ? 6 : 1
                options.progressive = progressive ? 1 : 0
                if let tile = heicTile {
                    options.tile_width = UInt32(tile.width)
                    options.tile_height = UInt32(tile.height)
                }
                if let quality { options.quality = Int32(quality) }
                let path = (directory as NSString).appendingPathComponent(
                    String(format: "sample-%04d.%@", index + 1, heic ? "heic" : "jpg"))
                try writeFixture(path) { error in
                    heic ? sy_sample_write_heic(engine.raw, &options, path, &error)
                         : sy_sample_write_jpeg(engine.raw, &options, path, &error)
                }
                paths.append(path)
                progress?(index - startIndex + 1, count)
            }
            return paths
        }
    }
}

/// Deterministic sample Live photos (`sy_sample_write_live`): a still and a
/// QuickTime movie with one content identifier, named like an iPhone export
/// (`LIVE_0001.JPG` + `LIVE_0001.MOV`, same stem), the movie panning across a
/// sample scene with a ball circling over it and (optionally) a tone.
public enum SampleLivePhotos {
    public struct Pair: Sendable, Equatable {
        public var still: String
        public var movie: String
        public var contentIdentifier: String
        public init(still: String, movie: String, contentIdentifier: String) {
            self.still = still
            self.movie = movie
            self.contentIdentifier = contentIdentifier
        }
    }

    /// Writes `count` pairs into `directory`. Frames are `width`×`height`
    /// (even) at `fps`; movie `index` lasts `frames + index * framesStep` frames,
    /// so pairs of one call differ in length; the key photo is the middle frame.
    /// `timedMetadata` adds what an iPhone writes besides the frames (a lens key
    /// on the video track, video-orientation and per-frame location tracks).
    public static func write(count: Int, seed: UInt64 = 1, width: Int = 360, height: Int = 480, fps: Int = 30,
                             frames: Int = 45, framesStep: Int = 0, heic: Bool = false, sound: Bool = true,
                             timedMetadata: Bool = false, to directory: String, progress: ((Int, Int) -> Void)? = nil) throws -> [Pair] {
        // a folder it made goes again when the first photo cannot be written (a file-size limit, a full disk)
        try OutputFolder.using(directory) {
            let engine = try EngineContext()
            var pairs: [Pair] = []
            for index in 0..<count {
                var options = sy_sample_live_options()
                sy_sample_live_options_init(&options)
                options.width = UInt32(width)
                options.height = UInt32(height)
                options.fps = UInt32(fps)
                options.frames = UInt32(frames + index * framesStep)
                options.seed = seed &* 1000 &+ UInt64(index)
                options.still_format = heic ? SY_STILL_HEIC : SY_STILL_JPEG
                options.sound = sound ? 1 : 0
                options.timed_metadata = timedMetadata ? 1 : 0
                let stem = (directory as NSString).appendingPathComponent(String(format: "LIVE_%04d", index + 1))
                let still = stem + (heic ? ".HEIC" : ".JPG"), movie = stem + ".MOV"
                try writeFixture(still) { error in sy_sample_write_live(engine.raw, &options, still, movie, &error) }
                var id = [CChar](repeating: 0, count: 37)
                sy_sample_live_identifier(options.seed, &id)
                let identifier = String(decoding: id.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                pairs.append(Pair(still: still, movie: movie, contentIdentifier: identifier))
                progress?(index + 1, count)
            }
            return pairs
        }
    }
}

/// HDR test photos (`sy_hdr_sample_write`): a synthetic scene with real
/// highlights as an SDR base + gain map.
public enum HDRSamplePhotos {
    /// Writes `hdr-sample-0001.jpg` (Ultra HDR) and `hdr-sample-0001.heic`
    /// (Apple-style), with `isoHEIC` also `hdr-sample-0001-iso.heic` (the ISO
    /// 21496-1 form alone, as Android's HEIC Ultra HDR) … into `directory`;
    /// returns the paths.
    public static func write(count: Int = 1, seed: UInt64 = 1, width: Int = 1024, height: Int = 768,
                             isoHEIC: Bool = false, to directory: String,
                             progress: ((Int, Int) -> Void)? = nil) throws -> [String] {
        // a folder it made goes again when the first photo cannot be written (a file-size limit, a full disk)
        try OutputFolder.using(directory) {
            let engine = try EngineContext()
            var paths: [String] = []
            let forms: [(heic: Bool, isoOnly: Bool)] = [(false, false), (true, false)] + (isoHEIC ? [(true, true)] : [])
            for index in 0..<count {
                for (heic, isoOnly) in forms {
                    var options = sy_hdr_sample_options()
                    sy_hdr_sample_options_init(&options)
                    options.width = UInt32(width)
                    options.height = UInt32(height)
                    options.seed = seed &* 1000 &+ UInt64(index)
                    options.heic_iso_only = isoOnly ? 1 : 0
                    let path = (directory as NSString).appendingPathComponent(
                        String(format: "hdr-sample-%04d%@.%@", index + 1, isoOnly ? "-iso" : "", heic ? "heic" : "jpg"))
                    try writeFixture(path) { error in
                        sy_hdr_sample_write(engine.raw, &options, heic ? SY_STILL_HEIC : SY_STILL_JPEG, path, &error)
                    }
                    paths.append(path)
                }
                progress?(index + 1, count)
            }
            return paths
        }
    }
}

/// Runs one fixture writer and throws its C status and message as `ShiyingError`.
private func writeFixture(_ path: String, _ body: (inout sy_error) -> Int32) throws {
    var error = sy_error()
    let status = body(&error)
    guard status != SY_OK else { return }
    throw ShiyingError(code: .init(rawValue: status), message: cString(error.message), file: path)
}
