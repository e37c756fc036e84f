internal import CShiying
import Foundation

/// Compression (issue 19, share menu SPEC S5): a smaller copy of a photo
/// (re-encoded HEIC or JPEG, through `Conversion`) or a movie (re-encoded
/// HEVC at a lower bitrate, through `VideoTranscode`). The input is only read.
public enum Compression {
    /// How to compress.
    public struct Options: Sendable {
        /// A photo's copy format; PNG is refused (it is lossless).
        public var format: Conversion.Format = .heic
        /// A photo's encoder quality, 1…100.
        public var quality: Int = 75
        /// A movie's bitrate in bits/s; nil = half the original's average bitrate.
        public var videoBitrate: Int?
        /// SPEC E6: asked when the copy cannot carry the photo's gain map; nil refuses.
        public var onHDRLoss: (@Sendable (HDRLossReason) -> Bool)?

        /// Options with the defaults above.
        public init(format: Conversion.Format = .heic, quality: Int = 75, videoBitrate: Int? = nil,
                    onHDRLoss: (@Sendable (HDRLossReason) -> Bool)? = nil) {
            self.format = format
            self.quality = quality
            self.videoBitrate = videoBitrate
            self.onHDRLoss = onHDRLoss
        }
    }

    /// What a compression wrote.
    public struct Report: Sendable, Codable, Equatable {
        /// The input's size in bytes.
        public var originalBytes: Int64
        /// The copy's size in bytes.
        public var compressedBytes: Int64
        /// The photo's conversion report, or nil for a movie.
        public var photo: Conversion.Report?
        /// The movie's transcode report, or nil for a photo.
        public var video: VideoTranscode.Report?

        /// Bytes the copy saves (always > 0: a copy that saves nothing is refused).
        public var savedBytes: Int64 { originalBytes - compressedBytes }
    }

    /// The extension a copy of `input` gets: "mov" for a movie, else the photo format's.
    public static func outputExtension(movie: Bool, options: Options) -> String {
        movie ? "mov" : options.format == .jpeg ? "jpg" : options.format.rawValue
    }

    /// Compresses `input` (`movie`: a movie, else a photo) into `output`. A
    /// photo keeps Exif, date, GPS, XMP, ICC and its gain map as `Conversion`
    /// keeps them (SPEC E6 asks before dropping HDR); a movie keeps its audio
    /// and metadata (`VideoTranscode`). A copy that would not be smaller than
    /// the input is removed and refused.
    /// Runs on its own thread; cancelling the task throws `CancellationError`.
    /// - Parameters:
    ///   - input: the photo's or movie's file URL.
    ///   - output: the copy's file URL.
    ///   - movie: true for a movie, false for a photo.
    ///   - options: format, quality, bitrate, HDR consent.
    ///   - progress: one non-decreasing fraction for the whole job.
    /// - Throws: `ShiyingError` (usage: PNG target; unsupported: nothing saved;
    ///   engine failures), `HDRLossError`, `CancellationError`. Nothing is left
    ///   at `output` on failure.
    public static func compress(_ input: URL, to output: URL, movie: Bool, options: Options = Options(),
                                progress: (@Sendable (ShiyingProgress) -> Void)? = nil) async throws -> Report {
        let (source, target) = (try input.shiyingPath("input"), try output.shiyingPath("output"))
        return try await runOffPool { cancel in
            try compressBlocking(source, to: target, movie: movie, options: options, progress: progress, cancel: cancel)
        }
    }

