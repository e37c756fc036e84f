// Issue 16 item 1: colour management through lcms2 — sources in sRGB, Display
// P3 or another profile rendered into one output space, the output profile we
// tag with, and lcms2's memory charged to the engine context.
import CShiying
import CShiyingInternal
import Foundation
import Testing

private func transform(_ ctx: Context, _ source: sy__color_source, to dest: sy__rgb_space) throws -> OpaquePointer? {
    var source = source
    var out: OpaquePointer?
    var err = sy_error()
    let status = sy__color_transform_create(ctx.raw, &source, dest, &out, &err)
    guard status == SY_OK else { throw CTestFailure("transform: \(message(err))") }
    return out
}

private func run(_ t: OpaquePointer?, _ pixels: [UInt8]) -> [UInt8] {
    var copy = pixels
    copy.withUnsafeMutableBufferPointer { sy__color_transform_rows(t, $0.baseAddress, $0.count, UInt32($0.count / 3), 1) }
    return copy
}

private func profile(_ ctx: Context, _ space: sy__rgb_space) throws -> [UInt8] {
    var icc: UnsafeMutablePointer<UInt8>?
    var len = 0
    var err = sy_error()
    guard sy__color_space_icc(ctx.raw, space, &icc, &len, &err) == SY_OK, let icc else {
        throw CTestFailure("profile: \(message(err))")
    }
    defer { sy__free(ctx.raw, icc) }
    return Array(UnsafeBufferPointer(start: icc, count: len))
}

@Suite("Colour transforms (issue 16, lcms2)")
struct ColorTransformTests {
    @Test("our output profiles name themselves: sRGB = primaries 1, Display P3 = 12, both the sRGB curve")
    func outputProfiles() throws {
        let ctx = try Context()
        let srgb = try profile(ctx, SY__RGB_SRGB), p3 = try profile(ctx, SY__RGB_DISPLAY_P3)
        #expect(sy__icc_primaries(srgb, srgb.count) == 1 && sy__icc_transfer(srgb, srgb.count) == 13)
        #expect(sy__icc_primaries(p3, p3.count) == 12 && sy__icc_transfer(p3, p3.count) == 13)
        #expect(ctx.stats.current_bytes == 0, "lcms2's memory given back")
    }

    @Test("sRGB primaries into Display P3 and back; no transform where the source is already the output")
    func srgbToP3() throws {
        let ctx = try Context()
        let none = try transform(ctx, sy__color_source(icc: nil, icc_len: 0, cicp_primaries: 1), to: SY__RGB_SRGB)
        #expect(none == nil)
        let toP3 = try transform(ctx, sy__color_source(icc: nil, icc_len: 0, cicp_primaries: 1), to: SY__RGB_DISPLAY_P3)
        defer { sy__color_transform_destroy(toP3) }
        #expect(ctx.stats.current_bytes > 0, "lcms2's transform is charged to the context")
        let colours: [UInt8] = [255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255, 0, 0, 0, 128, 128, 128]
        let p3 = run(toP3, colours)
        // sRGB red in Display P3 is about (234, 51, 35); white, black and grey stay neutral.
        #expect(abs(Int(p3[0]) - 234) <= 2 && abs(Int(p3[1]) - 51) <= 3 && abs(Int(p3[2]) - 35) <= 3, "\(p3)")
        #expect(Array(p3[9..<18]) == [255, 255, 255, 0, 0, 0, 128, 128, 128], "\(p3)")
        let back = try transform(ctx, sy__color_source(icc: nil, icc_len: 0, cicp_primaries: 12), to: SY__RGB_SRGB)
        defer { sy__color_transform_destroy(back) }
        let round = run(back, p3)
        // Within 3 levels: an 8-bit device link both ways.
        #expect(zip(round, colours).allSatisfy { abs(Int($0) - Int($1)) <= 3 }, "\(round) vs \(colours)")
    }

    @Test("a source profile is used as given: our own P3 profile bytes convert like the P3 code point")
    func iccSource() throws {
        let ctx = try Context()
        let p3 = try profile(ctx, SY__RGB_DISPLAY_P3)
        let viaCode = try transform(ctx, sy__color_source(icc: nil, icc_len: 0, cicp_primaries: 12), to: SY__RGB_SRGB)
        defer { sy__color_transform_destroy(viaCode) }
        let viaICC = try p3.withUnsafeBufferPointer {
            try transform(ctx, sy__color_source(icc: $0.baseAddress, icc_len: $0.count, cicp_primaries: 0), to: SY__RGB_SRGB)
        }
        defer { sy__color_transform_destroy(viaICC) }
        var ramp: [UInt8] = []
        for v in 0..<256 { ramp += [UInt8(v), UInt8(255 - v), UInt8((v * 7) & 255)] }
        #expect(run(viaCode, ramp) == run(viaICC, ramp))
        var sources = [sy__color_source(icc: nil, icc_len: 0, cicp_primaries: 1),
                       sy__color_source(icc: nil, icc_len: 0, cicp_primaries: 0)]
        #expect(sy__color_output_space(&sources, 2) == SY__RGB_SRGB)
        sources.append(sy__color_source(icc: nil, icc_len: 0, cicp_primaries: 12))
        #expect(sy__color_output_space(&sources, 3) == SY__RGB_DISPLAY_P3)
        var garbage = [UInt8](repeating: 7, count: 300)
        var out: OpaquePointer?
        var err = sy_error()
        var bad = garbage.withUnsafeMutableBufferPointer { sy__color_source(icc: $0.baseAddress, icc_len: $0.count, cicp_primaries: 0) }
        #expect(sy__color_transform_create(ctx.raw, &bad, SY__RGB_SRGB, &out, &err) == SY_E_UNSUPPORTED && out == nil)
        _ = garbage
    }
}
