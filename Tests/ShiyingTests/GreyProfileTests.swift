// A grey JPEG may carry a grey ICC profile (Photoshop's "Dot Gain 20%", "Gray Gamma 2.2", a linear grey). Found
// by a colour sweep (2026-12-06): the engine hands grey pictures out as R = G = B and copied the grey profile onto
// its RGB outputs — an invalid tag (lcms2, libpng and vips refuse it: "Gray color space not permitted on RGB PNG";
// a PNG read by vips then showed a linear-grey photo 48 levels too dark). Now the grey profile is carried as the
// RGB profile with the same curve on all three channels (sy__color_gray_as_rgb_icc), which shows R = G = B as the
// grey profile showed the grey values. The oracle: lcms2 (Pillow's ImageCms) rendering source and output to sRGB.
import Foundation
@testable import Shiying
import Testing

@Suite("Grey JPEGs with a grey ICC profile keep their look, with a valid RGB profile (fidelity)")
struct GreyProfileTests {
    static let script = Paths.packageRoot.appendingPathComponent("scripts/grey_icc.py").path

    struct Comparison: Decodable {
        var space: String
        var psnr: Double
    }

    @Test("a linear and a gamma 2.2 grey profile: JPEG, PNG and HEIC outputs carry an RGB profile that renders alike",
          arguments: ["1.0", "2.2"])
    func greyProfile(_ gamma: String) async throws {
        let dir = try TempDir("grey-icc")
        defer { dir.remove() }
        let source = dir.file("grey.jpg")
        let made = try await runProcess("/usr/bin/env", ["python3", Self.script, "make", source, gamma], timeout: 60)
        guard made.succeeded else { throw TestFailure("grey_icc.py make: \(made)") }
        for ext in ["jpg", "png", "heic"] {
            let out = dir.file("out.\(ext)")
            let run = try await CLI.run(["convert", "-o", out, source])
            #expect(run.succeeded, "\(run)")
            let check = try await runProcess("/usr/bin/env", ["python3", Self.script, "compare", source, out], timeout: 60)
            let line = try #require(check.lastLine, "\(check)")
            let c = try JSONDecoder().decode(Comparison.self, from: Data(line.utf8))
            #expect(c.space == "RGB ", "\(ext): the output's profile must describe RGB data: \(line)")
            #expect(c.psnr >= 40, "\(ext): rendered through its profile, against the source's: \(line)")
        }
        let warnings = try await runTool("vips", ["copy", dir.file("out.png"), dir.file("copy.v")])
        #expect(!warnings.stderr.contains("not permitted"), "vips on our PNG: \(warnings.stderr)")
    }
}
