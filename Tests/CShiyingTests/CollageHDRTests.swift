// Issue 16 / SPEC E6, C13: a collage of HDR photos stays HDR. The collage's
// one gain map is read back with our own reader and compared, in stops, with
// each source cell's own map at the matching points (the cell is its photo
// centre-cropped to cover, so cell point (u, v) is a known source point);
// SDR cells and the spacing carry no gain. PNG collages ask first.
import CShiying
import CShiyingFixtures
import Foundation
import Testing

/// A 2x2 grid (no spacing: cells of 320x320 at known places) of `inputs`.
private func grid(_ ctx: Context, _ inputs: [String], _ output: String, format: sy_still_format = SY_STILL_JPEG,
                  allowSDR: Bool = false, hook counter: HookCounter? = nil) -> (sy_status, sy_collage_report, sy_error) {
    var options = sy_collage_options()
    sy_collage_options_init(&options, SY_LAYOUT_GRID)
    options.width = 640
    options.columns = 2
    options.spacing = 0
    options.margin = 0
    options.format = format
    options.allow_sdr = allowSDR ? 1 : 0
    if let counter {
        options.hdr_hook = { context, reason, _ in
            let counter = Unmanaged<HookCounter>.fromOpaque(context!).takeUnretainedValue()
            counter.calls += 1
            counter.reasons.append(reason)
            return counter.answer ? 1 : 0
        }
        options.hdr_hook_context = Unmanaged.passUnretained(counter).toOpaque()
    }
    var report = sy_collage_report()
    var err = sy_error()
    let status = render(ctx, inputs, &options, output, &report, &err)
    return (status, report, err)
}

private func cellStates(_ report: sy_collage_report) -> [UInt8] {
    guard let states = report.cell_hdr else { return [] }
    return (0..<Int(report.cells)).map { states[$0] }
}

@Suite("Collage HDR (issue 16, SPEC E6)")
struct CollageHDRTests {
    @Test("2x2 with two HDR cells (Apple HEIC or ISO-only HEIC, Ultra HDR JPEG) and two SDR, as JPEG or HEIC: one gain map, each cell's gain in stops as its source's",
          arguments: [false, true], [SY_STILL_JPEG, SY_STILL_HEIC])
    func mixedGridKeepsEachCellsGain(isoHEIC: Bool, format: sy_still_format) throws {
        let hdr = try HDRSampleFolder(width: 640, height: 480, seed: 11)
        let sdr = try SampleFolder(count: 2, width: 640, height: 480)
        let ctx = try Context()
        let first = isoHEIC ? hdr.isoHEIC : hdr.heic
        let inputs = [first, sdr.photos[0], sdr.photos[1], hdr.jpeg]
        let heic = format == SY_STILL_HEIC
        let out = hdr.file(heic ? "grid.heic" : "grid.jpg")
        var (status, report, err) = grid(ctx, inputs, out, format: format)
        defer { sy_collage_report_free(&report) }
        try #require(status == SY_OK, "\(message(err))")
        #expect(report.width == 640 && report.height == 640)
        #expect(report.hdr == SY_HDR_KEPT && report.hdr_hook_calls == 0)
        #expect(cellStates(report) == [1, 0, 0, 1], "cell states \(cellStates(report))")
        // mixed sources: JPEG Ultra HDR + ISO 21496-1, no Apple form; HEIC the Apple
        // auxiliary map + the tmap item (as every HEIC save); headroom = the larger (both 8x)
        let forms = heic ? UInt32(SY_GAINMAP_FORM_APPLE.rawValue | SY_GAINMAP_FORM_ISO21496.rawValue)
            : UInt32(SY_GAINMAP_FORM_ULTRAHDR.rawValue | SY_GAINMAP_FORM_ISO21496.rawValue)
        #expect(report.gain_map_forms == forms, "forms \(report.gain_map_forms)")
        #expect(abs(report.gain_map_headroom - 8) < 0.01, "headroom \(report.gain_map_headroom)")
        #expect(report.gain_map_width == 320 && report.gain_map_height == 320, "half size like the sources")

        let collage = try DecodedGainMap(ctx, out)
        #expect(collage.info.kind == (heic ? SY_GAINMAP_APPLE_HEIC : SY_GAINMAP_ULTRAHDR_JPEG) && collage.width == 320
                && collage.height == 320)
        if heic { #expect(collage.info.iso_valid == 1 && collage.info.tmap_item != 0, "the tmap item on the map") }
        let sources = [try DecodedGainMap(ctx, first), nil, nil, try DecodedGainMap(ctx, hdr.jpeg)]
        let origins = [(0.0, 0.0), (160.0, 0.0), (0.0, 160.0), (160.0, 160.0)] // cell origins in map pixels
        for (cell, source) in sources.enumerated() {
            var worst = 0.0, brightest = 0.0
            for v in [0.2, 0.35, 0.5, 0.65, 0.8] {
                for u in [0.2, 0.35, 0.5, 0.65, 0.8] {
                    let got = collage.stops(x: origins[cell].0 + u * 160, y: origins[cell].1 + v * 160)
                    guard let source else {
                        worst = max(worst, abs(got))
                        continue
                    }
                    // 4:3 source centre-cropped to a square: x from 1/8 to 7/8 of its width
                    let want = source.stops(x: (0.125 + 0.75 * u) * Double(source.width), y: v * Double(source.height))
                    worst = max(worst, abs(got - want))
                    brightest = max(brightest, want)
                }
            }
            print("collage HDR cell \(cell): worst difference \(String(format: "%.3f", worst)) stops, brightest \(String(format: "%.2f", brightest))")
            if source == nil {
                #expect(worst < 0.05, "SDR cell \(cell) carries gain: \(worst) stops")
            } else {
                #expect(brightest > 0.5, "cell \(cell): the sampled points hold no highlight to compare")
                #expect(worst < 0.12, "cell \(cell): gain differs from its source by \(worst) stops")
            }
        }
    }

