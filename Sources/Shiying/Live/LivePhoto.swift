import Foundation
internal import CShiying

/// Live photo pairs (issue 6, `sy_live.h`): a JPEG/HEIC still and a QuickTime
/// movie tied by one content identifier (SPEC C2; ../shared/specs/live-photo.md).
public enum LivePhoto {
    /// The still's content identifier (Apple MakerNote tag 0x0011), nil when it has none.
    /// - Throws: `ShiyingError` when the file is unreadable or not JPEG/HEIC.
    public static func stillIdentifier(_ path: String) throws -> String? {
        let engine = try EngineContext()
        var id = [CChar](repeating: 0, count: Int(SY_LIVE_ID_LEN) + 1)
        var found: Int32 = 0
        var error = sy_error()
        try check(sy_live_still_read_id(engine.raw, path, &id, &found, &error), error, file: path)
        return found != 0 ? cText(id) : nil
    }

    /// What a movie carries for pairing (container only, nothing decoded).
    public struct MovieInfo: Sendable, Codable, Equatable {
        /// The Live content identifier (a 36-character UUID) shared by the still and the movie.
        public var contentIdentifier: String?
        /// Seconds on the movie timeline; nil without a still-image-time track.
        public var stillTime: Double?
        /// Where the video ends on the movie timeline, in seconds: its duration after the time it starts (0, or
        /// later for a picture that starts after its sound).
        public var durationSeconds: Double
    }

    /// `sy_live_movie_read`. - Throws: `ShiyingError` when the movie does not parse.
    public static func movieInfo(_ path: String) throws -> MovieInfo {
        let engine = try EngineContext()
        var info = sy_live_movie_info()
        var error = sy_error()
        try check(sy_live_movie_read(engine.raw, path, &info, &error), error, file: path)
        return MovieInfo(contentIdentifier: info.has_identifier != 0 ? cString(info.content_identifier) : nil,
                         stillTime: info.has_still_time != 0 ? info.still_time : nil, durationSeconds: info.duration)
    }

    /// SPEC C4: `output` = `still` without its content identifier, only the
    /// metadata rewritten (pixels and compressed data untouched).
    /// - Returns: whether there was an identifier to remove.
    /// - Throws: `ShiyingError` (`.unsupported`) when it cannot be removed; nothing is written then.
    @discardableResult
    public static func strip(_ still: String, to output: String) throws -> Bool {
        let engine = try EngineContext()
        var removed: Int32 = 0
        var error = sy_error()
        try check(sy_live_still_strip(engine.raw, still, output, &removed, &error), error, file: still)
        return removed != 0
    }

    /// The still's encoding.
    public enum StillFormat: String, Sendable, Codable {
        /// JPEG.
        case jpeg
        /// HEIC (HEVC in HEIF).
        case heic
    }

    /// How a Live save renders and encodes the pair.
    public struct SaveOptions: Sendable {
        /// Applied to every frame and to the still by the one frame renderer.
        public var recipe: EditRecipe = .identity
        /// Key photo time on the source movie in seconds; nil = the middle.
        public var stillTime: Double?
        /// The new still's encoding.
        public var stillFormat: StillFormat = .jpeg
        /// The still's quality, 1…100.
        public var quality = 95
        /// Bits per second; nil = SPEC C14.
        public var bitrate: Int?
        /// x265 preset; nil = the engine default.
        public var preset: String?
        /// x265 pool threads; 0 = one per core.
        public var threads = 0
        /// nil = a fresh identifier (never reuse one across pairs).
        public var contentIdentifier: String?
        /// Without a source still ("set as key photo"): the still whose metadata
        /// (Exif, XMP, ICC; identifier replaced) the new still carries.
        public var metadataFrom: String?
        /// SPEC E6: a Live edit keeps the still's HDR gain map through the same
        /// geometry; where it cannot (an undecodable map, a key photo taken from
        /// the SDR movie) the save is refused unless the user agreed to an SDR still.
        public var allowSDR = false
        /// Options with the defaults above.
        public init() {}
    }

