// A PNG says its colour space with an iCCP profile (iPhone and macOS screenshots carry Display P3) or, since the PNG
// 3rd edition, a cICP chunk (which outranks iCCP). Both used to be ignored: a P3 PNG converted or put in a collage
// came out with its P3 values read as sRGB (pale), and a conversion dropped its Exif and XMP too. The oracle is the
// one NclxColourTests uses: the source's values taken to sRGB with the P3 primaries' own matrices, against our
// output taken to sRGB by Pillow's ImageCms (lcms2) through the profile it carries.
import Foundation
@testable import Shiying
import Testing

@Suite("Colour said by a PNG's iCCP or cICP is kept (fidelity)", .enabled(if: ColourOracle.available, "pillow-heif or corpus missing"))
struct PNGColourTests {
    /// Writes a photo-like 320x240 PNG of Display P3 values, its colour said by `how`: "iccp" (the real iPhone
    /// HEIC's Display P3 profile), "cicp" (cICP 12/13/0/1, no profile) or "cicp-over-srgb-iccp" (cICP P3 beside an
    /// sRGB iCCP that it outranks). An eXIf with a capture date rides along.
    static func source(_ how: String, _ path: String) async throws {
        let heic = Paths.corpus.appendingPathComponent("real/iphone15plus_IMG_3853.HEIC").path
        let run = try await ColourOracle.python(["-c", """
            import io, struct, zlib, pillow_heif
            from PIL import Image, ImageCms
            \(ColourOracle.pictureImport)
            img = Image.fromarray(picture(), "RGB")
            how, out = sys.argv[2], sys.argv[1]
            exif = Image.Exif(); exif[0x0132] = "2024:05:06 07:08:09"
            kw = {"exif": exif.tobytes()}
            if how == "iccp": kw["icc_profile"] = pillow_heif.open_heif(sys.argv[3]).info["icc_profile"]
            if how == "cicp-over-srgb-iccp":
                kw["icc_profile"] = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
            buf = io.BytesIO(); img.save(buf, "PNG", **kw); data = buf.getvalue()
            if how.startswith("cicp"):  # after IHDR (8 + 25 bytes), before any image data
                body = b"cICP" + bytes([12, 13, 0, 1])
                data = data[:33] + struct.pack(">I", 4) + body + struct.pack(">I", zlib.crc32(body)) + data[33:]
            open(out, "wb").write(data)
            """, path, how, heic])
        guard run.succeeded else { throw TestFailure("PNG source: \(run)") }
    }

    /// The P3 source's colours against OUT's, in sRGB (scripts/primaries_delta.py).
    static func compare(_ output: String, _ source: String) async throws -> (tagged: Double, untagged: Double) {
        try await ColourOracle.primariesDelta(output, source, 12)
    }

    @Test("a Display P3 PNG (iCCP, cICP, cICP over an sRGB iCCP) converted to JPEG keeps its colour, Exif and profile",
          arguments: ["iccp", "cicp", "cicp-over-srgb-iccp"])
    func convert(_ how: String) async throws {
        let dir = try TempDir("png-colour-\(how)")
        defer { dir.remove() }
        let source = dir.file("source.png"), jpeg = dir.file("out.jpg")
        try await Self.source(how, source)
        let run = try await CLI.run(["convert", "-o", jpeg, source, "--json"])
        #expect(run.succeeded && run.stdout.contains(#""icc""#) && run.stdout.contains(#""exif""#), "\(run)")
        let tags = try await runTool("exiftool", ["-s3", "-ProfileDescription", "-ModifyDate", jpeg]).stdout
        #expect(tags.contains("Display P3") && tags.contains("2024:05:06 07:08:09"), "\(tags)")
        let d = try await Self.compare(jpeg, source)
        print("PNG \(how) -> JPEG: \(d.tagged) levels off in sRGB; read as sRGB \(d.untagged)")
        #expect(d.tagged <= 2, "the JPEG in sRGB vs the source's colours: \(d)")
        #expect(d.untagged >= 5, "read as sRGB the values are visibly off (what the old output showed): \(d)")
    }

    @Test("a Display P3 PNG (cICP) in a collage is read as P3: the collage is P3 and shows the same colours")
    func collage() async throws {
        let dir = try TempDir("png-colour-collage")
        defer { dir.remove() }
        let source = dir.file("source.png"), out = dir.file("collage.jpg")
        try await Self.source("cicp", source)
        let run = try await CLI.run(["collage", "--layout", "long", "--width", "320", "-o", out, source, "--json"])
        #expect(run.succeeded && run.stdout.contains(#""color_space":"Display P3""#), "\(run)")
        let d = try await Self.compare(out, source)
        print("PNG cicp collage: \(d.tagged) levels off in sRGB; read as sRGB \(d.untagged)")
        #expect(d.tagged <= 2, "the collage in sRGB vs the source's colours: \(d)")
    }
}
