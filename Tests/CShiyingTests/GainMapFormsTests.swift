// Which forms a gain map is written and read in (SPEC E6; ../shared/specs/gain-map.md):
// a HEIC gets Apple's description only for an Apple map (Apple's curve cannot
// say what GainMapMin, a gamma, offsets, three channels or an HDR base mean);
// a 'tmap' that the Apple description of the same map contradicts is read;
// an Apple JPEG's gain map may be any MPF image; an ISO-only HEIC whose map
// carries the base's irot is read aligned. Fixtures: scripts/gainmap_forms_fixtures.py.
import CShiying
import CShiyingInternal
import Foundation
import Testing

private let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// numpy + Pillow, for the fixture script.
private let pythonFixtures: Bool = {
    guard let r = try? ExternalTools.run("env", ["python3", "-c", "import numpy, PIL"]) else { return false }
    return r.status == 0
}()

private func fixture(_ args: [String]) throws {
    _ = try ExternalTools.check("env", ["python3", packageRoot.appendingPathComponent("scripts/gainmap_forms_fixtures.py").path] + args)
}

private func probeInfo(_ ctx: Context, _ path: String) throws -> sy_gainmap_info {
    var info = sy_gainmap_info()
    var err = sy_error()
    guard sy_gainmap_probe(ctx.raw, path, &info, &err) == SY_OK else { throw CTestFailure("probe \(path): \(message(err))") }
    return info
}

private func detail(_ info: sy_gainmap_info) -> String {
    withUnsafeBytes(of: info.detail) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
}

/// The identity gain-map save (a conversion) of `input` into `output`.
private func carry(_ ctx: Context, _ input: String, _ output: String, _ format: sy_still_format) throws -> sy_gainmap_edit_report {
    var recipe = sy_recipe()
    sy_recipe_init(&recipe)
    let r = gainMapEdit(ctx, input, output, &recipe, format: format, hook: nil)
    guard r.status == SY_OK, r.report.outcome == SY_HDR_KEPT else { throw CTestFailure("\(input) -> \(output): \(message(r.error))") }
    return r.report
}

/// Largest difference in stops, over every code and channel, between what two descriptions make of the same codes.
private func gainDifference(_ a: sy_gainmap_info, _ b: sy_gainmap_info) -> Double {
    var a = a, b = b, worst = 0.0
    for channel in UInt32(0)..<3 {
        for code in 0...255 {
            worst = max(worst, abs(sy_gainmap_log2_gain(&a, channel, UInt8(code)) - sy_gainmap_log2_gain(&b, channel, UInt8(code))))
        }
    }
    return worst
}

/// The auxiliary image types a current libheif (pillow-heif) sees on the primary, nil without pillow-heif.
private func libheifAux(_ path: String) throws -> String? {
    let script = "import sys, pillow_heif\nf = pillow_heif.open_heif(sys.argv[1])\nprint(f.size, sorted(f[0].info['aux']))"
    guard let run = try? ExternalTools.run("python3", ["-c", script, path]), !run.err.contains("ModuleNotFoundError") else { return nil }
    guard run.status == 0 else { throw CTestFailure("pillow-heif cannot open \(path): \(run.err)") }
    return run.out
}

/// The bytes of `path` with the first 'tmap' item payload (after its version byte, at the head of mdat) replaced.
private func replacingTmap(_ path: String, _ out: String, with params: sy_gainmap_params) throws {
    var p = params
    var buffer = [UInt8](repeating: 0, count: Int(SY__ISO21496_MAX_LEN))
    let length = sy__iso21496_build(&p, &buffer)
    let payload = Array(buffer.prefix(length))
    var bytes = ExternalTools.readFile(path)
    let mdat = Array("mdat".utf8)
    let at = try #require((4..<(bytes.count - 4)).first { Array(bytes[$0..<$0 + 4]) == mdat })
    // the sample's own tmap payload: same length for one channel (every fraction N/D)
    try #require(bytes[at + 4] == 0 && bytes[at + 5] == 0 && bytes[at + 9] == 0x40, "tmap data at the head of mdat")
    bytes.replaceSubrange((at + 5)..<(at + 5 + payload.count), with: payload)
    try ExternalTools.writeFile(out, bytes)
}

