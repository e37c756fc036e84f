// HDR AVIFs: an AV1 still whose nclx says PQ or HLG (10-bit BT.2020, as libavif, cameras' AVIF modes and
// browsers' HDR exports write them). Read through libheif's fallback, such a file was shown as if its code values
// were SDR (flat and grey: 55 levels off the mapping for the graded PQ still, 20 for the HLG one), untagged, its
// HDR lost. Now it is read as an HDR-signal HEIF is: the SDR Display P3 rendition of the documented mapping
// (CSources/core/base/hdr_tone.c) from libheif's 10-bit samples, and a gain map derived from the same signal
// (kind "hdr-signal"), so JPEG and HEIC saves and collages keep its HDR. An 8-bit SDR AVIF stays libheif's own
// rendition, pixel for pixel. Fixtures: scripts/hdr_still.py avif (the scene of scripts/hdr_clip.py coded by
// libaom, the container written by the script), checked by libavif (imagecodecs) before the engine is judged.
import Foundation
@testable import Shiying
import Testing

extension HDROracle {
    /// A 640x360 HDR AVIF of the scene's frame 0; `options` as `hdr_still.py avif` takes them.
    static func avif(_ transfer: String, _ options: [String], in dir: TempDir) async throws -> String {
        let out = dir.file("still_\(transfer).avif")
        let run = try await runProcess("/usr/bin/env", ["python3", stillScript, "avif", out, transfer] + options,
                                       timeout: 300)
        guard run.succeeded else { throw TestFailure("hdr_still.py avif: \(run)") }
        guard ultraHDR else { return out } // imagecodecs (libavif) checks the fixture
        let grade = options.firstIndex(of: "--peak").map { Array(options[$0...($0 + 1)]) } ?? []
        let check = try await runProcess("/usr/bin/env", ["python3", stillScript, "verify", out, transfer] + grade,
                                         timeout: 120)
        let line = try #require(check.lastLine, "\(check)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect((json["mean"] as? Double ?? 99) <= 1.5 && json["bit_depth"] as? Int == 10,
                "libavif reads the fixture as the scene's signal: \(line)")
        return out
    }

    static let av1 = commandSucceeds(["sh", "-c", "ffmpeg -hide_banner -encoders | grep -q libaom-av1"])
}

@Suite("HDR AVIFs (PQ, HLG) become SDR Display P3 with their HDR in a gain map (fidelity; SPEC E6)",
       .enabled(if: HDROracle.available && HDROracle.av1, "numpy, ffmpeg with zscale and libaom needed"))
struct HDRAvifTests {
    @Test("saved as JPEG: the documented SDR rendition, tagged Display P3, its HDR in an Ultra HDR gain map",
          arguments: [["hlg"], ["pq", "--peak", "4000"], ["pq", "--tile", "256"]])
    func toJPEG(_ args: [String]) async throws {
        let dir = try TempDir("hdr-avif")
        defer { dir.remove() }
        let transfer = args[0], grade = args.contains("--peak") ? ["--peak", "4000"] : []
        let avif = try await HDROracle.avif(transfer, Array(args.dropFirst()), in: dir)
        let out = try await HDROracle.expectSignalStillConverts(avif, graded: !grade.isEmpty, in: dir)
        let check = try await runProcess("/usr/bin/env", ["python3", HDROracle.script, "check", out, transfer, "0"] + grade,
                                         timeout: 300)
        let checked = try JSONDecoder().decode(HDROracle.Check.self, from: Data((check.lastLine ?? "").utf8))
        #expect(checked.mean <= 1.5 && checked.max <= 16, "vs the mapped scene light: \(checked)")
        #expect(checked.hlg_as_sdr_mean >= 10, "the signal must not look the same shown as SDR: \(checked)")
        let profile = try await runTool("exiftool", ["-s3", "-ProfileDescription", out]).stdout
        #expect(profile.contains("Display P3"), "\(profile)")
        guard HDROracle.ultraHDR else { return }
        let light = try await runProcess("/usr/bin/env", ["python3", HDROracle.script, "hdr", out, transfer, "0"] + grade,
                                         timeout: 300)
        let l = try JSONDecoder().decode(HDROracle.Light.self, from: Data((light.lastLine ?? "").utf8))
        #expect(abs(l.median) <= 0.03 && l.p5 >= -0.08 && l.p95 <= 0.08, "the JPEG's HDR: \(l)")
        #expect(abs(l.highlight_median ?? 1) <= 0.05 && l.peak >= (grade.isEmpty ? 3.5 : 16), "the lamp: \(l)")
    }

    @Test("an HLG AVIF: probe and hdr info say so, a HEIC save and a collage keep its HDR")
    func heicAndCollage() async throws {
        let dir = try TempDir("hdr-avif-keep")
        defer { dir.remove() }
        let avif = try await HDROracle.avif("hlg", [], in: dir)
        let info = try await CLI.run(["hdr", "info", avif, "--json"])
        #expect(info.succeeded && info.stdout.contains("hdr-signal"), "\(info)")
        let heic = dir.file("out.heic")
        let saved = try await CLI.run(["convert", "-o", heic, avif, "--json"])
        #expect(saved.succeeded && saved.stdout.contains("\"hdr-gain-map\""), "\(saved)")
        let kept = try GainMapInfo.probe(heic)
        #expect(kept.hasGainMap && kept.kind == "iso-heic" && kept.baseWidth == 640, "\(kept)")
        // Through our HEIC and back out as JPEG: the scene's display light, decoded by libultrahdr.
        let jpeg = dir.file("again.jpg")
        #expect(try await CLI.run(["convert", "-o", jpeg, heic]).succeeded)
        let check = try await HDROracle.check(jpeg, "hlg", frame: 0)
        #expect(check.mean <= 2.5, "after a HEIC save, vs the mapped scene light: \(check)")
        try await HDROracle.expectLight(jpeg, "hlg", frame: 0, "the AVIF's HDR after a HEIC save")

        try await HDROracle.expectLongImageKeepsHDRCell(avif, in: dir)
    }

