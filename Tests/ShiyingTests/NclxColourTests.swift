// A HEIF whose colour is said only by its nclx property (Display P3 or BT.2020 primaries, no ICC profile — what
// libheif-based writers, cameras and AVIF encoders store) keeps its colour through an edit or conversion: the output
// carries the profile that says what the nclx said. Before, the output had no profile, and every viewer showed the
// P3 / BT.2020 values as sRGB ones (pale). The oracle: the source's values (decoded by libheif, pillow-heif) taken
// to sRGB with the primaries' own matrices, against our output taken to sRGB by Pillow's ImageCms (lcms2) through
// the profile it carries.
import Foundation
@testable import Shiying
import Testing

@Suite("Colour said by nclx alone is kept (fidelity; issue 16's colour rule for photos)",
       .enabled(if: ColourOracle.available, "pillow-heif or corpus missing"))
struct NclxColourTests {
    /// Writes a photo-like 320x240 8-bit HEIF with nclx (primaries, transfer 13, BT.601 matrix, full range).
    static func source(_ primaries: Int, _ path: String) async throws {
        let run = try await ColourOracle.python(["-c", """
            import sys, numpy as np, pillow_heif
            yy, xx = np.mgrid[0:240, 0:320] / np.array([240, 320]).reshape(2, 1, 1)
            rgb = np.stack([0.25 + 0.5 * xx, 0.3 + 0.4 * yy, 0.55 - 0.3 * xx * yy], -1)
            rgb += 0.03 * np.sin(30 * xx)[..., None] * np.cos(20 * yy)[..., None]
            for i, c in enumerate([(0.7, 0.35, 0.3), (0.3, 0.6, 0.35), (0.3, 0.4, 0.7), (0.75, 0.7, 0.3)]):
                rgb[150:210, 20 + 75 * i:80 + 75 * i] = c
            img = np.clip(np.round(rgb * 255), 0, 255).astype(np.uint8)
            pillow_heif.from_bytes("RGB", (320, 240), img.tobytes()).save(sys.argv[1], quality=100, chroma=444,
                matrix_coefficients=6, color_primaries=int(sys.argv[2]), transfer_characteristics=13, full_range_flag=1)
            """, path, String(primaries)])
        guard run.succeeded else { throw TestFailure("nclx source: \(run)") }
    }

