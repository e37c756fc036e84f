// HDR stills: HEIFs whose picture is an HLG or PQ signal (10-bit BT.2020, as Sony, Canon and Nikon cameras write
// them; Sony's are 4:2:2 grids). Before, the engine showed the signal as if it were SDR: grey and pale (block means
// 20 levels off on the HLG still, 56 on the PQ one), untagged, and every save dropped the HDR without asking.
// Now the picture is its SDR Display P3 rendition (the documented mapping of CSources/core/base/hdr_tone.c) and
// its HDR is a gain map derived from the signal (kind "hdr-signal"), kept by every save that carries maps.
// Fixtures: scripts/hdr_still.py writes the scene of scripts/hdr_clip.py (known scene light) as a HEIF — a single
// item, grids with an overhang, 4:2:0 and 4:2:2, the colour in nclx or only in the VUI — and libheif
// (pillow-heif) checks each file before the engine is judged on it.
import Foundation
@testable import Shiying
import Testing

extension HDROracle {
    static let stillScript = Paths.packageRoot.appendingPathComponent("scripts/hdr_still.py").path
    static let libheif = commandSucceeds(["python3", "-c", "import pillow_heif"])

    /// A 640x360 HDR still of the scene's frame 0; `options` as hdr_still.py takes them.
    static func still(_ transfer: String, _ options: [String], in dir: TempDir) async throws -> String {
        let out = dir.file("still_\(transfer).heic")
        let run = try await runProcess("/usr/bin/env", ["python3", stillScript, out, transfer] + options, timeout: 300)
        guard run.succeeded else { throw TestFailure("hdr_still.py: \(run)") }
        guard libheif else { return out }
        let grade = options.firstIndex(of: "--peak").map { Array(options[$0...($0 + 1)]) } ?? []
        let check = try await runProcess("/usr/bin/env", ["python3", stillScript, "verify", out, transfer] + grade, timeout: 120)
        let line = try #require(check.lastLine, "\(check)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect((json["mean"] as? Double ?? 99) <= 1.5 && json["bit_depth"] as? Int == 10,
                "libheif reads the fixture as the scene's signal: \(line)")
        return out
    }
}

@Suite("HDR stills (HLG, PQ HEIF) become SDR Display P3 with their HDR in a gain map (fidelity; SPEC E6)",
       .enabled(if: HDROracle.available, "numpy, ffmpeg with zscale and libx265 needed"))
