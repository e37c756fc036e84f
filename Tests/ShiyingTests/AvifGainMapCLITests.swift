// `shiying hdr info` and `shiying convert` on an AVIF whose ISO 21496-1 gain map is an AV1 item (a 'tmap' on
// [primary av01, hidden map av01], as libavif >= 1.1 and Android's Ultra HDR AVIF write it). Before, the map was
// "not HEVC": info said uninterpretable and convert refused to drop it without --allow-sdr. The fixture: a
// photo-like base, a smooth map and ISO numbers made here, coded by libaom (scripts/avif_gainmap.py); the map's
// fidelity against the same content as a HEIC is GainMapAVIFTests' (CShiyingTests).
import Foundation
@testable import Shiying
import Testing

@Suite("AVIF gain maps through the CLI: hdr info names them, convert keeps them (SPEC E6)",
       .enabled(if: HDROracle.av1, "ffmpeg with libaom-av1 is needed for the fixture"))
struct AvifGainMapCLITests {
    /// A 320x240 AVIF with a 160x120 ISO gain map (min 0, max 3 stops, gamma 1, offsets 1/64).
    static func avif(in dir: TempDir, _ options: [String] = []) async throws -> String {
        let made = try await runProcess("/usr/bin/env", ["python3", "-c", """
            import struct, sys
            import numpy as np
            d = sys.argv[1]
            y, x = np.mgrid[0:240, 0:320]
            rgb = np.stack([40 + x // 2, 40 + y * 2 // 3, 60 + ((x // 32 + y // 32) % 2) * 100], -1).astype(np.uint8)
            open(d + '/base.ppm', 'wb').write(b'P6\\n320 240\\n255\\n' + rgb.tobytes())
            my, mx = np.mgrid[0:120, 0:160]
            m = (127 + 120 * np.sin(mx / 25.0) * np.cos(my / 19.0)).astype(np.uint8)
            open(d + '/map.pgm', 'wb').write(b'P5\\n160 120\\n255\\n' + m.tobytes())
            f = lambda v, s: struct.pack('>iI' if s else '>II', round(v * (1 << 20)), 1 << 20)
            iso = bytes([0, 0, 0, 0, 0x40]) + f(0, 0) + f(3, 0) + f(0, 1) + f(3, 1) + f(1, 0) + f(1 / 64, 1) + f(1 / 64, 1)
            open(d + '/tmap.bin', 'wb').write(b'\\0' + iso)
            """, dir.path])
        guard made.succeeded else { throw TestFailure("fixture inputs: \(made)") }
        let out = dir.file("gm.avif")
        let script = Paths.packageRoot.appendingPathComponent("scripts/avif_gainmap.py").path
        let run = try await runProcess("/usr/bin/env", ["python3", script, out, dir.file("base.ppm"), dir.file("map.pgm"),
                                                        dir.file("tmap.bin")] + options, timeout: 120)
        guard run.succeeded else { throw TestFailure("avif_gainmap.py: \(run)") }
        return out
    }

    @Test("hdr info says iso-heic with the AV1 map; convert to JPEG and HEIC, an edit and a collage keep it")
    func infoAndConvert() async throws {
        let dir = try TempDir("avif-gainmap")
        defer { dir.remove() }
        let avif = try await Self.avif(in: dir)
        let info = try await CLI.run(["hdr", "info", avif, "--json"])
        #expect(info.succeeded && info.stdout.contains("\"kind\":\"iso-heic\"") && info.stdout.contains("AV1 map item")
                && info.stdout.contains("\"gain_map_width\":160"), "\(info)")
        let jpeg = dir.file("out.jpg"), heic = dir.file("out.heic")
        let toJPEG = try await CLI.run(["convert", "-o", jpeg, avif, "--json"])
        #expect(toJPEG.succeeded && toJPEG.stdout.contains("\"ultra-hdr-gain-map\"")
                && toJPEG.stdout.contains("\"dropped\":[]"), "\(toJPEG)")
        let toHEIC = try await CLI.run(["convert", "-o", heic, avif, "--json"])
        #expect(toHEIC.succeeded && toHEIC.stdout.contains("\"iso-21496-gain-map\""), "\(toHEIC)")
        let j = try GainMapInfo.probe(jpeg), h = try GainMapInfo.probe(heic)
        #expect(j.hasGainMap && j.kind == "ultrahdr-jpeg" && j.baseWidth == 320, "\(j)")
        #expect(h.hasGainMap && h.kind == "iso-heic" && h.baseWidth == 320, "\(h)")
        // An edit (crop + quarter turn) and a collage cell keep it too.
        let recipe = dir.file("r.json"), edited = dir.file("edited.heic"), collage = dir.file("collage.jpg")
        try #"{"version":1,"crop":{"x":0.1,"y":0.1,"width":0.5,"height":0.6},"quarterTurns":1}"#
            .write(toFile: recipe, atomically: true, encoding: .utf8)
        let edit = try await CLI.run(["edit", "-o", edited, "--recipe", recipe, avif, "--json"])
        #expect(edit.succeeded && edit.stdout.contains("\"hdr\":\"kept\"") && edit.stdout.contains("\"gain_map_size\":[72,80]"),
                "\(edit)")
        let grid = try await CLI.run(["collage", "--layout", "grid", "-o", collage, avif, jpeg, "--json"])
        #expect(grid.succeeded && grid.stdout.contains("\"gain_map_cells\":[\"kept\",\"kept\"]"), "\(grid)")
    }

    @Test("a cut AV1 map: convert names the file and the reason and writes nothing; --allow-sdr saves SDR")
    func cutMap() async throws {
        let dir = try TempDir("avif-gainmap-cut")
        defer { dir.remove() }
        let avif = try await Self.avif(in: dir, ["--cut-map", "40"])
        let out = dir.file("cut.jpg")
        let run = try await CLI.run(["convert", "-o", out, avif])
        #expect(run.exitedNormally && run.status == 1 && run.stderr.contains("gm.avif")
                && run.stderr.contains("OBU larger than the data"), "\(run)")
        #expect(!FileManager.default.fileExists(atPath: out))
        let sdr = try await CLI.run(["convert", "-o", out, avif, "--allow-sdr"])
        #expect(sdr.succeeded && FileManager.default.fileExists(atPath: out), "\(sdr)")
    }
}
