// The one frame renderer (sy_render.h) called directly — issue 5, SPEC E2/E5/S2:
// identities compare bytes, geometry is checked against exact pixel moves,
// colour against the sRGB formulas, .cube parsing against hostile text.
import CShiying
import CShiyingInternal
import Foundation
import Testing

// MARK: - Helpers

/// An upright RGB8 image in memory.
struct RGBImage: Equatable {
    var width: Int, height: Int
    var bytes: [UInt8]

    init(width: Int, height: Int, bytes: [UInt8]) {
        self.width = width
        self.height = height
        self.bytes = bytes
    }

    init(width: Int, height: Int, _ pixel: (Int, Int) -> (Int, Int, Int)) {
        self.width = width
        self.height = height
        var b = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let (r, g, bl) = pixel(x, y)
                let i = (y * width + x) * 3
                b[i] = UInt8(clamping: r)
                b[i + 1] = UInt8(clamping: g)
                b[i + 2] = UInt8(clamping: bl)
            }
        }
        bytes = b
    }

    /// Deterministic photo-like scene: sky-to-ground gradients, hash noise
    /// texture, a hard-edged rectangle, a diagonal stripe and fine lines.
    static func photo(width: Int, height: Int, seed: UInt32 = 1) -> RGBImage {
        RGBImage(width: width, height: height) { x, y in
            var h = UInt32(truncatingIfNeeded: x &* 73856093) ^ UInt32(truncatingIfNeeded: y &* 19349663) ^ (seed &* 83492791)
            h = (h ^ (h >> 13)) &* 0x5bd1e995
            let noise = Int((h >> 8) % 25) - 12
            let fx = Double(x) / Double(width), fy = Double(y) / Double(height)
            var r = 40 + Int(150 * fx) + noise, g = 60 + Int(120 * (1 - fy)) + noise, b = 90 + Int(100 * fy * fx) + noise
            if fy > 0.6 { g += 40; b -= 30 }                                 // horizon edge
            if x > width / 5 && x < width / 2 && y > height / 4 && y < height / 2 { r = 230; g = 200 - noise; b = 60 }
            if abs(x - y - width / 3) < 3 { r = 20; g = 20; b = 40 }         // diagonal stripe
            if x % 17 == 0 { r -= 25 }                                       // fine texture lines
            return (r, g, b)
        }
    }

    /// Smooth gradients only (no texture), for position checks with tolerance.
    static func smooth(width: Int, height: Int) -> RGBImage {
        RGBImage(width: width, height: height) { x, y in
            (30 + 200 * x / width, 30 + 200 * y / height, 150 - 60 * (x + y) / (width + height))
        }
    }

    func pixel(_ x: Int, _ y: Int) -> [UInt8] {
        let i = (y * width + x) * 3
        return Array(bytes[i..<(i + 3)])
    }

    /// Channel c at a fractional pixel-centre position.
    func bilinear(_ x: Double, _ y: Double, _ c: Int) -> Double {
        let x0 = Int(x.rounded(.down)), y0 = Int(y.rounded(.down)), fx = x - Double(x0), fy = y - Double(y0)
        func at(_ x: Int, _ y: Int) -> Double { Double(pixel(min(x, width - 1), min(y, height - 1))[c]) }
        return (at(x0, y0) * (1 - fx) + at(x0 + 1, y0) * fx) * (1 - fy) + (at(x0, y0 + 1) * (1 - fx) + at(x0 + 1, y0 + 1) * fx) * fy
    }

    func meanAbsDiff(_ other: RGBImage) -> Double {
        precondition(bytes.count == other.bytes.count)
        var sum = 0
        for i in bytes.indices { sum += abs(Int(bytes[i]) - Int(other.bytes[i])) }
        return Double(sum) / Double(bytes.count)
    }

    func maxAbsDiff(_ other: RGBImage) -> Int {
        precondition(bytes.count == other.bytes.count)
        var most = 0
        for i in bytes.indices { most = max(most, abs(Int(bytes[i]) - Int(other.bytes[i]))) }
        return most
    }
}

/// A recipe plus the storage its C pointers borrow.
struct Recipe {
    var raw: sy_recipe
    var filterID: String?
    var lut: OpaquePointer?

    init() {
        raw = sy_recipe()
        sy_recipe_init(&raw)
    }

    func withC<R>(_ body: (UnsafePointer<sy_recipe>) throws -> R) rethrows -> R {
        var copy = raw
        copy.filter_lut = lut
        if let filterID {
            return try filterID.withCString { id in
                copy.filter_id = id
                return try body(&copy)
            }
        }
        return try body(&copy)
    }
}

enum Render {
    struct Failure: Error, CustomStringConvertible {
        let status: sy_status
        let message: String
        var description: String { "status \(status): \(message)" }
    }

    static func run(_ ctx: Context, _ recipe: Recipe, _ src: RGBImage, width: Int, height: Int,
                    threads: UInt32 = 1) throws -> RGBImage {
        var out = [UInt8](repeating: 0xA5, count: width * height * 3)
        var err = sy_error()
        let status = src.bytes.withUnsafeBufferPointer { sp in
            out.withUnsafeMutableBufferPointer { dp in
                var px = sy_pixels(data: sp.baseAddress, stride: src.width * 3, width: UInt32(src.width),
                                   height: UInt32(src.height))
                return recipe.withC {
                    sy_render(ctx.raw, $0, &px, UInt32(width), UInt32(height), dp.baseAddress, width * 3, threads, &err)
                }
            }
        }
        guard status == SY_OK else { throw Failure(status: status, message: message(err)) }
        return RGBImage(width: width, height: height, bytes: out)
    }

