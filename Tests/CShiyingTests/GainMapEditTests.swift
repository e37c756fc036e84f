// Issue 7 (SPEC E6): an edit keeps the gain map in lockstep with the base —
// a 90° turn + crop gives the source map through the same geometry (PSNR
// >= 35 dB at the map's resolution) and the same HDR reconstruction (PSNR >=
// 30 dB in linear light) — and the SDR-loss hook is asked only when the map
// cannot be kept: never for crop/rotate, once for PNG, once for a corrupt map;
// a declined or missing hook writes nothing and leaves an existing file alone.
import CShiying
import Foundation
import Testing

@Suite("Gain map edits (issue 7, SPEC E6)")
struct GainMapEditTests {
    @Test("E6: 90° turn + crop — output map = source map through the same geometry (>= 35 dB), colour left out of the map",
          arguments: ["jpeg", "heic"])
    func mapFollowsGeometry(format: String) throws {
        let folder = try HDRSampleFolder()
        let ctx = try Context()
        let input = format == "jpeg" ? folder.jpeg : folder.heic
        let output = folder.file("edited.\(format)")
        var recipe = turnAndCropRecipe(colour: true)
        let counter = HookCounter(answer: false)
        let r = gainMapEdit(ctx, input, output, &recipe, format: format == "jpeg" ? SY_STILL_JPEG : SY_STILL_HEIC,
                            hook: counter)
        #expect(r.status == SY_OK, "\(message(r.error))")
        #expect(r.report.outcome == SY_HDR_KEPT && counter.calls == 0 && r.report.hook_calls == 0)
        let source = try DecodedGainMap(ctx, input)
        let edited = try DecodedGainMap(ctx, output)
        #expect(edited.info.kind == source.info.kind)
        let expected = source.cropTurned(x: 0.1, y: 0.05, w: 0.7, h: 0.8, turns: 1)
        #expect(edited.width == expected.0 && edited.height == expected.1, "map \(edited.width)x\(edited.height)")
        #expect(edited.width == 192 && edited.height == 224)
        let db = psnr8(edited.pixels, expected.2)
        print("gain map after turn + crop (\(format)): \(String(format: "%.1f", db)) dB")
        #expect(db >= 35, "\(db) dB")
        // Negative control: the same map without the turn's orientation is far off.
        let wrong = source.cropTurned(x: 0.1, y: 0.05, w: 0.7, h: 0.8, turns: 1, flip: true)
        #expect(psnr8(edited.pixels, wrong.2) < 30)
        // The base is the full-size render: the 448 x 384 crop of 640 x 480, turned.
        #expect(r.report.edit.width == 384 && r.report.edit.height == 448)
    }

    @Test("E6: 90° turn + crop — HDR reconstructed from the output matches the source's with the same geometry (>= 30 dB linear)",
          arguments: ["jpeg", "heic"])
    func hdrReconstructionMatches(format: String) throws {
        let folder = try HDRSampleFolder()
        let ctx = try Context()
        let input = format == "jpeg" ? folder.jpeg : folder.heic
        let output = folder.file("edited.\(format)")
        var recipe = turnAndCropRecipe(colour: false)
        let r = gainMapEdit(ctx, input, output, &recipe, format: format == "jpeg" ? SY_STILL_JPEG : SY_STILL_HEIC, hook: nil)
        #expect(r.status == SY_OK, "\(message(r.error))")
        var identity = sy_recipe()
        sy_recipe_init(&identity)
        let outBase = try renderUpright(ctx, output, &identity)
        let outMap = try DecodedGainMap(ctx, output)
        let hdrOut = try reconstruct(outMap.info, base: outBase, map: (outMap.width, outMap.height, outMap.pixels))
        let srcBase = try renderUpright(ctx, input, &recipe)
        let srcMap = try DecodedGainMap(ctx, input)
        let srcGeo = srcMap.cropTurned(x: 0.1, y: 0.05, w: 0.7, h: 0.8, turns: 1)
        #expect(srcBase.0 == outBase.0 && srcBase.1 == outBase.1)
        let hdrSrc = try reconstruct(srcMap.info, base: srcBase, map: srcGeo)
        #expect((hdrSrc.max() ?? 0) > 4, "the scene has highlights well above SDR white")
        let db = psnrLinear(hdrOut, hdrSrc)
        print("HDR reconstruction after turn + crop (\(format)): \(String(format: "%.1f", db)) dB")
        #expect(db >= 30, "\(db) dB")
        // Negative control: the output base with a mis-oriented map does not match.
        let wrong = srcMap.cropTurned(x: 0.1, y: 0.05, w: 0.7, h: 0.8, turns: 1, flip: true)
        let hdrWrong = try reconstruct(srcMap.info, base: outBase, map: wrong)
        #expect(psnrLinear(hdrWrong, hdrSrc) < db - 3)
    }

