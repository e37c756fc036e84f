// Issue 17: grid templates for 2–30 photos tile the canvas's inner area exactly
// (no empty cell, every gap exactly the spacing, no overlap), keep input order
// as reading order, stay on even coordinates for 4:2:0, and shape cells to
// their photos' orientation. Checked on sy__layout_compute itself, for every
// photo count and several canvases and photo mixes.
import CShiying
import CShiyingInternal
import Testing

private let landscape = (w: UInt32(4032), h: UInt32(3024))
private let portrait = (w: UInt32(3024), h: UInt32(4032))

/// A mix that has everything: landscape, portrait, square, panorama, very tall, unreadable (nil).
private let mixed: [(w: UInt32, h: UInt32)?] = [landscape, portrait, portrait, landscape, (2000, 2000), (4000, 1000),
                                                nil, (1000, 3000)]

private struct Canvas: CustomStringConvertible {
    var width: UInt32, spacing: UInt32, margin: UInt32, even: Bool
    var description: String { "\(width) wide, spacing \(spacing), margin \(margin)\(even ? ", 4:2:0" : "")" }
}

private let canvases = [Canvas(width: 1080, spacing: 8, margin: 8, even: true),
                        Canvas(width: 1080, spacing: 0, margin: 0, even: true),
                        Canvas(width: 600, spacing: 10, margin: 12, even: false),
                        Canvas(width: 333, spacing: 7, margin: 3, even: false)]

private struct Layout {
    var width: Int, height: Int
    var cells: [sy__rect]
}

/// sy__layout_compute for photos of these upright sizes (nil = unreadable).
private func gridLayout(_ sizes: [(w: UInt32, h: UInt32)?], _ canvas: Canvas, columns: UInt32 = 0) throws -> Layout {
    let ctx = try Context()
    var options = sy_collage_options()
    sy_collage_options_init(&options, SY_LAYOUT_GRID)
    options.width = canvas.width
    options.spacing = canvas.spacing
    options.margin = canvas.margin
    options.columns = columns
    options.format = canvas.even ? SY_STILL_JPEG : SY_STILL_PNG
    var infos = sizes.map { size -> sy_image_info in
        var info = sy_image_info()
        if let size { (info.width, info.height) = (size.w, size.h) }
        return info
    }
    var layout = sy__layout()
    var err = sy_error()
    let status = infos.withUnsafeMutableBufferPointer { buffer -> sy_status in
        let base = buffer.baseAddress!
        let pointers: [UnsafePointer<sy_image_info>?] = sizes.indices.map { sizes[$0] == nil ? nil : UnsafePointer(base + $0) }
        return pointers.withUnsafeBufferPointer {
            sy__layout_compute(ctx.raw, &options, $0.baseAddress, UInt32(sizes.count), canvas.even ? 1 : 0, &layout, &err)
        }
    }
    guard status == SY_OK else { throw CTestFailure("sy__layout_compute: \(message(err))") }
    defer { sy__layout_free(ctx.raw, &layout) }
    let cells = (0..<Int(layout.count)).map { layout.cells[$0] }
    #expect(layout.width == canvas.width)
    return Layout(width: Int(layout.width), height: Int(layout.height), cells: cells)
}

/// Every way a layout can fail to tile its inner area, as messages (empty = tiles exactly).
/// In doubled coordinates each cell grows by half the spacing on every side
/// (clipped to the inner area); the grown cells must then cover the inner area
/// with no overlap — which holds exactly when every gap is the spacing and
/// nothing is left empty.
private func tilingProblems(_ layout: Layout, _ canvas: Canvas) -> [String] {
    let m = Int(canvas.margin) + (canvas.even ? Int(canvas.margin) & 1 : 0), s = Int(canvas.spacing)
    var inner = Int(canvas.width) - 2 * m
    if canvas.even { inner &= ~1 }
    let (left, top, right, bottom) = (2 * m, 2 * m, 2 * (m + inner), 2 * (layout.height - m))
    var problems: [String] = []
    var grown: [(x0: Int, y0: Int, x1: Int, y1: Int)] = []
    for (i, c) in layout.cells.enumerated() {
        let (x, y, w, h) = (Int(c.x), Int(c.y), Int(c.width), Int(c.height))
        if w < 2 || h < 2 { problems.append("cell \(i) is \(w)x\(h)") }
        if 2 * x < left || 2 * y < top || 2 * (x + w) > right || 2 * (y + h) > bottom {
            problems.append("cell \(i) \(w)x\(h)+\(x)+\(y) leaves the inner area")
        }
        if canvas.even && (x | y | w | h) & 1 != 0 { problems.append("cell \(i) \(w)x\(h)+\(x)+\(y) is not even") }
        grown.append((max(2 * x - s, left), max(2 * y - s, top), min(2 * (x + w) + s, right), min(2 * (y + h) + s, bottom)))
    }
    for i in grown.indices {
        for j in grown.indices where j > i {
            let a = grown[i], b = grown[j]
            if min(a.x1, b.x1) > max(a.x0, b.x0) && min(a.y1, b.y1) > max(a.y0, b.y0) {
                problems.append("cells \(i) and \(j) are closer than the spacing (or overlap)")
            }
        }
    }
    let covered = grown.reduce(0) { $0 + ($1.x1 - $1.x0) * ($1.y1 - $1.y0) }
    if covered != (right - left) * (bottom - top) {
        problems.append("cells and spacing cover \(covered) of \((right - left) * (bottom - top)) (doubled px²): empty area")
    }
    for i in layout.cells.indices.dropFirst() {
        let a = layout.cells[i - 1], b = layout.cells[i]
        if b.y < a.y || (b.y == a.y && b.x <= a.x) { problems.append("cell \(i) is before cell \(i - 1) in reading order") }
    }
    return problems
}

