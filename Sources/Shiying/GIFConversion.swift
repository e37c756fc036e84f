import Foundation
internal import CShiying

extension Conversion {
    /// What a video → GIF conversion wrote (`sy_convert_video_to_gif`).
    public struct GIFReport: Sendable, Codable, Equatable {
        public var input: String
        public var output: String
        public var width: Int
        public var height: Int
        public var frames: Int
        public var sourceFrames: Int
        public var colors: Int
        public var bytes: UInt64
        public var durationSeconds: Double
        public var enginePeakBytes: UInt64
        public var seconds: Double
    }

    /// A movie (or a Motion Photo's movie) as an animated GIF: one Oklab
    /// palette for the whole animation, an ordered dither that does not
    /// shimmer, only changed pixels written per frame. Memory is bounded by a
    /// frame, never the movie (two decoding passes).
    /// - Parameters:
    ///   - maxWidth, maxHeight: fit inside, keeping the aspect (0 = native size).
    ///   - fps: at most this many frames per second (0 = every frame).
    ///   - progress: (phase, done, total): "gif palette" then "gif frames".
    public static func videoToGIF(_ input: String, to output: String, maxWidth: Int = 0, maxHeight: Int = 0,
                                  fps: Double = 0, colors: Int = 255, dither: Double = 2,
                                  progress: ((String, UInt64, UInt64) -> Void)? = nil) throws -> GIFReport {
        let engine = try EngineContext(progress: progress)
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
        return GIFReport(input: input, output: output, width: Int(r.width), height: Int(r.height), frames: Int(r.frames),
                         sourceFrames: Int(r.source_frames), colors: Int(r.colors), bytes: r.bytes,
                         durationSeconds: r.duration_seconds, enginePeakBytes: engine.memoryStats.peakBytes,
                         seconds: elapsed.seconds)
    }
}