    @Test("E6: straighten 7° + flip + 3 turns (not whole pixels) — output map = source map through sy_render's geometry (>= 35 dB)",
          arguments: ["jpeg", "heic"])
    func straightenKeepsAlignment(format: String) throws {
        let folder = try HDRSampleFolder()
        let ctx = try Context()
        let input = format == "jpeg" ? folder.jpeg : folder.heic
        let output = folder.file("s.\(format)")
        var recipe = turnAndCropRecipe(colour: true)
        recipe.straighten = 7
        recipe.quarter_turns = 3
        recipe.flip_horizontal = 1
        let r = gainMapEdit(ctx, input, output, &recipe, format: format == "jpeg" ? SY_STILL_JPEG : SY_STILL_HEIC, hook: nil)
        #expect(r.status == SY_OK && r.report.outcome == SY_HDR_KEPT, "\(message(r.error))")
        let source = try DecodedGainMap(ctx, input), edited = try DecodedGainMap(ctx, output)
        // The reference: the source map through the public renderer with the geometry-only recipe.
        func rendered(_ straighten: Double) throws -> [UInt8] {
            var geo = sy_recipe()
            var r2 = recipe
            r2.straighten = straighten
            sy_recipe_geometry_only(&r2, 0, &geo)
            var rgb = [UInt8](repeating: 0, count: source.width * source.height * 3)
            for i in 0..<(source.width * source.height) { rgb[3 * i] = source.pixels[i]; rgb[3 * i + 1] = source.pixels[i]; rgb[3 * i + 2] = source.pixels[i] }
            var out = [UInt8](repeating: 0, count: edited.width * edited.height * 3)
            var err = sy_error()
            let st = rgb.withUnsafeBufferPointer { src in
                out.withUnsafeMutableBufferPointer { dst in
                    var px = sy_pixels(data: src.baseAddress, stride: source.width * 3, width: UInt32(source.width),
                                       height: UInt32(source.height))
                    return sy_render(ctx.raw, &geo, &px, UInt32(edited.width), UInt32(edited.height), dst.baseAddress,
                                     edited.width * 3, 1, &err)
                }
            }
            guard st == SY_OK else { throw CTestFailure("sy_render: \(message(err))") }
            return stride(from: 0, to: out.count, by: 3).map { out[$0] }
        }
        let db = psnr8(edited.pixels, try rendered(7))
        print("gain map after straighten 7° + flip + turns (\(format)): \(String(format: "%.1f", db)) dB")
        #expect(db >= 35, "\(db) dB")
        #expect(psnr8(edited.pixels, try rendered(0)) < db - 5, "a map without the straighten must not match as well")
    }

    @Test("E6: EXIF orientation 6 / 8 (set by exiftool, which keeps MPF valid) turns the gain map with the base",
          arguments: [(6, 1), (8, 3)])
    func orientationTurnsTheMap(orientation: Int, turns: Int) throws {
        guard ExternalTools.installed("exiftool") else { return }
        let folder = try HDRSampleFolder(width: 320, height: 240)
        let ctx = try Context()
        let oriented = folder.file("o\(orientation).jpg")
        try ExternalTools.writeFile(oriented, ExternalTools.readFile(folder.jpeg))
        try ExternalTools.check("exiftool", ["-q", "-overwrite_original", "-n", "-Orientation=\(orientation)", oriented])
        var identity = sy_recipe()
        sy_recipe_init(&identity)
        let output = folder.file("out.jpg")
        let r = gainMapEdit(ctx, oriented, output, &identity, format: SY_STILL_JPEG, hook: nil)
        #expect(r.status == SY_OK && r.report.outcome == SY_HDR_KEPT, "\(message(r.error))")
        #expect(r.report.edit.width == 240 && r.report.edit.height == 320)
        let source = try DecodedGainMap(ctx, folder.jpeg), edited = try DecodedGainMap(ctx, output)
        let expected = source.cropTurned(x: 0, y: 0, w: 1, h: 1, turns: turns)
        #expect(edited.width == expected.0 && edited.height == expected.1)
        #expect(psnr8(edited.pixels, expected.2) >= 35)
    }

