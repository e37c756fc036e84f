// irot / imir (issue 3): HEICs whose pixels are stored turned (as iPhones store
// portraits) come out upright through our reader. Rotations are checked against
// libheif (heif-convert applies irot); mirrors against ImageMagick flipping the
// source and against a current libheif (pillow-heif). imir's bit, ISO/IEC
// 23008-12:2022 6.5.12.3 (amended to match iPhones and libheif): 0 exchanges top
// and bottom, 1 left and right. (Debian's heif-convert 1.15 refuses to mirror
// the RGB it decodes to.)
import CShiying
import CShiyingInternal
import Foundation
import Testing

@Suite(.serialized)
struct HeifTransformTests {
    /// Writes `pixels` (640x480 RGB) as a HEIC with the given display transform.
    static func writeHEIC(_ pixels: [UInt8], rotation: UInt8, mirror: Int8, to path: String) throws {
        var ctx: OpaquePointer?
        var err = sy_error()
        #expect(sy_context_create(nil, &ctx, &err) == 0)
        defer { sy_context_destroy(ctx) }
        var o = HW.options(width: 640, height: 480)
        o.rotation = rotation
        o.mirror = mirror
        o.quality = 95
        var w: OpaquePointer?
        guard sy_heif_writer_create(ctx, path, &o, &w, &err) == 0 else { throw CTestFailure("create: \(err.code)") }
        defer { sy_heif_writer_destroy(w) }
        let status = HW.withRows(pixels, width: 640, height: 480, channels: 3) { rows in
            sy_heif_writer_write_rows(w, rows, 480, &err)
        }
        guard status == 0, sy_heif_writer_finish(w, &err) == 0 else { throw CTestFailure("write: \(err.code)") }
    }

    /// Our reader's upright decode of `heic` as PNG (sy_convert).
    static func decodeOurs(_ heic: String, to png: String) throws {
        var ctx: OpaquePointer?
        var err = sy_error()
        #expect(sy_context_create(nil, &ctx, &err) == 0)
        defer { sy_context_destroy(ctx) }
        var opts = sy_convert_options()
        sy_convert_options_init(&opts)
        opts.format = SY_STILL_PNG
        var report = sy_convert_report()
        guard sy_convert(ctx, heic, png, &opts, &report, &err) == 0 else { throw CTestFailure("sy_convert: \(err.code)") }
    }

    static func size(_ path: String) throws -> String {
        try HW.run("identify", ["-format", "%wx%h", path]).out
    }

    @Test("irot 90/180/270: our upright decode matches libheif's", arguments: [UInt8(1), 2, 3])
    func rotations(rotation: UInt8) throws {
        let dir = try HW.Folder()
        let pixels = HW.photo(width: 640, height: 480)
        let heic = dir.file("r.heic"), ours = dir.file("ours.png"), ref = dir.file("ref.png")
        try Self.writeHEIC(pixels, rotation: rotation, mirror: -1, to: heic)
        let conv = try HW.run("heif-convert", [heic, ref])
        #expect(conv.status == 0, "heif-convert: \(conv.err)")
        try Self.decodeOurs(heic, to: ours)
        let want = rotation == 2 ? "640x480" : "480x640"
        #expect(try Self.size(ours) == want)
        #expect(try Self.size(ref) == want)
        let psnr = try HW.psnr(ours, ref)
        print("irot \(rotation): PSNR ours vs libheif \(psnr) dB")
        #expect(psnr >= 45, "irot \(rotation): \(psnr) dB")
    }

    @Test("imir 0 (top-bottom) and 1 (left-right), and irot+imir, match the flipped source and libheif",
          arguments: [(Int8(0), UInt8(0), ["-flip"]), (Int8(1), UInt8(0), ["-flop"]),
                      (Int8(1), UInt8(1), ["-rotate", "-90", "-flop"]), (Int8(0), UInt8(1), ["-rotate", "-90", "-flip"])])
    func mirrors(mirror: Int8, rotation: UInt8, operations: [String]) throws {
        let dir = try HW.Folder()
        let pixels = HW.photo(width: 640, height: 480)
        let source = dir.file("src.ppm"), expected = dir.file("expected.png")
        try HW.writePNM(pixels, width: 640, height: 480, channels: 3, to: source)
        _ = try HW.run("convert", [source] + operations + [expected])
        let heic = dir.file("m.heic"), ours = dir.file("ours.png")
        try Self.writeHEIC(pixels, rotation: rotation, mirror: mirror, to: heic)
        try Self.decodeOurs(heic, to: ours)
        #expect(try Self.size(ours) == Self.size(expected))
        let psnr = try HW.psnr(ours, expected)
        print("imir \(mirror) irot \(rotation): PSNR vs flipped source \(psnr) dB")
        #expect(psnr >= 40, "imir \(mirror), irot \(rotation): \(psnr) dB")
        // A current libheif shows the file the same way (a mirrored iPhone selfie is irot 1 + imir 1).
        guard (try? HW.run("python3", ["-c", "import pillow_heif"]).status) == 0 else { return }
        let theirs = dir.file("libheif.png")
        let decode = try HW.run("python3", ["-W", "ignore", "-c",
            "import sys, pillow_heif; pillow_heif.open_heif(sys.argv[1]).to_pillow().save(sys.argv[2])", heic, theirs])
        try #require(decode.status == 0, "pillow-heif: \(decode.err)")
        let agree = try HW.psnr(ours, theirs)
        print("imir \(mirror) irot \(rotation): PSNR ours vs libheif \(agree) dB")
        #expect(agree >= 45, "imir \(mirror), irot \(rotation): ours vs libheif \(agree) dB")
    }
}
