// Issue 16 item 1: collages of Display P3 photos are rendered and tagged in
// Display P3, so viewers show them as the phone did. The oracle is a current
// libheif (pillow-heif) and Pillow's colour management: ΔE76 over 8-px block
// means after both sides are converted to sRGB.
import Foundation
@testable import Shiying
import Testing

enum ColourOracle {
    static let available: Bool = {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", "import pillow_heif, PIL.ImageCms"]
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0 && Paths.corpusAvailable
    }()

    struct Delta: Decodable {
        var mean: Double
        var saturated1: Double
        var tagged: Bool
    }

    /// The python3 on PATH (the one `make deps` installed pillow-heif into).
    static func python(_ arguments: [String]) async throws -> ProcessResult {
        try await runProcess("/usr/bin/env", ["python3"] + arguments, timeout: 300)
    }

    static func delta(_ output: String, _ source: String) async throws -> Delta {
        let script = Paths.packageRoot.appendingPathComponent("scripts/colour_delta.py").path
        let run = try await python(["-W", "ignore", script, output, source])
        guard run.succeeded, let line = run.lastLine else { throw TestFailure("colour_delta: \(run)") }
        return try JSONDecoder().decode(Delta.self, from: Data(line.utf8))
    }
}

@Suite("Collage colour (issue 16: Display P3)", .enabled(if: ColourOracle.available, "pillow-heif or corpus missing"))
struct CollageColourTests {
    @Test("a one-cell collage of a Display P3 iPhone HEIC is tagged P3: ΔE76 mean ≤ 1.2, most saturated 1 % ≤ 3",
          arguments: ["jpg", "png", "heic"])
    func p3Cell(_ ext: String) async throws {
        let dir = try TempDir("colour-p3")
        defer { dir.remove() }
        let source = Paths.corpus.appendingPathComponent("real/iphoneSE2_grid.heic").path
        let out = dir.file("one." + ext)
        let (run, json) = try await CLI.collage(["--layout", "long", "--width", "800", "-o", out, source])
        #expect(run.status == 0 && json != nil, "\(run)")
        let d = try await ColourOracle.delta(out, source)
        #expect(d.tagged, "the output carries the Display P3 profile")
        #expect(d.mean <= 1.2 && d.saturated1 <= 3, "ΔE76 mean \(d.mean), most saturated 1 % \(d.saturated1)")
        let description = try await runTool("exiftool", ["-s3", "-ProfileDescription", out]).stdout
        #expect(description.contains("Display P3"), "\(description)")
    }

    @Test("sRGB photos stay untagged sRGB; one P3 photo among them makes the whole collage P3")
    func outputSpaceRule() async throws {
        let dir = try TempDir("colour-rule")
        defer { dir.remove() }
        let photos = try await Photos.small()
        let (plain, pj) = try await CLI.collage(["--layout", "grid", "-o", dir.file("srgb.jpg")] + Array(photos.prefix(3)))
        #expect(plain.status == 0 && pj != nil)
        #expect(try await ColourOracle.delta(dir.file("srgb.jpg"), photos[0]).tagged == false)
        let p3 = Paths.corpus.appendingPathComponent("real/iphoneSE2_grid.heic").path
        let (mixed, mj) = try await CLI.collage(["--layout", "long", "-o", dir.file("mixed.jpg"), photos[0], p3])
        #expect(mixed.status == 0 && mj != nil, "\(mixed)")
        let description = try await runTool("exiftool", ["-s3", "-ProfileDescription", dir.file("mixed.jpg")]).stdout
        #expect(description.contains("Display P3"), "\(description)")
        // The sRGB cell was converted, not relabelled: its top block means match the sRGB source's.
        let single = dir.file("single.jpg")
        _ = try await CLI.collage(["--layout", "long", "-o", single, photos[0]])
        let converted = dir.file("mixed-srgb.png"), reference = dir.file("single.png")
        let size = try await Magick.size(single)
        let toSRGB = try await ColourOracle.python(["-c", """
            import io, sys
            from PIL import Image, ImageCms
            im = Image.open(sys.argv[1]); src = ImageCms.ImageCmsProfile(io.BytesIO(im.info["icc_profile"]))
            out = ImageCms.profileToProfile(im.convert("RGB"), src, ImageCms.createProfile("sRGB"), outputMode="RGB")
            out.crop((0, 0, \(size.width), \(size.height))).save(sys.argv[2])
            Image.open(sys.argv[3]).convert("RGB").save(sys.argv[4])
            """, dir.file("mixed.jpg"), converted, single, reference])
        #expect(toSRGB.succeeded, "\(toSRGB)")
        let got = try await Magick.blockMeans(converted, region: Rect(x: 0, y: 0, width: size.width, height: size.height))
        let want = try await Magick.blockMeans(reference, region: Rect(x: 0, y: 0, width: size.width, height: size.height))
        let diff = blockDifference(got, want)
        #expect(diff.max <= 3, "sRGB cell after the round trip: \(diff.report)")
    }
}
