// AVIF gain maps (SPEC E6): an ISO 21496-1 'tmap' item whose inputs are
// [primary av01, hidden gain-map av01], the form libavif >= 1.1 and Android 15's
// "Ultra HDR AVIF" write. Before, the probe took only an HEVC map ("its gain map
// (item 2) is not HEVC") and the map was lost. Fixtures: the ISO-only HEIC sample's
// base, map codes and ISO numbers, coded as AV1 by libaom (scripts/avif_gainmap.py),
// so the AVIF's map can be held against the HEIC's, code for code.
import CShiying
import CShiyingInternal
import Foundation
import Testing

private let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

private let libaom: Bool = {
    guard let r = try? ExternalTools.run("sh", ["-c", "ffmpeg -hide_banner -encoders | grep -q libaom-av1"]) else { return false }
    return r.status == 0
}()

private func probe(_ ctx: Context, _ path: String) throws -> sy_gainmap_info {
    var info = sy_gainmap_info()
    var err = sy_error()
    guard sy_gainmap_probe(ctx.raw, path, &info, &err) == SY_OK else { throw CTestFailure("probe \(path): \(message(err))") }
    return info
}

private func text<T>(_ tuple: T) -> String {
    var copy = tuple
    return withUnsafeBytes(of: &copy) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
}

/// The ISO-only HEIC sample's content as an AVIF: its rendered base, its decoded map codes and its ISO numbers
/// (tmap item data: version 0 + the metadata). `options` as scripts/avif_gainmap.py takes them.
private func avif(_ folder: HDRSampleFolder, _ name: String, _ options: [String] = []) throws -> String {
    let ctx = try Context()
    let base = folder.file("avif-base.ppm"), map = folder.file("avif-map.pgm"), tmap = folder.file("avif-tmap.bin")
    if !FileManager.default.fileExists(atPath: tmap) {
        var recipe = sy_recipe()
        sy_recipe_init(&recipe)
        let (w, h, rgb) = try renderUpright(ctx, folder.isoHEIC, &recipe)
        let stride = rgb.count / h
        var ppm = Array("P6\n\(w) \(h)\n255\n".utf8)
        for y in 0..<h { ppm += rgb[(y * stride)..<(y * stride + w * 3)] }
        try ExternalTools.writeFile(base, ppm)
        let decoded = try DecodedGainMap(ctx, folder.isoHEIC)
        try #require(decoded.channels == 1)
        try ExternalTools.writeFile(map, Array("P5\n\(decoded.width) \(decoded.height)\n255\n".utf8) + decoded.pixels)
        var iso = decoded.info.iso
        var payload = [UInt8](repeating: 0, count: Int(SY__ISO21496_MAX_LEN))
        let n = sy__iso21496_build(&iso, &payload)
        try ExternalTools.writeFile(tmap, [0] + payload.prefix(n))
    }
    let out = folder.file(name)
    let script = packageRoot.appendingPathComponent("scripts/avif_gainmap.py").path
    _ = try ExternalTools.check("python3", [script, out, base, map, tmap] + options)
    return out
}

/// An identity gain-map save (the conversion path) of `input` into `output`.
private func carry(_ ctx: Context, _ input: String, _ output: String, _ format: sy_still_format) throws -> sy_gainmap_edit_report {
    var recipe = sy_recipe()
    sy_recipe_init(&recipe)
    let r = gainMapEdit(ctx, input, output, &recipe, format: format, hook: nil)
    guard r.status == SY_OK, r.report.outcome == SY_HDR_KEPT else { throw CTestFailure("\(input) -> \(output): \(message(r.error))") }
    return r.report
}

private func close(_ a: sy_gainmap_params, _ b: sy_gainmap_params) -> Bool {
    let t = { (p: sy_gainmap_params) in
        [p.min_log2.0, p.max_log2.0, p.gamma.0, p.offset_sdr.0, p.offset_hdr.0, p.capacity_min, p.capacity_max]
    }
    return zip(t(a), t(b)).allSatisfy { abs($0 - $1) <= 1e-6 * max(1, abs($0)) } && a.channels == b.channels
}

private func largestDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
    zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 999
}

@Suite("Gain map AVIF: an ISO 21496-1 'tmap' with an AV1 map (libavif / Android Ultra HDR AVIF; SPEC E6)",
       .enabled(if: libaom, "ffmpeg with libaom-av1 is needed for the fixtures"))
