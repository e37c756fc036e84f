// Converting only what changed (issue 17): a moving collage hands x265 frames
// whose pixels changed only inside some cells, and the encoder converts only
// those rectangles to Y'CbCr 4:2:0. These tests hold that to the whole-frame
// conversion byte for byte — the row maths against a plain reference, a
// rectangle's samples (odd edges, picture edges, both matrices and ranges),
// and whole encodes whose packets must not change.
import CShiying
import CShiyingInternal
import Foundation
import Testing

/// A photo-like RGB picture (the panning scene's first frame) as a packed array.
private func photo(width: Int, height: Int, grainSeed: Int = 0) -> [UInt8] {
    let scene = PanningScene(width: width, height: height, frames: 5)
    return scene.withFrame(grainSeed % 5) { rgb, stride in
        var out = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height { for x in 0..<(width * 3) { out[y * width * 3 + x] = rgb[y * stride + x] } }
        return out
    }
}

private func matrix(_ coefficients: UInt16, fullRange: Bool) -> sy__ycbcr_matrix {
    var m = sy__ycbcr_matrix()
    _ = sy__ycbcr_matrix_init(&m, coefficients, fullRange ? 1 : 0)
    return m
}

/// Y, Cb, Cr planes of a width x height picture, tightly packed.
private struct Planes {
    var y: [UInt8], cb: [UInt8], cr: [UInt8]
    let width: Int, height: Int
    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        y = [UInt8](repeating: 0, count: width * height)
        let chroma = ((width + 1) / 2) * ((height + 1) / 2)
        cb = [UInt8](repeating: 0, count: chroma)
        cr = [UInt8](repeating: 0, count: chroma)
    }

    /// Runs `body` with the three plane pointers and their strides.
    mutating func with(_ body: (UnsafePointer<UnsafeMutablePointer<UInt8>?>, UnsafePointer<Int>) -> Void) {
        let strides = [width, (width + 1) / 2, (width + 1) / 2]
        y.withUnsafeMutableBufferPointer { yp in
            cb.withUnsafeMutableBufferPointer { bp in
                cr.withUnsafeMutableBufferPointer { rp in
                    let planes: [UnsafeMutablePointer<UInt8>?] = [yp.baseAddress, bp.baseAddress, rp.baseAddress]
                    planes.withUnsafeBufferPointer { pp in strides.withUnsafeBufferPointer { sp in body(pp.baseAddress!, sp.baseAddress!) } }
                }
            }
        }
    }
}

private func wholeConversion(_ m: sy__ycbcr_matrix, _ rgb: [UInt8], width: Int, height: Int) -> Planes {
    var planes = Planes(width: width, height: height)
    var m = m
    planes.with { p, s in sy__rgb_to_ycbcr420(&m, rgb, width * 3, UInt32(width), UInt32(height), p, s) }
    return planes
}

