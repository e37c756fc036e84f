import Foundation
internal import CShiying

/// The frames of a movie's video track, decoded (HEVC and H.264 with
/// libavcodec) and handed out upright as 8-bit RGB in presentation order
/// (`sy_video_reader`, issue 4). Holds the decoder's picture buffer and one
/// frame, never the whole movie. One thread at a time.
public final class VideoReader {
    /// What the movie's video track holds.
    public struct Info: Sendable, Codable, Equatable {
        /// The video codec's four-character code.
        public var codec: String
        /// Upright size as shown (after the track's rotation, and for samples that are not square the side they
        /// are long on grown to the displayed shape: 1440x1080 at 4:3 is 1920x1080); the frames' size.
        public var width: Int
        /// Height in pixels.
        public var height: Int
        /// Width of the coded pictures, before rotation.
        public var codedWidth: Int
        /// Height of the coded pictures, before rotation.
        public var codedHeight: Int
        /// Clockwise degrees applied to the pixels.
        public var rotation: Int
        /// True when the track's matrix flips the picture.
        public var mirrored: Bool
        /// Frames in the track.
        public var frameCount: Int
        /// Average frames per second.
        public var frameRate: Double
        /// The track's media duration in seconds.
        public var durationSeconds: Double
        /// Units per second of the track's timestamps.
        public var timescale: Int
        /// Bits per sample (8 or 10).
        public var bitDepth: Int
        /// Full-range (0…255) samples rather than video range.
        public var fullRange: Bool
        /// The stream's colour description (ISO/IEC 23091-2 code points; 2 = unspecified).
        public var primaries: Int
        /// Transfer characteristics: 1 BT.709, 16 PQ, 18 HLG, ...
        public var transfer: Int
        /// Matrix coefficients: 1 BT.709, 6 BT.601, 9 BT.2020, ...
        public var matrix: Int
        /// "hlg" or "pq" for an HDR stream, whose frames come tone-mapped to SDR Display P3; nil for SDR.
        public var hdr: String?
        /// The primaries of the RGB frames (sRGB's curve): the stream's, or 12 (Display P3) for HDR.
        public var framePrimaries: Int
        /// An HDR10 movie's mastering display (SMPTE ST 2086), from the sample entry's `mdcv` or the stream's SEI.
        public var masteringDisplay: MasteringDisplay?
        /// An HDR10 movie's content light levels (CTA-861.3), from `clli` or the SEI.
        public var contentLightLevel: ContentLightLevel?
        /// The pictures carry HDR10+ scene metadata (SMPTE ST 2094-40), as Samsung's HDR10+ recordings:
        /// a re-encode that keeps the HDR keeps each picture's ("hdr10plus-metadata" kept).
        public var hdr10Plus: Bool = false
        /// How long the movie shows the track from `startSeconds`: its edit's length (a trimmed file hides media
        /// by its edit; a B-frame track's media may run two frames past it), else the media duration.
        public var presentationSeconds: Double = 0
        /// When the movie starts to show the track, on its timeline (frame times, the times `ffprobe` prints):
        /// 0 for a camera's movie, later for a picture that starts after its sound (an empty edit, or first
        /// frames presented late).
        public var startSeconds: Double = 0
        /// Dolby Vision "profile.compatibility" ("8.4": an iPhone's HDR video, an HLG base with an RPU a picture), nil for none.
        public var dolbyVision: String?
        /// The stored samples' aspect, width:height of one, as the frames are shown ("4:3": 1440x1080 shown
        /// 1920x1080): the sample entry's `pasp` when believable (the container wins, as in QuickTime), else the
        /// stream's VUI; "1:1" for square samples.
        public var sampleAspectRatio: String = "1:1"
        /// Why an aspect the movie states was not applied (a zero term, a ratio past 4:1, a VUI the `pasp`
        /// overrides); nil when nothing was set aside.
        public var aspectNote: String? = nil
    }

    /// The display an HDR movie was graded on: CIE 1931 xy chromaticities and luminance.
    public struct MasteringDisplay: Sendable, Codable, Equatable {
        /// [x, y] of the red primary.
        public var red: [Double]
        /// [x, y] of the green primary.
        public var green: [Double]
        /// [x, y] of the blue primary.
        public var blue: [Double]
        /// [x, y] of the white point.
        public var whitePoint: [Double]
        /// Peak luminance in cd/m².
        public var maxLuminance: Double
        /// Black level in cd/m².
        public var minLuminance: Double
    }

    /// How bright an HDR movie gets, in cd/m².
    public struct ContentLightLevel: Sendable, Codable, Equatable {
        /// The brightest pixel (MaxCLL).
        public var maxContentLightLevel: Int
        /// The brightest frame's average (MaxFALL).
        public var maxFrameAverageLightLevel: Int
    }

