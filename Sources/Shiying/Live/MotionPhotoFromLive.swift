import Foundation
internal import CShiying

extension MotionPhoto {
    /// What `fromLive` wrote.
    public struct FromLiveReport: Sendable, Codable, Equatable {
        /// The Motion Photo's path.
        public var output: String
        /// "jpeg" or "heic": the form written.
        public var container: String
        /// Byte offset of the embedded MP4 in the output.
        public var movieOffset: UInt64
        /// Length of the embedded MP4 in bytes.
        public var movieLength: UInt64
        /// `MotionPhotoPresentationTimestampUs` written (the Live still-image time); nil when the movie had none
        /// or no Motion Photo XMP was written (`motionPhotoXMP`).
        public var presentationUs: Int64?
        /// True when the file carries the Motion Photo XMP (`Camera:MotionPhoto`, the timestamp, a
        /// `Container:Directory`): always for JPEG; for HEIC when the still has an XMP item (an iPhone's does),
        /// repointed at a copy that says it — otherwise only the `mpvd` box tells (Samsung's form).
        public var motionPhotoXMP: Bool
        /// False: the still's own bytes (only its identifier removed); true: re-encoded into the other format.
        public var stillReencoded: Bool
        /// True when the still carried an Apple content identifier, now left out.
        public var identifierRemoved: Bool
        /// The still's width in pixels.
        public var stillWidth: Int
        /// The still's height in pixels.
        public var stillHeight: Int
        /// The still's gain map: "kept" (in its own bytes, or re-encoded with it), "dropped-with-consent" or
        /// "none" (the still has none) (SPEC E6).
        public var hdr: String
        /// Frames in the embedded movie.
        public var frames: Int
        /// The embedded movie's duration in seconds.
        public var durationSeconds: Double
        /// The embedded movie's audio sample entry: "mp4a" (AAC copied, or LPCM encoded as AAC-LC — Android does
        /// not play LPCM in MP4); nil without audio.
        public var audioCodec: String?
        /// The C engine's accounting-allocator peak over the job, in bytes.
        public var enginePeakBytes: UInt64
        /// Wall-clock seconds the job took.
        public var seconds: Double
    }

    /// `sy_motion_photo_from_live`: a Live pair as one Android Motion Photo
    /// (`.jpg`: XMP + the MP4 appended; `.heic`: the MP4 in an `mpvd` box),
    /// the movie remuxed (never re-encoded), the still's bytes kept without
    /// its content identifier. Runs on its own thread; cancelling the task
    /// throws `CancellationError` and leaves no file.
    /// - Parameters:
    ///   - still: the Live still's file URL.
    ///   - movie: the Live movie's file URL.
    ///   - output: the Motion Photo to write (`.jpg` or `.heic`).
    ///   - reencodeStill: a still in the other format (HEIC still, `.jpg` output) is re-encoded instead of refused.
    ///   - allowSDR: SPEC E6 consent for a re-encoded still that cannot keep its gain map.
    ///   - progress: one non-decreasing fraction for the whole job.
    /// - Throws: `ShiyingError`, `CancellationError`.
    public static func fromLive(still: URL, movie: URL, output: URL, reencodeStill: Bool = false,
                                allowSDR: Bool = false,
                                progress: (@Sendable (ShiyingProgress) -> Void)? = nil) async throws -> FromLiveReport {
        let s = try still.shiyingPath("still"), m = try movie.shiyingPath("movie")
        let o = try output.shiyingPath("output")
        return try await runOffPool { cancel in
            try fromLiveBlocking(still: s, movie: m, output: o, reencodeStill: reencodeStill, allowSDR: allowSDR,
                                 progress: progress, cancel: cancel)
        }
    }

    /// `fromLive`, blocking the calling thread, with file-system paths (the CLI's form).
    /// - Throws: as `fromLive`.
    public static func fromLiveBlocking(still: String, movie: String, output: String, reencodeStill: Bool = false,
                                        allowSDR: Bool = false, progress: ((ShiyingProgress) -> Void)? = nil,
                                        cancel: CancelHook? = nil) throws -> FromLiveReport {
        let meter = ProgressMeter.make(.movie, progress)
        let engine = try EngineContext(progress: meter?.report)
        cancel?({ [engine] in engine.cancel() })
        var o = sy_motion_photo_options()
        sy_motion_photo_options_init(&o)
        o.reencode_still = reencodeStill ? 1 : 0
        o.allow_sdr = allowSDR ? 1 : 0
        var r = sy_motion_photo_report()
        var error = sy_error()
        let clock = ContinuousClock(), start = clock.now
        try check(sy_motion_photo_from_live(engine.raw, still, movie, output, &o, &r, &error), error, file: still)
        let elapsed = clock.now - start
        meter?.finish()
        return FromLiveReport(
            output: output, container: fourCC(r.container), movieOffset: r.movie_offset, movieLength: r.movie_length,
            presentationUs: r.presentation_us >= 0 && r.xmp_written != 0 ? r.presentation_us : nil,
            motionPhotoXMP: r.xmp_written != 0, stillReencoded: r.still_reencoded != 0,
            identifierRemoved: r.identifier_removed != 0, stillWidth: Int(r.still_width),
            stillHeight: Int(r.still_height),
            hdr: r.still_hdr == SY_HDR_KEPT ? "kept" : r.still_hdr == SY_HDR_DROPPED_WITH_CONSENT ? "dropped-with-consent" : "none",
            frames: Int(r.movie.frames), durationSeconds: r.movie.duration_seconds,
            audioCodec: r.movie.audio_codec != 0 ? fourCC(r.movie.audio_codec) : nil,
            enginePeakBytes: engine.memoryStats.peakBytes, seconds: elapsed.seconds)
    }
}
