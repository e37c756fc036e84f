// Grid collage: square cells centre-cropped to fill, background in spacing and margins.
import Foundation
import Shiying
import Testing

@Suite("Grid collage")
struct GridLayoutTests {
    // SPEC C12/C13 (grid layout, same strip-wise compositor): 5 photos of mixed
    // orientation, 3 columns (template for 5), spacing 10, margin 12, background
    // #203040, PNG. Each cell equals ImageMagick's `-auto-orient -resize WxH^
    // -gravity center -extent WxH` (block means within 4 levels); every pixel
    // outside the cells is exactly the background colour (lossless PNG).
    @Test("grid: centre-crop fill matches ImageMagick; spacing and margins are exactly the background")
    func gridFillAndBackground() async throws {
        let photos = Array(try await Photos.small().prefix(5)) // orientations 1, 6, 1, 1, 6
        let dir = try TempDir("grid")
        defer { dir.remove() }
        let out = dir.file("grid.png")
        let width = 600, spacing = 10, margin = 12
        let (run, json) = try await CLI.collage(["--layout", "grid", "--width", "\(width)", "--spacing", "\(spacing)",
                                                 "--margin", "\(margin)", "--background", "203040", "--format", "png",
                                                 "-o", out] + photos)
        #expect(run.succeeded, "\(run)")
        let report = try #require(json, "no JSON report: \(run)")
        let expected = ExpectedLayout.grid(count: 5, width: width, columns: 3, spacing: spacing, margin: margin)
        #expect(expected.rects[0] == Rect(x: 12, y: 12, width: 185, height: 185))
        #expect(expected.rects[3] == Rect(x: 109, y: 207, width: 185, height: 185)) // short last row centred
        #expect(report.width == width && report.height == expected.height && report.cells == 5 && report.greyCells.isEmpty,
                "report \(report.width)x\(report.height), expected \(width)x\(expected.height)")
        let im = try await Magick.size(out)
        #expect(im.width == width && im.height == expected.height, "identify: \(im.width)x\(im.height)")
        let kind = try await runTool("identify", ["-format", "%m %[png:IHDR.color-type-orig] %[png:IHDR.bit-depth-orig]", out])
        #expect(kind.stdout == "PNG 2 8", "expected 8-bit RGB PNG, got \(kind.stdout)")

        let cells = photos.indices.map { (index: $0, source: photos[$0], rect: expected.rects[$0]) }
        try await expectCellsMatch(output: out, cells: cells, tolerance: 4) { r in
            ["-auto-orient", "-resize", "\(r.width)x\(r.height)^", "-gravity", "center", "-extent", "\(r.width)x\(r.height)"]
        }

        // Background: every pixel outside every cell is exactly (0x20, 0x30, 0x40).
        let all = try await Magick.pixels(out, Rect(x: 0, y: 0, width: width, height: expected.height))
        var checked = 0, wrong = 0
        var first = ""
        var inCell = [Bool](repeating: false, count: width * expected.height)
        for r in expected.rects {
            for y in r.y..<(r.y + r.height) { for x in r.x..<(r.x + r.width) { inCell[y * width + x] = true } }
        }
        for y in 0..<expected.height {
            for x in 0..<width where !inCell[y * width + x] {
                let i = (y * width + x) * 3
                checked += 1
                if all[i] != 0x20 || all[i + 1] != 0x30 || all[i + 2] != 0x40 {
                    wrong += 1
                    if first.isEmpty { first = "(\(x), \(y)) = (\(all[i]), \(all[i + 1]), \(all[i + 2]))" }
                }
            }
        }
        #expect(checked > 30_000, "background area too small to mean anything: \(checked) px")
        #expect(wrong == 0, "\(wrong) of \(checked) background pixels are not #203040; first \(first)")
        // And the cells are not background: each cell's mean is far from #203040.
        for r in expected.rects {
            let m = try await Magick.mean(out, r)
            #expect(m.maxDifference(RGB(r: 32, g: 48, b: 64)) > 30, "cell \(r) looks like background: \(m)")
        }
    }

    // SPEC C12 (impossible layout is a usage error): a grid takes 2 to 30 photos.
    @Test("grid with 1 photo is a usage error through the facade")
    func gridOnePhotoIsUsage() async throws {
        let photos = try await Photos.small()
        let dir = try TempDir("grid1")
        defer { dir.remove() }
        let request = CollageRequest(layout: .grid, inputs: [photos[0]], output: dir.file("g.jpg"))
        do {
            _ = try await Collage.render(request)
            Issue.record("a one-photo grid rendered")
        } catch let error as ShiyingError {
            #expect(error.code == .usage, "\(error)")
            #expect(error.message.contains("2 to 30"), "\(error.message)")
        }
        #expect(dir.contents().isEmpty, "left behind: \(dir.contents())")
    }
}
