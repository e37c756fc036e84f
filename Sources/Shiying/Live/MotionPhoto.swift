import Foundation
internal import CShiying

/// Android Motion Photos (Samsung, Google, Xiaomi): a JPEG with an MP4
/// appended (XMP `Camera:MotionPhoto`, `Container:Directory`, or Samsung's
/// SEF trailer) or a HEIC with
/// the MP4 in an `mpvd` box. Every movie reader opens one as its movie;
/// `toLive` turns one into a Live pair (SPEC S3).
public enum MotionPhoto {
    /// Where the embedded movie is (`sy_motion_photo_probe`).
    public struct Info: Sendable, Codable, Equatable {
        /// "jpeg" or "heic".
        public var container: String
        /// How the movie was found: "container-directory", "micro-video-offset", "samsung-trailer" or "mpvd".
        public var locatedBy: String
        /// Byte offset of the embedded movie in the file.
        public var movieOffset: UInt64
        /// Length of the embedded movie in bytes.
        public var movieLength: UInt64
        /// The still frame's time on the movie timeline, seconds; nil when the photo does not say.
        public var presentationSeconds: Double?
    }

    /// nil when `path` is not a Motion Photo.
    /// - Throws: `ShiyingError` (`.invalidInput`) when it claims to be one whose lengths do not fit the file.
    public static func probe(_ path: String) throws -> Info? {
        let engine = try EngineContext()
        var info = sy_motion_photo_info()
        var error = sy_error()
        try check(sy_motion_photo_probe(engine.raw, path, &info, &error), error, file: path)
        guard info.container != 0 else { return nil }
        let by: String
        switch fourCC(info.located_by) {
        case "cdir": by = "container-directory"
        case "mvof": by = "micro-video-offset"
        case "seft": by = "samsung-trailer"
        default: by = "mpvd"
        }
        return Info(container: fourCC(info.container), locatedBy: by, movieOffset: info.movie_offset,
                    movieLength: info.movie_length,
                    presentationSeconds: info.presentation_us >= 0 ? Double(info.presentation_us) / 1e6 : nil)
    }

    /// What `toLive` wrote.
    public struct LiveReport: Sendable, Codable, Equatable {
        /// The still's path.
        public var still: String
        /// The movie's path.
        public var movie: String
        /// The Live content identifier (a 36-character UUID) shared by the still and the movie.
        public var contentIdentifier: String
        /// Index of the movie frame shown as the still (the key photo).
        public var stillFrame: Int
        /// The key photo's time on the movie timeline, in seconds.
        public var stillTime: Double
        /// "presentation-timestamp" (the Motion Photo's own), "matched-frame" (it had none usable: the frame nearest
        /// the photo) or "middle" (no frame is near it, or its shape is not the movie's).
        public var stillTimeSource: String
        /// False: the photo's image data was copied byte for byte (JPEG, and a HEIC whose Exif and XMP items
        /// could be repointed at rewritten copies); true: re-encoded (a HEIC that cannot be patched so).
        public var stillReencoded: Bool
        /// The still's width in pixels.
        public var stillWidth: Int
        /// The still's height in pixels.
        public var stillHeight: Int
        /// A HEIC still's gain map: "kept" (copied or re-encoded), "dropped-with-consent" or "none" (SPEC E6).
        public var hdr: String
        /// The movie's width in pixels.
        public var movieWidth: Int
        /// The movie's height in pixels.
        public var movieHeight: Int
        /// Frames in the movie written.
        public var frames: Int
        /// Duration in seconds.
        public var durationSeconds: Double
        /// The audio sample entry type ("mp4a", "lpcm", …); nil without audio.
        public var audioCodec: String?
        /// The movie's size in bytes.
        public var movieBytes: UInt64
        /// The C engine's accounting-allocator peak over the job, in bytes.
        public var enginePeakBytes: UInt64
        /// Wall-clock seconds the job took.
        public var seconds: Double
    }

