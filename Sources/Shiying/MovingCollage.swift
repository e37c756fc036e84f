import Foundation
internal import CShiying

/// A collage of (Live) photos exported as a Live photo, a video or a still
/// (issue 17; SPEC C1–C7, C9, C12, C14) — `sy_motion_export`.
public struct MovingCollageRequest: Sendable, Codable, Equatable {
    /// SPEC C1 motion modes.
    public enum Mode: String, Sendable, Codable, CaseIterable {
        /// Every cell moves at once.
        case together
        /// The cells move one after another, with sound.
        case relay
        /// The hero cell is enlarged and plays, then the collage returns.
        case focus
    }
    /// SPEC C1 export tiers.
    public enum Tier: String, Sendable, Codable {
        /// A Live pair: the still and a movie sharing one content identifier.
        case live
        /// The still and a plain movie, without the Live identifier.
        case video
        /// The still alone.
        case still
    }
    /// The still's encoding.
    public enum StillFormat: String, Sendable, Codable {
        /// JPEG.
        case jpeg
        /// HEIC (HEVC in HEIF).
        case heic
    }

    /// One photo; `movie` names its Live movie explicitly (no identifier check),
    /// nil looks for a same-stem `.MOV` beside the still sharing its content identifier.
    public struct Input: Sendable, Codable, Equatable {
        /// The cell's still.
        public var still: String
        /// The cell's movie; nil = found beside the still by the Live rules, or none.
        public var movie: String?
        /// A cell from its still and, optionally, its movie.
        public init(still: String, movie: String? = nil) {
            self.still = still
            self.movie = movie
        }
    }

    /// Long image or grid.
    public var layout: CollageRequest.Layout = .grid
    /// The cells, in order.
    public var inputs: [Input]
    /// Where `<name>.jpg|heic` and `<name>.mov|mp4` are written.
    public var directory: String
    /// The output files' stem (`name.jpg`, `name.mov`).
    public var name: String = "collage"
    /// Width in pixels.
    public var width: Int = 1080
    /// Grid columns; nil = the template for the photo count.
    public var columns: Int? = nil
    /// Pixels between cells; nil = the layout's default.
    public var spacing: Int? = nil
    /// Outer margin in pixels; nil = the layout's default.
    public var margin: Int? = nil
    /// Background (spacing and margins) as exactly three bytes, R, G, B.
    public var background: [UInt8] = [255, 255, 255]
    /// How the cells move.
    public var mode: Mode = .together
    /// Focus: the hero's input index; nil = the first Live cell.
    public var hero: Int? = nil
    /// What to deliver; a lower tier is delivered when the higher cannot be.
    public var tier: Tier = .live
    /// The still's encoding.
    public var format: StillFormat = .jpeg
    /// The still's quality, 1…100.
    public var quality: Int = 92
    /// The movie's frame rate.
    public var fps: Int = 30
    /// Bits per second; nil = SPEC C14 for the canvas.
    public var bitrate: Int? = nil
    /// x265 preset; nil = the encoder's default.
    public var preset: String? = nil
    /// Encoder threads; 0 = one per core.
    public var threads: Int = 0
    /// SPEC E6 consent: the still keeps the key photos' HDR gain maps (composed as a still collage's); a map it
    /// cannot keep (one that cannot be read or interpreted) is dropped only with this, else nothing is written.
    /// The same for an HDR (HLG, PQ) Live movie: the collage's movie is SDR.
    public var allowSDR: Bool = false
    /// Measure the process's peak resident set over the export (see `CollageRequest.measureProcessPeak`).
    public var measureProcessPeak: Bool = false

    /// A request for `inputs` written into `directory`, with the defaults above.
    public init(inputs: [Input], directory: String) {
        self.inputs = inputs
        self.directory = directory
    }

    /// The still's path (`<name>.jpg` / `.heic`).
    public var stillPath: String {
        (directory as NSString).appendingPathComponent(name + (format == .heic ? ".heic" : ".jpg"))
    }

    /// The movie's path: `.mov` for a Live photo, `.mp4` for the video tier, nil for a still.
    public var moviePath: String? {
        switch tier {
        case .live: (directory as NSString).appendingPathComponent(name + ".mov")
        case .video: (directory as NSString).appendingPathComponent(name + ".mp4")
        case .still: nil
        }
    }
}

