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
            import io, struct, sys, zlib, numpy as np, pillow_heif
            from PIL import Image, ImageCms
            yy, xx = np.mgrid[0:240, 0:320] / np.array([240, 320]).reshape(2, 1, 1)
            rgb = np.stack([0.25 + 0.5 * xx, 0.3 + 0.4 * yy, 0.55 - 0.3 * xx * yy], -1)
            rgb += 0.03 * np.sin(30 * xx)[..., None] * np.cos(20 * yy)[..., None]
            for i, c in enumerate([(0.7, 0.35, 0.3), (0.3, 0.6, 0.35), (0.3, 0.4, 0.7), (0.75, 0.7, 0.3)]):
                rgb[150:210, 20 + 75 * i:80 + 75 * i] = c
            img = Image.fromarray(np.clip(np.round(rgb * 255), 0, 255).astype(np.uint8), "RGB")
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

    /// Mean |difference| (8-bit levels, 8x8 block means, in-gamut blocks) of OUT and the P3 source in sRGB; and of
    /// OUT's values read as sRGB (what an untagged output shows).
    static func compare(_ output: String, _ source: String) async throws -> (tagged: Double, untagged: Double) {
        let run = try await ColourOracle.python(["-c", """
            import io, sys, json, numpy as np
            from PIL import Image, ImageCms
            def to_xyz(c):
                w = np.array([0.3127 / 0.3290, 1, (1 - 0.3127 - 0.3290) / 0.3290])
                m = np.array([[c[2 * i] / c[2 * i + 1] for i in range(3)], [1, 1, 1],
                              [(1 - c[2 * i] - c[2 * i + 1]) / c[2 * i + 1] for i in range(3)]])
                return m * np.linalg.solve(m, w)
            lin = lambda v: np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)
            enc = lambda v: np.where(v <= 0.0031308, v * 12.92, 1.055 * np.clip(v, 0, None) ** (1 / 2.4) - 0.055)
            src = np.asarray(Image.open(sys.argv[2]).convert("RGB"), dtype=float) / 255
            m = np.linalg.solve(to_xyz((0.640, 0.330, 0.300, 0.600, 0.150, 0.060)),
                                to_xyz((0.680, 0.320, 0.265, 0.690, 0.150, 0.060)))
            want_lin = lin(src) @ m.T
            want = enc(np.clip(want_lin, 0, 1)) * 255
            im = Image.open(sys.argv[1]).convert("RGB")
            got = np.asarray(ImageCms.profileToProfile(im, ImageCms.ImageCmsProfile(io.BytesIO(im.info["icc_profile"])),
                             ImageCms.createProfile("sRGB"), outputMode="RGB"), dtype=float) if "icc_profile" in im.info \\
                  else np.asarray(im, dtype=float)
            raw = np.asarray(im, dtype=float)
            blocks = lambda a: a[:240, :320].reshape(30, 8, 40, 8, 3).mean((1, 3))
            inside = blocks(((want_lin >= 0) & (want_lin <= 1)).all(-1, keepdims=True).repeat(3, -1).astype(float)).min(-1) == 1
            print(json.dumps({"tagged": float(np.abs(blocks(got) - blocks(want))[inside].mean()),
                              "untagged": float(np.abs(blocks(raw) - blocks(want))[inside].mean()),
                              "inside": int(inside.sum())}))
            """, output, source])
        guard run.succeeded, let line = run.lastLine,
              let json = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw TestFailure("PNG compare: \(run)")
        }
        #expect((json["inside"] as? Int ?? 0) >= 300, "in-gamut blocks: \(line)")
        return (json["tagged"] as? Double ?? 99, json["untagged"] as? Double ?? 0)
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
