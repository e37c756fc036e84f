// Compression from the share menu (issue 19; SPEC S3, S5, D5): a smaller copy
// of a library photo or video, through the library's one exit path into
// 「拾映转换」. The original is only read; undo is `PhotoLibrary.undoCompression`.
import Foundation
import Shiying
import ShiyingLibrary

extension LibraryWorkflows {
    /// How to compress.
    public struct CompressionOptions: Sendable {
        /// A photo's copy format (the "photos → HEIC"); PNG is refused (it is lossless).
        public var format: Conversion.Format = .heic
        /// A photo's encoder quality, 1…100.
        public var quality: Int = 75
        /// A video's bitrate in bits/s; nil = half the original's average bitrate.
        public var videoBitrate: Int?
        /// SPEC E6: asked when the copy cannot carry the photo's gain map; nil refuses.
        public var onHDRLoss: (@Sendable (HDRLossReason) -> Bool)?

        public init(format: Conversion.Format = .heic, quality: Int = 75, videoBitrate: Int? = nil,
                    onHDRLoss: (@Sendable (HDRLossReason) -> Bool)? = nil) {
            self.format = format
            self.quality = quality
            self.videoBitrate = videoBitrate
            self.onHDRLoss = onHDRLoss
        }
    }

    /// A compression and where its copy went.
    public struct CompressionResult: Sendable {
        public var library: LibraryOutputReport
        public var originalID: Int64
        public var originalBytes: Int64
        public var compressedBytes: Int64
        /// Either the photo's conversion report or the video's transcode report.
        public var photo: Conversion.Report?
        public var video: VideoTranscode.Report?

        /// Bytes the copy saves over the original (always > 0: a copy that saves nothing is refused).
        public var savedBytes: Int64 { originalBytes - compressedBytes }
    }

    /// Compresses asset `id` (a photo or a video) into a copy in 「拾映转换」
    /// carrying its capture date, location, favourite, albums and tags (SPEC
    /// S3). A photo is re-encoded by `Conversion.convert` (metadata and an HDR
    /// gain map kept as a conversion keeps them, SPEC E6), a video by
    /// `VideoTranscode` at a lower bitrate. Live photos are refused (their
    /// pair would need both halves compressed as one).
    /// A copy that would not be smaller than the original is refused.
    /// - Throws: `LibraryError` (unknown asset, Live, PNG target, nothing saved), `ShiyingError`,
    ///   `HDRLossError` (nothing deposited).
    public static func compress(_ id: Int64, in library: PhotoLibrary, options: CompressionOptions = CompressionOptions(),
                                reader: EngineMediaReader = EngineMediaReader(),
                                progress: ((String, UInt64, UInt64) -> Void)? = nil) async throws -> CompressionResult {
        let original = try await library.original(of: id)
        let stem = ((original.path as NSString).lastPathComponent as NSString).deletingPathExtension
        let name: String, staged: String
        var photo: Conversion.Report?, video: VideoTranscode.Report?
        switch original.kind {
        case .live:
            throw LibraryError(.invalid, "asset \(id) is a Live photo; compress takes photos and videos")
        case .photo:
            guard options.format != .png else { throw LibraryError(.invalid, "compress writes HEIC or JPEG, not PNG") }
            let ext = options.format == .jpeg ? "jpg" : options.format.rawValue
            name = "\(stem)-compressed.\(ext)"
            staged = library.stagingPath(extension: ext)
            do {
                photo = try Conversion.convert(original.path, to: staged, format: options.format, quality: options.quality,
                                               onHDRLoss: options.onHDRLoss, progress: progress)
            } catch {
                unlink(staged)
                throw error
            }
        case .video:
            let asset = try await library.asset(id)
            name = "\(stem)-compressed.mov"
            staged = library.stagingPath(extension: "mov")
            let bitrate = options.videoBitrate ?? halfAverageBitrate(bytes: original.bytes, durationMs: asset.durationMs)
            do {
                video = try VideoTranscode.run(original.path, to: staged, options: VideoTranscode.Options(bitrate: bitrate),
                                               progress: progress)
            } catch {
                unlink(staged)
                throw error
            }
        }
        let compressedBytes = (try? FileManager.default.attributesOfItem(atPath: staged)[.size] as? Int64) ?? nil ?? 0
        guard compressedBytes < original.bytes else { // a copy that saves nothing is not a compression
            unlink(staged)
            throw LibraryError(.invalid, "asset \(id) is already small: its compressed copy would be \(compressedBytes) bytes, "
                                   + "the original is \(original.bytes)")
        }
        let output = LibraryOutput(purpose: .conversion(source: id), primary: staged, name: name)
        let report = try await library.deposit(output, reader: reader)
        return CompressionResult(library: report, originalID: id, originalBytes: original.bytes,
                                 compressedBytes: compressedBytes, photo: photo, video: video)
    }

    /// Half a movie's average bitrate (all tracks), or nil (the engine's SPEC
    /// C14 rate) when its duration is unknown.
    static func halfAverageBitrate(bytes: Int64, durationMs: Int) -> Int? {
        guard durationMs > 0 else { return nil }
        return Int(bytes * 8 * 1000 / Int64(durationMs) / 2)
    }
}
