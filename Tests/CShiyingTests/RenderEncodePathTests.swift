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
