// A CMYK JPEG (print and stock photos) carries a CMYK ICC profile. Found by a fidelity sweep (2026-12-06): its
// pixels were turned into RGB by the naive 1 - ink arithmetic and the CMYK profile was copied onto the RGB output
// (an invalid tag, and colours ΔE ~6-10 off what a colour-managed viewer shows). Now the JPEG is delivered as sRGB
// through its profile (lcms2, relative colorimetric with black-point compensation) and the output carries no CMYK
// profile. The oracle: vips icc_transform through the embedded profile, with black-point compensation.
import Foundation
@testable import Shiying
import Testing

@Suite("CMYK JPEGs are colour-managed through their profile (fidelity)")
struct CMYKColourTests {
    @Test("a CMYK JPEG with a profile converts to JPEG and HEIC, and composes in a collage, as vips shows it")
    func managedThroughItsProfile() async throws {
        let dir = try TempDir("cmyk")
        defer { dir.remove() }
        let made = try await CLI.run(["sample-photos", "--count", "1", "--width", "480", "--height", "320", "-o", dir.path])
        #expect(made.succeeded, "\(made)")
        let cmyk = dir.file("cmyk.jpg"), reference = dir.file("reference.png"), naive = dir.file("naive.png")
        #expect(try await runTool("vips", ["icc_export", dir.file("sample-0001.jpg"), cmyk, "--output-profile", "cmyk"]).succeeded)
        #expect(try await runTool("vips", ["icc_transform", cmyk, reference, "srgb", "--embedded",
                                           "--black-point-compensation"]).succeeded)
        #expect(try await runTool("convert", [cmyk, "-colorspace", "sRGB", "+profile", "*", naive]).succeeded) // no colour management

        let jpeg = dir.file("out.jpg"), heic = dir.file("out.heic"), collage = dir.file("collage.jpg")
        let converted = try await CLI.run(["convert", "-o", jpeg, cmyk, "--json"])
        #expect(converted.succeeded, "\(converted)")
        let space = try await runTool("exiftool", ["-s3", "-ICC_Profile:ColorSpaceData", jpeg]).stdout
        #expect(!space.contains("CMYK"), "an RGB JPEG tagged with a CMYK profile: \(space)")
        #expect(try await CLI.run(["convert", "-o", heic, cmyk]).succeeded)
        #expect(try await CLI.run(["collage", "--layout", "long", "--width", "480", "--spacing", "0", "--margin", "0",
                                   "-o", collage, cmyk]).succeeded)
        let before = try await HeicTests.psnr(naive, reference)
        for output in [jpeg, heic, collage] {
            let png = output + ".png"
            #expect(try await CLI.run(["convert", "-o", png, output]).succeeded) // through its own profile, if any
            let srgb = png + ".srgb.png"
            #expect(try await runTool("vips", ["icc_transform", png, srgb, "srgb", "--embedded"]).succeeded)
            let psnr = try await HeicTests.psnr(srgb, reference)
            print("CMYK -> \((output as NSString).lastPathComponent): \(psnr) dB against vips (naive arithmetic: \(before) dB)")
            #expect(psnr >= 34, "\(output): \(psnr) dB against the colour-managed reference")
        }
        #expect(before < 28, "the naive conversion should be visibly off, or the test proves nothing: \(before) dB")
    }
}