    /// One decoded frame; `rgb` is a copy the caller owns.
    public struct Frame: Sendable {
        /// The frame's index in presentation order.
        public var index: Int
        /// Media timescale units, exactly as in the track.
        public var pts: Int64
        /// Presentation time on the movie timeline (edit list applied).
        public var seconds: Double
        /// Width in pixels.
        public var width: Int
        /// Height in pixels.
        public var height: Int
        /// width*3 bytes per row, no padding.
        public var rgb: [UInt8]
    }

    private let engine: EngineContext
    private let raw: OpaquePointer
    /// The movie's path.
    public let path: String
    /// The video track's facts.
    public let info: Info

    /// Opens the main video track (or track index `track`).
    /// - Throws: `ShiyingError` naming the file (not a movie, unsupported codec, corrupt).
    public init(_ path: String, track: Int? = nil) throws {
        engine = try EngineContext()
        var error = sy_error()
        var handle: OpaquePointer?
        try check(sy_video_reader_open(engine.raw, path, Int32(clamping: track ?? -1), &handle, &error), error, file: path)
        guard let handle, let i = sy_video_reader_info_get(handle)?.pointee else {
            throw ShiyingError(code: .invalidInput, message: "\(path): no video track", file: path)
        }
        raw = handle
        self.path = path
        info = Info(codec: fourCC(i.codec), width: Int(i.width), height: Int(i.height),
                    codedWidth: Int(i.coded_width), codedHeight: Int(i.coded_height), rotation: Int(i.rotation),
                    mirrored: i.mirrored != 0, frameCount: Int(i.frame_count), frameRate: i.frame_rate,
                    durationSeconds: i.duration_seconds, timescale: Int(i.timescale), bitDepth: Int(i.bit_depth),
                    fullRange: i.full_range != 0, primaries: Int(i.primaries), transfer: Int(i.transfer),
                    matrix: Int(i.matrix), hdr: i.transfer == 18 ? "hlg" : i.transfer == 16 ? "pq" : nil,
                    framePrimaries: Int(i.frame_primaries), masteringDisplay: Self.masteringDisplay(i.hdr),
                    contentLightLevel: i.hdr.has_light_level == 0 ? nil
                        : ContentLightLevel(maxContentLightLevel: Int(i.hdr.max_cll),
                                            maxFrameAverageLightLevel: Int(i.hdr.max_fall)),
                    hdr10Plus: i.hdr10plus != 0, presentationSeconds: i.presentation_seconds,
                    startSeconds: i.start_seconds,
                    dolbyVision: i.dolby_vision_profile == 0 ? nil : "\(i.dolby_vision_profile).\(i.dolby_vision_compatibility)",
                    sampleAspectRatio: "\(i.sar_num):\(i.sar_den)", aspectNote: i.aspect_note.map { String(cString: $0) })
    }

    /// The SEI's units: chromaticities in 0.00002, luminance in 0.0001 cd/m²; primaries stored green, blue, red.
    private static func masteringDisplay(_ m: sy_hdr_static_metadata) -> MasteringDisplay? {
        guard m.has_mastering != 0 else { return nil }
        let xs = [m.primaries_x.0, m.primaries_x.1, m.primaries_x.2], ys = [m.primaries_y.0, m.primaries_y.1, m.primaries_y.2]
        func xy(_ c: Int) -> [Double] { [Double(xs[c]) / 50000, Double(ys[c]) / 50000] }
        return MasteringDisplay(red: xy(2), green: xy(0), blue: xy(1),
                                whitePoint: [Double(m.white_x) / 50000, Double(m.white_y) / 50000],
                                maxLuminance: Double(m.max_luminance) / 10000, minLuminance: Double(m.min_luminance) / 10000)
    }

    deinit { sy_video_reader_close(raw) }

    /// The next frame in presentation order, nil at the end.
    public func next() throws -> Frame? {
        try withNext { frame in
            let width = Int(frame.width), height = Int(frame.height)
            var rgb = [UInt8](repeating: 0, count: width * height * 3)
            rgb.withUnsafeMutableBytes { out in
                for y in 0..<height {
                    memcpy(out.baseAddress! + y * width * 3, frame.rgb! + y * frame.stride, width * 3)
                }
            }
            return Frame(index: Int(frame.index), pts: frame.pts, seconds: frame.seconds, width: width,
                         height: height, rgb: rgb)
        }
    }

    /// Decodes the next frame without copying it; returns its index and time, nil at the end.
    public func skip() throws -> (index: Int, pts: Int64, seconds: Double)? {
        try withNext { (Int($0.index), $0.pts, $0.seconds) }
    }

    private func withNext<T>(_ body: (sy_video_frame) -> T) throws -> T? {
        var frame = sy_video_frame()
        var end: Int32 = 0
        var error = sy_error()
        try check(sy_video_reader_next(raw, &frame, &end, &error), error, file: path)
        return end != 0 ? nil : body(frame)
    }

    /// Engine memory figures for this reader.
    public var memoryStats: MemoryStats { engine.memoryStats }
}