    /// The still's extension for a Motion Photo of `container` ("jpeg" → "jpg").
    public static func stillExtension(_ info: Info) -> String { info.container == "heic" ? "heic" : "jpg" }

    /// `sy_live_from_motion_photo`: a Live pair, the movie remuxed (never
    /// re-encoded), the still the photo itself; both files or neither.
    /// Runs on its own thread; cancelling the task throws `CancellationError`
    /// and leaves neither file.
    /// - Parameters:
    ///   - input: the Motion Photo's file URL.
    ///   - stillOut: where the still goes.
    ///   - movieOut: where the movie goes.
    ///   - contentIdentifier: nil = a fresh identifier.
    ///   - allowSDR: SPEC E6 consent: a HEIC still whose gain map cannot be kept is written SDR instead of refused.
    ///   - progress: one non-decreasing fraction for the whole job.
    /// - Throws: `ShiyingError` (`.unsupported` for a file that is not a Motion Photo, or a gain map that
    ///   cannot be kept without `allowSDR`), `CancellationError`.
    public static func toLive(_ input: URL, stillOut: URL, movieOut: URL, contentIdentifier: String? = nil,
                              allowSDR: Bool = false,
                              progress: (@Sendable (ShiyingProgress) -> Void)? = nil) async throws -> LiveReport {
        let source = try input.shiyingPath("input")
        let still = try stillOut.shiyingPath("still output"), movie = try movieOut.shiyingPath("movie output")
        return try await runOffPool { cancel in
            try toLiveBlocking(source, stillOut: still, movieOut: movie, contentIdentifier: contentIdentifier,
                               allowSDR: allowSDR, progress: progress, cancel: cancel)
        }
    }

    /// `toLive`, blocking the calling thread, with file-system paths (the CLI's form).
    /// - Throws: as `toLive`.
    public static func toLiveBlocking(_ input: String, stillOut: String, movieOut: String,
                                      contentIdentifier: String? = nil, allowSDR: Bool = false,
                                      progress: ((ShiyingProgress) -> Void)? = nil,
                                      cancel: CancelHook? = nil) throws -> LiveReport {
        let meter = ProgressMeter.make(.movie, progress)
        let engine = try EngineContext(progress: meter?.report)
        cancel?({ [engine] in engine.cancel() })
        var o = sy_live_motion_options()
        sy_live_motion_options_init(&o)
        o.allow_sdr = allowSDR ? 1 : 0
        var r = sy_live_motion_report()
        var error = sy_error()
        let clock = ContinuousClock(), start = clock.now
        let status = withOptionalCString(contentIdentifier) { id in
            o.content_identifier = id
            return sy_live_from_motion_photo(engine.raw, input, stillOut, movieOut, &o, &r, &error)
        }
        try check(status, error, file: input)
        let elapsed = clock.now - start
        meter?.finish()
        let m = r.movie
        return LiveReport(
            still: stillOut, movie: movieOut, contentIdentifier: cString(r.content_identifier),
            stillFrame: Int(r.still_frame), stillTime: r.still_time,
            stillTimeSource: r.still_time_from_photo == 1 ? "presentation-timestamp"
                : r.still_time_from_photo == 2 ? "matched-frame" : "middle",
            stillReencoded: r.still_reencoded != 0, stillWidth: Int(r.still_width), stillHeight: Int(r.still_height),
            hdr: r.still_hdr == SY_HDR_KEPT ? "kept" : r.still_hdr == SY_HDR_DROPPED_WITH_CONSENT ? "dropped-with-consent" : "none",
            movieWidth: Int(m.width), movieHeight: Int(m.height), frames: Int(m.frames),
            durationSeconds: m.duration_seconds, audioCodec: m.audio_codec != 0 ? fourCC(m.audio_codec) : nil,
            movieBytes: m.bytes_written, enginePeakBytes: engine.memoryStats.peakBytes,
            seconds: elapsed.seconds)
    }
}