    /// Renders at the recipe's native output size.
    static func native(_ ctx: Context, _ recipe: Recipe, _ src: RGBImage, maxW: UInt32 = 0, maxH: UInt32 = 0,
                       threads: UInt32 = 1) throws -> RGBImage {
        let (w, h) = try size(recipe, src, maxW: maxW, maxH: maxH)
        return try run(ctx, recipe, src, width: w, height: h, threads: threads)
    }

    static func size(_ recipe: Recipe, _ src: RGBImage, maxW: UInt32 = 0, maxH: UInt32 = 0,
                     flags: UInt32 = 0) throws -> (Int, Int) {
        var w: UInt32 = 0, h: UInt32 = 0
        var err = sy_error()
        let status = recipe.withC {
            sy_render_output_size($0, UInt32(src.width), UInt32(src.height), maxW, maxH, flags, &w, &h, &err)
        }
        guard status == SY_OK else { throw Failure(status: status, message: message(err)) }
        return (Int(w), Int(h))
    }

    /// Renders rows in the given bands through one renderer.
    static func bands(_ ctx: Context, _ recipe: Recipe, _ src: RGBImage, width: Int, height: Int,
                      splits: [Int]) throws -> RGBImage {
        var renderer: OpaquePointer?
        var err = sy_error()
        let created = recipe.withC {
            sy_renderer_create(ctx.raw, $0, UInt32(src.width), UInt32(src.height), UInt32(width), UInt32(height),
                               &renderer, &err)
        }
        guard created == SY_OK, let renderer else { throw Failure(status: created, message: message(err)) }
        defer { sy_renderer_destroy(renderer) }
        return RGBImage(width: width, height: height,
                        bytes: try bands(renderer, src, width: width, height: height, splits: splits))
    }

    /// Renders rows in the given bands (row edges) through `renderer`, its grid rows in `scratch`
    /// when given (render/sy_render_scratch.h).
    static func bands(_ renderer: OpaquePointer, _ src: RGBImage, width: Int, height: Int, splits: [Int],
                      scratch: UnsafeMutablePointer<sy__render_scratch>? = nil) throws -> [UInt8] {
        var out = [UInt8](repeating: 0x5A, count: width * height * 3)
        var err = sy_error()
        let edges = [0] + splits + [height]
        for (a, b) in zip(edges, edges.dropFirst()) {
            let status = src.bytes.withUnsafeBufferPointer { sp in
                out.withUnsafeMutableBufferPointer { dp in
                    var px = sy_pixels(data: sp.baseAddress, stride: src.width * 3, width: UInt32(src.width),
                                       height: UInt32(src.height))
                    // A band buffer of its own: the renderer writes row a at its start.
                    let dst = dp.baseAddress! + a * width * 3
                    return scratch.map {
                        sy__renderer_render_rows_reusing(renderer, &px, UInt32(a), UInt32(b - a), dst, width * 3, $0, &err)
                    } ?? sy_renderer_render_rows(renderer, &px, UInt32(a), UInt32(b - a), dst, width * 3, &err)
                }
            }
            guard status == SY_OK else { throw Failure(status: status, message: message(err)) }
        }
        return out
    }

    static func parseCube(_ ctx: Context, _ text: String) -> (sy_status, OpaquePointer?, String) {
        var lut: OpaquePointer?
        var err = sy_error()
        let bytes = Array(text.utf8)
        let status = bytes.withUnsafeBufferPointer { b in
            b.baseAddress!.withMemoryRebound(to: CChar.self, capacity: max(b.count, 1)) {
                sy_lut_parse_cube(ctx.raw, $0, b.count, &lut, &err)
            }
        }
        return (status, lut, message(err))
    }

    static func parseCube(_ ctx: Context, bytes: [UInt8]) -> (sy_status, String) {
        var lut: OpaquePointer?
        var err = sy_error()
        let status = bytes.withUnsafeBufferPointer { b in
            b.baseAddress!.withMemoryRebound(to: CChar.self, capacity: max(b.count, 1)) {
                sy_lut_parse_cube(ctx.raw, $0, b.count, &lut, &err)
            }
        }
        sy_lut_destroy(lut)
        return (status, message(err))
    }