    // Damaged HDR AVIFs on the new path: a clear error naming the file and the reason, nothing written — not a
    // request for consent to drop an HDR the picture never had (a scrambled AV1 picture was "the HDR gain map
    // cannot be read" before) — and a grade that says nonsense is taken within the tone mapping's bounds.
    @Test("damaged HDR AVIFs: a clear error naming the file, nothing written; an absurd grade is bounded")
    func hostile() async throws {
        let dir = try TempDir("hdr-avif-hostile")
        defer { dir.remove() }
        let avif = try await HDROracle.avif("pq", ["--peak", "4000"], in: dir)
        let made = try await runProcess("/usr/bin/env", ["python3", "-c", """
            import struct, sys
            src, out = open(sys.argv[1], 'rb').read(), sys.argv[2]
            mdat = src.rfind(b'mdat') - 4
            size = struct.unpack('>I', src[mdat:mdat + 4])[0]
            def save(name, data): open(out + name, 'wb').write(bytes(data))
            save('cut.avif', src[:mdat + 8 + (size - 8) // 2])
            b = bytearray(src)
            for k in range(mdat + 48, mdat + size, 3): b[k] ^= 0x5A
            save('scrambled.avif', b)
            b = bytearray(src); k = src.find(b'ispe'); struct.pack_into('>II', b, k + 8, 65535, 65535); save('huge.avif', b)
            b = bytearray(src); k = src.find(b'clli'); struct.pack_into('>HH', b, k + 4, 65535, 65535)
            k = src.find(b'mdcv'); struct.pack_into('>II', b, k + 20, 0, 0); save('grade.avif', b)
            """, avif, dir.file("h-")])
        #expect(made.succeeded, "\(made)")
        for (name, reason) in [("cut.avif", "outside of file"), ("scrambled.avif", "decode failed"),
                               ("huge.avif", "exceeds the input limit")] {
            let out = dir.file("h-" + name + ".jpg")
            let run = try await CLI.run(["convert", "-o", out, dir.file("h-" + name)])
            #expect(run.exitedNormally && run.status == 1, "\(name): \(run)")
            #expect(run.stderr.contains(name) && run.stderr.contains(reason) && !run.stderr.contains("--allow-sdr"),
                    "\(name): \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out), "\(name): nothing written")
        }
        // fuzz_gainmap's finding: an AV1 picture of 62x2 under a 64x48 ispe gave a 16x1 map (the probe said 16x12)
        // and a 64x48 save of 62x2 rows; now the picture's size is checked against the header's.
        let small = Paths.packageRoot.appendingPathComponent("Tests/Fuzz/regressions/gainmap/avif-frame-smaller-than-ispe.avif").path
        let cut = try await CLI.run(["convert", "-o", dir.file("small.jpg"), small, "--allow-sdr"])
        #expect(cut.exitedNormally && cut.status == 1 && cut.stderr.contains("decodes as 62x2, its header says 64x48"),
                "\(cut)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("small.jpg")))
        let graded = try GainMapInfo.probe(dir.file("h-grade.avif"))
        #expect(graded.kind == "hdr-signal" && abs((graded.headroom ?? 0) - 10000.0 / 203) < 0.01, "\(graded)")
        #expect(try await CLI.run(["convert", "-o", dir.file("grade.jpg"), dir.file("h-grade.avif")]).succeeded)
    }

    static let libheifTools = commandSucceeds(["sh", "-c", "command -v heif-enc && command -v heif-convert"])

    @Test("an 8-bit SDR AVIF stays libheif's own rendition, pixel for pixel, with no gain map",
          .enabled(if: libheifTools, "heif-enc / heif-convert (libheif-examples) needed"))
    func sdrUnchanged() async throws {
        let dir = try TempDir("sdr-avif")
        defer { dir.remove() }
        let samples = try await CLI.run(["sample-photos", "--count", "1", "--seed", "3", "--width", "320",
                                         "--height", "240", "-o", dir.file("sdr")])
        #expect(samples.succeeded, "\(samples)")
        let avif = dir.file("sdr.avif")
        let made = try await runTool("heif-enc", ["-A", "-q", "80", "-o", avif, dir.file("sdr/sample-0001.jpg")])
        #expect(made.succeeded, "\(made)")
        let info = try GainMapInfo.probe(avif)
        #expect(!info.hasGainMap && info.kind == "none", "\(info)")
        let ours = dir.file("ours.png"), theirs = dir.file("libheif.png")
        #expect(try await CLI.run(["convert", "-o", ours, avif]).succeeded)
        #expect(try await runTool("heif-convert", [avif, theirs]).succeeded)
        let diff = try await runProcess("/usr/bin/env", ["python3", "-c", """
            from PIL import Image; import numpy as np, sys
            a, b = (np.asarray(Image.open(p).convert('RGB')).astype(int) for p in sys.argv[1:3])
            print(a.shape == b.shape and int(np.abs(a - b).max()), float(a.std()))
            """, ours, theirs])
        #expect(diff.stdout.hasPrefix("0 "), "our rows are libheif's: \(diff)")
        let profile = try await runTool("exiftool", ["-s3", "-ProfileDescription", ours]).stdout
        #expect(!profile.contains("Display P3"), "an SDR AVIF is not re-tagged: \(profile)")
    }
}