    @Test("Apple-only HDR cells: the collage also carries Apple's HDRGainMap form, read back as Apple's with the cells' headroom")
    func appleCellsKeepAppleForm() throws {
        let hdr = try HDRSampleFolder(width: 640, height: 480, seed: 12)
        let sdr = try SampleFolder(count: 3, width: 640, height: 480)
        let ctx = try Context()
        let out = hdr.file("apple.jpg")
        var (status, report, err) = grid(ctx, [sdr.photos[0], hdr.heic, sdr.photos[1], sdr.photos[2]], out)
        defer { sy_collage_report_free(&report) }
        try #require(status == SY_OK, "\(message(err))")
        #expect(report.gain_map_forms & UInt32(SY_GAINMAP_FORM_APPLE.rawValue) != 0)
        let collage = try DecodedGainMap(ctx, out)
        #expect(collage.info.kind == SY_GAINMAP_APPLE_JPEG && abs(collage.info.apple_headroom - 8) < 0.01,
                "kind \(collage.info.kind), headroom \(collage.info.apple_headroom)")
        let source = try DecodedGainMap(ctx, hdr.heic)
        let got = collage.stops(x: 160 + 80, y: 80), want = source.stops(x: 0.5 * Double(source.width), y: 0.5 * Double(source.height))
        #expect(abs(got - want) < 0.12, "centre: \(got) vs source \(want) stops")
        #expect(abs(collage.stops(x: 80, y: 240)) < 0.05, "an SDR cell carries gain")

