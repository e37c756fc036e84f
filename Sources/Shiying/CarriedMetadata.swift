internal import CShiying

/// Metadata a written still or movie did not carry over from its source, and
/// why (an Exif too large for JPEG, a Live identifier or Motion Photo claim the
/// new file could not honour, a movie's timed-metadata or extra tracks).
public struct DroppedMetadata: Sendable, Codable, Equatable {
    /// "exif-thumbnail", "makernote", "large-exif-values", "content-identifier", "motion-photo",
    /// "iso-21496-gain-map", "heic-thumbnail", "auxiliary-images", "iptc", "alpha", "extended-xmp", "xmp" (stills);
    /// "timed-metadata-tracks", "extra-video-tracks", "extra-audio-tracks", "hdr-video" (movies).
    public var name: String
    /// Why it was not carried over.
    public var reason: String

    /// The entries of an engine report's SY_DROPPED_* bits, in bit order.
    static func list(_ bits: UInt32) -> [DroppedMetadata] {
        (0..<32).compactMap { shift -> DroppedMetadata? in
            let bit = UInt32(1) << UInt32(shift)
            guard bits & bit != 0, let name = sy_metadata_dropped_name(bit), let reason = sy_metadata_dropped_reason(bit)
            else { return nil }
            return DroppedMetadata(name: String(cString: name), reason: String(cString: reason))
        }
    }
}

/// The names of the metadata an engine report says were carried over:
/// any of "exif", "capture-date", "gps", "xmp", "icc", "heic-thumbnail" (rendered
/// anew from the edit), in that order, then for a kept gain map "hdr-gain-map"
/// and the forms it is written in ("apple-gain-map", "ultra-hdr-gain-map", "iso-21496-gain-map").
func keptMetadata(exif: UInt8, captureDate: UInt8, gps: UInt8, xmp: UInt8, icc: UInt8, heicThumbnail: UInt8 = 0,
                  gainMapForms: UInt32 = 0) -> [String] {
    let fields = [("exif", exif), ("capture-date", captureDate), ("gps", gps), ("xmp", xmp), ("icc", icc),
                  ("heic-thumbnail", heicThumbnail)]
        .filter { $0.1 != 0 }.map(\.0)
    guard gainMapForms != 0 else { return fields }
    let forms = (0..<32).compactMap { shift -> String? in
        let bit = UInt32(1) << UInt32(shift)
        guard gainMapForms & bit != 0, let name = sy_gainmap_form_name(bit) else { return nil }
        return String(cString: name)
    }
    return fields + ["hdr-gain-map"] + forms
}

/// The names of what a new movie carries over from its source movie
/// (SY_MOVIE_KEPT_* bits), in bit order: any of "audio", "movie-metadata",
/// "creation-date", "video-track-metadata", "timed-metadata-tracks".
func keptMovieMetadata(_ bits: UInt32) -> [String] {
    (0..<32).compactMap { shift -> String? in
        let bit = UInt32(1) << UInt32(shift)
        guard bits & bit != 0, let name = sy_movie_kept_name(bit) else { return nil }
        return String(cString: name)
    }
}