/// What a moving-collage export delivered.
public struct MovingCollageReport: Sendable, Codable, Equatable {
    /// One cell of the collage.
    public struct Cell: Sendable, Codable, Equatable {
        /// Position of the input in the request.
        public var index: Int
        /// The cell moves (its movie played).
        public var live: Bool
        /// The still could not be read: the cell is grey.
        public var grey: Bool
        /// The movie the cell played, if any.
        public var movie: String?
        /// Why a cell with a movie stays static, or why it is grey.
        public var reason: String?
        /// The cell on the canvas (pixels).
        public var x, y, width, height: Int
        /// When the cell's clip starts playing on the movie's timeline (seconds; the SPEC C1 mode decides);
        /// nil when it does not play (static cells, focus cells other than the hero, a still export).
        public var startSeconds: Double?
    }
    /// What was delivered: Live, video or the still alone.
    public var delivered: MovingCollageRequest.Tier
    /// Why the tier asked for was not delivered (SPEC C4, C5, C6); nil when it was.
    public var fallbackReason: String?
    /// SPEC C1: the Live tier's caption for the mode; "" for a video or a still.
    public var caption: String
    /// The motion mode.
    public var mode: MovingCollageRequest.Mode
    /// Every cell, in input order.
    public var cells: [Cell]
    /// Cells that do not move.
    public var staticCells: [Int] { cells.filter { !$0.live }.map(\.index) }
    /// Cells painted grey (unreadable stills).
    public var greyCells: [Int] { cells.filter(\.grey).map(\.index) }
    /// The still's path.
    public var still: String
    /// The movie's path; nil when no movie was delivered.
    public var movie: String?
    /// The Live content identifier (a 36-character UUID) shared by the still and the movie.
    public var contentIdentifier: String?
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// The hero cell (focus mode), if any.
    public var hero: Int?
    /// Frames in the movie written.
    public var frames: Int
    /// Duration in seconds.
    public var durationSeconds: Double
    /// Index of the movie frame shown as the still (the key photo).
    public var stillFrame: Int
    /// The key photo's time on the movie timeline, in seconds.
    public var stillTime: Double
    /// Audio tracks in the movie: the Live tier's .mov one per cell that plays with sound, the video tier's .mp4 at most one.
    public var audioTracks: Int
    /// The movie's sound: "mp4a" (the video tier's AAC-LC, encoded), the first copied track's sample entry
    /// ("lpcm", "mp4a", …) in the Live tier, nil when the movie is silent.
    public var audioCodec: String?
    /// The encoded AAC's bits per second (96 kb/s a channel), 0 when the sound is copied or absent.
    public var audioBitrate: Int
    /// The encoded AAC's sampling rate in Hz and channels, 0 when the sound is copied or absent.
    public var audioSampleRate: Int
    /// Channels of the encoded AAC (1 or 2), 0 when the sound is copied or absent.
    public var audioChannels: Int
    /// Video bitrate in bits per second.
    public var bitrate: UInt64
    /// "Display P3" when a photo or movie was wider than sRGB (iPhone Live photos are): the still carries the
    /// Display P3 profile, the movie says primaries 12; else "sRGB" (the movie BT.709), as still collages say.
    public var colorSpace: String
    /// SPEC E6, the still's HDR gain map composed from the key photos': "kept", "dropped" (every map dropped
    /// with consent) or "none" (no key photo had one).
    public var gainMap: String
    /// SPEC E6 for the movie: "dropped" when an HDR (HLG, PQ) Live movie was shown in the SDR movie with consent
    /// (`allowSDR`), else "none".
    public var movieHDR: String = "none"
    /// The C engine's accounting-allocator peak over the job, in bytes.
    public var enginePeakBytes: UInt64
    /// Peak resident set during the job minus the resident set before it; nil unless asked for.
    public var peakRSSDeltaBytes: UInt64?
    /// Wall-clock seconds the job took.
    public var seconds: Double
}

/// Moving collages: a grid or long image whose cells play their Live movies (SPEC C1, C11).
public enum MovingCollage {
    /// SPEC C1 captions of the Live tier, per motion mode. `withSound` false
    /// (relay whose Live cells have no sound): the relay caption without its
    /// promise of sound, 「长按会依次动起来」.
    public static func caption(for mode: MovingCollageRequest.Mode, withSound: Bool = true) -> String {
        switch mode {
        case .together: "长按会动起来"
        case .relay: withSound ? "长按会依次动起来，带声音" : "长按会依次动起来"
        case .focus: "长按会放大主角，播完回到拼图"
        }
    }