    /// What a Live save wrote.
    public struct SaveReport: Sendable, Codable, Equatable {
        /// false: SPEC E1 (a border) — the still alone was written, without an identifier.
        public var live: Bool
        /// The Live content identifier (a 36-character UUID) shared by the still and the movie.
        public var contentIdentifier: String?
        /// The still's path.
        public var still: String
        /// The movie's path; nil when only the still was written (`live` false).
        public var movie: String?
        /// Index of the movie frame shown as the still (the key photo).
        public var stillFrame: Int
        /// The key photo's time on the movie timeline, in seconds.
        public var stillTime: Double
        /// The still's width in pixels.
        public var stillWidth: Int
        /// The still's height in pixels.
        public var stillHeight: Int
        /// The movie's width in pixels.
        public var movieWidth: Int
        /// The movie's height in pixels.
        public var movieHeight: Int
        /// Frames in the movie written.
        public var frames: Int
        /// Duration in seconds.
        public var durationSeconds: Double
        /// Video bitrate in bits per second.
        public var bitrate: Int
        /// The audio sample entry type ("mp4a", "lpcm", …); nil without audio.
        public var audioCodec: String?
        /// Audio samples copied.
        public var audioSamples: Int
        /// The C engine's accounting-allocator peak over the job, in bytes.
        public var enginePeakBytes: UInt64
        /// Wall-clock seconds the job took.
        public var seconds: Double
        /// The still's HDR gain map: "kept", "dropped-with-consent" or "none" (the source had none).
        public var hdr: String
        /// Metadata the still did not carry over from its source, with the reason.
        public var dropped: [DroppedMetadata]
        /// Tracks of the source movie the new movie leaves out, with the reason.
        public var movieDropped: [DroppedMetadata]
        /// What the new movie carries over from the source movie: any of "audio",
        /// "movie-metadata", "creation-date", "video-track-metadata", "timed-metadata-tracks".
        public var movieKept: [String]
    }

    /// `sy_live_save`: video → Live (`still` nil, SPEC S3), a Live edit
    /// (`still` given), or "set as key photo" (`still` nil, `options.stillTime`
    /// and `options.metadataFrom` set): both files or neither.
    /// Runs on its own thread; cancelling the task stops the engine within a
    /// frame, throws `CancellationError` and leaves neither output file.
    /// - Parameters:
    ///   - movie: the source movie's file URL.
    ///   - still: the source still's file URL for a Live edit; nil = the still is a movie frame.
    ///   - stillOut: where the new still goes.
    ///   - movieOut: where the new movie goes.
    ///   - options: recipe, key photo time, formats, bitrate, identifier.
    ///   - progress: one non-decreasing fraction for the whole save: for a
    ///     Live edit the still's phases (`"decode"`, `"rows"`, HEIC `"heif tiles"`)
    ///     and the movie's `"frames"`, which run side by side, weighted into one
    ///     value; without a source still, the movie's frames. 1 only once both files are in place.
    /// - Throws: `ShiyingError` naming the file; `CancellationError`.
    public static func save(movie: URL, still: URL? = nil, stillOut: URL, movieOut: URL,
                            options: SaveOptions = SaveOptions(),
                            progress: (@Sendable (ShiyingProgress) -> Void)? = nil) async throws -> SaveReport {
        let movie = try movie.shiyingPath("movie"), still = try still.shiyingPath("still")
        let stillOut = try stillOut.shiyingPath("still output"), movieOut = try movieOut.shiyingPath("movie output")
        return try await runOffPool { cancel in
            try saveBlocking(movie: movie, still: still, stillOut: stillOut, movieOut: movieOut, options: options,
                             progress: progress, cancel: cancel)
        }
    }

    /// `save`, blocking the calling thread, with file-system paths (the CLI's form).
    /// `progress` gets one non-decreasing fraction on the calling thread; `cancel`
    /// is handed a closure that cancels the job from any thread (it then throws
    /// `CancellationError`).
    /// - Throws: as `save`.
    public static func saveBlocking(movie: String, still: String? = nil, stillOut: String, movieOut: String,
                                    options: SaveOptions = SaveOptions(),
                                    progress: ((ShiyingProgress) -> Void)? = nil,
                                    cancel: CancelHook? = nil) throws -> SaveReport {
        try saveReadingStill(movie: movie, still: still, stillOut: stillOut, movieOut: movieOut, options: options,
                             progress: progress, cancel: cancel).report
    }