@Suite("Gain map forms: Apple only when exact, tmap preferred when contradicted, MPF image N, rotated ISO HEIC (SPEC E6)")
struct GainMapFormsTests {
    @Test("Ultra HDR maps Apple's curve cannot describe (GainMapMin -1; three channels) -> HEIC: the ISO form alone, read back with the source's gains",
          .enabled(if: pythonFixtures, "numpy / Pillow missing"), arguments: ["min", "rgb"])
    func nonAppleMapToHEICIsISOOnly(_ which: String) throws {
        let dir = try TempFolder()
        let ctx = try Context()
        let src = dir.file("\(which).jpg"), heic = dir.file("\(which).heic")
        try fixture(which == "min" ? ["uhdr", src, "-1", "2.5", "1"] : ["uhdr", src, "0", "3", "1", "--channels", "3"])
        let source = try probeInfo(ctx, src)
        try #require(source.kind == SY_GAINMAP_ULTRAHDR_JPEG)
        let report = try carry(ctx, src, heic, SY_STILL_HEIC)
        #expect(report.edit.kept_gain_map_forms == UInt32(SY_GAINMAP_FORM_ISO21496.rawValue), "\(report.edit.kept_gain_map_forms)")
        let back = try probeInfo(ctx, heic)
        #expect(back.kind == SY_GAINMAP_ISO_HEIC && back.iso_valid == 1, "\(detail(back))")
        #expect(back.map_channels == source.map_channels)
        // our reader makes of every code what the source says (the old Apple reading: 1 stop off for min -1)
        #expect(gainDifference(back, source) < 1e-6, "\(gainDifference(back, source)) stops")
        if let aux = try libheifAux(heic) {
            #expect(aux.contains("(256, 192) []"), "libheif sees an auxiliary image: \(aux)")
        }
        // the map's pixels followed (HEVC generation)
        let a = try DecodedGainMap(ctx, src), b = try DecodedGainMap(ctx, heic)
        #expect(a.channels == b.channels && psnr8(a.pixels, b.pixels) > 30, "map PSNR \(psnr8(a.pixels, b.pixels))")
    }