    @Test("E6: PNG target — the hook is asked once (unsupportedTarget); declined: nothing written, existing file untouched")
    func pngAsksOnceAndDeclineWritesNothing() throws {
        let folder = try HDRSampleFolder(width: 256, height: 192)
        let ctx = try Context()
        var recipe = turnAndCropRecipe(colour: false)
        let output = folder.file("out.png")
        let old: [UInt8] = Array("an existing file that must survive".utf8)
        try ExternalTools.writeFile(output, old)
        let no = HookCounter(answer: false)
        let declined = gainMapEdit(ctx, folder.jpeg, output, &recipe, format: SY_STILL_PNG, hook: no)
        #expect(declined.status == SY_E_CANCELLED && declined.report.outcome == SY_HDR_REFUSED)
        #expect(no.calls == 1 && no.reasons == [SY_HDR_LOSS_UNSUPPORTED_TARGET])
        #expect(message(declined.error).contains("nothing was written"))
        #expect(ExternalTools.readFile(output) == old)
        let none = gainMapEdit(ctx, folder.heic, output, &recipe, format: SY_STILL_PNG, hook: nil)
        #expect(none.status == SY_E_CANCELLED && none.report.outcome == SY_HDR_REFUSED)
        #expect(ExternalTools.readFile(output) == old)
        #expect(folder.contentsOfFolder().filter { $0.hasPrefix(".") || $0.contains("tmp") }.isEmpty)
        let yes = HookCounter(answer: true)
        let consented = gainMapEdit(ctx, folder.jpeg, output, &recipe, format: SY_STILL_PNG, hook: yes)
        #expect(consented.status == SY_OK && consented.report.outcome == SY_HDR_DROPPED_WITH_CONSENT)
        #expect(yes.calls == 1 && consented.report.reason == SY_HDR_LOSS_UNSUPPORTED_TARGET)
        #expect(ExternalTools.readFile(output).prefix(4) == [0x89, 0x50, 0x4E, 0x47])
    }

    @Test("E6: the plain C save (sy_edit, sy_convert) refuses a gain-map photo unless SY_EDIT_ALLOW_SDR records consent")
    func plainSaveRefusesSilentSDR() throws {
        let folder = try HDRSampleFolder(width: 256, height: 192)
        let ctx = try Context()
        var recipe = turnAndCropRecipe(colour: false)
        for input in [folder.jpeg, folder.heic] {
            let output = folder.file("plain.jpg")
            var opts = sy_edit_options()
            sy_edit_options_init(&opts)
            var err = sy_error()
            #expect(sy_edit(ctx.raw, input, output, &recipe, &opts, nil, &err) == SY_E_UNSUPPORTED)
            #expect(message(err).contains("gain map") && message(err).contains("nothing was written"))
            #expect(!FileManager.default.fileExists(atPath: output))
            var conv = sy_convert_options()
            sy_convert_options_init(&conv)
            var convReport = sy_convert_report()
            #expect(sy_convert(ctx.raw, input, output, &conv, &convReport, &err) == SY_E_UNSUPPORTED, "\(message(err))")
            #expect(!FileManager.default.fileExists(atPath: output))
            opts.flags = UInt32(SY_EDIT_ALLOW_SDR)
            #expect(sy_edit(ctx.raw, input, output, &recipe, &opts, nil, &err) == SY_OK, "\(message(err))")
            var info = sy_gainmap_info()
            #expect(sy_gainmap_probe(ctx.raw, output, &info, &err) == SY_OK && info.kind == SY_GAINMAP_NONE)
            unlink(output)
        }
    }