struct HDRStillTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var transfer: String
        var options: [String]
        var testDescription: String { ([transfer] + options).joined(separator: " ") }
    }

    static let cases = [
        Case(transfer: "hlg", options: []),
        Case(transfer: "pq", options: ["--tile", "256"]),
        Case(transfer: "hlg", options: ["--tile", "128", "--chroma", "422"]),
        Case(transfer: "hlg", options: ["--no-nclx"]),
    ]

    @Test("saved as JPEG: the documented SDR rendition, tagged Display P3, its HDR in an Ultra HDR gain map",
          arguments: cases)
    func toJPEG(_ c: Case) async throws {
        let dir = try TempDir("hdr-still")
        defer { dir.remove() }
        let still = try await HDROracle.still(c.transfer, c.options, in: dir)
        let info = try GainMapInfo.probe(still)
        #expect(info.kind == "hdr-signal" && info.gainMapWidth == 160 && info.gainMapHeight == 90, "\(info)")
        #expect(abs((info.headroom ?? 0) - 1000.0 / 203) < 0.01 && info.baseRendition == "sdr", "\(info)")
        let out = dir.file("out.jpg")
        let run = try await CLI.run(["convert", "-o", out, still, "--json"])
        #expect(run.succeeded && run.stdout.contains("\"hdr-gain-map\""), "\(run)")
        let check = try await HDROracle.check(out, c.transfer, frame: 0)
        #expect(check.mean <= 1.5 && check.max <= 16, "vs the mapped scene light: \(check)")
        #expect(check.hlg_as_sdr_mean >= 10, "the signal must not look the same shown as SDR: \(check)")
        let profile = try await runTool("exiftool", ["-s3", "-ProfileDescription", out]).stdout
        #expect(profile.contains("Display P3"), "\(profile)")
        try await HDROracle.expectLight(out, c.transfer, frame: 0, "the JPEG's HDR")
    }

    @Test("an edit saved as HEIC keeps the HDR through its crop; PNG asks first (SPEC E6)")
    func editAndConsent() async throws {
        let dir = try TempDir("hdr-still-edit")
        defer { dir.remove() }
        let still = try await HDROracle.still("hlg", ["--tile", "256"], in: dir)
        let recipe = dir.file("crop.json")
        try #"{"version":1,"crop":{"x":0.7,"y":0,"width":0.3,"height":0.3}}"#.write(toFile: recipe, atomically: true,
                                                                                    encoding: .utf8)
        let heic = dir.file("crop.heic")
        let edit = try await CLI.run(["edit", "-o", heic, "--recipe", recipe, still, "--json"])
        #expect(edit.succeeded && edit.stdout.contains("\"hdr\":\"kept\""), "\(edit)")
        let kept = try GainMapInfo.probe(heic)
        #expect(kept.hasGainMap && kept.kind != "uninterpretable" && kept.baseWidth == 192, "\(kept)")
        if HDROracle.libheif {
            let depth = try await runProcess("/usr/bin/env", ["python3", "-c", "import pillow_heif,sys; "
                                                              + "h=pillow_heif.open_heif(sys.argv[1]); "
                                                              + "print(h.info.get('bit_depth'), h.size)", heic])
            #expect(depth.stdout.contains("8 (192, 108)"), "an 8-bit SDR HEIC libheif reads: \(depth)")
        }
        // Through our HEIC and back out as JPEG: the crop's display light, decoded by libultrahdr.
        let jpeg = dir.file("crop.jpg")
        #expect(try await CLI.run(["convert", "-o", jpeg, heic]).succeeded)
        let region = "448,0,192,108"
        let check = try await HDROracle.check(jpeg, "hlg", frame: 0, region: region)
        #expect(check.mean <= 2.5, "the crop vs the mapped scene light: \(check)")
        try await HDROracle.expectLight(jpeg, "hlg", frame: 0, region: region, "the crop's HDR after a HEIC save")

        let png = dir.file("out.png")
        let refused = try await CLI.run(["convert", "-o", png, still])
        #expect(refused.exitedNormally && refused.status == 1 && refused.stderr.contains("--allow-sdr"), "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: png), "nothing written without consent")
        let agreed = try await CLI.run(["convert", "-o", png, still, "--allow-sdr"])
        #expect(agreed.succeeded, "\(agreed)")
        let sdr = try await HDROracle.check(png, "hlg", frame: 0)
        #expect(sdr.mean <= 1.5, "with consent: the SDR rendition: \(sdr)")
    }

    @Test("SPEC C13: in a long image the HDR cell's map is composed with the SDR cells'")
    func collage() async throws {
        let dir = try TempDir("hdr-still-collage")
        defer { dir.remove() }
        let still = try await HDROracle.still("pq", ["--tile", "128", "--chroma", "422"], in: dir)
        try await HDROracle.expectLongImageKeepsHDRCell(still, in: dir)
    }

    // PNG 3rd edition HDR: a 16-bit PNG whose cICP says HLG or PQ (with cLLi/mDCv for a graded PQ one). Before,
    // its code values were shown as if they were SDR (flat, grey: the check's hlg_as_sdr_mean), untagged, and
    // its HDR was lost; now it is read as the HDR-signal HEIF is. An Adam7-interlaced one had no gain map until
    // its gains were read pass by pass (InterlacedHDRPNGTests compares it with the plain encoding).
    @Test("an HDR PNG (cICP HLG, graded PQ with alpha): the SDR Display P3 rendition, its HDR in the saved gain map",
          arguments: [["hlg"], ["pq", "--peak", "4000", "--alpha"], ["hlg", "--interlace"]])
    func hdrPNG(_ args: [String]) async throws {
        let dir = try TempDir("hdr-png")
        defer { dir.remove() }
        let transfer = args[0], grade = args.contains("--peak") ? ["--peak", "4000"] : []
        let png = dir.file("still_\(transfer).png")
        let made = try await runProcess("/usr/bin/env", ["python3", HDROracle.stillScript, "png", png] + args, timeout: 120)
        guard made.succeeded else { throw TestFailure("hdr_still.py png: \(made)") }
        let out = try await HDROracle.expectSignalStillConverts(png, graded: !grade.isEmpty, in: dir)
        let script = HDROracle.script
        let check = try await runProcess("/usr/bin/env", ["python3", script, "check", out, transfer, "0"] + grade, timeout: 300)
        let checked = try JSONDecoder().decode(HDROracle.Check.self, from: Data((check.lastLine ?? "").utf8))
        #expect(checked.mean <= 1.5 && checked.max <= 16, "vs the mapped scene light: \(checked)")
        #expect(checked.hlg_as_sdr_mean >= 10, "the signal must not look the same shown as SDR: \(checked)")
        let profile = try await runTool("exiftool", ["-s3", "-ProfileDescription", out]).stdout
        #expect(profile.contains("Display P3"), "\(profile)")
        guard HDROracle.ultraHDR else { return }
        let light = try await runProcess("/usr/bin/env", ["python3", script, "hdr", out, transfer, "0"] + grade, timeout: 300)
        let l = try JSONDecoder().decode(HDROracle.Light.self, from: Data((light.lastLine ?? "").utf8))
        #expect(abs(l.median) <= 0.03 && l.p5 >= -0.08 && l.p95 <= 0.08, "the JPEG's HDR: \(l)")
        #expect(abs(l.highlight_median ?? 1) <= 0.05 && l.peak >= (grade.isEmpty ? 3.5 : 16), "the lamp: \(l)")
    }
}