struct ChangedRectStagingTests {
    // The chroma row (edge samples apart, the vectorized interior) against the
    // formula written out: [1 2 1] across columns 2cx-1..2cx+1, edges clamped,
    // both rows summed, 2^16-scaled coefficients, one rounding at 2^19.
    @Test(arguments: [1, 2, 3, 4, 5, 8, 31, 64, 97])
    func chromaRowMatchesTheFormula(width: Int) {
        let rgb = photo(width: max(width, 16), height: 2)
        let rowBytes = max(width, 16) * 3
        let a = Array(rgb[0..<rowBytes]), b = Array(rgb[rowBytes..<(2 * rowBytes)])
        for (coefficients, full) in [(UInt16(1), false), (UInt16(6), true), (UInt16(9), false)] {
            var m = matrix(coefficients, fullRange: full)
            let cw = (width + 1) / 2
            var cb = [UInt8](repeating: 0, count: cw), cr = [UInt8](repeating: 0, count: cw)
            sy__rgb_to_chroma420_row(&m, a, b, UInt32(width), &cb, &cr)
            for cx in 0..<cw {
                let xl = max(2 * cx - 1, 0), xm = 2 * cx, xr = min(2 * cx + 1, width - 1)
                var s = [Int32](repeating: 0, count: 3)
                for c in 0..<3 {
                    s[c] = Int32(a[xl * 3 + c]) + 2 * Int32(a[xm * 3 + c]) + Int32(a[xr * 3 + c])
                        + Int32(b[xl * 3 + c]) + 2 * Int32(b[xm * 3 + c]) + Int32(b[xr * 3 + c])
                }
                let bias: Int32 = (128 << 19) + (1 << 18)
                let u = (m.ur * s[0] + m.ug * s[1] + m.ub * s[2] + bias) >> 19
                let v = (m.vr * s[0] + m.vg * s[1] + m.vb * s[2] + bias) >> 19
                #expect(cb[cx] == UInt8(clamping: u) && cr[cx] == UInt8(clamping: v),
                        "width \(width), matrix \(coefficients), sample \(cx)")
            }
        }
    }

    // A rectangle converted into the planes of the picture before the change gives
    // the planes of the changed picture converted whole: every luma and chroma sample
    // the rectangle reaches, none it does not (odd and even edges, picture edges).
    @Test(arguments: [(64, 48), (97, 61), (33, 2), (2, 33)])
    func rectangleEqualsWholeConversion(size: (Int, Int)) {
        let (width, height) = size
        let before = photo(width: width, height: height, grainSeed: 0)
        let other = photo(width: width, height: height, grainSeed: 3)
        let rects: [(Int, Int, Int, Int)] = [
            (0, 0, width, height), (1, 1, 1, 1), (0, 0, 1, 1), (width - 1, height - 1, 1, 1),
            (width / 3, height / 4, max(1, width / 2), max(1, height / 2)), (3, 0, max(1, width - 5), 1),
            (width / 2 | 1, height / 2 | 1, width, height), // reaches past the picture: clipped
        ]
        for (coefficients, full) in [(UInt16(1), false), (UInt16(6), true)] {
            let m = matrix(coefficients, fullRange: full)
            for (x, y, w, h) in rects where x < width && y < height {
                var after = before
                for row in y..<min(height, y + h) {
                    for col in x..<min(width, x + w) {
                        for c in 0..<3 { after[(row * width + col) * 3 + c] = other[(row * width + col) * 3 + c] }
                    }
                }
                var planes = wholeConversion(m, before, width: width, height: height)
                var mm = m
                var scratch = [UInt8](repeating: 0, count: width + 4)
                planes.with { p, s in
                    sy__rgb_to_ycbcr420_rect(&mm, after, width * 3, UInt32(width), UInt32(height), UInt32(x), UInt32(y),
                                             UInt32(min(width, x + w)), UInt32(min(height, y + h)), p, s, &scratch)
                }
                let expected = wholeConversion(m, after, width: width, height: height)
                let differing = zip(planes.y, expected.y).filter { $0 != $1 }.count
                    + zip(planes.cb + planes.cr, expected.cb + expected.cr).filter { $0 != $1 }.count
                #expect(differing == 0, "\(width)x\(height), rect \(x),\(y) \(w)x\(h), matrix \(coefficients): \(differing) samples differ")
            }
        }
    }

    // A clip whose frames change only inside moving rectangles, encoded once with
    // whole-frame staging and once with the changed rectangles: the same packets.
    // (Frames that change nowhere stage no rectangle at all.)
    @Test func encoderPacketsUnchanged() throws {
        let width = 192, height = 128, frames = 12
        let base = photo(width: width, height: height, grainSeed: 1)
        let patch = photo(width: width, height: height, grainSeed: 4)
        var clip: [[UInt8]] = []
        var changes: [[sy__video_rect]] = []
        var current = base
        for t in 0..<frames {
            var rects: [sy__video_rect] = []
            if t % 4 != 3 { // every fourth frame repeats the one before
                let x = (t * 13) % (width - 40) | 1, y = (t * 7) % (height - 30)
                rects.append(sy__video_rect(x: UInt32(x), y: UInt32(y), width: 37, height: 29))
                rects.append(sy__video_rect(x: UInt32(width - 10), y: UInt32(t % 2), width: 20, height: 5)) // past the edge
                for r in rects {
                    for row in Int(r.y)..<min(height, Int(r.y + r.height)) {
                        for col in Int(r.x)..<min(width, Int(r.x + r.width)) {
                            for c in 0..<3 {
                                let o = (row * width + col) * 3 + c
                                current[o] = patch[o] &+ UInt8(truncatingIfNeeded: t * 9)
                            }
                        }
                    }
                }
            }
            clip.append(current)
            changes.append(rects)
        }
        func run(rectangles: Bool) throws -> [EncodedPacket] {
            let ctx = try Context()
            var opts = defaultEncoderOptions(width: width, height: height)
            opts.threads = 1
            let collector = PacketCollector()
            var err = sy_error()
            var enc: OpaquePointer?
            let user = Unmanaged.passUnretained(collector).toOpaque()
            guard sy_video_encoder_create(ctx.raw, &opts, collectPacket, user, &enc, &err) == SY_OK, let enc else {
                throw CTestFailure("create: \(message(err))")
            }
            defer { sy_video_encoder_destroy(enc) }
            for t in 0..<frames {
                let pts = Int64(t) * Int64(opts.frame_duration)
                let st = rectangles
                    ? sy__video_encoder_stage_rgb_rects(enc, clip[t], width * 3, pts, changes[t], UInt32(changes[t].count), &err)
                    : sy__video_encoder_stage_rgb(enc, clip[t], width * 3, pts, &err)
                guard st == SY_OK, sy__video_encoder_encode_staged(enc, &err) == SY_OK else {
                    throw CTestFailure("frame \(t): \(message(err))")
                }
            }
            guard sy_video_encoder_flush(enc, &err) == SY_OK else { throw CTestFailure("flush: \(message(err))") }
            return collector.packets
        }
        let whole = try run(rectangles: false), changed = try run(rectangles: true)
        #expect(whole.count == frames)
        #expect(changed.count == whole.count)
        let differing = zip(whole, changed).filter { $0.data != $1.data || $0.pts != $1.pts || $0.dts != $1.dts }.count
        #expect(differing == 0, "\(differing) of \(frames) packets differ")
    }
}
