import Foundation
internal import CShiying

extension Conversion {
    /// What a video → GIF conversion wrote (`sy_convert_video_to_gif`).
    public struct GIFReport: Sendable, Codable, Equatable {
        /// The input file's path.
        public var input: String
        /// The output file's path.
        public var output: String
        /// Width in pixels.
        public var width: Int
        /// Height in pixels.
        public var height: Int
        /// Frames in the movie written.
        public var frames: Int
        /// Frames in the source movie.
        public var sourceFrames: Int
        /// Colours in the palette.
        public var colors: Int
        /// The GIF's size in bytes.
        public var bytes: UInt64
        /// Duration in seconds.
        public var durationSeconds: Double
        /// The C engine's accounting-allocator peak over the job, in bytes.
        public var enginePeakBytes: UInt64
        /// Wall-clock seconds the job took.
        public var seconds: Double
    }

    /// A movie (or a Motion Photo's movie) as an animated GIF: one Oklab
    /// palette for the whole animation, an ordered dither that does not
    /// shimmer, only changed pixels written per frame. Memory is bounded by a
    /// frame, never the movie (two decoding passes).
    /// Runs on its own thread; cancelling the task stops the engine within a
    /// frame, throws `CancellationError` and leaves nothing at `output`.
    /// - Parameters:
    ///   - input: the movie's file URL.
    ///   - output: the `.gif` file URL.
    ///   - maxWidth: fit inside this width, keeping the aspect (0 = native size).
    ///   - maxHeight: fit inside this height (0 = native size).
    ///   - fps: at most this many frames per second (0 = every frame).
    ///   - colors: palette size, 2…255.
    ///   - dither: ordered dither strength (0 = none).
    ///   - progress: one non-decreasing fraction; phases "gif palette" then "gif frames".
    /// - Throws: `ShiyingError` naming the file; `CancellationError`.
    public static func videoToGIF(_ input: URL, to output: URL, maxWidth: Int = 0, maxHeight: Int = 0,
                                  fps: Double = 0, colors: Int = 255, dither: Double = 2,
                                  progress: (@Sendable (ShiyingProgress) -> Void)? = nil) async throws -> GIFReport {
        let (source, target) = (try input.shiyingPath("input"), try output.shiyingPath("output"))
        return try await runOffPool { cancel in
            try videoToGIFBlocking(source, to: target, maxWidth: maxWidth, maxHeight: maxHeight, fps: fps,
                                   colors: colors, dither: dither, progress: progress, cancel: cancel)
        }
    }

    /// `videoToGIF`, blocking the calling thread, with file-system paths (the CLI's form).
    /// - Throws: as `videoToGIF`.
    public static func videoToGIFBlocking(_ input: String, to output: String, maxWidth: Int = 0, maxHeight: Int = 0,
                                          fps: Double = 0, colors: Int = 255, dither: Double = 2,
                                          progress: ((ShiyingProgress) -> Void)? = nil,
                                          cancel: CancelHook? = nil) throws -> GIFReport {
        let meter = ProgressMeter.make(.gif, progress)
        let engine = try EngineContext(progress: meter?.report)
        cancel?({ [engine] in engine.cancel() })
        var o = sy_gif_options()
        sy_gif_options_init(&o)
        o.max_width = UInt32(clamping: maxWidth)
        o.max_height = UInt32(clamping: maxHeight)
        o.fps = fps
        o.colors = UInt32(clamping: colors)
        o.dither = Float(dither)
        var r = sy_gif_report()
        var error = sy_error()
        let clock = ContinuousClock(), start = clock.now
        try check(sy_convert_video_to_gif(engine.raw, input, output, &o, &r, &error), error, file: input)
        let elapsed = clock.now - start
        meter?.finish()
        return GIFReport(input: input, output: output, width: Int(r.width), height: Int(r.height), frames: Int(r.frames),
                         sourceFrames: Int(r.source_frames), colors: Int(r.colors), bytes: r.bytes,
                         durationSeconds: r.duration_seconds, enginePeakBytes: engine.memoryStats.peakBytes,
                         seconds: elapsed.seconds)
    }
}
