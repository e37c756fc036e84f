// Grid collage: template cells shaped to their photos, centre-cropped to fill,
// background in spacing and margins only (issue 17: no empty cell).
import Foundation
import Shiying
import Testing

@Suite("Grid collage")
struct GridLayoutTests {
    // SPEC C12/C13 (grid layout, same strip-wise compositor): 5 photos of mixed
    // orientation, the template for 5 (a row of 2 over a row of 3, each cell at
    // its photo's aspect: issue 17), spacing 10, margin 12, background
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
        let sizes = photos.indices.map { $0 % 3 == 1 ? (w: 480, h: 640) : (w: 640, h: 480) }
        let expected = ExpectedLayout.grid(sizes: sizes, width: width, spacing: spacing, margin: margin)
        // worked by hand: row 1 = 4:3 + 3:4 over 566 px, row 2 = 4:3 + 4:3 + 3:4 over 556 px
        #expect(expected.rects[0] == Rect(x: 12, y: 12, width: 362, height: 272))
        #expect(expected.rects[1] == Rect(x: 384, y: 12, width: 204, height: 272)) // portrait photo, portrait cell
        #expect(expected.rects[3] == Rect(x: 239, y: 294, width: 217, height: 163))
        #expect(expected.rects[4] == Rect(x: 466, y: 294, width: 122, height: 163)) // the row ends at the margin
        #expect(expected.height == 469)
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

    // Issue 17: 7 photos used to leave two blank squares (3 + 3 + 1 centred).
    // Rendered on a magenta background: with no spacing or margin not one pixel
    // is background; with 8 px spacing no 24×24 window is all background (an
    // empty cell would be one), and the background is no more than the margins
    // and gaps. Also the one-big-two-small template (3 photos, the first
    // portrait) and explicit columns (7 in 3 columns, last row widened).
    @Test("issue 17: grids have no blank region (pixels checked)",
          arguments: [("7 photos", [0, 1, 2, 3, 4, 5, 6], [String]()), ("3, portrait first", [1, 0, 2], []),
                      ("7 in 3 columns", [0, 1, 2, 3, 4, 5, 6], ["--columns", "3"])])
    func noBlankRegion(name: String, picks: [Int], options: [String]) async throws {
        let samples = try await FixtureCache.shared.samples("grid7", count: 7, seed: 17, width: 640, height: 480)
        let photos = picks.map { samples[$0] } // index % 3 == 1 is a portrait (orientation 6)
        let dir = try TempDir("grid-blank")
        defer { dir.remove() }
        for (spacing, window) in [(0, 1), (8, 24)] {
            let out = dir.file("grid-\(spacing).png")
            let (run, json) = try await CLI.collage(["--layout", "grid", "--spacing", "\(spacing)", "--margin", "\(spacing)",
                                                     "--background", "ff00ff", "--format", "png", "-o", out] + options + photos)
            #expect(run.succeeded, "\(name): \(run)")
            let report = try #require(json, "\(name): no JSON report: \(run)")
            #expect(report.cells == photos.count && report.greyCells.isEmpty)
            let (w, h) = (report.width, report.height)
            let px = try await Magick.pixels(out, Rect(x: 0, y: 0, width: w, height: h))
            // summed-area table of background pixels
            var sums = [Int](repeating: 0, count: (w + 1) * (h + 1))
            for y in 0..<h {
                var row = 0
                for x in 0..<w {
                    let i = (y * w + x) * 3
                    row += px[i] == 255 && px[i + 1] == 0 && px[i + 2] == 255 ? 1 : 0
                    sums[(y + 1) * (w + 1) + x + 1] = sums[y * (w + 1) + x + 1] + row
                }
            }
            var blank: (x: Int, y: Int)? = nil
            outer: for y in 0...(h - window) {
                for x in 0...(w - window) {
                    let a = sums[(y + window) * (w + 1) + x + window] - sums[y * (w + 1) + x + window]
                        - sums[(y + window) * (w + 1) + x] + sums[y * (w + 1) + x]
                    if a == window * window { blank = (x, y); break outer }
                }
            }
            #expect(blank == nil, "\(name), spacing \(spacing): a \(window)x\(window) window at \(blank.map { "(\($0.x), \($0.y))" } ?? "") is all background")
            let background = sums[h * (w + 1) + w]
            if spacing == 0 { #expect(background == 0, "\(name): \(background) background pixels with no spacing") }
            // margins (2w + 2h), at most two row gaps (2w), at most two column gaps per row (2h), each 8 px
            let lines = 8 * (4 * w + 4 * h)
            if spacing == 8 { #expect(background <= lines, "\(name): \(background) background px, margins and gaps are at most \(lines)") }
        }
    }

    // Issue 17: portrait photos get portrait cells through the CLI too: four
    // portraits make a 2×2 of 3:4 cells, a canvas taller than wide.
    @Test("issue 17: a grid of portrait photos has portrait cells (taller canvas)")
    func portraitCells() async throws {
        let small = try await Photos.small()
        let portraits = [small[1], small[4], small[1], small[4]] // orientation 6: upright 480×640
        let dir = try TempDir("gridp")
        defer { dir.remove() }
        let (run, json) = try await CLI.collage(["--layout", "grid", "--format", "png", "-o", dir.file("p.png")] + portraits)
        #expect(run.succeeded, "\(run)")
        let report = try #require(json, "no JSON report: \(run)")
        // inner 1064: two 528-wide cells at 3:4 are 704 tall; 2 rows + spacing + margins
        #expect(report.width == 1080 && report.height == 2 * 704 + 8 + 16, "\(report.width)x\(report.height)")
    }
}
