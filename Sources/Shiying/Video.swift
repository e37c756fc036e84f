import Foundation
internal import CShiying

/// What a QuickTime / MP4 movie holds, read from its `moov` without decoding
/// anything (`sy_mov_*`, SPEC issue 4): brand, duration, tracks, the main video
/// track, movie-level `mdta` metadata and `mebx` timed-metadata keys.
public struct VideoInfo: Sendable, Codable, Equatable {
    /// One track, in file order.
    public struct Track: Sendable, Codable, Equatable {
        /// tkhd track_ID.
        public var id: Int
        /// hdlr handler type as text: "vide", "soun", "meta", "tmcd", ...
        public var handler: String
        /// First sample entry type as text: "hvc1", "avc1", "mp4a", "mebx", ... ("" when none).
        public var codec: String
        /// The track is enabled.
        public var enabled: Bool
        /// Coded size (video; 0 for tracks without a visual sample entry or tkhd size).
        public var width: Int
        /// Height in pixels.
        public var height: Int
        /// Clockwise degrees to display: 0, 90, 180 or 270.
        public var rotation: Int
        /// True when the track's matrix flips the picture.
        public var mirrored: Bool
        /// Size as displayed: tkhd size, swapped for 90/270.
        public var displayWidth: Int
        /// Height as displayed (after the track matrix).
        public var displayHeight: Int
        /// mdhd timescale (units per second).
        public var timescale: Int
        /// Duration in seconds.
        public var durationSeconds: Double
        /// ISO 639-2/T language code.
        public var language: String
        /// Samples in the track.
        public var sampleCount: Int
        /// Sync samples (all of them when the track has no stss).
        public var keyframeCount: Int
        /// Samples per second of media duration; video tracks only.
        public var frameRate: Double?
        /// Audio tracks only.
        public var channels: Int?
        /// Audio sample rate in Hz (0 for video).
        public var sampleRate: Double?
        /// Key names of a `mebx` sample entry (empty for other tracks).
        public var mebxKeys: [String]
        /// Dolby Vision "profile.compatibility" of the sample entry's configuration ("8.4": an iPhone's HDR
        /// video), nil for none.
        public var dolbyVision: String? = nil
        /// The visual sample entry's `pasp` as written, "hSpacing:vSpacing" ("4:3": samples 4/3 as wide as tall),
        /// nil when it has none. Unjudged: `VideoReader.Info.sampleAspectRatio` is what the frames are shown with.
        public var pixelAspect: String? = nil
    }

    /// One movie-level metadata item (`mdta` key + ilst data).
    public struct MetadataItem: Sendable, Codable, Equatable {
        /// e.g. "com.apple.quicktime.content.identifier".
        public var key: String
        /// Data type indicator: 1 = UTF-8, 21 = signed int, 22 = unsigned, 23 = float32, ...
        public var dataType: Int
        /// The value when the data type is UTF-8 text (1), else nil.
        public var value: String?
        /// Size of the value in bytes.
        public var byteCount: Int
    }

    /// The movie's path.
    public var path: String
    /// ftyp major brand as text ("qt  ", "isom", ...); "" when there is no ftyp.
    public var brand: String
    /// Duration in seconds.
    public var durationSeconds: Double
    /// The file's size in bytes.
    public var fileSize: UInt64
    /// An mvex or moof box was seen; fragments are not indexed.
    public var fragmented: Bool
    /// Every track, in file order.
    public var tracks: [Track]
    /// tkhd id of the main video track (largest enabled `vide` track), nil without video.
    public var mainVideoTrackId: Int?
    /// Movie-level metadata items (key → value).
    public var metadata: [MetadataItem]
    /// When the movie was made, by its movie header (UTC by the format; a camera without a
    /// time zone writes its local time there); nil when not recorded.
    public var creationDate: Date?

    /// The main video track, if any.
    public var mainVideoTrack: Track? { tracks.first { $0.id == mainVideoTrackId } }

    /// The first metadata item with `key` as UTF-8 text.
    public func metadataValue(_ key: String) -> String? { metadata.first { $0.key == key }?.value }

