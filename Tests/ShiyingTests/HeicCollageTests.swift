// HEIC collages (SPEC C1, C13): a long image or grid written as an x265 grid
// of tiles, strip by strip, read back by ImageMagick, vips and heif-info
// (Debian's libheif 1.15), decoded by heif-convert and checked cell by cell
// against ImageMagick's own rendering of each source. The HEIC writer's encoder joins the strip-wise
// job: its memory must not grow with the number of photos either.
import Foundation
import Shiying
import Testing

@Suite("HEIC collages")
struct HeicCollageTests {
    @Test("a HEIC long image: heif-info, ImageMagick and vips read it; every cell is its photo; same canvas as the JPEG")
    func longImage() async throws {
        let photos = try await Photos.small()
        let dir = try TempDir("heic-long")
        defer { dir.remove() }
        let out = dir.file("long.heic"), jpeg = dir.file("long.jpg")
        let (run, json) = try await CLI.collage(["--layout", "long", "--width", "720", "-o", out] + photos)
        #expect(run.succeeded, "\(run)")
        let report = try #require(json, "no JSON report: \(run)")
        let (jrun, jjson) = try await CLI.collage(["--layout", "long", "--width", "720", "-o", jpeg] + photos)
        #expect(jrun.succeeded && jjson?.width == report.width && jjson?.height == report.height,
                "JPEG \(String(describing: jjson)) vs HEIC \(report)")
        let info = try await runTool("heif-info", [out])
        #expect(info.succeeded && info.stdout.contains("image: \(report.width)x\(report.height)")
                && info.stdout.contains("primary"), "\(info)")
        let im = try await Magick.size(out), vips = try await Magick.vipsSize(out)
        #expect(im.width == report.width && im.height == report.height && vips.width == report.width
                && vips.height == report.height, "identify \(im), vipsheader \(vips)")
        // The collage has no metadata of its photos (no location): no Exif item at all.
        #expect(!info.stdout.contains("Exif"), "\(info.stdout)")
        var sizes: [(w: Int, h: Int)?] = []
        for p in photos { sizes.append(try await LongLayoutTests.uprightSize(p)) }
        let rects = ExpectedLayout.long(sizes, width: report.width, even: true)
        #expect(rects.last.map { $0.y + $0.height } == report.height, "layout \(rects) vs \(report.height)")
        let png = try await Self.decoded(out, dir)
        try await expectCellsMatch(output: png, cells: photos.indices.map { (index: $0, source: photos[$0], rect: rects[$0]) },
                                   tolerance: 3) { r in ["-auto-orient", "-resize", "\(r.width)x\(r.height)!"] }
    }

    @Test("a HEIC long image keeps its memory flat: 12 photos cost what 4 cost (the encoder is one tile row, the cells strip-wise)")
    func memoryDoesNotGrowWithPhotos() async throws {
        let photos = try await Photos.small()
        let dir = try TempDir("heic-memory")
        defer { dir.remove() }
        var peaks: [UInt64] = []
        for count in [4, 12] {
            let inputs = (0..<count).map { photos[$0 % photos.count] }
            let (run, json) = try await CLI.collage(["--layout", "long", "-o", dir.file("l\(count).heic"), "--threads", "1"] + inputs)
            let report = try #require(json, "\(run)")
            peaks.append(report.enginePeakBytes)
            print("HEIC long image of \(count) photos: \(report.width)x\(report.height), engine peak \(report.enginePeakBytes) B, peak RSS delta \(report.peakRssDeltaBytes) B")
        }
        #expect(peaks[1] <= peaks[0] + 2_000_000, "engine peak grew with the photo count: \(peaks)")
        // The strip-wise job (≤ 12 MB) plus x265's charged estimate for 512-px tiles on two frame threads (28 MiB).
        #expect(peaks[1] <= 12_000_000 + 30_000_000, "engine peak \(peaks[1])")
    }

    @Test("HEIC: 45 photos at 1080 are scaled to fit the 32,768 px libheif opens; heif-info reads it, heif-convert decodes it; the last cell is its photo")
    func tallImageScaledToFit() async throws {
        let photo = try await TooTallTests.tinyPhoto()
        let dir = try TempDir("heic-tall")
        defer { dir.remove() }
        let out = dir.file("tall.heic")
        let (run, json) = try await CLI.collage(["--layout", "long", "--width", "1080", "-o", out]
                                                + Array(repeating: photo, count: 45), timeout: 600)
        #expect(run.succeeded, "\(run)")
        let report = try #require(json, "no JSON report: \(run)")
        #expect(report.scaledToFit && report.height <= 32_768 && report.height > 32_000, "\(report)")
        #expect(run.stderr.contains("32,768 px"), "\(run.stderr)")
        let info = try await runTool("heif-info", [out])
        #expect(info.stdout.contains("image: \(report.width)x\(report.height)"), "\(info)")
        let cell = ExpectedLayout.long([(64, 48)], width: report.width, even: true)[0]
        #expect(report.height == 45 * cell.height)
        let png = try await Self.decoded(out, dir)
        let crop = dir.file("last.png")
        try await Magick.vipsCrop(png, Rect(x: 0, y: 44 * cell.height, width: cell.width, height: cell.height), to: crop)
        try await expectCellsMatch(output: crop, cells: [(index: 44, source: photo, rect: Rect(x: 0, y: 0, width: cell.width, height: cell.height))],
                                   tolerance: 8) { r in ["-resize", "\(r.width)x\(r.height)!"] }
    }

    /// Debian's libheif decodes the HEIC to RGB (ImageMagick's own HEIC read
    /// keeps YCbCr samples, which its pixel statistics would then report).
    static func decoded(_ heic: String, _ dir: TempDir) async throws -> String {
        let png = dir.file((heic as NSString).lastPathComponent + ".png")
        let run = try await runTool("heif-convert", [heic, png], timeout: 300)
        guard run.succeeded else { throw TestFailure("heif-convert \(heic): \(run)") }
        return png
    }
}