    /// Exports the collage, blocking the calling thread; prefer the async
    /// `export` in Swift concurrency code. Memory is bounded independently of
    /// the movies' length (see sy_motion.h).
    /// - Parameters:
    ///   - request: the cells, layout, motion mode and outputs.
    ///   - progress: one non-decreasing fraction, on the calling thread.
    ///   - cancel: handed a closure that cancels the job from any thread.
    /// - Throws: `CancellationError` when cancelled; `ShiyingError` —
    ///   `.invalidInput` when no still is readable, `.unsupported` when a
    ///   failing pair's identifier cannot be removed (nothing delivered),
    ///   `.usage`, `.io`, `.codec`, `.budget`.
    public static func exportBlocking(_ request: MovingCollageRequest,
                                      progress: ((ShiyingProgress) -> Void)? = nil,
                                      cancel: CancelHook? = nil) throws -> MovingCollageReport {
        try export(request, progress: progress, cancel: cancel, beforeVerify: nil)
    }

    /// Sees the written Live pair (still, movie) just before verification: the tests' way to break it.
    package final class PairHook {
        let body: (String, String) -> Void
        package init(_ body: @escaping (String, String) -> Void) { self.body = body }
    }

    package static func export(_ request: MovingCollageRequest, progress: ((ShiyingProgress) -> Void)?,
                               cancel: CancelHook?, beforeVerify: PairHook?) throws -> MovingCollageReport {
        try validateBackground(request.background)
        try validateRange("width", request.width, 1...65_500)
        try validateRange("quality", request.quality, 1...100)
        let meter = ProgressMeter.make(.motion, progress)
        let engine = try EngineContext(progress: meter?.report)
        cancel?({ [engine] in engine.cancel() })
        return try OutputFolder.using(request.directory) {
            try export(request, engine: engine, meter: meter, beforeVerify: beforeVerify)
        }
    }

    private static func export(_ request: MovingCollageRequest, engine: EngineContext, meter: ProgressMeter?,
                               beforeVerify: PairHook?) throws -> MovingCollageReport {
        var options = sy_motion_options()
        sy_motion_options_init(&options)
        sy_collage_options_init(&options.layout, request.layout == .grid ? SY_LAYOUT_GRID : SY_LAYOUT_LONG)
        options.layout.width = UInt32(clamping: request.width)
        if let columns = request.columns { options.layout.columns = UInt32(clamping: columns) }
        if let spacing = request.spacing { options.layout.spacing = UInt32(clamping: spacing) }
        if let margin = request.margin { options.layout.margin = UInt32(clamping: margin) }
        options.layout.background = (request.background[0], request.background[1], request.background[2])
        options.layout.allow_sdr = request.allowSDR ? 1 : 0
        options.mode = switch request.mode {
        case .together: SY_MOTION_TOGETHER
        case .relay: SY_MOTION_RELAY
        case .focus: SY_MOTION_FOCUS
        }
        options.hero = Int32(clamping: request.hero ?? -1)
        options.tier = switch request.tier {
        case .live: SY_MOTION_TIER_LIVE
        case .video: SY_MOTION_TIER_VIDEO
        case .still: SY_MOTION_TIER_STILL
        }
        options.still_format = request.format == .heic ? SY_STILL_HEIC : SY_STILL_JPEG
        options.quality = Int32(clamping: request.quality)
        options.fps = UInt32(clamping: request.fps)
        options.bitrate = UInt64(clamping: request.bitrate ?? 0)
        options.threads = UInt32(clamping: request.threads)
        if let beforeVerify {
            options.hook_user = Unmanaged.passUnretained(beforeVerify).toOpaque()
            options.before_verify = { user, still, movie, _ in
                guard let user, let still, let movie else { return sy_status(SY_OK) }
                Unmanaged<PairHook>.fromOpaque(user).takeUnretainedValue().body(String(cString: still), String(cString: movie))
                return sy_status(SY_OK)
            }
        }

        let stills = request.inputs.map { strdup($0.still) }
        let movies = request.inputs.map { $0.movie.map { strdup($0) } ?? nil }
        let preset = request.preset.map { strdup($0) } ?? nil
        defer { (stills + movies + [preset]).forEach { free($0) } }
        options.preset = UnsafePointer(preset)
        var inputs = zip(stills, movies).map { sy_motion_input(still: UnsafePointer($0), movie: UnsafePointer($1)) }
        let report = UnsafeMutablePointer<sy_motion_report>.allocate(capacity: 1) // ~40 KB: off the stack
        defer { report.deallocate() }
        var error = sy_error()
        let clock = ContinuousClock()
        let start = clock.now
        let job = {
            sy_motion_export(engine.raw, &inputs, UInt32(inputs.count), &options, request.stillPath, request.moviePath,
                             report, &error)
        }
        var rssDelta: UInt64? = nil
        let status: sy_status
        if request.measureProcessPeak {
            let measured = ProcessMemory.measure(job)
            (status, rssDelta) = (measured.0, measured.peakDeltaBytes)
        } else {
            status = job()
        }
        let elapsed = clock.now - start
        withExtendedLifetime(beforeVerify) {}
        try check(status, error, file: request.stillPath)
        meter?.finish()
        return makeReport(report.pointee, request: request, rssDelta: rssDelta,
                          seconds: elapsed.seconds)
    }