    /// Mean |difference| (8-bit levels, 8x8 block means, in-gamut blocks) of OUT and the source in sRGB; and of
    /// OUT's values read as sRGB (what an untagged output shows).
    static func compare(_ output: String, _ source: String, _ primaries: Int) async throws -> (tagged: Double,
                                                                                                 untagged: Double) {
        let run = try await ColourOracle.python(["-c", """
            import io, sys, json, numpy as np, pillow_heif
            from PIL import Image, ImageCms
            xy = {12: (0.680, 0.320, 0.265, 0.690, 0.150, 0.060), 9: (0.708, 0.292, 0.170, 0.797, 0.131, 0.046),
                  1: (0.640, 0.330, 0.300, 0.600, 0.150, 0.060)}
            def to_xyz(p):
                c = xy[p]; w = np.array([0.3127 / 0.3290, 1, (1 - 0.3127 - 0.3290) / 0.3290])
                m = np.array([[c[2 * i] / c[2 * i + 1] for i in range(3)], [1, 1, 1],
                              [(1 - c[2 * i] - c[2 * i + 1]) / c[2 * i + 1] for i in range(3)]])
                return m * np.linalg.solve(m, w)
            lin = lambda v: np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)
            enc = lambda v: np.where(v <= 0.0031308, v * 12.92, 1.055 * np.clip(v, 0, None) ** (1 / 2.4) - 0.055)
            h = pillow_heif.open_heif(sys.argv[2])
            src = np.asarray(Image.frombytes("RGB", h.size, h.data, "raw", "RGB", h.stride), dtype=float) / 255
            m = np.linalg.solve(to_xyz(1), to_xyz(int(sys.argv[3])))
            want_lin = lin(src) @ m.T
            want = enc(np.clip(want_lin, 0, 1)) * 255
            im = Image.open(sys.argv[1]).convert("RGB")
            got = np.asarray(ImageCms.profileToProfile(im, ImageCms.ImageCmsProfile(io.BytesIO(im.info["icc_profile"])),
                             ImageCms.createProfile("sRGB"), outputMode="RGB"), dtype=float) if "icc_profile" in im.info \
                  else np.asarray(im, dtype=float)
            raw = np.asarray(im, dtype=float)
            blocks = lambda a: a[:240, :320].reshape(30, 8, 40, 8, 3).mean((1, 3))
            inside = blocks(((want_lin >= 0) & (want_lin <= 1)).all(-1, keepdims=True).repeat(3, -1).astype(float)).min(-1) == 1
            print(json.dumps({"tagged": float(np.abs(blocks(got) - blocks(want))[inside].mean()),
                              "untagged": float(np.abs(blocks(raw) - blocks(want))[inside].mean()),
                              "inside": int(inside.sum())}))
            """, output, source, String(primaries)])
        guard run.succeeded, let line = run.lastLine,
              let json = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw TestFailure("nclx compare: \(run)")
        }
        #expect((json["inside"] as? Int ?? 0) >= 300, "in-gamut blocks: \(line)")
        return (json["tagged"] as? Double ?? 99, json["untagged"] as? Double ?? 0)
    }

    @Test("a Display P3 or BT.2020 HEIF said by nclx alone, converted to JPEG and edited to HEIC, keeps its colour",
          arguments: [12, 9])
    func convertAndEdit(_ primaries: Int) async throws {
        let dir = try TempDir("nclx-\(primaries)")
        defer { dir.remove() }
        let source = dir.file("source.heic")
        try await Self.source(primaries, source)
        let jpeg = dir.file("out.jpg")
        let run = try await CLI.run(["convert", "-o", jpeg, source, "--json"])
        #expect(run.succeeded && run.stdout.contains(#""kept":["icc"]"#), "\(run)")
        let profile = try await runTool("exiftool", ["-s3", "-ProfileDescription", jpeg]).stdout
        #expect(profile.contains(primaries == 12 ? "Display P3" : "CICP 9/13"), "\(profile)")
        let d = try await Self.compare(jpeg, source, primaries)
        print("nclx \(primaries) JPEG: \(d.tagged) levels off in sRGB; read as sRGB \(d.untagged)")
        #expect(d.tagged <= 2, "the JPEG in sRGB vs the source's colours: \(d)")
        #expect(d.untagged >= 5, "read as sRGB, the values must be visibly off (what the old output showed): \(d)")
        // An edit to HEIC (our writer, ICC in colr) and back out as JPEG: still the source's colours.
        let recipe = dir.file("identity.json")
        try #"{"version":1}"#.write(toFile: recipe, atomically: true, encoding: .utf8)
        let heic = dir.file("edit.heic"), back = dir.file("back.jpg")
        #expect(try await CLI.run(["edit", "-o", heic, "--recipe", recipe, source, "--quality", "100"]).succeeded)
        #expect(try await CLI.run(["convert", "-o", back, heic]).succeeded)
        let e = try await Self.compare(back, source, primaries)
        print("nclx \(primaries) through a HEIC edit: \(e.tagged) levels off in sRGB")
        #expect(e.tagged <= 2.5, "after a HEIC edit: \(e)")
    }

    @Test("a BT.2020 HEIF in a collage is converted from BT.2020 (before: taken for sRGB, then tagged P3)")
    func collage() async throws {
        let dir = try TempDir("nclx-collage")
        defer { dir.remove() }
        let source = dir.file("source.heic")
        try await Self.source(9, source)
        let out = dir.file("collage.jpg")
        let run = try await CLI.run(["collage", "--layout", "long", "--width", "320", "-o", out, source, "--json"])
        #expect(run.succeeded && run.stdout.contains(#""color_space":"Display P3""#), "\(run)")
        let d = try await Self.compare(out, source, 9)
        print("nclx 9 collage: \(d.tagged) levels off in sRGB; read as sRGB \(d.untagged)")
        #expect(d.tagged <= 2, "the collage in sRGB vs the source's colours: \(d)")
    }
}