    @Test("HDR base (BaseRenditionIsHDR) -> HEIC: ISO form alone, read back as HDR base, and a collage of it asks as for the source",
          .enabled(if: pythonFixtures, "numpy / Pillow missing"))
    func hdrBaseToHEIC() throws {
        let dir = try TempFolder()
        let ctx = try Context()
        let src = dir.file("base-hdr.jpg"), heic = dir.file("base-hdr.heic")
        try fixture(["uhdr", src, "-3", "0", "1", "--base-hdr"])
        let source = try probeInfo(ctx, src)
        try #require(source.params.base_is_hdr == 1)
        let report = try carry(ctx, src, heic, SY_STILL_HEIC)
        #expect(report.edit.kept_gain_map_forms == UInt32(SY_GAINMAP_FORM_ISO21496.rawValue))
        let back = try probeInfo(ctx, heic)
        #expect(back.kind == SY_GAINMAP_ISO_HEIC && back.params.base_is_hdr == 1, "\(detail(back))")
        #expect(gainDifference(back, source) < 1e-6)
        for input in [src, heic] {
            var options = sy_collage_options()
            sy_collage_options_init(&options, SY_LAYOUT_GRID)
            options.width = 512
            options.columns = 2
            var report = sy_collage_report()
            var err = sy_error()
            let out = dir.file("collage.jpg")
            let status = render(ctx, [input, input], &options, out, &report, &err)
            sy_collage_report_free(&report)
            #expect(status == SY_E_UNSUPPORTED && message(err).contains("base rendition is HDR"), "\(input): \(status) \(message(err))")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }

    @Test("A HEIC whose Apple description contradicts its 'tmap' (made up from GainMapMax; an HDR base) is read by the tmap; Apple's own consistent pair stays Apple")
    func contradictedAppleReadsTmap() throws {
        let folder = try HDRSampleFolder(width: 320, height: 240)
        let ctx = try Context()
        var apple = try probeInfo(ctx, folder.heic)
        try #require(apple.kind == SY_GAINMAP_APPLE_HEIC && apple.iso_valid == 1 && apple.apple_headroom == 8)
        // The sample's own pair (headroom 8, fitted gamma): consistent, read the Apple way as before.
        #expect(sy__iso21496_contradicts_apple(&apple.iso, apple.apple_headroom) == 0)
        var p = apple.iso
        p.min_log2 = (-1, -1, -1) // what an older writer paired with headroom 2^GainMapMax = 8
        p.offset_sdr = (1.0 / 64, 1.0 / 64, 1.0 / 64)
        p.offset_hdr = p.offset_sdr
        p.gamma = (1, 1, 1)
        var hdrBase = apple.iso
        hdrBase.base_is_hdr = 1
        for (name, tmap) in [("min", p), ("hdr-base", hdrBase)] {
            let file = folder.file("\(name).heic")
            try replacingTmap(folder.heic, file, with: tmap)
            let info = try probeInfo(ctx, file)
            #expect(info.kind == SY_GAINMAP_ISO_HEIC && info.iso_valid == 1, "\(name): \(detail(info))")
            #expect(info.params.base_is_hdr == tmap.base_is_hdr && abs(info.params.min_log2.0 - tmap.min_log2.0) < 1e-6)
            // the map is the Apple item's pixels, read through the tmap's numbers
            let map = try DecodedGainMap(ctx, file), reference = try DecodedGainMap(ctx, folder.heic)
            #expect(map.pixels == reference.pixels && map.info.kind == SY_GAINMAP_ISO_HEIC)
        }
    }

    @Test("Apple JPEG with its gain map as MPF image 3 (a portrait matte first) or 2 (matte after): found, carried, the matte reported dropped",
          .enabled(if: pythonFixtures, "numpy / Pillow missing"), arguments: ["matte,map", "map,matte"])
    func appleMapAnyMPFImage(_ order: String) throws {
        let dir = try TempFolder()
        let ctx = try Context()
        let src = dir.file("apple.jpg"), out = dir.file("out.jpg"), heic = dir.file("out.heic")
        try fixture(["apple-mpf", src, order])
        let info = try probeInfo(ctx, src)
        let image = order == "matte,map" ? 3 : 2
        #expect(info.kind == SY_GAINMAP_APPLE_JPEG && info.apple_headroom == 4 && info.map_width == 128 && info.map_height == 96
                && detail(info).contains("MPF image \(image)") && info.mpf_images == 3, "\(detail(info))")
        let map = try DecodedGainMap(ctx, src)
        // the gain map's codes (the fixture's ramp), not the matte's (0 / 255 only)
        #expect(Set(map.pixels).count > 100, "\(Set(map.pixels).count) distinct codes")
        for (file, format) in [(out, SY_STILL_JPEG), (heic, SY_STILL_HEIC)] {
            let report = try carry(ctx, src, file, format)
            #expect(report.edit.dropped & UInt32(SY_DROPPED_AUXILIARY_IMAGES.rawValue) != 0, "\(file): the matte is not carried")
            let back = try probeInfo(ctx, file)
            #expect(back.kind == (format == SY_STILL_JPEG ? SY_GAINMAP_APPLE_JPEG : SY_GAINMAP_APPLE_HEIC) && back.apple_headroom == 4)
            #expect(psnr8(try DecodedGainMap(ctx, file).pixels, map.pixels) > 30)
        }
        if ExternalTools.installed("exiftool") {
            let types = try ExternalTools.check("exiftool", ["-s", "-ee", "-HDRGainMapVersion", "-AuxiliaryImageType", out])
            #expect(types.contains("131072") && !types.contains("portraiteffectsmatte"), "\(types)")
        }
    }

    @Test("ISO-only HEIC with the same irot on base, gain map and tmap: read, and the map follows the base turned",
          .enabled(if: pythonFixtures, "numpy / Pillow missing"))
    func rotatedISOOnlyHEIC() throws {
        let folder = try HDRSampleFolder(width: 320, height: 240)
        let ctx = try Context()
        let rotated = folder.file("iso-rot.heic")
        try fixture(["heic-irot", folder.isoHEIC, rotated])
        let info = try probeInfo(ctx, rotated)
        #expect(info.kind == SY_GAINMAP_ISO_HEIC && info.orientation == 8, "\(detail(info)) orientation \(info.orientation)")
        if let aux = try libheifAux(rotated) { #expect(aux.contains("(240, 320)"), "libheif: \(aux)") }
        // Carried to an upright JPEG: the map is the stored map turned a quarter anticlockwise, as the base.
        let out = folder.file("iso-rot.jpg")
        _ = try carry(ctx, rotated, out, SY_STILL_JPEG)
        let written = try DecodedGainMap(ctx, out), stored = try DecodedGainMap(ctx, folder.isoHEIC)
        let (w, h, turned) = stored.cropTurned(x: 0, y: 0, w: 1, h: 1, turns: 3)
        #expect(written.width == w && written.height == h && psnr8(written.pixels, turned) > 30,
                "\(written.width)x\(written.height) vs \(w)x\(h)")
        // A map with a transform of its own (irot on the map only) is still refused.
        let own = folder.file("map-only.heic")
        try fixture(["heic-irot", folder.isoHEIC, own, "--map-only"])
        let refused = try probeInfo(ctx, own)
        #expect(refused.kind == SY_GAINMAP_UNINTERPRETABLE && detail(refused).contains("display transform"), "\(detail(refused))")
    }
}