    /// Exports the collage on its own thread. Cancelling the task sets the
    /// engine's flag, polled once per frame (and inside the decoders and the
    /// encoder): the job throws `CancellationError` and delivers nothing.
    /// - Parameters:
    ///   - request: the cells, layout, motion mode and outputs.
    ///   - progress: one non-decreasing fraction; phases "cells", "frames", "verify frames".
    /// - Throws: as `exportBlocking`.
    public static func export(_ request: MovingCollageRequest,
                              progress: (@Sendable (ShiyingProgress) -> Void)? = nil) async throws
        -> MovingCollageReport {
        try await runOffPool { cancel in try exportBlocking(request, progress: progress, cancel: cancel) }
    }

    private static func makeReport(_ r: sy_motion_report, request: MovingCollageRequest, rssDelta: UInt64?,
                                   seconds: Double) -> MovingCollageReport {
        var r = r
        let cells: [MovingCollageReport.Cell] = withUnsafeBytes(of: &r.cell) { raw in
            let list = raw.bindMemory(to: sy_motion_cell.self)
            return (0..<Int(r.cells)).map { i in
                let cell = list[i]
                let movie = cString(cell.movie), reason = cString(cell.reason)
                return .init(index: i, live: cell.live != 0, grey: cell.grey != 0, movie: movie.isEmpty ? nil : movie,
                             reason: reason.isEmpty ? nil : reason, x: Int(cell.x), y: Int(cell.y),
                             width: Int(cell.width), height: Int(cell.height),
                             startSeconds: r.movie_written != 0 && cell.start_seconds >= 0 ? cell.start_seconds : nil)
            }
        }
        let delivered: MovingCollageRequest.Tier = switch r.delivered {
        case SY_MOTION_TIER_LIVE: .live
        case SY_MOTION_TIER_VIDEO: .video
        default: .still
        }
        let fallback = cString(r.fallback_reason), identifier = cString(r.content_identifier)
        return MovingCollageReport(
            delivered: delivered, fallbackReason: fallback.isEmpty ? nil : fallback,
            caption: delivered == .live ? caption(for: request.mode, withSound: r.audio_tracks > 0) : "", mode: request.mode, cells: cells,
            still: request.stillPath, movie: r.movie_written != 0 ? request.moviePath : nil,
            contentIdentifier: identifier.isEmpty ? nil : identifier, width: Int(r.width), height: Int(r.height),
            hero: r.hero >= 0 ? Int(r.hero) : nil, frames: Int(r.frames), durationSeconds: r.duration_seconds,
            stillFrame: Int(r.still_frame), stillTime: r.still_time, audioTracks: Int(r.audio_tracks),
            audioCodec: r.audio_codec != 0 ? fourCC(r.audio_codec) : nil, audioBitrate: Int(r.audio_bitrate),
            audioSampleRate: Int(r.audio_rate), audioChannels: Int(r.audio_channels),
            bitrate: r.bitrate, colorSpace: r.display_p3 != 0 ? "Display P3" : "sRGB",
            gainMap: r.hdr == SY_HDR_KEPT ? "kept" : r.hdr == SY_HDR_DROPPED_WITH_CONSENT ? "dropped" : "none",
            movieHDR: r.movie_hdr == SY_HDR_DROPPED_WITH_CONSENT ? "dropped" : "none",
            enginePeakBytes: r.engine_peak_bytes, peakRSSDeltaBytes: rssDelta, seconds: seconds)
    }
}
