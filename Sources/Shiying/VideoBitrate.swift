internal import CShiying

/// Target bitrate for exported video (SPEC C14).
public enum VideoBitrate {
    /// 12 Mbps, the rate at the reference size and the floor.
    public static let minimumBitsPerSecond = 12_000_000
    /// 64 Mbps, the cap.
    public static let maximumBitsPerSecond = 64_000_000
    /// The reference frame: 1080 × 1440 pixels.
    public static let referencePixels = 1080 * 1440

    /// SPEC C14: 12 Mbps × (W×H)/(1080×1440), at least 12 Mbps, at most 64 Mbps.
    ///
    /// Only the pixel count matters, so 1440×1080 and 1080×1440 give the same rate.
    /// Computed in integers and rounded to the nearest bit per second, halves up
    /// (1920×1440 → 21,333,333). A zero or negative width or height (an unknown
    /// size) gives the 12 Mbps floor; so does any frame of at most 1080×1440
    /// pixels. Sizes whose product overflows give the 64 Mbps cap.
    ///
    /// One implementation: the engine's `sy_video_bitrate_c14`, which the video
    /// encoder also uses when no bitrate is given.
    public static func bitsPerSecond(width: Int, height: Int) -> Int {
        Int(sy_video_bitrate_c14(Int64(width), Int64(height)))
    }
}