    @Test("E6: a corrupt gain map (JPEG entropy data, HEIC hvcC) — the hook is asked once (unreadableGainMap); consent writes SDR without the Ultra HDR XMP")
    func corruptMapAsksOnce() throws {
        let folder = try HDRSampleFolder(width: 256, height: 192)
        let ctx = try Context()
        var info = sy_gainmap_info()
        var err = sy_error()
        #expect(sy_gainmap_probe(ctx.raw, folder.jpeg, &info, &err) == SY_OK)
        var bytes = ExternalTools.readFile(folder.jpeg)
        // EOI halfway through the map's entropy data (after its SOS; its XMP and ISO block come first)
        let mapStart = Int(info.map_offset), mapEnd = Int(info.map_offset + info.map_length)
        let sos = try #require((mapStart..<mapEnd - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
        let mid = (sos + mapEnd) / 2
        bytes.replaceSubrange(mid..<mid + 2, with: [0xFF, 0xD9])
        let broken = folder.file("broken.jpg")
        try ExternalTools.writeFile(broken, bytes)
        var recipe = turnAndCropRecipe(colour: false)
        let output = folder.file("out.jpg")
        let no = HookCounter(answer: false)
        let declined = gainMapEdit(ctx, broken, output, &recipe, format: SY_STILL_JPEG, hook: no)
        #expect(declined.status == SY_E_CANCELLED && no.calls == 1 && no.reasons == [SY_HDR_LOSS_UNREADABLE_GAIN_MAP])
        #expect(!FileManager.default.fileExists(atPath: output))
        let yes = HookCounter(answer: true)
        let consented = gainMapEdit(ctx, broken, output, &recipe, format: SY_STILL_JPEG, hook: yes)
        #expect(consented.status == SY_OK && yes.calls == 1 && consented.report.outcome == SY_HDR_DROPPED_WITH_CONSENT)
        var after = sy_gainmap_info()
        #expect(sy_gainmap_probe(ctx.raw, output, &after, &err) == SY_OK && after.kind == SY_GAINMAP_NONE,
                "an SDR result must not claim a gain map")
        // HEIC: the auxiliary map's own hvcC (the second one; HEVC RExt profile 4 for 4:0:0) is trashed.
        var heic = ExternalTools.readFile(folder.heic)
        let tag = Array("hvcC".utf8)
        let hits = (0..<(heic.count - 4)).filter { Array(heic[$0..<$0 + 4]) == tag }
        #expect(hits.count >= 2)
        let at = hits[1]
        #expect(heic[at + 5] & 0x1F == 4, "the second hvcC is the 4:0:0 gain map's")
        let size = Int(heic[at - 4]) << 24 | Int(heic[at - 3]) << 16 | Int(heic[at - 2]) << 8 | Int(heic[at - 1])
        for k in (at + 4 + 23)..<(at - 4 + size) { heic[k] = 0x5A }
        let badHeic = folder.file("broken.heic")
        try ExternalTools.writeFile(badHeic, heic)
        let heicHook = HookCounter(answer: false)
        let heicOut = folder.file("out.heic")
        let r = gainMapEdit(ctx, badHeic, heicOut, &recipe, format: SY_STILL_HEIC, hook: heicHook)
        #expect(r.status == SY_E_CANCELLED && heicHook.calls == 1 && heicHook.reasons == [SY_HDR_LOSS_UNREADABLE_GAIN_MAP])
        #expect(!FileManager.default.fileExists(atPath: heicOut))
        #expect(ctx.stats.current_bytes == 0)
    }

    @Test("E6: an SDR photo edits as before with no hook call; the real Apple JPEG keeps its map through a turn",
          .enabled(if: FileManager.default.fileExists(atPath: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
              .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
              .appendingPathComponent("shared/corpus/gainmap/apple_gainmap_new.jpg").path)))
    func sdrAndAppleCorpus() throws {
        let folder = try HDRSampleFolder(width: 128, height: 96)
        let ctx = try Context()
        var recipe = turnAndCropRecipe(colour: true)
        let sdr = try SampleFolder(count: 1)
        let counter = HookCounter(answer: false)
        let plain = gainMapEdit(ctx, sdr.photos[0], folder.file("sdr.png"), &recipe, format: SY_STILL_PNG, hook: counter)
        #expect(plain.status == SY_OK && plain.report.outcome == SY_HDR_NOT_HDR && counter.calls == 0)
        let apple = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("shared/corpus/gainmap/apple_gainmap_new.jpg").path
        for (name, format) in [("apple.jpg", SY_STILL_JPEG), ("apple.heic", SY_STILL_HEIC)] {
            let out = folder.file(name)
            let r = gainMapEdit(ctx, apple, out, &recipe, format: format, hook: counter)
            #expect(r.status == SY_OK && r.report.outcome == SY_HDR_KEPT, "\(message(r.error))")
            let source = try DecodedGainMap(ctx, apple), edited = try DecodedGainMap(ctx, out)
            #expect(edited.info.apple_headroom == source.info.apple_headroom)
            let expected = source.cropTurned(x: 0.1, y: 0.05, w: 0.7, h: 0.8, turns: 1)
            #expect(edited.width == expected.0 && edited.height == expected.1)
            #expect(psnr8(edited.pixels, expected.2) >= 35)
        }
        #expect(counter.calls == 0)
    }
}

extension HDRSampleFolder {
    func contentsOfFolder() -> [String] { (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] }
}