    /// A .cube whose entry at (r, g, b) in 0...1 is f(r, g, b).
    static func cubeText(size: Int, title: String = "test", _ f: (Double, Double, Double) -> (Double, Double, Double))
        -> String {
        var lines = ["# generated by RenderTests", "TITLE \"\(title)\"", "LUT_3D_SIZE \(size)", ""]
        let n = Double(size - 1)
        for b in 0..<size {
            for g in 0..<size {
                for r in 0..<size {
                    let (x, y, z) = f(Double(r) / n, Double(g) / n, Double(b) / n)
                    lines.append(String(format: "%.6f %.6f %.6f", x, y, z))
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func srgbDecode(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
    static func srgbEncode(_ v: Double) -> Double { v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055 }

    static func filters() -> [(id: String, family: String, name: String)] {
        (0..<sy_filter_count()).map { i in
            var info = sy_filter_info()
            _ = sy_filter_at(i, &info)
            return (String(cString: info.id), String(cString: info.family), String(cString: info.name))
        }
    }
}

// MARK: - Tests

@Suite("RenderTests")
struct RenderTests {
    let photo = RGBImage.photo(width: 173, height: 119)

    @Test("issue 5: the identity recipe reproduces the source byte for byte, leaving no engine memory behind")
    func identity() throws {
        let ctx = try Context()
        let recipe = Recipe()
        #expect(recipe.withC { sy_recipe_is_identity($0) } == 1)
        #expect(try Render.size(recipe, photo) == (photo.width, photo.height))
        let out = try Render.native(ctx, recipe, photo)
        #expect(out == photo)
        // Through the renderer and rows, too (the bands path).
        #expect(try Render.bands(ctx, recipe, photo, width: photo.width, height: photo.height, splits: [1, 50]) == photo)
        #expect(ctx.stats.current_bytes == 0)
    }

    @Test("issue 5: crop of the full rect, four quarter turns, two flips are identities")
    func identities() throws {
        let ctx = try Context()
        var crop = Recipe()
        crop.raw.crop = sy_recipe_rect(x: 0, y: 0, width: 1, height: 1)
        #expect(try Render.native(ctx, crop, photo) == photo)

        var turn = Recipe()
        turn.raw.quarter_turns = 1
        var image = photo
        for _ in 0..<4 { image = try Render.native(ctx, turn, image) }
        #expect(image == photo)
        // One turn alone is not the identity (the test can fail).
        #expect(try Render.native(ctx, turn, photo).bytes != photo.bytes)

        for vertical in [false, true] {
            var flip = Recipe()
            if vertical { flip.raw.flip_vertical = 1 } else { flip.raw.flip_horizontal = 1 }
            let once = try Render.native(ctx, flip, photo)
            #expect(once != photo)
            #expect(try Render.native(ctx, flip, once) == photo)
        }
    }

    @Test("issue 5: a quarter turn of a non-square image swaps the size and is the exact pixel rotation",
          arguments: [1, 2, 3])
    func quarterTurnIsExactRotation(turns: Int) throws {
        let ctx = try Context()
        var recipe = Recipe()
        recipe.raw.quarter_turns = UInt32(turns)
        let out = try Render.native(ctx, recipe, photo)
        let (w, h) = (photo.width, photo.height)
        #expect(turns == 2 ? (out.width, out.height) == (w, h) : (out.width, out.height) == (h, w))
        var mismatches = 0
        for y in 0..<out.height {
            for x in 0..<out.width {
                // Clockwise: out(x, y) = src(y, h-1-x) for one turn; (w-1-x, h-1-y) for two; (w-1-y, x) for three.
                let (sx, sy) = turns == 1 ? (y, h - 1 - x) : turns == 2 ? (w - 1 - x, h - 1 - y) : (w - 1 - y, x)
                if out.pixel(x, y) != photo.pixel(sx, sy) { mismatches += 1 }
            }
        }
        #expect(mismatches == 0)
        // Flip after the turn: mirror of the turned image.
        recipe.raw.flip_horizontal = 1
        let mirrored = try Render.native(ctx, recipe, photo)
        var flipMismatches = 0
        for y in 0..<out.height {
            for x in 0..<out.width where mirrored.pixel(x, y) != out.pixel(out.width - 1 - x, y) { flipMismatches += 1 }
        }
        #expect(flipMismatches == 0)
    }

    @Test("issue 5: order of operations: crop and straighten in source coordinates, then quarter turns, then flips")
    func orderOfOperations() throws {
        let ctx = try Context()
        let src = RGBImage.photo(width: 180, height: 120)
        var base = Recipe()
        base.raw.crop = sy_recipe_rect(x: 0.1, y: 0.2, width: 0.7, height: 0.6)
        base.raw.straighten = 7
        let straight = try Render.native(ctx, base, src)
        var turned = base
        turned.raw.quarter_turns = 1
        turned.raw.flip_vertical = 1
        let out = try Render.native(ctx, turned, src)
        #expect((out.width, out.height) == (straight.height, straight.width))
        // Turn clockwise, then mirror top-bottom: out(x, y) = straight(h-1-y', ...) with y' = H-1-y.
        var worst = 0
        for y in 0..<out.height {
            for x in 0..<out.width {
                let (sx, sy) = (out.height - 1 - y, straight.height - 1 - x)
                let a = out.pixel(x, y), b = straight.pixel(sx, sy)
                for c in 0..<3 { worst = max(worst, abs(Int(a[c]) - Int(b[c]))) }
            }
        }
        #expect(worst <= 1, "turned+flipped differs from the moved pixels by \(worst)")
    }

    @Test("issue 5: source rows with padding (stride > width * 3) render the same pixels")
    func paddedSourceStride() throws {
        let ctx = try Context()
        let src = RGBImage.photo(width: 90, height: 60)
        let stride = 90 * 3 + 7
        var padded = [UInt8](repeating: 0xEE, count: stride * 60)
        for y in 0..<60 { padded[(y * stride)..<(y * stride + 270)] = src.bytes[(y * 270)..<(y * 270 + 270)] }
        let recipe = Self.typical()
        let expected = try Render.run(ctx, recipe, src, width: 45, height: 30)
        var out = [UInt8](repeating: 0, count: 45 * 30 * 3)
        var err = sy_error()
        let status = padded.withUnsafeBufferPointer { sp in
            var px = sy_pixels(data: sp.baseAddress, stride: stride, width: 90, height: 60)
            return recipe.withC { sy_render(ctx.raw, $0, &px, 45, 30, &out, 45 * 3, 2, &err) }
        }
        #expect(status == SY_OK, "\(message(err))")
        #expect(out == expected.bytes)
    }

    @Test("issue 5: a whole-pixel crop is the exact sub-rectangle")
    func cropIsSubRectangle() throws {
        let ctx = try Context()
        let src = RGBImage.photo(width: 200, height: 100)
        var recipe = Recipe()
        recipe.raw.crop = sy_recipe_rect(x: 0.25, y: 0.1, width: 0.5, height: 0.6) // 50..150 x 10..70
        let out = try Render.native(ctx, recipe, src)
        #expect((out.width, out.height) == (100, 60))
        var mismatches = 0
        for y in 0..<60 { for x in 0..<100 where out.pixel(x, y) != src.pixel(50 + x, 10 + y) { mismatches += 1 } }
        #expect(mismatches == 0)
        // A target of another aspect is covered (centre-cropped), never stretched: 200x100 -> 100x100 is columns 50..149.
        let square = try Render.run(ctx, Recipe(), src, width: 100, height: 100)
        var coverMismatches = 0
        for y in 0..<100 { for x in 0..<100 where square.pixel(x, y) != src.pixel(50 + x, y) { coverMismatches += 1 } }
        #expect(coverMismatches == 0)
    }

    @Test("issue 5: exposure +1 EV doubles linear values (mid-tones, within rounding); -1 EV halves them")
    func exposureDoublesLinear() throws {
        let ctx = try Context()
        for ev in [1.0, -1.0] {
            var recipe = Recipe()
            recipe.raw.adjustments.exposure = ev
            let out = try Render.native(ctx, recipe, photo)
            var checked = 0, worst = 0
            for i in photo.bytes.indices {
                let v = Int(photo.bytes[i])
                guard v >= 40 && v <= 180 else { continue } // away from black and from clipping at +1 EV
                let expected = Render.srgbEncode(Render.srgbDecode(Double(v) / 255) * pow(2, ev)) * 255
                worst = max(worst, abs(Int(expected.rounded()) - Int(out.bytes[i])))
                checked += 1
            }
            #expect(checked > photo.bytes.count / 2)
            #expect(worst <= 1, "EV \(ev): worst difference \(worst) levels")
            // Linear ratio on a mid-grey code: 118 -> linear 0.181; x2 -> 0.362 -> code 161.
            let grey = RGBImage(width: 8, height: 8) { _, _ in (118, 118, 118) }
            let g = try Render.native(ctx, recipe, grey)
            let ratio = Render.srgbDecode(Double(g.bytes[0]) / 255) / Render.srgbDecode(118.0 / 255)
            #expect(abs(ratio - pow(2, ev)) < 0.02 * pow(2, ev), "ratio \(ratio)")
        }
    }

    @Test("issue 5: identity .cube (size 17 and 33) at intensity 1 is the identity within one level", arguments: [17, 33])
    func identityCube(size: Int) throws {
        let ctx = try Context()
        let (status, lut, msg) = Render.parseCube(ctx, Render.cubeText(size: size) { ($0, $1, $2) })
        #expect(status == SY_OK, "\(msg)")
        defer { sy_lut_destroy(lut) }
        #expect(sy_lut_size(lut) == UInt32(size))
        #expect(String(cString: sy_lut_title(lut)) == "test")
        var recipe = Recipe()
        recipe.lut = lut
        let out = try Render.native(ctx, recipe, photo)
        #expect(out.maxAbsDiff(photo) <= 1)
        #expect(out.meanAbsDiff(photo) < 0.1)
    }

    @Test("issue 5: a channel-swap .cube swaps red and blue; half intensity is the average")
    func channelSwapCube() throws {
        let ctx = try Context()
        let (status, lut, msg) = Render.parseCube(ctx, Render.cubeText(size: 9) { r, g, b in (b, g, r) })
        #expect(status == SY_OK, "\(msg)")
        defer { sy_lut_destroy(lut) }
        var recipe = Recipe()
        recipe.lut = lut
        let out = try Render.native(ctx, recipe, photo)
        var worst = 0
        for y in 0..<photo.height {
            for x in 0..<photo.width {
                let s = photo.pixel(x, y), o = out.pixel(x, y)
                worst = max(worst, abs(Int(o[0]) - Int(s[2])), abs(Int(o[1]) - Int(s[1])), abs(Int(o[2]) - Int(s[0])))
            }
        }
        #expect(worst <= 1)
        recipe.raw.filter_intensity = 0.5
        let half = try Render.native(ctx, recipe, photo)
        var worstHalf = 0
        for i in stride(from: 0, to: photo.bytes.count, by: 3) {
            let expected = (Int(photo.bytes[i]) + Int(photo.bytes[i + 2]) + 1) / 2
            worstHalf = max(worstHalf, abs(Int(half.bytes[i]) - expected))
        }
        #expect(worstHalf <= 1)
        // The float API agrees.
        var o: [Float] = [0, 0, 0]
        sy_lut_apply(lut, [0.1, 0.5, 0.9], &o)
        #expect(abs(o[0] - 0.9) < 1e-4 && abs(o[1] - 0.5) < 1e-4 && abs(o[2] - 0.1) < 1e-4)
    }

    @Test("issue 5: straighten 10° leaves no empty corners and keeps the centre pixel", arguments: [10.0, -10.0, 45.0])
    func straightenFillsCorners(degrees: Double) throws {
        let ctx = try Context()
        let src = RGBImage.smooth(width: 240, height: 160) // every value >= 30
        var recipe = Recipe()
        recipe.raw.straighten = degrees
        recipe.raw.border_color = (0, 0, 0)
        let out = try Render.native(ctx, recipe, src)
        #expect(out.width < src.width && out.height < src.height) // auto-zoom, native resolution
        #expect(abs(Double(out.width) / Double(out.height) - 1.5) < 0.02) // the crop's aspect
        for (x, y) in [(0, 0), (out.width - 1, 0), (0, out.height - 1), (out.width - 1, out.height - 1)] {
            #expect(out.pixel(x, y).allSatisfy { $0 >= 25 }, "corner \(x),\(y): \(out.pixel(x, y))")
        }
        // The centre of the output shows the crop centre (bilinear reads of both: smooth gradients).
        for c in 0..<3 {
            let o = out.bilinear(Double(out.width) / 2 - 0.5, Double(out.height) / 2 - 0.5, c)
            let s = src.bilinear(119.5, 79.5, c)
            #expect(abs(o - s) <= 2.5, "channel \(c): \(o) vs \(s)")
        }
        // The picture really turned: a horizontal gradient gets a vertical component.
        let left = out.pixel(out.width / 4, out.height / 2), right = out.pixel(3 * out.width / 4, out.height / 2)
        #expect(Int(right[1]) - Int(left[1]) != 0)
        #expect(degrees > 0 ? right[1] < left[1] : right[1] > left[1]) // clockwise: the right side comes from upper rows
    }

    @Test("issue 5: downscale by 4 of a one-pixel checkerboard is mid-grey (linear light), with and without straighten")
    func checkerboardDownscale() throws {
        let ctx = try Context()
        let board = RGBImage(width: 400, height: 400) { x, y in (x + y) % 2 == 0 ? (0, 0, 0) : (255, 255, 255) }
        var recipe = Recipe()
        let out = try Render.run(ctx, recipe, board, width: 100, height: 100)
        // Linear mid-grey 0.5 encodes to 188; averaging codes would give 128, nearest neighbour 0 or 255.
        #expect(out.bytes.allSatisfy { $0 >= 186 && $0 <= 190 }, "range \(out.bytes.min()!)...\(out.bytes.max()!)")
        recipe.raw.straighten = 3
        let turned = try Render.native(ctx, recipe, board, maxW: 100, maxH: 100)
        #expect(turned.bytes.allSatisfy { $0 >= 180 && $0 <= 196 }, "range \(turned.bytes.min()!)...\(turned.bytes.max()!)")
        // A non-integer factor (400 -> 117) as well.
        let odd = try Render.run(ctx, Recipe(), board, width: 117, height: 117)
        #expect(odd.bytes.allSatisfy { $0 >= 180 && $0 <= 196 }, "range \(odd.bytes.min()!)...\(odd.bytes.max()!)")
    }

    @Test("issue 5 / SPEC E3: built-in filters: >= 4 families of >= 6, ids resolve, each changes the image, intensity 0 is identity")
    func builtInFilters() throws {
        let ctx = try Context()
        let all = Render.filters()
        #expect(all.count >= 24)
        #expect(Set(all.map(\.id)).count == all.count)
        let families = Dictionary(grouping: all, by: \.family)
        #expect(families.count >= 4)
        #expect(families.values.allSatisfy { $0.count >= 6 }, "\(families.mapValues(\.count))")
        var info = sy_filter_info()
        #expect(sy_filter_at(all.count, &info) == -1)
        #expect(sy_filter_find("no.such-filter") == -1)
        let small = RGBImage.photo(width: 64, height: 48)
        for (index, filter) in all.enumerated() {
            #expect(sy_filter_find(filter.id) == Int32(index))
            #expect(filter.id.hasPrefix(filter.family + "."))
            #expect(!filter.name.isEmpty)
            var recipe = Recipe()
            recipe.filterID = filter.id
            let out = try Render.native(ctx, recipe, small)
            #expect(out.meanAbsDiff(small) >= 2, "\(filter.id) changes the image by only \(out.meanAbsDiff(small))")
            recipe.raw.filter_intensity = 0
            #expect(try Render.native(ctx, recipe, small) == small, "\(filter.id) at intensity 0")
            // Baked into a LUT object, the look gives the same pixels within a level.
            var lut: OpaquePointer?
            var err = sy_error()
            #expect(sy_lut_from_filter(ctx.raw, filter.id, 33, &lut, &err) == SY_OK)
            var viaLut = Recipe()
            viaLut.lut = lut
            let baked = try Render.native(ctx, viaLut, small)
            #expect(baked.maxAbsDiff(out) <= 1, "\(filter.id) baked LUT differs by \(baked.maxAbsDiff(out))")
            sy_lut_destroy(lut)
        }
        // Mono filters are grey.
        var mono = Recipe()
        mono.filterID = "mono.classic"
        let grey = try Render.native(ctx, mono, small)
        var coloured = 0
        for i in stride(from: 0, to: grey.bytes.count, by: 3) {
            let (r, g, b) = (grey.bytes[i], grey.bytes[i + 1], grey.bytes[i + 2])
            if r != g || g != b { coloured += 1 }
        }
        #expect(coloured == 0)
        #expect(ctx.stats.current_bytes == 0)
    }

    /// A busy recipe touching every stage.
    static func typical(straighten: Double = 3) -> Recipe {
        var r = Recipe()
        r.raw.crop = sy_recipe_rect(x: 0.05, y: 0.08, width: 0.9, height: 0.85)
        r.raw.straighten = straighten
        r.raw.adjustments.exposure = 0.4
        r.raw.adjustments.contrast = 0.3
        r.raw.adjustments.highlights = -0.4
        r.raw.adjustments.shadows = 0.3
        r.raw.adjustments.saturation = 0.25
        r.raw.adjustments.vibrance = 0.2
        r.raw.adjustments.warmth = 0.2
        r.raw.adjustments.tint = -0.1
        r.raw.adjustments.vignette = 0.3
        r.raw.adjustments.sharpness = 0.4
        r.filterID = "film.amber"
        r.raw.filter_intensity = 0.8
        r.raw.border_width = 0.04
        r.raw.border_color = (250, 245, 235)
        return r
    }

    @Test("issue 5: rendering in bands or on 2 threads equals one whole render byte for byte",
          arguments: [(0.0, 1.0), (3.0, 1.0), (3.0, 0.3), (0.0, 0.3), (0.0, 1.7)])
    func bandsMatchWhole(straighten: Double, scale: Double) throws {
        let ctx = try Context()
        let src = RGBImage.photo(width: 311, height: 207)
        var recipe = Self.typical(straighten: straighten)
        recipe.raw.quarter_turns = scale < 0.5 ? 1 : 0
        let (w0, h0) = try Render.size(recipe, src)
        let (w, h) = (Int(Double(w0) * scale), Int(Double(h0) * scale))
        let whole = try Render.run(ctx, recipe, src, width: w, height: h, threads: 1)
        let threaded = try Render.run(ctx, recipe, src, width: w, height: h, threads: 2)
        #expect(whole == threaded)
        let banded = try Render.bands(ctx, recipe, src, width: w, height: h, splits: [1, h / 3, h / 3 + 1, h - 5])
        #expect(whole == banded)
        // The border is there, in its colour.
        #expect(whole.pixel(0, 0) == [250, 245, 235] && whole.pixel(w - 1, h / 2) == [250, 245, 235])
        #expect(ctx.stats.current_bytes == 0)
    }

    @Test("issue 5: each slider moves the picture the way its name says")
    func slidersDoWhatTheySay() throws {
        let ctx = try Context()
        let src = RGBImage.photo(width: 96, height: 64)
        func mean(_ img: RGBImage, _ c: Int) -> Double {
            stride(from: c, to: img.bytes.count, by: 3).map { Double(img.bytes[$0]) }.reduce(0, +) / Double(img.width * img.height)
        }
        func chroma(_ img: RGBImage) -> Double {
            stride(from: 0, to: img.bytes.count, by: 3).map { i -> Double in
                let p = img.bytes[i..<(i + 3)].map(Int.init)
                return Double(p.max()! - p.min()!)
            }.reduce(0, +) / Double(img.width * img.height)
        }
        func with(_ set: (inout sy_adjustments) -> Void) throws -> RGBImage {
            var r = Recipe()
            set(&r.raw.adjustments)
            return try Render.native(ctx, r, src)
        }
        #expect(chroma(try with { $0.saturation = 0.6 }) > chroma(src) + 3)
        #expect(chroma(try with { $0.saturation = -1 }) < 1.5)
        #expect(chroma(try with { $0.vibrance = 0.8 }) > chroma(src) + 2)
        let warm = try with { $0.warmth = 0.8 }
        #expect(mean(warm, 0) - mean(warm, 2) > mean(src, 0) - mean(src, 2) + 5)
        let magenta = try with { $0.tint = 0.8 }
        #expect(mean(magenta, 1) < mean(src, 1) - 3)
        let dark = try with { $0.vignette = 1 }
        #expect(dark.pixel(0, 0)[1] < src.pixel(0, 0)[1] - 10 && dark.pixel(48, 32) == src.pixel(48, 32))
        let light = try with { $0.vignette = -1 }
        #expect(light.pixel(95, 63)[1] > src.pixel(95, 63)[1] + 10)
        let contrast = try with { $0.contrast = 1 }
        func spread(_ img: RGBImage) -> Double {
            let m = mean(img, 1)
            return stride(from: 1, to: img.bytes.count, by: 3).map { abs(Double(img.bytes[$0]) - m) }.reduce(0, +)
        }
        #expect(spread(contrast) > spread(src) * 1.1)
        #expect(mean(try with { $0.shadows = 1 }, 1) > mean(src, 1) + 3)
        #expect(mean(try with { $0.highlights = -1 }, 1) < mean(src, 1) - 2)
        let sharp = try with { $0.sharpness = 1 }, soft = try with { $0.sharpness = -1 }
        func edges(_ img: RGBImage) -> Int {
            var s = 0
            for y in 0..<img.height { for x in 1..<img.width { s += abs(Int(img.pixel(x, y)[1]) - Int(img.pixel(x - 1, y)[1])) } }
            return s
        }
        #expect(edges(sharp) > edges(src) && edges(soft) < edges(src))
    }

    @Test("issue 5: output size: native crop x zoom, fit into a box without upscaling, turns swap, border adds")
    func outputSizes() throws {
        let src = RGBImage(width: 4032, height: 3024, bytes: [])
        var r = Recipe()
        #expect(try Render.size(r, src) == (4032, 3024))
        #expect(try Render.size(r, src, maxW: 1170) == (1170, 878))
        #expect(try Render.size(r, src, maxW: 8000, maxH: 8000) == (4032, 3024))
        #expect(try Render.size(r, src, maxW: 8000, maxH: 8000, flags: UInt32(SY_RENDER_ALLOW_UPSCALE)) == (8000, 6000))
        r.raw.quarter_turns = 3
        #expect(try Render.size(r, src, maxW: 1170) == (1170, 1560))
        r.raw.quarter_turns = 0
        r.raw.crop = sy_recipe_rect(x: 0.25, y: 0.25, width: 0.5, height: 0.5)
        #expect(try Render.size(r, src) == (2016, 1512))
        r.raw.border_width = 0.1 // 10% of the short side (1512) on each side
        let (bw, bh) = try Render.size(r, src)
        #expect(bw == 2016 + 2 * 151 || bw == 2016 + 2 * 152)
        #expect(bh - 1512 == bw - 2016)
        r = Recipe()
        r.raw.straighten = 5
        let (sw, sh) = try Render.size(r, src)
        #expect(sw < 4032 && sh < 3024 && abs(Double(sw) / Double(sh) - 4.0 / 3.0) < 0.01)
    }

    @Test("issue 5: recipe values out of range, NaN, unknown filters and bad sizes are SY_E_USAGE")
    func recipeOutOfRange() throws {
        let ctx = try Context()
        let cases: [(String, (inout Recipe) -> Void)] = [
            ("version", { $0.raw.version = 2 }),
            ("crop.x", { $0.raw.crop.x = -0.1 }),
            ("crop.width", { $0.raw.crop.width = 0 }),
            ("crop.x + crop.width", { $0.raw.crop = sy_recipe_rect(x: 0.5, y: 0, width: 0.6, height: 1) }),
            ("straighten", { $0.raw.straighten = 46 }),
            ("straighten", { $0.raw.straighten = .nan }),
            ("quarterTurns", { $0.raw.quarter_turns = 4 }),
            ("flips", { $0.raw.flip_horizontal = 2 }),
            ("adjustments.exposure", { $0.raw.adjustments.exposure = 4.5 }),
            ("adjustments.contrast", { $0.raw.adjustments.contrast = -1.01 }),
            ("adjustments.sharpness", { $0.raw.adjustments.sharpness = .infinity }),
            ("adjustments.tint", { $0.raw.adjustments.tint = .nan }),
            ("filter.intensity", { $0.raw.filter_intensity = 1.5 }),
            ("unknown filter id", { $0.filterID = "film.nope" }),
            ("border.width", { $0.raw.border_width = 0.6 }),
        ]
        let src = RGBImage.photo(width: 16, height: 16)
        for (field, edit) in cases {
            var recipe = Recipe()
            edit(&recipe)
            var err = sy_error()
            #expect(recipe.withC { sy_recipe_validate($0, &err) } == SY_E_USAGE, "\(field)")
            #expect(message(err).contains(field), "\(field): \(message(err))")
            #expect(throws: Render.Failure.self) { try Render.run(ctx, recipe, src, width: 16, height: 16) }
        }
        // Both a filter id and a user LUT.
        let (_, lut, _) = Render.parseCube(ctx, Render.cubeText(size: 2) { ($0, $1, $2) })
        var both = Recipe()
        both.filterID = "mono.noir"
        both.lut = lut
        var err = sy_error()
        #expect(both.withC { sy_recipe_validate($0, &err) } == SY_E_USAGE)
        sy_lut_destroy(lut)
        // Sizes and buffers.
        var renderer: OpaquePointer?
        #expect(Recipe().withC { sy_renderer_create(ctx.raw, $0, 0, 10, 10, 10, &renderer, &err) } == SY_E_USAGE)
        #expect(Recipe().withC { sy_renderer_create(ctx.raw, $0, 10, 10, 70000, 10, &renderer, &err) } == SY_E_USAGE)
        #expect(Recipe().withC { sy_renderer_create(ctx.raw, $0, 16, 16, 8, 8, &renderer, &err) } == SY_OK)
        var out = [UInt8](repeating: 0, count: 8 * 8 * 3)
        let wrongSource = src.bytes.withUnsafeBufferPointer { sp in
            var px = sy_pixels(data: sp.baseAddress, stride: 15 * 3, width: 15, height: 16)
            return sy_renderer_render_rows(renderer, &px, 0, 8, &out, 24, &err)
        }
        #expect(wrongSource == SY_E_USAGE)
        let tooManyRows = src.bytes.withUnsafeBufferPointer { sp in
            var px = sy_pixels(data: sp.baseAddress, stride: 48, width: 16, height: 16)
            return sy_renderer_render_rows(renderer, &px, 4, 5, &out, 24, &err)
        }
        #expect(tooManyRows == SY_E_USAGE)
        sy_renderer_destroy(renderer)
        sy_renderer_destroy(nil)
        sy_lut_destroy(nil)
        #expect(ctx.stats.current_bytes == 0)
    }

    @Test("issue 5: hostile .cube text → SY_E_INVALID_INPUT naming the line; 1D LUTs are unsupported")
    func hostileCubes() throws {
        let ctx = try Context()
        let good = Render.cubeText(size: 2) { ($0, $1, $2) }
        let goodLines = good.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // (description, text, expected line)
        let cases: [(String, String, Int)] = [
            ("size 1", "LUT_3D_SIZE 1\n", 1),
            ("size 66", "TITLE \"x\"\nLUT_3D_SIZE 66\n", 2),
            ("huge size", "LUT_3D_SIZE 4000000000\n0 0 0\n", 1),
            ("fractional size", "LUT_3D_SIZE 2.5\n", 1),
            ("negative size", "LUT_3D_SIZE -3\n", 1),
            ("no size", "TITLE \"only a title\"\n# nothing else\n", 2),
            ("data before size", "0 0 0\nLUT_3D_SIZE 2\n", 1),
            ("truncated", goodLines.dropLast(3).joined(separator: "\n"), goodLines.count - 3),
            ("too many entries", good + "0.5 0.5 0.5\n", goodLines.count),
            ("NaN", good.replacingOccurrences(of: "1.000000 1.000000 1.000000", with: "nan 1 1"), 12),
            ("inf", good.replacingOccurrences(of: "0.000000 0.000000 0.000000", with: "1e999 0 0"), 5),
            ("two numbers", good.replacingOccurrences(of: "0.000000 0.000000 0.000000", with: "0 0"), 5),
            ("four numbers", good.replacingOccurrences(of: "0.000000 0.000000 0.000000", with: "0 0 0 0"), 5),
            ("junk glued", good.replacingOccurrences(of: "0.000000 0.000000 0.000000", with: "0 0 0x"), 5),
            ("second size", "LUT_3D_SIZE 2\nLUT_3D_SIZE 2\n", 2),
            ("keyword after data", good + "DOMAIN_MIN 0 0 0\n", goodLines.count),
            ("empty domain", "DOMAIN_MIN 1 0 0\nDOMAIN_MAX 0 1 1\n" + good, 2),
            ("unterminated title", "TITLE \"abc\nLUT_3D_SIZE 2\n", 1),
            ("empty", "", 1),
        ]
        for (what, text, line) in cases {
            let (status, lut, msg) = Render.parseCube(ctx, text)
            sy_lut_destroy(lut)
            #expect(status == SY_E_INVALID_INPUT, "\(what): \(status) \(msg)")
            #expect(msg.contains("line \(line)"), "\(what): \(msg)")
            #expect(lut == nil)
        }
        // Binary junk: control bytes and NULs, on line 3.
        var junk = Array("TITLE \"x\"\nLUT_3D_SIZE 2\n".utf8)
        junk += [0x00, 0x01, 0xFF, 0x7F, 0x10, 0x80, 0x00]
        let (binStatus, binMsg) = Render.parseCube(ctx, bytes: junk)
        #expect(binStatus == SY_E_INVALID_INPUT && binMsg.contains("line 3") && binMsg.contains("binary"), "\(binMsg)")
        // Fuzzer find: an error message quoting text at the very end of the buffer (no NUL after it).
        let (endStatus, endMsg) = Render.parseCube(ctx, bytes: [0x54, 0x23, 0x20, 0x63, 0x49, 0x45, 0x20, 0x22, 0x95, 0x64, 0x65, 0x6E])
        #expect(endStatus == SY_E_INVALID_INPUT && endMsg.contains("line 1"), "\(endMsg)")
        // Deterministic random bytes never crash and always explain themselves.
        var seed: UInt64 = 0x9E3779B97F4A7C15
        for _ in 0..<200 {
            var bytes: [UInt8] = []
            for _ in 0..<Int(seed % 300) {
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                bytes.append(UInt8(truncatingIfNeeded: seed >> 56))
            }
            let (status, msg) = Render.parseCube(ctx, bytes: bytes)
            #expect(status != SY_OK && msg.contains("line"))
        }
        // 1D tables: valid but not ours.
        let (oneD, _, oneMsg) = Render.parseCube(ctx, "LUT_1D_SIZE 2\n0 0 0\n1 1 1\n")
        #expect(oneD == SY_E_UNSUPPORTED && oneMsg.contains("line 1"))
        // Accepted variations: CRLF, comments, Resolve keywords, DOMAIN, exponents, BOM.
        let variant = "\u{FEFF}# comment\r\nTITLE \"Résolve\"\r\nLUT_3D_INPUT_RANGE 0 1\r\nLUT_IN_VIDEO_RANGE\r\n"
            + "DOMAIN_MIN 0 0 0\r\nDOMAIN_MAX 1.0 1.0 1.0\r\nLUT_3D_SIZE 2\r\n"
            + "0 0 0\r\n1e0 0 0\r\n0 1 0\r\n1 1 0\r\n0 0 1.0E+0\r\n1 0 1\r\n0 1 1\r\n+1 1. .1e1\r\n"
        let (vStatus, vLut, vMsg) = Render.parseCube(ctx, variant)
        #expect(vStatus == SY_OK, "\(vMsg)")
        #expect(String(cString: sy_lut_title(vLut)) == "Résolve")
        sy_lut_destroy(vLut)
        // From a file, and a missing file is an I/O error.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("render-\(getpid()).cube").path
        try ExternalTools.writeFile(path, Array(good.utf8))
        defer { unlink(path) }
        var lut: OpaquePointer?
        var err = sy_error()
        #expect(sy_lut_load_cube(ctx.raw, path, &lut, &err) == SY_OK)
        sy_lut_destroy(lut)
        #expect(sy_lut_load_cube(ctx.raw, path + ".missing", &lut, &err) == SY_E_IO)
        #expect(ctx.stats.current_bytes == 0)
    }

    @Test("issue 5: a render honours cancellation and a tight budget fails cleanly")
    func cancelAndBudget() throws {
        let src = RGBImage.photo(width: 300, height: 200)
        let ctx = try Context()
        sy_context_cancel(ctx.raw)
        #expect(throws: Render.Failure.self) { try Render.native(ctx, Self.typical(), src) }
        sy_context_clear_cancel(ctx.raw)
        #expect(try Render.native(ctx, Self.typical(), src).width > 0)
        let tight = try Context(budget: 64 << 10)
        do {
            _ = try Render.run(tight, Self.typical(), src, width: 100, height: 66)
            Issue.record("64 KiB budget should not be enough")
        } catch let failure as Render.Failure {
            #expect(failure.status == SY_E_BUDGET, "\(failure)")
        }
        #expect(tight.stats.current_bytes == 0)
    }
}