    /// Reads `path`'s `moov` (at most 64 MiB; `mdat` is never loaded).
    /// - Throws: `ShiyingError` naming the file (not a movie, truncated, hostile, unreadable).
    public static func read(_ path: String) throws -> VideoInfo {
        let engine = try EngineContext()
        var error = sy_error()
        var handle: OpaquePointer?
        try check(sy_mov_open(engine.raw, path, &handle, &error), error, file: path)
        guard let mov = handle else {
            throw ShiyingError(code: .invalidInput, message: "\(path): could not open the movie", file: path)
        }
        defer { sy_mov_close(mov) }
        guard let info = sy_mov_info_get(mov)?.pointee else {
            throw ShiyingError(code: .invalidInput, message: "\(path): no movie header", file: path)
        }
        var tracks: [Track] = []
        for index in 0..<sy_mov_track_count(mov) {
            guard let t = sy_mov_track(mov, index)?.pointee else { continue }
            let handler = fourCC(t.handler)
            var keys: [String] = []
            for k in 0..<sy_mov_mebx_key_count(mov, index) {
                if let key = sy_mov_mebx_key_at(mov, index, k), let name = key.pointee.name {
                    keys.append(String(cString: name))
                }
            }
            let isVideo = handler == "vide", isAudio = handler == "soun"
            let rate = sy_mov_frame_rate(mov, index)
            tracks.append(Track(
                id: Int(t.id), handler: handler, codec: fourCC(t.codec), enabled: t.enabled != 0,
                width: Int(t.width), height: Int(t.height), rotation: Int(t.rotation), mirrored: t.mirrored != 0,
                displayWidth: Int(t.display_width), displayHeight: Int(t.display_height),
                timescale: Int(t.timescale), durationSeconds: t.duration_seconds, language: cString(t.language),
                sampleCount: Int(t.sample_count),
                keyframeCount: t.all_sync != 0 ? Int(t.sample_count) : Int(t.keyframe_count),
                frameRate: isVideo && rate > 0 ? rate : nil,
                channels: isAudio ? Int(t.channels) : nil, sampleRate: isAudio ? t.sample_rate : nil,
                mebxKeys: keys,
                dolbyVision: t.dovi_type == 0 ? nil : "\(t.dovi.2 >> 1).\(t.dovi.4 >> 4)",
                pixelAspect: t.has_pasp == 0 ? nil : "\(t.pasp.0):\(t.pasp.1)"))
        }
        let main = sy_mov_main_video_track(mov)
        var metadata: [MetadataItem] = []
        for index in 0..<sy_mov_metadata_count(mov) {
            var key: UnsafePointer<CChar>?
            var type: UInt32 = 0
            var value: UnsafePointer<UInt8>?
            var length = 0
            guard sy_mov_metadata_at(mov, index, &key, &type, &value, &length) == SY_OK else { continue }
            var text: String?
            if type == 1 {
                text = value.map { String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self) } ?? ""
            }
            metadata.append(MetadataItem(key: key.map { String(cString: $0) } ?? "", dataType: Int(type),
                                         value: text, byteCount: length))
        }
        return VideoInfo(
            path: path, brand: fourCC(info.major_brand), durationSeconds: info.duration_seconds,
            fileSize: info.file_size, fragmented: info.fragmented != 0, tracks: tracks,
            mainVideoTrackId: main >= 0 ? sy_mov_track(mov, UInt32(main)).map { Int($0.pointee.id) } : nil,
            metadata: metadata,
            creationDate: info.creation_time == 0 ? nil
                : Date(timeIntervalSince1970: Double(info.creation_time) - 2_082_844_800)) // 1904 → 1970
    }
}

/// A big-endian four-character code as text ("" for 0; bytes outside printable ASCII as "?").
func fourCC(_ code: UInt32) -> String {
    guard code != 0 else { return "" }
    let bytes = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: code >> UInt32($0)) }
    return String(bytes.map { (0x20...0x7E).contains($0) ? Character(Unicode.Scalar($0)) : "?" })
}