/// The cell aspect a photo asks for: width/height clamped to 3:4 ... 4:3, unreadable = square.
private func wantedAspect(_ size: (w: UInt32, h: UInt32)?) -> Double {
    guard let size else { return 1 }
    return min(max(Double(size.w) / Double(size.h), 0.75), 4.0 / 3.0)
}

private func photos(_ pattern: [(w: UInt32, h: UInt32)?], _ n: Int) -> [(w: UInt32, h: UInt32)?] {
    (0..<n).map { pattern[$0 % pattern.count] }
}

@Suite("Grid templates (issue 17)")
struct GridTemplateTests {
    @Test("issue 17: for every n in 2...30 the template tiles the inner area exactly (cells + spacing, no overlap, no empty area)",
          arguments: 2...30)
    func templatesTile(n: Int) throws {
        for pattern in [[landscape], [portrait], mixed] as [[(w: UInt32, h: UInt32)?]] {
            for canvas in canvases {
                let layout = try gridLayout(photos(pattern, n), canvas)
                let problems = tilingProblems(layout, canvas)
                #expect(problems.isEmpty, "\(n) photos, \(canvas): \(problems.prefix(4))")
            }
        }
    }

    @Test("issue 17: --columns N keeps the uniform grid and still leaves no empty cell (short last row widened)",
          arguments: [(7, 3), (5, 2), (2, 5), (30, 4), (11, 1), (29, 6)])
    func explicitColumnsTile(n: Int, columns: Int) throws {
        for canvas in canvases {
            let layout = try gridLayout(photos(mixed, n), canvas, columns: UInt32(columns))
            let problems = tilingProblems(layout, canvas)
            #expect(problems.isEmpty, "\(n) photos in \(columns) columns, \(canvas): \(problems.prefix(4))")
            let cols = min(columns, n)
            let full = layout.cells.prefix(n / cols * cols)
            // one height everywhere; full rows' cells square up to one rounding step
            #expect(Set(layout.cells.map(\.height)).count == 1, "\(canvas): heights \(Set(layout.cells.map(\.height)))")
            for c in full { #expect(abs(Int(c.width) - Int(c.height)) <= 2, "\(canvas): full-row cell \(c.width)x\(c.height)") }
            if n % cols != 0 {
                let last = layout.cells.suffix(n % cols)
                for c in last { #expect(c.width > full.first!.width, "\(canvas): last row not widened: \(c.width)") }
            }
        }
    }

    @Test("issue 17: templates — rows of different column counts, bigger cells on top; n = rows × columns stays uniform")
    func templateRows() {
        func rows(_ n: UInt32, columns: UInt32 = 0) -> [UInt32] {
            var perRow = [UInt32](repeating: 0, count: Int(SY__GRID_MAX_ROWS))
            let count = Int(sy__grid_rows(n, columns, &perRow))
            return Array(perRow.prefix(count))
        }
        #expect(rows(2) == [2])
        #expect(rows(3) == [1, 2])
        #expect(rows(4) == [2, 2])
        #expect(rows(5) == [2, 3])
        #expect(rows(7) == [2, 2, 3])
        #expect(rows(8) == [2, 3, 3])
        #expect(rows(9) == [3, 3, 3])
        #expect(rows(10) == [3, 3, 4])
        #expect(rows(13) == [3, 3, 3, 4])
        #expect(rows(26) == [5, 5, 5, 5, 6])
        #expect(rows(30) == [6, 6, 6, 6, 6])
        #expect(rows(7, columns: 3) == [3, 3, 1])
        #expect(rows(2, columns: 5) == [2])
        #expect(rows(1) == [] && rows(31) == [])
        for n in UInt32(2)...30 {
            let r = rows(n)
            #expect(r.reduce(0, +) == n && r == r.sorted() && r.max()! - r.min()! <= 1, "\(n): \(r)")
        }
    }

    @Test("issue 17: cells take their photo's orientation (clamped to 3:4 … 4:3): portrait photos get portrait cells",
          arguments: 2...30)
    func cellsFollowOrientation(n: Int) throws {
        let canvas = canvases[0]
        for pattern in [[portrait], [landscape], mixed, [portrait, portrait, landscape]] as [[(w: UInt32, h: UInt32)?]] {
            let sizes = photos(pattern, n)
            let layout = try gridLayout(sizes, canvas)
            for (i, c) in layout.cells.enumerated() {
                let want = wantedAspect(sizes[i])
                // rounding moves an edge by at most a couple of pixels
                #expect(abs(Double(c.width) - want * Double(c.height)) <= 6,
                        "\(n) photos: cell \(i) is \(c.width)x\(c.height), photo asks \(want)")
                if let s = sizes[i], s.h > s.w { #expect(c.height > c.width, "\(n): portrait photo \(i) in \(c.width)x\(c.height)") }
                if let s = sizes[i], s.w > s.h { #expect(c.width > c.height, "\(n): landscape photo \(i) in \(c.width)x\(c.height)") }
            }
        }
        // In the same template a portrait set makes a taller canvas than a landscape
        // one (three portraits take the one-big-two-small template instead).
        guard n != 3 else { return }
        let tall = try gridLayout(photos([portrait], n), canvas), wide = try gridLayout(photos([landscape], n), canvas)
        #expect(tall.height > wide.height, "\(n): portrait canvas \(tall.height), landscape \(wide.height)")
    }

    @Test("issue 17: three photos, the first portrait: one tall cell left, two stacked right")
    func heroTemplate() throws {
        let canvas = canvases[0]
        let layout = try gridLayout([portrait, landscape, landscape], canvas)
        let (hero, top, bottom) = (layout.cells[0], layout.cells[1], layout.cells[2])
        #expect(hero.x == 8 && hero.y == 8 && hero.height > hero.width)
        #expect(top.x == hero.x + hero.width + 8 && bottom.x == top.x && top.y == 8)
        #expect(bottom.y == top.y + top.height + 8 && bottom.y + bottom.height == hero.y + hero.height)
        // A landscape first photo: a wide cell over two.
        let wide = try gridLayout([landscape, portrait, portrait], canvas)
        #expect(wide.cells[0].width == 1064 && wide.cells[1].y == wide.cells[2].y && wide.cells[1].y > wide.cells[0].y)
    }

    @Test("issue 17: a grid whose cells cannot be 2 px wide is a usage error naming the width")
    func tooNarrow() throws {
        #expect(throws: CTestFailure.self) {
            _ = try gridLayout(photos([landscape], 30), Canvas(width: 64, spacing: 8, margin: 8, even: true))
        }
        #expect(throws: CTestFailure.self) {
            _ = try gridLayout(photos([landscape], 30), Canvas(width: 200, spacing: 8, margin: 8, even: true), columns: 30)
        }
    }

    // Found by a user-level sweep (2026-12-06): a moving long collage of 12 portrait Live photos was 17,280 px
    // tall, past the largest HEVC picture, and failed with the encoder's message; the movie's limit now scales it
    // like JPEG's limit scales a still one.
    @Test("a long layout under a tighter limit (a moving collage's movie) is scaled to fit it, uniformly")
    func longUnderMovieLimit() throws {
        let ctx = try Context()
        var options = sy_collage_options()
        sy_collage_options_init(&options, SY_LAYOUT_LONG)
        options.width = 1080
        options.format = SY_STILL_JPEG
        var infos = (0..<12).map { _ -> sy_image_info in
            var info = sy_image_info()
            (info.width, info.height) = (360, 480)
            return info
        }
        var layout = sy__layout()
        var err = sy_error()
        let status = infos.withUnsafeMutableBufferPointer { buffer -> sy_status in
            let pointers: [UnsafePointer<sy_image_info>?] = (0..<12).map { UnsafePointer(buffer.baseAddress! + $0) }
            return pointers.withUnsafeBufferPointer {
                sy__layout_compute_within(ctx.raw, &options, $0.baseAddress, 12, 1, 16384, "movie", &layout, &err)
            }
        }
        try #require(status == SY_OK, "\(message(err))")
        defer { sy__layout_free(ctx.raw, &layout) }
        #expect(layout.height <= 16384 && layout.height > 16000 && layout.scaled_to_fit == 1, "\(layout.width)x\(layout.height)")
        #expect(abs(Double(layout.width) / 1080 - layout.scale) < 1e-9 && layout.width % 2 == 0)
    }
}
