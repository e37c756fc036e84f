// The downscale's linear -> 16-bit sRGB encode (resize.c): the AVX2 loop
// must give the portable loop's bytes for every input (so a render does not
// depend on the CPU), and both must be the sRGB curve.
import CShiying
import CShiyingInternal
import Foundation
import Testing

@Suite("Render encode paths")
struct RenderEncodePathTests {
    /// Edge values, every table step and its neighbours, and a deterministic spread of (0, 1).
    static func inputs() -> [Float] {
        var v: [Float] = [0, -0.0, -1, -1e-30, .nan, .infinity, -.infinity, 1, 1.0000001, 2, 1e30,
                          Float.leastNonzeroMagnitude, 1e-7, 0.0031308, 0.04045, 0.999_999_9]
        for i in 0...4096 {
            let x = Float(i) / 4096
            v += [x, x.nextUp, x.nextDown, (Float(i) + 0.5) / 4096]
        }
        var seed: UInt32 = 12345
        for _ in 0..<50_000 {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            v.append(Float(seed >> 8) / Float(1 << 24))
        }
        v.append(0.25) // an odd count: the 8-wide loop's tail runs too
        return v
    }

    @Test("AVX2 and portable encodes agree on every value, and follow IEC 61966-2-1 within two codes")
    func pathsAgree() {
        let lin = Self.inputs()
        var portable = [UInt16](repeating: 0, count: lin.count)
        var simd = [UInt16](repeating: 1, count: lin.count)
        let ran = sy__render_encode_paths(lin, lin.count, &portable, &simd)
        var differing = 0
        for i in 0..<lin.count where portable[i] != simd[i] { differing += 1 }
        #expect(differing == 0, "\(differing) of \(lin.count) values differ between the paths (AVX2 ran: \(ran))")
        var worst = 0.0
        for (i, x) in lin.enumerated() {
            let d = Double(x)
            let clamped = d.isNaN || d <= 0 ? 0 : min(d, 1)
            let srgb = clamped <= 0.0031308 ? clamped * 12.92 : 1.055 * pow(clamped, 1 / 2.4) - 0.055
            worst = max(worst, abs(Double(portable[i]) - srgb * 65535))
        }
        #expect(worst <= 2.0, "worst distance from the sRGB curve: \(worst) codes")
    }
}

// The CUBIC sampling of the 16-bit grid (resample.c): the AVX2 loop must
// give the portable loop's bytes, including values near 0 and 65535 (the
// AVX2 loop offsets them for signed multiply-adds) and the clamped edges.
@Suite("Render sample paths")
struct RenderSamplePathTests {
    /// A deterministic photo-like grid: smooth gradients, a hard edge, full-scale extremes and noise.
    static func grid(width: Int, height: Int) -> [UInt16] {
        let stride = width * 3 + 4
        var g = [UInt16](repeating: 0, count: stride * height)
        var seed: UInt32 = 987_654_321
        for y in 0..<height {
            for x in 0..<width {
                seed = seed &* 1_664_525 &+ 1_013_904_223
                let noise = Int(seed >> 24) - 128
                let edge = (x / 7 + y / 5) % 2 == 0 ? 65535 : 0 // ringing pushes the sums past both ends
                let ramp = (x * 65535) / max(width - 1, 1)
                let wave = Int(32767.5 + 32767.5 * sin(Double(x + 2 * y) / 9))
                let values = [edge, min(max(ramp + noise * 64, 0), 65535), wave]
                for c in 0..<3 { g[y * stride + x * 3 + c] = UInt16(values[(c + x + y) % 3]) }
            }
        }
        return g
    }

    @Test("AVX2 and portable CUBIC sampling of a 16-bit grid agree byte for byte (turns, shrinks, edges)")
    func pathsAgree() {
        let (gw, gh) = (97, 61)
        let g = Self.grid(width: gw, height: gh)
        // Output -> grid maps: a 3 degree turn, a 20 degree turn with a shift, an off-grid enlargement
        // reaching past every edge (clamped taps).
        let maps: [[Double]] = [
            [cos(0.0524), -sin(0.0524), 2.3, sin(0.0524), cos(0.0524), 1.7],
            [cos(0.349), -sin(0.349), 20.1, sin(0.349), cos(0.349), -5.4],
            [0.83, 0.0, -3.37, 0.0, 0.77, -2.61],
        ]
        var ran = -1, compared = 0, differing = 0
        for m in maps {
            let n = 120
            for v in stride(from: 0, to: 80, by: 3) {
                var portable = [UInt16](repeating: 0, count: n * 3), simd = [UInt16](repeating: 1, count: n * 3)
                ran = Int(sy__render_sample16_paths(m, g, UInt32(gw), UInt32(gh), UInt32(v), UInt32(n), &portable, &simd))
                #expect(ran >= 0, "map \(m) was not planned as CUBIC")
                compared += portable.count
                for i in portable.indices where portable[i] != simd[i] { differing += 1 }
            }
        }
        #expect(differing == 0, "\(differing) of \(compared) values differ between the paths (AVX2 ran: \(ran))")
    }
}