struct GainMapAVIFTests {
    @Test("the AV1 map is read as iso-heic: the ISO numbers and the map codes of the same content stored as a HEIC (hvc1 map); 8-bit, 10-bit, a grid of tiles")
    func avifMapIsRead() throws {
        let folder = try HDRSampleFolder(width: 320, height: 240)
        let ctx = try Context()
        let heic = try probe(ctx, folder.isoHEIC), reference = try DecodedGainMap(ctx, folder.isoHEIC)
        for (name, options) in [("map8.avif", []), ("map10.avif", ["--map-depth", "10"]),
                                ("grid.avif", ["--map-grid", "64", "--map-depth", "10"])] {
            let file = try avif(folder, name, options)
            let info = try probe(ctx, file)
            #expect(info.kind == SY_GAINMAP_ISO_HEIC && info.iso_valid == 1 && info.tmap_item == 3,
                    "\(name): \(text(info.detail))")
            #expect(text(info.detail).contains("AV1"), "\(name): \(text(info.detail))")
            #expect(close(info.iso, heic.iso) && close(info.params, heic.params))
            #expect(info.base_width == 320 && info.map_width == reference.info.map_width
                    && info.map_height == reference.info.map_height && info.map_channels == 1)
            let map = try DecodedGainMap(ctx, file)
            let worst = largestDifference(map.pixels, reference.pixels)
            print("AVIF \(name): map codes vs the HEIC's hvc1 map: largest difference \(worst), PSNR \(psnr8(map.pixels, reference.pixels))")
            #expect(map.width == reference.width && map.height == reference.height && worst <= 2, "\(name): \(worst)")
        }
    }

    @Test("converted to JPEG (Ultra HDR + ISO) and to HEIC (ISO tmap): the map is kept, nothing dropped, and the JPEG's HDR light (libultrahdr) is the HEIC source's")
    func avifMapCarried() throws {
        let folder = try HDRSampleFolder(width: 320, height: 240)
        let ctx = try Context()
        let file = try avif(folder, "carried.avif")
        let source = try probe(ctx, folder.isoHEIC), reference = try DecodedGainMap(ctx, folder.isoHEIC)
        let jpeg = folder.file("avif.jpg"), heic = folder.file("avif.heic"), fromHEIC = folder.file("heic.jpg")
        let toJPEG = try carry(ctx, file, jpeg, SY_STILL_JPEG)
        #expect(toJPEG.edit.dropped & UInt32(SY_DROPPED_ISO_GAIN_MAP.rawValue) == 0)
        let toHEIC = try carry(ctx, file, heic, SY_STILL_HEIC)
        #expect(toHEIC.edit.kept_gain_map_forms == UInt32(SY_GAINMAP_FORM_ISO21496.rawValue))
        _ = try carry(ctx, folder.isoHEIC, fromHEIC, SY_STILL_JPEG)
        let j = try probe(ctx, jpeg), h = try probe(ctx, heic)
        #expect(j.kind == SY_GAINMAP_ULTRAHDR_JPEG && j.iso_valid == 1 && close(j.params, source.params))
        #expect(h.kind == SY_GAINMAP_ISO_HEIC && h.iso_valid == 1 && close(h.iso, source.iso))
        let viaJPEG = try DecodedGainMap(ctx, fromHEIC)
        for (out, against) in [(jpeg, viaJPEG.pixels), (heic, reference.pixels)] {
            let back = try DecodedGainMap(ctx, out)
            print("AVIF -> \((out as NSString).lastPathComponent): map vs the HEIC source's path: PSNR \(psnr8(back.pixels, against)), largest difference \(largestDifference(back.pixels, against))")
            #expect(back.width == reference.width && psnr8(back.pixels, against) > 40)
        }
        // The HDR display light an independent reader (libultrahdr) makes of the two JPEGs.
        let script = """
        import sys, json, imagecodecs, numpy as np
        a, b = (imagecodecs.ultrahdr_decode(open(p, 'rb').read()).astype(np.float64)[..., :3] for p in sys.argv[1:3])
        lit = (a > 0.02) & (b > 0.02)
        d = np.abs(np.log2(a[lit] / b[lit]))
        ga, gb = (np.log2(x.max()) for x in (a, b))
        print(json.dumps({"median": float(np.median(d)), "p95": float(np.percentile(d, 95)), "peak_a": ga, "peak_b": gb}))
        """
        guard let run = try? ExternalTools.run("python3", ["-W", "ignore", "-c", script, jpeg, fromHEIC]),
              !run.err.contains("ModuleNotFoundError") else { return }
        struct Light: Decodable { var median, p95, peak_a, peak_b: Double }
        let l = try JSONDecoder().decode(Light.self, from: Data((run.out.split(separator: "\n").last ?? "").utf8))
        print("libultrahdr HDR light, AVIF -> JPEG vs ISO HEIC -> JPEG: median \(l.median), p95 \(l.p95) stops; peaks 2^\(l.peak_a) vs 2^\(l.peak_b)")
        #expect(l.median < 0.03 && l.p95 < 0.1 && abs(l.peak_a - l.peak_b) < 0.1, "\(l)")
    }

    @Test("a damaged AV1 map (OBUs cut short) and a hostile av1C: a clear reason, nothing written without consent, never a crash")
    func damagedAVIFMaps() throws {
        let folder = try HDRSampleFolder(width: 320, height: 240)
        let ctx = try Context()
        for (name, options, reason) in [("cut.avif", ["--cut-map", "40"], "OBU larger than the data"),
                                        ("av1c.avif", ["--hostile-av1c"], "av1C: OBU larger than the data")] {
            let file = try avif(folder, name, options)
            var info = try probe(ctx, file)
            #expect(info.kind == SY_GAINMAP_ISO_HEIC, "\(name): \(text(info.detail))")
            var img = sy_gainmap_image()
            var err = sy_error()
            #expect(sy_gainmap_decode(ctx.raw, file, &info, &img, &err) != SY_OK && message(err).contains(reason),
                    "\(name): \(message(err))")
            var recipe = sy_recipe()
            sy_recipe_init(&recipe)
            let out = folder.file(name + ".jpg")
            let refused = gainMapEdit(ctx, file, out, &recipe, format: SY_STILL_JPEG, hook: nil)
            #expect(refused.status == SY_E_CANCELLED && refused.report.outcome == SY_HDR_REFUSED
                    && message(refused.error).contains(reason), "\(name): \(message(refused.error))")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }
}
