// Long image (超长图) layout and pixels — SPEC C13 (drawn cell by cell, upright).
import Foundation
import Shiying
import Testing

@Suite("Long image layout and content")
struct LongLayoutTests {
    /// Upright size of a photo according to ImageMagick (-auto-orient), independent of the engine's probe.
    static func uprightSize(_ path: String) async throws -> (w: Int, h: Int) {
        let r = try await runTool("convert", [path, "-auto-orient", "-format", "%w %h", "info:"])
        let v = r.stdout.split(separator: " ").compactMap { Int($0) }
        guard r.succeeded, v.count == 2 else { throw TestFailure("convert -auto-orient info: \(r)") }
        return (v[0], v[1])
    }

    // SPEC C13: landscape + orientation-6 portrait + landscape at width 1080 →
    // 1080 wide; each cell lround(1080*h/w) tall rounded up to even (4:2:0 JPEG,
    // CSources/collage/layout.c place_long), stacked without gaps. The result is
    // a real JPEG that identify and vipsheader accept with those dimensions.
    @Test("long layout: 1080 wide, height = sum of per-cell even heights; identify + vips accept it")
    func longLayoutDimensions() async throws {
        let photos = Array(try await Photos.small().prefix(3))
        let exif = try await runTool("exiftool", ["-T", "-n", "-Orientation"] + photos)
        #expect(exif.stdout.split(separator: "\n") == ["1", "6", "1"], "fixture orientations: \(exif.stdout)")
        var sizes: [(w: Int, h: Int)?] = []
        for p in photos { sizes.append(try await Self.uprightSize(p)) }
        #expect(sizes[1].map { $0.w == 480 && $0.h == 640 } == true, "portrait upright size \(String(describing: sizes[1]))")
        let expected = ExpectedLayout.long(sizes, width: 1080, even: true)
        let expectedHeight = expected.reduce(0) { $0 + $1.height }
        #expect(expected.map(\.height) == [810, 1440, 810])
        #expect(expectedHeight == 3060)

        let dir = try TempDir("long")
        defer { dir.remove() }
        let out = dir.file("long.jpg")
        let (run, json) = try await CLI.collage(["--layout", "long", "--width", "1080", "-o", out] + photos)
        #expect(run.succeeded, "\(run)")
        let report = try #require(json, "no JSON report: \(run)")
        #expect(report.width == 1080 && report.height == expectedHeight, "report \(report.width)x\(report.height)")
        #expect(report.cells == 3 && report.greyCells.isEmpty && !report.scaledToFit)

        let im = try await Magick.size(out)
        #expect(im.width == 1080 && im.height == expectedHeight, "identify says \(im.width)x\(im.height)")
        let vips = try await Magick.vipsSize(out)
        #expect(vips.width == 1080 && vips.height == expectedHeight, "vipsheader says \(vips.width)x\(vips.height)")
        let format = try await runTool("identify", ["-format", "%m %[jpeg:sampling-factor] %[interlace]", out])
        #expect(format.stdout.hasPrefix("JPEG 2x2,1x1,1x1"), "expected baseline 4:2:0 JPEG, got \(format.stdout)")
        #expect(format.stdout.hasSuffix("None"), "expected non-interlaced (baseline) JPEG, got \(format.stdout)")
    }

    // SPEC C13: every cell is its photo, upright. Block means of each cell (4x4
    // blocks) match ImageMagick's `-auto-orient -resize WxH!` of the source within
    // 6 levels (JPEG q90 output). A cell drawn sideways cannot pass: the negative
    // control below shows the un-rotated reference is far off.
    @Test("long layout via Collage.render: every cell matches ImageMagick's upright resize; portrait is upright")
    func everyCellMatchesSource() async throws {
        let photos = Array(try await Photos.small().prefix(3))
        let dir = try TempDir("cells")
        defer { dir.remove() }
        var request = CollageRequest(layout: .long, inputs: photos, output: dir.file("long.jpg"))
        request.width = 1080
        let report = try Collage.renderBlocking(request, progress: nil, cancel: nil) // the synchronous API
        #expect(report.width == 1080 && report.height == 3060 && report.greyCells.isEmpty)

        var sizes: [(w: Int, h: Int)?] = []
        for p in photos { sizes.append(try await Self.uprightSize(p)) }
        let rects = ExpectedLayout.long(sizes, width: 1080, even: true)
        let cells = photos.indices.map { (index: $0, source: photos[$0], rect: rects[$0]) }
        try await expectCellsMatch(output: request.output, cells: cells, tolerance: 6) { r in
            ["-auto-orient", "-resize", "\(r.width)x\(r.height)!"]
        }

        // Negative control: the portrait's stored (sideways) pixels squeezed into the
        // cell must NOT match — proves the block comparison detects a missing rotation.
        let portrait = rects[1]
        let got = try await Magick.blockMeans(request.output, region: portrait)
        let sideways = try await Magick.referenceBlockMeans(photos[1], operations: ["-resize", "\(portrait.width)x\(portrait.height)!"])
        #expect(blockDifference(got, sideways).max > 20, "the rotation check is not discriminating")

        // Direct upright check: the sky (blue) is at the top of the portrait cell.
        let quarter = portrait.height / 4
        let top = try await Magick.mean(request.output, Rect(x: 0, y: portrait.y, width: portrait.width, height: quarter))
        let bottom = try await Magick.mean(request.output, Rect(x: 0, y: portrait.y + portrait.height - quarter,
                                                                width: portrait.width, height: quarter))
        #expect(top.b > bottom.b + 40, "portrait cell: top quarter \(top) should be bluer (sky) than bottom \(bottom)")
        #expect(top.b > top.r, "portrait cell top quarter \(top) is not sky-like")
    }

    // SPEC C13: the facade's probe agrees with EXIF: orientation-6 photos are
    // portraits after orientation (ImageInfo.probe reports upright size).
    @Test("ImageInfo.probe reports upright size and orientation of sample photos")
    func probeOrientation() async throws {
        let photos = try await Photos.small()
        for (i, p) in photos.enumerated() {
            let info = try ImageInfo.probe(p)
            #expect(info.format == "jpeg" && info.storedWidth == 640 && info.storedHeight == 480 && !info.progressive)
            if i % 3 == 1 {
                #expect(info.orientation == 6 && info.width == 480 && info.height == 640, "\(p): \(info)")
            } else {
                #expect(info.orientation == 1 && info.width == 640 && info.height == 480, "\(p): \(info)")
            }
        }
    }
}