    /// `saveBlocking`, plus what the source still's decode read (SPEC E7 evidence; zero without a source still).
    static func saveReadingStill(movie: String, still: String?, stillOut: String, movieOut: String, options: SaveOptions,
                                 progress: ((ShiyingProgress) -> Void)?, cancel: CancelHook?) throws
        -> (report: SaveReport, stillRead: sy_edit_report, movieDecoded: PixelSize) {
        try options.recipe.validateForEngine()
        guard (1...100).contains(options.quality) else {
            throw ShiyingError(code: .usage, message: "quality \(options.quality) is outside 1...100")
        }
        let plan = ProgressMeter.Plan.live(editsStill: still != nil, heicStill: options.stillFormat == .heic)
        let meter = ProgressMeter.make(plan, progress)
        let engine = try EngineContext(progress: meter?.report)
        cancel?({ [engine] in engine.cancel() })
        var o = sy_live_save_options()
        sy_live_save_options_init(&o)
        o.still_time = options.stillTime ?? -1
        o.still_format = options.stillFormat == .heic ? SY_STILL_HEIC : SY_STILL_JPEG
        o.quality = Int32(options.quality)
        o.bitrate = UInt64(max(0, options.bitrate ?? 0))
        o.threads = UInt32(clamping: options.threads)
        o.allow_sdr = options.allowSDR ? 1 : 0
        var report = sy_live_save_report()
        var error = sy_error()
        let clock = ContinuousClock(), start = clock.now
        let status = options.recipe.withEngineRecipe { recipe in
            withOptionalCString(options.preset) { preset in
                withOptionalCString(options.contentIdentifier) { id in
                    withOptionalCString(options.metadataFrom) { metadata in
                        o.recipe = recipe
                        o.preset = preset
                        o.content_identifier = id
                        o.metadata_source = metadata
                        return sy_live_save(engine.raw, movie, still, stillOut, movieOut, &o, &report, &error)
                    }
                }
            }
        }
        try check(status, error, file: still ?? movie)
        meter?.finish()
        let m = report.movie
        return (SaveReport(
            live: report.live != 0, contentIdentifier: report.live != 0 ? cString(report.content_identifier) : nil,
            still: stillOut, movie: report.live != 0 ? movieOut : nil, stillFrame: Int(report.still_frame),
            stillTime: report.still_time, stillWidth: Int(report.still_width), stillHeight: Int(report.still_height),
            movieWidth: Int(m.width), movieHeight: Int(m.height), frames: Int(m.frames),
            durationSeconds: m.duration_seconds, bitrate: Int(m.bitrate),
            audioCodec: m.audio_codec != 0 ? fourCC(m.audio_codec) : nil, audioSamples: Int(m.audio_samples),
            enginePeakBytes: engine.memoryStats.peakBytes, seconds: (clock.now - start).seconds,
            hdr: report.hdr == SY_HDR_KEPT ? "kept" : report.hdr == SY_HDR_DROPPED_WITH_CONSENT ? "dropped-with-consent" : "none",
            dropped: DroppedMetadata.list(report.still_dropped), movieDropped: DroppedMetadata.list(m.dropped),
            movieKept: keptMovieMetadata(m.kept)),
            report.still_source, PixelSize(width: Int(m.decoded_width), height: Int(m.decoded_height)))
    }

    /// A rendered frame: RGB8 rows of `width * 3` bytes.
    public struct Frame: Sendable, Equatable {
        /// The frame's index in presentation order.
        public var index: Int
        /// Width in pixels.
        public var width: Int
        /// Height in pixels.
        public var height: Int
        /// `width * height * 3` bytes, RGB8, rows top to bottom.
        public var rgb: [UInt8]
    }

    /// SPEC E2: the frame a Live save shows at `seconds`, rendered with `recipe`
    /// by the same renderer that renders every frame of the save (`sy_live_render_frame`).
    public static func renderFrame(movie: String, at seconds: Double, recipe: EditRecipe = .identity) throws -> Frame {
        try recipe.validateForEngine()
        let engine = try EngineContext()
        var image = sy_edit_image()
        var index: UInt32 = 0
        var error = sy_error()
        let status = recipe.withEngineRecipe { sy_live_render_frame(engine.raw, movie, seconds, $0, &image, &index, &error) }
        try check(status, error, file: movie)
        defer { sy_edit_image_free(engine.raw, &image) }
        return frame(of: image, index: index)
    }

    /// An engine image as a Frame (rows copied out).
    private static func frame(of image: sy_edit_image, index: UInt32) -> Frame {
        var rgb = [UInt8]()
        rgb.reserveCapacity(Int(image.width) * Int(image.height) * 3)
        for y in 0..<Int(image.height) {
            rgb += UnsafeBufferPointer(start: image.pixels + y * image.stride, count: Int(image.width) * 3)
        }
        return Frame(index: Int(index), width: Int(image.width), height: Int(image.height), rgb: rgb)
    }

    /// SPEC E2: saves that frame as a new plain photo (no identifier), with the
    /// source still's Exif and XMP when `metadataFrom` is given, in the movie's
    /// colour space (an iPhone movie's Display P3, with its profile); the frame of
    /// an HDR movie (HLG, PQ) keeps its HDR as a gain map. The pair is untouched.
    public static func saveFrame(movie: String, at seconds: Double, recipe: EditRecipe = .identity,
                                 metadataFrom still: String? = nil, to output: String,
                                 format: StillFormat = .jpeg, quality: Int = 95) throws -> Frame {
        try recipe.validateForEngine()
        let engine = try EngineContext()
        var image = sy_edit_image()
        var index: UInt32 = 0
        var error = sy_error()
        let status = recipe.withEngineRecipe {
            sy_live_save_frame(engine.raw, movie, seconds, $0, still, output,
                               format == .heic ? SY_STILL_HEIC : SY_STILL_JPEG, Int32(quality), &image, &index, &error)
        }
        try check(status, error, file: output)
        defer { sy_edit_image_free(engine.raw, &image) }
        return frame(of: image, index: index)
    }
}


/// A NUL-terminated C buffer as a String.
private func cText(_ chars: [CChar]) -> String {
    String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
