// Issue 7 (SPEC E6) through the Swift facade and the CLI: HDREditor.save
// keeps the gain map with no question for crop/rotate of both formats, asks
// the async onHDRLoss hook exactly once when it cannot (PNG), throws a typed
// error and writes nothing when declined or when there is no hook; `shiying
// hdr info --json` and `shiying edit … --allow-sdr --json` report it.
import Foundation
import Shiying
import ShiyingFixtures
import Testing

/// Counts hook calls across the async boundary.
private actor HookLog {
    var reasons: [HDRLossReason] = []
    func record(_ reason: HDRLossReason) { reasons.append(reason) }
}

private let turnAndCrop = EditRecipe(crop: .init(x: 0.1, y: 0.05, width: 0.7, height: 0.8), quarterTurns: 1)

@Suite("HDR editor (issue 7, SPEC E6)")
struct HDREditorTests {
    @Test("E6: crop + turn of Ultra HDR JPEG and Apple HEIC keeps HDR, the hook is called 0 times")
    func keptWithoutAsking() async throws {
        let dir = try TempDir("hdr-keep")
        defer { dir.remove() }
        let files = try HDRSamplePhotos.write(width: 512, height: 384, to: dir.path)
        let log = HookLog()
        for input in files {
            let ext = (input as NSString).pathExtension
            let out = dir.file("edited.\(ext)")
            let report = try await HDREditor.save(URL(fileURLWithPath: input), recipe: turnAndCrop, to: URL(fileURLWithPath: out)) { reason in
                await log.record(reason)
                return false
            }
            #expect(report.hdr == "kept" && report.hookCalls == 0 && report.hdrReason == nil)
            #expect(report.edit.width == 307 && report.edit.height == 359, "\(report.edit.width)x\(report.edit.height)")
            let info = try GainMapInfo.probe(out)
            let source = try GainMapInfo.probe(input)
            #expect(info.kind == source.kind && info.headroom == source.headroom)
            #expect(info.gainMapWidth == report.gainMapWidth && info.gainMapWidth == 153 && info.gainMapHeight == 179)
        }
        #expect(await log.reasons.isEmpty)
    }