    /// `compress`, blocking the calling thread, with file-system paths (the CLI's form).
    /// - Throws: as `compress`.
    public static func compressBlocking(_ input: String, to output: String, movie: Bool, options: Options = Options(),
                                        progress: ((ShiyingProgress) -> Void)? = nil,
                                        cancel: CancelHook? = nil) throws -> Report {
        // The copy is written beside `output` under a temporary name and renamed over it only once it proved
        // smaller: a failed or useless compression leaves an existing `output` as it was, and never touches
        // `input`. The engine's own check sees only the hidden name, so the real output is checked up front:
        // not the input (under any spelling or link), not a directory, FIFO, socket or device (the rename would
        // replace it), in a folder that exists and can be written.
        var refused = sy_error()
        let checked = withCStrings([input]) { sy_output_check(output, $0, 1, &refused) }
        try check(checked, refused, file: output)
        let originalBytes = try bytes(of: input)
        var report = Report(originalBytes: originalBytes, compressedBytes: 0)
        let staged = stagingPath(for: output)
        do {
            if movie {
                let bitrate = try options.videoBitrate ?? halfAverageBitrate(input, bytes: originalBytes)
                var video = VideoTranscode.Options(bitrate: bitrate)
                video.copyTimedMetadata = true // a Live movie's still-image time: the copy still pairs (SPEC C3)
                if let hdr = try VideoReader(input).info.hdr, // SPEC E6: ask first when the re-encode is SDR
                   try VideoTranscode.hdrOutcome(input) == .becomesSDR {
                    let detail = "\(hdr.uppercased()) video re-encoded in 8 bits, as SDR"
                    guard let consent = options.onHDRLoss else { throw HDRLossError.noConsentHook(.hdrVideo, detail: detail) }
                    guard consent(.hdrVideo) else { throw HDRLossError.declined(.hdrVideo, detail: detail) }
                    video.allowSDR = true
                }
                report.video = try VideoTranscode.runBlocking(input, to: staged, options: video,
                                                              progress: progress, cancel: cancel)
                report.video?.output = output
            } else {
                guard options.format != .png else {
                    throw ShiyingError(code: .usage, message: "compress writes HEIC or JPEG, not PNG", file: output)
                }
                report.photo = try Conversion.convertBlocking(input, to: staged, format: options.format,
                                                              quality: options.quality, onHDRLoss: options.onHDRLoss,
                                                              progress: progress, cancel: cancel)
                report.photo?.output = output
            }
            report.compressedBytes = try bytes(of: staged)
            guard report.compressedBytes < originalBytes else {
                throw ShiyingError(code: .unsupported, message: "\(input): already small: its compressed copy would be "
                                   + "\(report.compressedBytes) bytes, the original is \(originalBytes)", file: input)
            }
            guard rename(staged, output) == 0 else {
                let reason = String(cString: strerror(errno))
                throw ShiyingError(code: .io, message: "\(output): cannot be written: \(reason)", file: output)
            }
        } catch let error as ShiyingError { // the engine named the hidden file: say the output's name
            unlink(staged)
            throw ShiyingError(code: error.code, message: error.message.replacingOccurrences(of: staged, with: output),
                               file: error.file == staged ? output : error.file)
        } catch {
            unlink(staged)
            throw error
        }
        return report
    }

    /// A hidden name beside `output`, with its extension (the engine picks the format by it).
    static func stagingPath(for output: String) -> String {
        let url = URL(fileURLWithPath: output)
        let folder = url.deletingLastPathComponent().path
        let name = ".\(url.deletingPathExtension().lastPathComponent).compress-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let ext = url.pathExtension
        return folder + "/" + name + (ext.isEmpty ? "" : "." + ext)
    }

    /// Half a movie's average bitrate (all tracks); nil (the engine's SPEC C14
    /// rate) when its duration is unknown.
    static func halfAverageBitrate(_ input: String, bytes: Int64) throws -> Int? {
        let seconds = try VideoInfo.read(input).durationSeconds
        guard seconds > 0 else { return nil }
        return Int(Double(bytes) * 8 / seconds / 2)
    }

    static func bytes(of path: String) throws -> Int64 {
        guard let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber else {
            throw ShiyingError(code: .io, message: "\(path): cannot read its size: \(String(cString: strerror(errno)))", file: path)
        }
        return size.int64Value
    }
}
