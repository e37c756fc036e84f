import Foundation
internal import CShiying

/// Movie → HEVC movie (`sy_video_transcode`, issue 4): every frame decoded
/// upright (HEVC or H.264), passed through the shared frame path, encoded with
/// x265 at the SPEC C14 bitrate into `.mov` (brand `qt  `) or `.mp4` (`isom`);
/// the first audio track copied sample-for-sample, movie-level `mdta` items
/// copied. Output is complete or absent (temp file + rename).
public enum VideoTranscode {
    /// How to transcode.
    public struct Options: Sendable {
        /// Bits per second; nil = SPEC C14 for the output size.
        public var bitrate: Int?
        /// x265 speed preset ("ultrafast" … "veryslow"); nil = the engine default ("veryfast").
        public var preset: String?
        /// Copy the first audio track sample for sample.
        public var copyAudio = true
        /// Copy the movie-level `mdta` metadata items, the creation date and the video track's own metadata.
        public var copyMetadata = true
        /// Copy the timed-metadata (`mebx`) tracks with their samples' times: a Live movie's still-image
        /// time and what the iPhone records beside the frames, so a re-encoded Live movie still pairs with
        /// its still (SPEC C3). Off: the report lists them dropped.
        public var copyTimedMetadata = false
        /// x265 pool threads; 0 = one per core.
        public var threads = 0
        /// SPEC E6 for movies: an HDR (HLG, PQ) movie that cannot keep its HDR may be re-encoded as SDR (8 bits;
        /// the report lists "hdr-video" dropped). Without it such a movie is refused and nothing is written.
        /// A movie whose frames are re-encoded as the decoder's samples keeps its HDR in 10 bits (the report
        /// lists "hdr-video" kept) and needs no consent: see `hdrOutcome`.
        public var allowSDR = false
        /// Options with a bitrate and preset (nil = the defaults).
        public init(bitrate: Int? = nil, preset: String? = nil) {
            self.bitrate = bitrate
            self.preset = preset
        }
    }

    /// What a transcode with `options` does to an HDR movie (nothing is written).
    public enum HDROutcome: String, Sendable, Codable {
        /// The movie is no HDR (HLG, PQ) movie.
        case notHDR = "not-hdr"
        /// Its HDR is kept: the frames re-encoded in 10 bits with their HLG / PQ description.
        case kept
        /// It would be re-encoded as SDR, which needs `Options.allowSDR` (SPEC E6).
        case becomesSDR = "becomes-sdr"
    }

    /// Whether `runBlocking(input, …)` keeps an HDR movie's HDR, so a caller asks for consent only when it
    /// would not (`sy_video_transcode_hdr_outcome`; none of `Options` changes the answer).
    /// - Throws: `ShiyingError` naming the file when it cannot be read.
    public static func hdrOutcome(_ input: String) throws -> HDROutcome {
        let engine = try EngineContext()
        var o = sy_video_transcode_options()
        sy_video_transcode_options_init(&o)
        var outcome: Int32 = 0
        var error = sy_error()
        try check(sy_video_transcode_hdr_outcome(engine.raw, input, &o, &outcome, &error), error, file: input)
        return outcome > 0 ? .kept : outcome < 0 ? .becomesSDR : .notHDR
    }

    /// What a transcode wrote.
    public struct Report: Sendable, Codable, Equatable {
        /// The input file's path.
        public var input: String
        /// The output file's path.
        public var output: String
        /// "mov" or "mp4".
        public var container: String
        /// The source's video codec four-character code ("hvc1", "avc1", …).
        public var sourceCodec: String
        /// Clockwise rotation of the source track, applied to the pixels (output matrix is identity), or, when
        /// an HDR movie's frames are re-encoded as stored (a portrait iPhone HDR movie), kept in the track's matrix.
        public var sourceRotation: Int
        /// Width in pixels.
        public var width: Int
        /// Height in pixels.
        public var height: Int
        /// Frames in the movie written.
        public var frames: Int
        /// Duration in seconds.
        public var durationSeconds: Double
        /// Video bitrate in bits per second.
        public var bitrate: Int
        /// Copied audio sample entry type ("mp4a", "lpcm", …), nil when the output has no audio.
        public var audioCodec: String?
        /// Audio samples copied.
        public var audioSamples: Int
        /// The output's size in bytes.
        public var bytesWritten: UInt64
        /// The C engine's accounting-allocator peak over the job, in bytes.
        public var enginePeakBytes: UInt64
        /// Wall-clock seconds the job took.
        public var seconds: Double
        /// Tracks of the source the output leaves out (timed metadata, other video or audio tracks), with the reason.
        public var dropped: [DroppedMetadata]
        /// What the output carries over from the source: any of "audio", "movie-metadata",
        /// "creation-date", "video-track-metadata" (timed metadata with `copyTimedMetadata`, and by Live saves).
        public var kept: [String]
    }

    /// Transcodes `input` into `output`. Runs on its own thread; cancelling
    /// the task stops the engine within a frame, throws `CancellationError`
    /// and leaves nothing at `output`.
    /// - Parameters:
    ///   - input: the source movie's file URL.
    ///   - output: a `.mov` or `.mp4` file URL.
    ///   - options: bitrate, preset, what to copy.
    ///   - progress: one non-decreasing fraction for the whole transcode.
    /// - Throws: `ShiyingError` naming the file: unsupported codec, corrupt movie,
    ///   unknown output type; `CancellationError`.
    public static func run(_ input: URL, to output: URL, options: Options = Options(),
                           progress: (@Sendable (ShiyingProgress) -> Void)? = nil) async throws -> Report {
        let (source, target) = (try input.shiyingPath("input"), try output.shiyingPath("output"))
        return try await runOffPool { cancel in
            try runBlocking(source, to: target, options: options, progress: progress, cancel: cancel)
        }
    }

    /// `run`, blocking the calling thread, with file-system paths (the CLI's form).
    /// `progress` gets one non-decreasing fraction on the calling thread; `cancel`
    /// is handed a closure that cancels the job from any thread (it then throws
    /// `CancellationError`).
    /// - Throws: as `run`.
    public static func runBlocking(_ input: String, to output: String, options: Options = Options(),
                                   progress: ((ShiyingProgress) -> Void)? = nil,
                                   cancel: CancelHook? = nil) throws -> Report {
        let meter = ProgressMeter.make(.movie, progress)
        let engine = try EngineContext(progress: meter?.report)
        cancel?({ [engine] in engine.cancel() })
        var o = sy_video_transcode_options()
        sy_video_transcode_options_init(&o)
        o.bitrate = UInt64(max(0, options.bitrate ?? 0))
        o.copy_audio = options.copyAudio ? 1 : 0
        o.copy_metadata = options.copyMetadata ? 1 : 0
        o.threads = UInt32(clamping: options.threads)
        o.allow_sdr = options.allowSDR ? 1 : 0
        var plan = sy_video_metadata_plan()
        plan.copy_timed_metadata = 1
        var report = sy_video_transcode_report()
        var error = sy_error()
        let clock = ContinuousClock()
        let start = clock.now
        let status = withOptionalCString(options.preset) { preset in
            o.preset = preset
            return withUnsafePointer(to: &plan) { timed in
                if options.copyTimedMetadata { o.metadata = timed }
                return sy_video_transcode(engine.raw, input, output, &o, &report, &error)
            }
        }
        try check(status, error, file: input)
        let elapsed = clock.now - start
        meter?.finish()
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
            dropped: DroppedMetadata.list(report.dropped), kept: keptMovieMetadata(report.kept))
    }
}