    @Test("E6: PNG asks once (unsupportedTarget): false throws .declined and leaves the old file; true writes SDR")
    func pngAsksOnce() async throws {
        let dir = try TempDir("hdr-png")
        defer { dir.remove() }
        let files = try HDRSamplePhotos.write(width: 256, height: 192, to: dir.path)
        let out = dir.file("out.png")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: out))
        let log = HookLog()
        await #expect(throws: HDRLossError.self) {
            _ = try await HDREditor.save(URL(fileURLWithPath: files[0]), recipe: turnAndCrop, to: URL(fileURLWithPath: out)) { reason in
                await log.record(reason)
                return false
            }
        }
        #expect(await log.reasons == [.unsupportedTarget])
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == Data("keep me".utf8))
        do {
            _ = try await HDREditor.save(URL(fileURLWithPath: files[1]), recipe: turnAndCrop, to: URL(fileURLWithPath: out))
            Issue.record("no hook must refuse")
        } catch let error as HDRLossError {
            #expect(error == .noConsentHook(.unsupportedTarget, detail: error.detailText))
            #expect(error.description.contains("nothing was written"))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == Data("keep me".utf8))
        let report = try await HDREditor.save(URL(fileURLWithPath: files[1]), recipe: turnAndCrop, to: URL(fileURLWithPath: out)) { reason in
            await log.record(reason)
            return true
        }
        #expect(report.hdr == "dropped-with-consent" && report.hdrReason == .unsupportedTarget && report.hookCalls == 1)
        #expect(await log.reasons == [.unsupportedTarget, .unsupportedTarget])
        #expect(try GainMapInfo.probe(out).kind == "none")
    }

    @Test("E6: the old paths are closed — Editor.save and Conversion.convert keep the map or refuse (typed error, nothing written); saveSDR is explicit")
    func editorSaveNeverSilentlySDR() throws {
        let dir = try TempDir("hdr-editor-save")
        defer { dir.remove() }
        let files = try HDRSamplePhotos.write(width: 256, height: 192, to: dir.path)
        for input in files {
            let ext = (input as NSString).pathExtension
            let out = dir.file("saved.\(ext)")
            _ = try Editor.saveBlocking(input, recipe: turnAndCrop, to: out)
            #expect(try GainMapInfo.probe(out).kind == GainMapInfo.probe(input).kind)
        }
        let png = dir.file("saved.png")
        #expect(throws: HDRLossError.self) { _ = try Editor.saveBlocking(files[0], recipe: turnAndCrop, to: png) }
        #expect(!FileManager.default.fileExists(atPath: png))
        // Conversions too: Apple HEIC -> JPEG keeps the map (Apple JPEG form); Ultra HDR -> PNG is refused.
        let converted = dir.file("converted.jpg")
        let conversion = try Conversion.convertBlocking(files[1], to: converted)
        #expect(try conversion.kept.contains("hdr-gain-map") && GainMapInfo.probe(converted).kind == "apple-jpeg")
        // issue 16: the JPEG also carries the Ultra HDR and ISO 21496-1 forms, and says so
        #expect(conversion.kept.suffix(3) == ["apple-gain-map", "ultra-hdr-gain-map", "iso-21496-gain-map"], "\(conversion.kept)")
        #expect(try GainMapInfo.probe(converted).iso21496?.gainMapMax == [3])
        // and Ultra HDR -> HEIC is no longer refused: a 'tmap' item with the hdrgm numbers (no Apple form:
        // Apple's curve cannot say them)
        let heic = dir.file("converted.heic")
        let toHEIC = try Conversion.convertBlocking(files[0], to: heic)
        let heicInfo = try GainMapInfo.probe(heic), source = try GainMapInfo.probe(files[0])
        #expect(toHEIC.kept.suffix(1) == ["iso-21496-gain-map"] && !toHEIC.kept.contains("apple-gain-map")
                && heicInfo.kind == "iso-heic", "\(toHEIC.kept)")
        #expect(heicInfo.iso21496?.gainMapMax == source.gainMapMax && heicInfo.iso21496?.gamma == source.gamma)
        #expect(throws: HDRLossError.self) { _ = try Conversion.convertBlocking(files[0], to: png) }
        #expect(!FileManager.default.fileExists(atPath: png))
        let sdr = dir.file("sdr.jpg")
        let report = try HDREditor.saveSDRBlocking(files[0], recipe: turnAndCrop, to: sdr)
        #expect(report.width > 0 && report.format == .jpeg)
        #expect(try GainMapInfo.probe(sdr).kind == "none")
    }

    @Test("E6: shiying hdr info --json and shiying edit --json report the gain map; PNG without --allow-sdr fails, with it says dropped-with-consent")
    func cli() async throws {
        let dir = try TempDir("hdr-cli")
        defer { dir.remove() }
        let sample = try await CLI.run(["sample-photos", "--hdr", "--width", "320", "--height", "240", "-o", dir.path, "--json"])
        #expect(sample.succeeded, "\(sample)")
        let jpeg = dir.file("hdr-sample-0001.jpg"), heic = dir.file("hdr-sample-0001.heic")
        let info = try await CLI.run(["hdr", "info", jpeg, heic, "--json"])
        #expect(info.succeeded, "\(info)")
        let lines = info.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let maps = lines.compactMap { $0["gain_map"] as? [String: Any] }
        #expect(maps.count == 2 && maps[0]["kind"] as? String == "ultrahdr-jpeg" && maps[1]["kind"] as? String == "apple-heic")
        #expect(maps[0]["gain_map_width"] as? Int == 160 && maps[0]["headroom"] as? Double == 8, "\(info.stdout)")
        #expect(maps[0]["gain_map_max"] as? [Double] == [3] && maps[0]["base_rendition"] as? String == "sdr")
        let recipe = dir.file("r.json")
        try turnAndCrop.jsonData().write(to: URL(fileURLWithPath: recipe))
        let kept = try await CLI.run(["edit", heic, "--recipe", recipe, "-o", dir.file("e.heic"), "--json"])
        #expect(kept.succeeded, "\(kept)")
        let keptJSON = try JSONSerialization.jsonObject(with: Data((kept.lastLine ?? "").utf8)) as? [String: Any]
        #expect(keptJSON?["hdr"] as? String == "kept" && keptJSON?["hdr_hook_calls"] as? Int == 0, "\(kept.stdout)")
        let refused = try await CLI.run(["edit", jpeg, "--recipe", recipe, "-o", dir.file("e.png"), "--json"])
        #expect(!refused.succeeded && refused.stderr.contains("--allow-sdr"), "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("e.png")))
        let allowed = try await CLI.run(["edit", jpeg, "--recipe", recipe, "-o", dir.file("e.png"), "--allow-sdr", "--json"])
        #expect(allowed.succeeded, "\(allowed)")
        let allowedJSON = try JSONSerialization.jsonObject(with: Data((allowed.lastLine ?? "").utf8)) as? [String: Any]
        #expect(allowedJSON?["hdr"] as? String == "dropped-with-consent")
        #expect(allowedJSON?["hdr_reason"] as? String == "unsupportedTarget")
    }
}

extension HDRLossError {
    var detailText: String {
        switch self {
        case .declined(_, let d), .noConsentHook(_, let d): d
        }
    }
}
