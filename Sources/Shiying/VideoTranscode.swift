import Foundation
internal import CShiying

/// Movie → HEVC movie (`sy_video_transcode`, issue 4): every frame decoded
/// upright (HEVC or H.264), passed through the shared frame path, encoded with
/// x265 at the SPEC C14 bitrate into `.mov` (brand `qt  `) or `.mp4` (`isom`);
/// the first audio track copied sample-for-sample, movie-level `mdta` items
/// copied. Output is complete or absent (temp file + rename).
public enum VideoTranscode {
    public struct Options: Sendable {
        /// Bits per second; nil = SPEC C14 for the output size.
        public var bitrate: Int?
        /// x265 speed preset ("ultrafast" … "veryslow"); nil = the engine default ("veryfast").
        public var preset: String?
        public var copyAudio = true
        public var copyMetadata = true
        /// x265 pool threads; 0 = one per core.
        public var threads = 0
        public init(bitrate: Int? = nil, preset: String? = nil) {
            self.bitrate = bitrate
            self.preset = preset
        }
    }

    public struct Report: Sendable, Codable, Equatable {
        public var input: String
        public var output: String
        public var container: String
        public var sourceCodec: String
        /// Clockwise rotation of the source track, applied to the pixels (output matrix is identity).
        public var sourceRotation: Int
        public var width: Int
        public var height: Int
        public var frames: Int
        public var durationSeconds: Double
        public var bitrate: Int
        /// Copied audio sample entry type ("mp4a", "lpcm", …), nil when the output has no audio.
        public var audioCodec: String?
        public var audioSamples: Int
        public var bytesWritten: UInt64
        public var enginePeakBytes: UInt64
        public var seconds: Double
        /// Tracks of the source the output leaves out (timed metadata, other video or audio tracks), with the reason.
        public var dropped: [DroppedMetadata]
    }

    /// - Throws: `ShiyingError` naming the file: unsupported codec, corrupt movie, unknown output type.
    public static func run(_ input: String, to output: String, options: Options = Options(),
                           progress: ((String, UInt64, UInt64) -> Void)? = nil) throws -> Report {
        let engine = try EngineContext(progress: progress)
        var o = sy_video_transcode_options()
        sy_video_transcode_options_init(&o)
        o.bitrate = UInt64(max(0, options.bitrate ?? 0))
        o.copy_audio = options.copyAudio ? 1 : 0
        o.copy_metadata = options.copyMetadata ? 1 : 0
        o.threads = UInt32(clamping: options.threads)
        var report = sy_video_transcode_report()
        var error = sy_error()
        let clock = ContinuousClock()
        let start = clock.now
        let status = withOptionalCString(options.preset) { preset in
            o.preset = preset
            return sy_video_transcode(engine.raw, input, output, &o, &report, &error)
        }
        try check(status, error, file: input)
        let elapsed = clock.now - start
        let ext = (output as NSString).pathExtension.lowercased()
        return Report(
            input: input, output: output, container: ext == "mov" || ext == "qt" ? "mov" : "mp4",
            sourceCodec: fourCC(report.source_codec), sourceRotation: Int(report.source_rotation),
            width: Int(report.width), height: Int(report.height), frames: Int(report.frames),
            durationSeconds: report.duration_seconds, bitrate: Int(report.bitrate),
            audioCodec: report.audio_codec != 0 ? fourCC(report.audio_codec) : nil,
            audioSamples: Int(report.audio_samples), bytesWritten: report.bytes_written,
            enginePeakBytes: engine.memoryStats.peakBytes,
            seconds: elapsed.seconds,
            dropped: DroppedMetadata.list(report.dropped))
    }
}
