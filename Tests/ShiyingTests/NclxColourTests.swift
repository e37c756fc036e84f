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
            import pillow_heif
            \(ColourOracle.pictureImport)
            img = picture()
            pillow_heif.from_bytes("RGB", (320, 240), img.tobytes()).save(sys.argv[1], quality=100, chroma=444,
                matrix_coefficients=6, color_primaries=int(sys.argv[2]), transfer_characteristics=13, full_range_flag=1)
            """, path, String(primaries)])
        guard run.succeeded else { throw TestFailure("nclx source: \(run)") }
    }

    /// Mean |difference| (8-bit levels, in-gamut 8x8 blocks) of OUT and the source in sRGB, and of OUT's values
    /// read as sRGB (what an untagged output shows): scripts/primaries_delta.py.
    static func compare(_ output: String, _ source: String, _ primaries: Int) async throws -> (tagged: Double,
                                                                                                 untagged: Double) {
        try await ColourOracle.primariesDelta(output, source, primaries)
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
