import Foundation
internal import CShiying

/// Deterministic, photo-like 12 MP sample JPEGs: the built-in inputs of
/// `make demo`, the tests and the benchmarks.
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
    /// (`sy_sample_write_heic`).
    public static func write(count: Int, seed: UInt64 = 1, width: Int = 4032, height: Int = 3024,
                             progressive: Bool = false, heic: Bool = false, to directory: String,
                             progress: ((Int, Int) -> Void)? = nil) throws -> [String] {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let engine = try EngineContext()
        var paths: [String] = []
        for index in 0..<count {
            var options = sy_sample_options()
            sy_sample_options_init(&options)
            options.width = UInt32(width)
            options.height = UInt32(height)
            options.seed = seed &* 1000 &+ UInt64(index)
            options.orientation = index % 3 == 1 ? 6 : 1
            options.progressive = progressive ? 1 : 0
            let path = (directory as NSString).appendingPathComponent(
                String(format: "sample-%04d.%@", index + 1, heic ? "heic" : "jpg"))
            var error = sy_error()
            let status = heic ? sy_sample_write_heic(engine.raw, &options, path, &error)
                              : sy_sample_write_jpeg(engine.raw, &options, path, &error)
            try check(status, error, file: path)
            paths.append(path)
            progress?(index + 1, count)
        }
        return paths
    }
}

/// What a still image file is, from its header (`sy_image_probe`).
public struct ImageInfo: Sendable, Codable, Equatable {
    public var format: String
    /// Upright size (EXIF orientation applied).
    public var width: Int
    public var height: Int
    public var storedWidth: Int
    public var storedHeight: Int
    public var orientation: Int
    public var progressive: Bool

    /// Reads only the header of `path`.
    /// - Throws: `ShiyingError` naming the file and the reason.
    public static func probe(_ path: String) throws -> ImageInfo {
        let engine = try EngineContext()
        var info = sy_image_info()
        var error = sy_error()
        try check(sy_image_probe(engine.raw, path, &info, &error), error, file: path)
        return ImageInfo(format: String(cString: sy_image_format_name(info.format)), width: Int(info.width),
                         height: Int(info.height), storedWidth: Int(info.stored_width),
                         storedHeight: Int(info.stored_height), orientation: Int(info.orientation),
                         progressive: info.progressive != 0)
    }
}
