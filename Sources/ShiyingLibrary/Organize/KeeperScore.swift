// SPEC D6: the score the keeper rule compares, within one group. Documented
// in docs/keeper-score.md.
import Foundation

/// A member's keeper score: the photo's own quality (sharpness and exposure,
/// from the scan) times how much of the original it still is, judged against
/// the other members of its group.
///
///     score = quality × resolution × bytes × metadata × format × live
///
/// - resolution = √(pixels ÷ the group's largest pixel count): a half-size
///   copy (¼ of the pixels) scores half.
/// - bytes = (bytes per pixel ÷ the largest among members of the same
///   format)^¼: a re-compression throws detail away, and the bytes say so.
///   Only compared within one format (HEVC needs about half JPEG's bytes),
///   and not at all among exact duplicates (one pixel digest): their bytes
///   differ by metadata only, and a copy with a tag added is no better.
/// - metadata = 1 with camera data (Exif Make/Model) and a capture time,
///   0.9 with one of them, 0.8 with neither: copies lose what originals carry.
/// - format = 0.9 per generation when the group holds the same shot in
///   several codings (equal capture times): HEIF, then JPEG, then PNG — a
///   phone writes HEIC (or JPEG), exports and conversions go down that line.
/// - live = 0.95 for a still when a Live photo of the same group has its movie.
///
/// The factors only lower a copy's score, so an original keeps the top score
/// unless its own picture is visibly worse. Equal scores keep the first (D6).
public enum KeeperScore {
    /// Scores of `members` by id; nil where the scan left no quality score.
    public static func scores(_ members: [OrganizeAsset]) -> [Int64: Double?] {
        let maxPixels = members.map { Double($0.width * $0.height) }.max() ?? 1
        var maxBytesPerPixel: [String: Double] = [:]
        for m in members { maxBytesPerPixel[m.format] = max(maxBytesPerPixel[m.format] ?? 0, bytesPerPixel(m)) }
        let hasLive = members.contains { $0.pairedPath != nil }
        let samePixels = Set(members.map(\.pixelSHA256)).count == 1
        var result: [Int64: Double?] = [:]
        for m in members {
            guard let quality = m.quality else {
                result[m.id] = .some(nil)
                continue
            }
            let pixels = Double(m.width * m.height)
            let resolution = maxPixels > 0 ? (pixels / maxPixels).squareRoot() : 1
            let best = maxBytesPerPixel[m.format] ?? 0
            let bytes = best > 0 && !samePixels ? pow(min(1, bytesPerPixel(m) / best), 0.25) : 1
            let metadata = 1.0 - 0.1 * Double((m.hasCamera ? 0 : 1) + (m.capturedAtMs == nil ? 1 : 0))
            let format = pow(0.9, Double(generation(of: m, among: members)))
            let live = hasLive && m.pairedPath == nil && m.mediaType == .photo ? 0.95 : 1
            result[m.id] = quality * resolution * bytes * metadata * format * live
        }
        return result
    }

    /// Steps below the best coding of the same shot (same capture time) in the group.
    static func generation(of m: OrganizeAsset, among members: [OrganizeAsset]) -> Int {
        guard let t = m.capturedAtMs else { return 0 }
        let sameShot = members.filter { $0.capturedAtMs == t }.map { rank($0.format) }
        return rank(m.format) - (sameShot.min() ?? rank(m.format))
    }

    private static func rank(_ format: String) -> Int {
        switch format {
        case "heif": 0
        case "jpeg": 1
        case "png": 2
        default: 0
        }
    }

    private static func bytesPerPixel(_ m: OrganizeAsset) -> Double {
        m.width > 0 && m.height > 0 ? Double(m.fileBytes) / Double(m.width * m.height) : 0
    }
}
