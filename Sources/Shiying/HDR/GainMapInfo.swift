import Foundation
internal import CShiying

/// What a photo's HDR gain map is (`sy_gainmap_probe`; issue 7, SPEC E6).
public struct GainMapInfo: Sendable, Codable, Equatable {
    /// `none`, `ultrahdr-jpeg`, `apple-heic`, `apple-jpeg`, `iso-heic` (an ISO 21496-1 `tmap` item alone, in a HEIC or an AVIF, or
    /// one whose numbers the file's Apple description contradicts: the `tmap` is read),
    /// `hdr-signal` (a PQ / HLG HEIF with no stored map: shown as SDR Display P3, its map derived from the
    /// signal and written by every save that carries maps) or `uninterpretable`.
    public var kind: String
    /// What was found; for `uninterpretable`, why it cannot be used.
    public var detail: String
    /// The container format ("jpeg", "heic").
    public var format: String
    /// The base (SDR) image's width in pixels.
    public var baseWidth: Int
    /// The base (SDR) image's height in pixels.
    public var baseHeight: Int
    /// The gain map's width in pixels; nil without one.
    public var gainMapWidth: Int?
    /// The gain map's height in pixels; nil without one.
    public var gainMapHeight: Int?
    /// The gain map's channels (1 or 3); nil without one.
    public var gainMapChannels: Int?
    /// Linear headroom the map reaches at full strength (Apple: the headroom;
    /// Ultra HDR: 2^HDRCapacityMax).
    public var headroom: Double?
    /// log2 content boost range and map gamma (Ultra HDR; per channel when 3).
    public var gainMapMin: [Double]?
    /// log2 of the largest content boost (per channel when 3).
    public var gainMapMax: [Double]?
    /// The map's gamma (per channel when 3).
    public var gamma: [Double]?
    /// log2 of the display headroom where the map starts to apply.
    public var hdrCapacityMin: Double?
    /// log2 of the display headroom where the map applies fully.
    public var hdrCapacityMax: Double?
    /// `sdr` (the usual) or `hdr` (hdrgm:BaseRenditionIsHDR).
    public var baseRendition: String?
    /// Apple: `HDRGainMapVersion`, and where the headroom came from (`xmp`, `makernote`).
    public var appleVersion: Int?
    /// Where Apple's headroom came from (`xmp`, `makernote`).
    public var headroomSource: String?
    /// Apple MakerNote tag 33, when present.
    public var makerNote33: Double?
    /// Apple MakerNote tag 48, when present.
    public var makerNote48: Double?
    /// ISO 21496-1 metadata (APP2 block or `tmap` item) seen.
    public var iso21496Present: Bool
    /// The ISO 21496-1 numbers when they parsed (JPEG APP2 block, HEIC `tmap` item); nil otherwise.
    public var iso21496: ISO21496?

    /// ISO 21496-1 gain-map metadata, in the hdrgm names (log2 where hdrgm is).
    public struct ISO21496: Sendable, Codable, Equatable {
        /// log2 of the smallest content boost (per channel when 3).
        public var gainMapMin: [Double]
        /// log2 of the largest content boost (per channel when 3).
        public var gainMapMax: [Double]
        /// The map's gamma (per channel when 3).
        public var gamma: [Double]
        /// Offset added to the base (SDR) rendition (per channel when 3).
        public var offsetSDR: [Double]
        /// Offset added to the alternate (HDR) rendition (per channel when 3).
        public var offsetHDR: [Double]
        /// log2 headroom where the map starts to apply (the base's headroom for an SDR base).
        public var hdrCapacityMin: Double
        /// log2 headroom where the map applies fully (the alternate's headroom for an SDR base).
        public var hdrCapacityMax: Double
        /// `sdr` (the usual) or `hdr`.
        public var baseRendition: String
    }

    /// True when the file has a gain map of any kind.
    public var hasGainMap: Bool { kind != "none" }

    /// Reads only structure and metadata (no pixels).
    /// - Throws: `ShiyingError` naming the file.
    public static func probe(_ path: String) throws -> GainMapInfo {
        let engine = try EngineContext()
        var info = sy_gainmap_info()
        var error = sy_error()
        try check(sy_gainmap_probe(engine.raw, path, &info, &error), error, file: path)
        let image = try ImageInfo.probe(path, whole: true) // a truncated copy's map may be cut off too
        return GainMapInfo(info, format: image.format)
    }

    init(_ c: sy_gainmap_info, format: String) {
        kind = GainMapInfo.kindName(c.kind)
        detail = cString(c.detail)
        self.format = format
        baseWidth = Int(c.base_width)
        baseHeight = Int(c.base_height)
        iso21496Present = c.has_iso21496 != 0
        if c.iso_valid != 0 {
            let p = c.iso
            let n = Int(p.channels == 3 ? 3 : 1)
            func list(_ t: (Double, Double, Double)) -> [Double] { Array([t.0, t.1, t.2].prefix(n)) }
            iso21496 = ISO21496(gainMapMin: list(p.min_log2), gainMapMax: list(p.max_log2), gamma: list(p.gamma),
                                offsetSDR: list(p.offset_sdr), offsetHDR: list(p.offset_hdr),
                                hdrCapacityMin: p.capacity_min, hdrCapacityMax: p.capacity_max,
                                baseRendition: p.base_is_hdr != 0 ? "hdr" : "sdr")
        }
        let interpretable = [SY_GAINMAP_ULTRAHDR_JPEG, SY_GAINMAP_APPLE_HEIC, SY_GAINMAP_APPLE_JPEG, SY_GAINMAP_ISO_HEIC,
                             SY_GAINMAP_HDR_SIGNAL].contains(c.kind)
        guard interpretable else { return }
        gainMapWidth = Int(c.map_width)
        gainMapHeight = Int(c.map_height)
        gainMapChannels = Int(c.map_channels)
        if c.kind == SY_GAINMAP_ULTRAHDR_JPEG || c.kind == SY_GAINMAP_ISO_HEIC || c.kind == SY_GAINMAP_HDR_SIGNAL {
            let p = c.params
            let n = Int(p.channels == 3 ? 3 : 1)
            func list(_ t: (Double, Double, Double)) -> [Double] { Array([t.0, t.1, t.2].prefix(n)) }
            gainMapMin = list(p.min_log2)
            gainMapMax = list(p.max_log2)
            gamma = list(p.gamma)
            hdrCapacityMin = p.capacity_min
            hdrCapacityMax = p.capacity_max
            headroom = pow(2, p.capacity_max)
            baseRendition = p.base_is_hdr != 0 ? "hdr" : "sdr"
        } else {
            headroom = c.apple_headroom
            appleVersion = Int(c.apple_version)
            headroomSource = c.apple_headroom_source == 1 ? "xmp" : c.apple_headroom_source == 2 ? "makernote" : nil
            if !c.maker33.isNaN { makerNote33 = c.maker33 }
            if !c.maker48.isNaN { makerNote48 = c.maker48 }
            baseRendition = "sdr"
        }
    }

    static func kindName(_ kind: sy_gainmap_kind) -> String {
        switch kind {
        case SY_GAINMAP_ULTRAHDR_JPEG: "ultrahdr-jpeg"
        case SY_GAINMAP_APPLE_HEIC: "apple-heic"
        case SY_GAINMAP_APPLE_JPEG: "apple-jpeg"
        case SY_GAINMAP_ISO_HEIC: "iso-heic"
        case SY_GAINMAP_HDR_SIGNAL: "hdr-signal"
        case SY_GAINMAP_UNINTERPRETABLE: "uninterpretable"
        default: "none"
        }
    }
}
