// Issue 19, GIF quality on dark movies: a flat background must come out in
// its own colour. A bin mean moved a near-black background by a level in R and
// B, and ffmpeg's SSIM (its constants are tiny at that level) scored the
// corpus Live movie 0.52 where the pixels were within a level everywhere.
import CShiying
import CShiyingInternal
import Testing

@Suite("GIF palette: flat colours (issue 19)")
struct GIFPaletteTests {
    /// 160x120: a near-black background on 70% of the frame — one flat colour with a fifth of its pixels a few
    /// levels lighter (sensor noise), so the histogram bin's mean is not the flat colour — and a lit subject (a hue
    /// and light ramp) on the rest.
    static func isFlat(_ x: Int, _ y: Int) -> Bool { x < 112 && (x * 7 + y * 3) % 10 != 0 && (x * 7 + y * 3) % 10 != 5 }
    static func frame(_ background: [UInt8]) -> [UInt8] {
        var rgb = [UInt8](repeating: 0, count: 160 * 120 * 3)
        for y in 0..<120 {
            for x in 0..<160 {
                let i = (y * 160 + x) * 3
                var pixel: [UInt8]
                if isFlat(x, y) {
                    pixel = background
                } else if x < 112 {
                    let lift: UInt8 = (x * 7 + y * 3) % 10 == 0 ? 2 : 3
                    pixel = [background[0] + lift, background[1] + lift - 1, background[2] + lift]
                } else {
                    let t = Double(x - 112) / 48, u = Double(y) / 120
                    pixel = [UInt8(20 + 200 * t), UInt8(10 + 120 * u), UInt8(5 + 60 * t * u)]
                }
                rgb.replaceSubrange(i..<i + 3, with: pixel)
            }
        }
        return rgb
    }

    @Test("a flat background colour is in the palette exactly and mapped to it undithered",
          arguments: [[UInt8(1), 0, 2], [0, 0, 0], [5, 3, 7]])
    func flatBackground(_ background: [UInt8]) throws {
        let ctx = try Context()
        let rgb = Self.frame(background)
        var h: OpaquePointer?
        var err = sy_error()
        try #require(sy__gif_histogram_create(ctx.raw, &h, &err) == SY_OK)
        defer { sy__gif_histogram_destroy(h) }
        for _ in 0..<3 { sy__gif_histogram_add(h, rgb, 160 * 3, 160, 120) }
        var palette = [UInt8](repeating: 0, count: 768)
        var count: UInt32 = 0
        try #require(sy__gif_palette_build(h, 255, &palette, &count, &err) == SY_OK)
        let entries: [[UInt8]] = (0..<Int(count)).map { Array(palette[3 * $0..<3 * $0 + 3]) }
        let found = entries.firstIndex(of: background)
        let exact = try #require(found, "\(background) not in the palette (nearest: \(entries.prefix(2)))")
        var m: OpaquePointer?
        try #require(sy__gif_mapper_create(ctx.raw, palette, count, 2, &m, &err) == SY_OK)
        defer { sy__gif_mapper_destroy(m) }
        var row = [UInt8](repeating: 0, count: 160)
        for y in 0..<120 {
            rgb.withUnsafeBufferPointer { sy__gif_mapper_row(m, $0.baseAddress! + y * 160 * 3, 160, UInt32(y), &row) }
            #expect((0..<160).filter { Self.isFlat($0, y) }.allSatisfy { Int(row[$0]) == exact }, "row \(y)")
        }
    }
}