        if ExternalTools.installed("exiftool") { // Ultra HDR XMP and the MPF index, as outside readers see them
            let tags = try ExternalTools.check("exiftool", ["-a", "-G1", "-ee", "-MPImageType", "-XMP-hdrgm:Version",
                                                            "-XMP-hdrgm:GainMapMax", "-XMP-HDRGainMap:all", out])
            #expect(tags.contains("MP Image Type") && tags.contains("Gain Map Max") && tags.contains("HDR Gain Map Version"),
                    "exiftool: \(tags)")
        } else {
            print("skipped: exiftool not installed")
        }
    }

    @Test("E6: a PNG collage of an HDR photo is refused without consent (nothing written), asks the hook, or drops with allow_sdr")
    func pngAsksFirst() throws {
        let hdr = try HDRSampleFolder(width: 320, height: 240, seed: 13)
        let sdr = try SampleFolder(count: 1, width: 320, height: 240)
        let ctx = try Context()
        let out = hdr.file("grid.png")
        let inputs = [sdr.photos[0], hdr.jpeg]
        var (status, report, err) = grid(ctx, inputs, out, format: SY_STILL_PNG)
        #expect(status == SY_E_UNSUPPORTED && message(err).contains(hdr.jpeg) && message(err).contains("allow_sdr"),
                "\(status): \(message(err))")
        #expect(!FileManager.default.fileExists(atPath: out))
        sy_collage_report_free(&report)

        let no = HookCounter(answer: false)
        (status, report, err) = grid(ctx, inputs, out, format: SY_STILL_PNG, hook: no)
        #expect(status == SY_E_UNSUPPORTED && no.calls == 1 && no.reasons == [SY_HDR_LOSS_UNSUPPORTED_TARGET])
        #expect(!FileManager.default.fileExists(atPath: out))
        sy_collage_report_free(&report)

        (status, report, err) = grid(ctx, inputs, out, format: SY_STILL_PNG, allowSDR: true)
        defer { sy_collage_report_free(&report) }
        #expect(status == SY_OK, "\(message(err))")
        #expect(report.hdr == SY_HDR_DROPPED_WITH_CONSENT && cellStates(report) == [0, 2] && report.gain_map_forms == 0)
        let detail = withUnsafeBytes(of: report.hdr_detail) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        #expect(detail.contains("PNG"), "detail \(detail)")
    }

    @Test("a real iPhone 15 Plus HEIC (gain map + ISO tmap) in a collage keeps HDR: the cell's centre gain is its source's")
    func realIPhoneKeepsHDR() throws {
        let real = "/work/shared/corpus/real/iphone15plus_IMG_3853.HEIC"
        guard FileManager.default.fileExists(atPath: real) else {
            print("skipped: \(real) is not here")
            return
        }
        let sdr = try SampleFolder(count: 1, width: 640, height: 480)
        let ctx = try Context()
        let out = sdr.file("real.jpg")
        var options = sy_collage_options()
        sy_collage_options_init(&options, SY_LAYOUT_LONG)
        var report = sy_collage_report()
        var err = sy_error()
        let status = render(ctx, [real, sdr.photos[0]], &options, out, &report, &err)
        defer { sy_collage_report_free(&report) }
        try #require(status == SY_OK, "\(message(err))")
        #expect(report.hdr == SY_HDR_KEPT && cellStates(report) == [1, 0])
        let collage = try DecodedGainMap(ctx, out), source = try DecodedGainMap(ctx, real)
        #expect(collage.info.kind == SY_GAINMAP_APPLE_JPEG)
        // long layout: the photo fills the width; its centre is the source's centre (upright either way)
        var probe = sy_image_info()
        try #require(sy_image_probe(ctx.raw, real, &probe, &err) == SY_OK)
        let turned = probe.orientation >= 5
        let aspect = turned ? Double(probe.width) / Double(probe.height) : Double(probe.height) / Double(probe.width)
        let d = Double(report.width) / Double(collage.width), cellHeight = Double(report.width) * aspect
        let got = collage.stops(x: Double(report.width) / 2 / d, y: cellHeight / 2 / d)
        let want = source.stops(x: Double(source.width) / 2, y: Double(source.height) / 2)
        print("collage HDR real iPhone: centre \(got) vs source \(want) stops, map \(collage.width)x\(collage.height), engine peak \(report.engine_peak_bytes)")
        #expect(abs(got - want) < 0.15, "centre: \(got) vs source \(want) stops")
    }

    /// Before, the moving collage wrote its still without any gain map: the iPhone photo's HDR was silently lost.
    @Test("SPEC E6, issue 17: a moving collage of the real iPhone Live pair keeps HDR in its still (JPEG and HEIC); the pair still verifies",
          arguments: [SY_STILL_JPEG, SY_STILL_HEIC])
    func movingKeepsHDR(_ format: sy_still_format) throws {
        let real = "/work/shared/corpus/real/iphone15plus_IMG_3853"
        guard FileManager.default.fileExists(atPath: real + ".HEIC") else {
            print("skipped: \(real).HEIC is not here")
            return
        }
        let dir = try SampleFolder(count: 1, width: 64, height: 48)
        let ctx = try Context()
        var options = sy_motion_options()
        sy_motion_options_init(&options)
        options.layout = { var l = sy_collage_options(); sy_collage_options_init(&l, SY_LAYOUT_LONG); l.width = 480; return l }()
        options.still_format = format
        options.preset = UnsafePointer(strdup("ultrafast"))
        defer { free(UnsafeMutablePointer(mutating: options.preset)) }
        let still = dir.file(format == SY_STILL_HEIC ? "moving.heic" : "moving.jpg"), movie = dir.file("moving.mov")
        var report = sy_motion_report()
        var err = sy_error()
        let status = (real + ".HEIC").withCString { s in
            (real + ".MOV").withCString { m in
                var input = sy_motion_input(still: s, movie: m)
                return sy_motion_export(ctx.raw, &input, 1, &options, still, movie, &report, &err)
            }
        }
        try #require(status == SY_OK, "\(message(err))")
        #expect(report.delivered == SY_MOTION_TIER_LIVE && report.hdr == SY_HDR_KEPT && report.display_p3 == 1)
        let collage = try DecodedGainMap(ctx, still), source = try DecodedGainMap(ctx, real + ".HEIC")
        // one long cell: the photo fills the canvas, centre to centre
        let got = collage.stops(x: Double(collage.width) / 2, y: Double(collage.height) / 2)
        let want = source.stops(x: Double(source.width) / 2, y: Double(source.height) / 2)
        #expect(abs(got - want) < 0.15, "centre: \(got) vs source \(want) stops")
        var verdict = sy_live_verdict()
        try #require(sy_live_verify(ctx.raw, still, movie, &verdict, &err) == SY_OK)
        #expect(verdict.ok == 1, "\(withUnsafeBytes(of: verdict.reason) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })")
    }
}
