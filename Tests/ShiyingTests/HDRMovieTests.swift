// HDR movies (HLG, as iPhones record video by default; PQ): their frames become SDR Display P3 wherever the engine
// makes pixels of them — the still of a Live photo, a GIF, a transcode, a moving collage. Before, the signal was
// shown as if it were SDR: grey and pale (block means 20 levels off on the HLG clip, 56 on the PQ one).
// Fixtures: scripts/hdr_clip.py writes 10-bit BT.2020 clips of known scene light; the expected SDR frame is the
// documented mapping (CSources/core/base/hdr_tone.c) of that light, and below the tone curve's knee ffmpeg's zimg
// decodes the same signal independently.
import Foundation
@testable import Shiying
import Testing

enum HDROracle {
    static let available = commandSucceeds(["sh", "-c", "python3 -c 'import numpy, PIL' && "
        + "ffmpeg -hide_banner -filters | grep -q zscale && ffmpeg -hide_banner -encoders | grep -q libx265 && command -v ffprobe"])

    static let script = Paths.packageRoot.appendingPathComponent("scripts/hdr_clip.py").path

    static func clip(_ transfer: String, in dir: TempDir) async throws -> String {
        let out = dir.file("clip_\(transfer).mov")
        let run = try await runProcess("/usr/bin/env", ["python3", script, "make", out, transfer], timeout: 300)
        guard run.succeeded else { throw TestFailure("hdr_clip.py make: \(run)") }
        return out
    }

    struct Check: Decodable, CustomStringConvertible {
        var mean: Double
        var max: Double
        var hlg_as_sdr_mean: Double
        var knee_mean: Double?
        var knee_blocks: Int?
        var description: String {
            "mean \(mean), max \(max), as SDR \(hlg_as_sdr_mean), zimg below the knee \(knee_mean ?? -1) over \(knee_blocks ?? 0) blocks"
        }
    }

    static func check(_ image: String, _ transfer: String, frame: Int, movie: String? = nil,
                      srgb: Bool = false, region: String? = nil) async throws -> Check {
        var args = ["python3", script, "check", image, transfer, String(frame)]
        if let movie { args.append(movie) }
        if let region { args += ["--region", region] }
        if srgb { args.append("--srgb") }
        let run = try await runProcess("/usr/bin/env", args, timeout: 300)
        guard run.succeeded, let line = run.lastLine else { throw TestFailure("hdr_clip.py check: \(run)") }
        return try JSONDecoder().decode(Check.self, from: Data(line.utf8))
    }

    /// libultrahdr through imagecodecs, the outside decoder of the still's gain map.
    static let ultraHDR = commandSucceeds(["python3", "-c", "import imagecodecs; imagecodecs.ultrahdr_decode"])

    struct Light: Decodable, CustomStringConvertible {
        var median, p5, p95, peak: Double
        var highlights: Int
        var highlight_median: Double?
        var description: String {
            "log2 decoded/expected: median \(median), p5 \(p5), p95 \(p95); \(highlights) highlight blocks at \(highlight_median ?? .nan); peak \(peak)"
        }
    }

    static func light(_ image: String, _ transfer: String, frame: Int, region: String? = nil) async throws -> Light {
        let run = try await runProcess("/usr/bin/env", ["python3", script, "hdr", image, transfer, String(frame)]
                                           + (region.map { [$0] } ?? []), timeout: 300)
        guard run.succeeded, let line = run.lastLine else { throw TestFailure("hdr_clip.py hdr: \(run)") }
        return try JSONDecoder().decode(Light.self, from: Data(line.utf8))
    }

    /// The image's gain map, decoded by libultrahdr, gives back the frame's display light (when imagecodecs has it).
    static func expectLight(_ image: String, _ transfer: String, frame: Int, region: String? = nil,
                            _ what: String) async throws {
        guard ultraHDR else { return }
        let l = try await light(image, transfer, frame: frame, region: region)
        #expect(abs(l.median) <= 0.03 && l.p5 >= -0.08 && l.p95 <= 0.08, "\(what): \(l)")
        #expect(l.highlights >= 20 && abs(l.highlight_median ?? 1) <= 0.05 && l.peak >= 3.5, "\(what): \(l)")
    }

    /// SPEC C13: a long image of an SDR photo, the HDR still `hdr` (640x360) and an SDR photo (800x600 each, at
    /// 320 wide: 848 rows) composes the HDR cell's map with the SDR cells': the report says so, and the HDR cell
    /// (rows 240..420) holds the lamp's highlight in the saved gain map while the SDR cells stay at SDR white at
    /// most (libultrahdr's reading of the JPEG).
    static func expectLongImageKeepsHDRCell(_ hdr: String, in dir: TempDir) async throws {
        let samples = try await CLI.run(["sample-photos", "--count", "2", "--seed", "5", "--width", "800",
                                         "--height", "600", "-o", dir.file("sdr")])
        #expect(samples.succeeded, "\(samples)")
        let long = dir.file("long.jpg")
        let run = try await CLI.run(["collage", "--layout", "long", "--width", "320", "-o", long,
                                     dir.file("sdr/sample-0001.jpg"), hdr, dir.file("sdr/sample-0002.jpg"), "--json"])
        #expect(run.succeeded && run.stdout.contains(#""gain_map_cells":["sdr","kept","sdr"]"#), "\(run)")
        guard ultraHDR else { return }
        let peaks = try await runProcess("/usr/bin/env", ["python3", "-c", """
            import imagecodecs, sys
            d = imagecodecs.ultrahdr_decode(open(sys.argv[1], 'rb').read(), dtype='float16').astype(float)[..., :3]
            print(d.shape[0], round(d[:240].max(), 2), round(d[240:420].max(), 2), round(d[420:].max(), 2))
            """, long])
        let v = peaks.stdout.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        #expect(v.count == 4 && v[0] == 848 && v[1] <= 1.1 && v[2] >= 3.5 && v[3] <= 1.1, "\(peaks)")
    }

    /// An HDR-signal still (`path`, the 640x360 scene; graded to 4000 cd/m² or nominal 1000) probes as
    /// `hdr-signal` with its derived 160x90 map and the tone mapping's headroom, and converts to a JPEG that
    /// carries an HDR gain map; returns the JPEG's path (`out.jpg` in `dir`).
    static func expectSignalStillConverts(_ path: String, graded: Bool, in dir: TempDir) async throws -> String {
        let info = try GainMapInfo.probe(path)
        let headroom = (graded ? 4000.0 : 1000.0) / 203
        #expect(info.kind == "hdr-signal" && info.gainMapWidth == 160 && info.gainMapHeight == 90, "\(info)")
        #expect(abs((info.headroom ?? 0) - headroom) < 0.01 && info.baseRendition == "sdr", "\(info)")
        let out = dir.file("out.jpg")
        let run = try await CLI.run(["convert", "-o", out, path, "--json"])
        #expect(run.succeeded && run.stdout.contains("\"hdr-gain-map\""), "\(run)")
        return out
    }

    static func probe(_ movie: String, _ entries: String) async throws -> String {
        try await runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=" + entries,
                                      "-of", "csv=p=0", movie]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

@Suite("HDR movies become SDR Display P3 frames (issue 17: fidelity)", .enabled(if: HDROracle.available, "numpy, ffmpeg with zscale and libx265 needed"))
struct HDRMovieTests {
    @Test("a Live photo made of an HLG or PQ movie: the movie is kept as it is, the still is its frame tone-mapped, tagged Display P3, its HDR in a gain map",
          arguments: ["hlg", "pq"])
    func liveStill(_ transfer: String) async throws {
        let dir = try TempDir("hdr-live-\(transfer)")
        defer { dir.remove() }
        let clip = try await HDROracle.clip(transfer, in: dir)
        let run = try await CLI.run(["convert", "--to", "live", clip, "-o", dir.file("live"), "--json"])
        #expect(run.succeeded, "\(run)")
        let still = dir.file("live/clip_\(transfer)_live.jpg"), movie = dir.file("live/clip_\(transfer)_live.mov")
        let line = try #require(run.lastLine, "\(run)")
        let json = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        let frame = try #require((json?["video"] as? [String: Any])?["still_frame"] as? Int)
        let check = try await HDROracle.check(still, transfer, frame: frame, movie: clip)
        #expect(check.mean <= 1.5 && check.max <= 16, "still vs the mapped scene light: \(check)")
        #expect(try #require(check.knee_mean) <= 1.5 && (check.knee_blocks ?? 0) >= 500, "still vs zimg: \(check)")
        #expect(check.hlg_as_sdr_mean >= 10, "the clip must not look the same shown as SDR: \(check)")
        let profile = try await runTool("exiftool", ["-s3", "-ProfileDescription", still]).stdout
        #expect(profile.contains("Display P3"), "\(profile)")
        // The HDR the SDR still leaves out is in its gain map: libultrahdr gives back the frame's display light.
        #expect((json?["video"] as? [String: Any])?["hdr"] as? String == "kept", "\(run.stdout)")
        let info = try await CLI.run(["hdr", "info", still])
        #expect(info.stdout.contains("ultrahdr-jpeg") && info.stdout.contains("headroom 4.93"), "\(info)")
        try await HDROracle.expectLight(still, transfer, frame: frame, "the Live still's HDR")
        let transferName = transfer == "hlg" ? "arib-std-b67" : "smpte2084"
        #expect(try await HDROracle.probe(movie, "color_transfer,pix_fmt") == "yuv420p10le,\(transferName)",
                "the Live movie is the HDR movie, untouched")
        // SPEC E2: another frame made the key photo brings its own HDR: nothing is lost, no consent is asked
        // (before: refused, "the new key photo is a frame of the SDR movie").
        let key = try await CLI.run(["live", "keyphoto", still, movie, "--at", "0.3", "-o", dir.file("key"), "--json"])
        #expect(key.succeeded && key.stdout.contains("\"hdr\":\"kept\""), "\(key)")
        try await HDROracle.expectLight(dir.file("key/clip_\(transfer)_live_key.jpg"), transfer, frame: 9,
                                        "the new key photo's HDR")
    }

    @Test("SPEC E2: a frame of an HLG movie saved as a photo keeps its HDR through the edit's crop")
    func savedFrame() async throws {
        let dir = try TempDir("hdr-frame")
        defer { dir.remove() }
        let clip = try await HDROracle.clip("hlg", in: dir)
        var recipe = EditRecipe.identity
        recipe.crop = EditRecipe.Crop(x: 0.5, y: 0, width: 0.5, height: 0.6) // the lamp's corner: 320x216 at (320, 0)
        let out = dir.file("frame.jpg")
        let frame = try LivePhoto.saveFrame(movie: clip, at: 0.2, recipe: recipe, to: out)
        #expect(frame.index == 6 && frame.width == 320 && frame.height == 216, "\(frame.index) \(frame.width)x\(frame.height)")
        let check = try await HDROracle.check(out, "hlg", frame: 6, region: "320,0,320,216")
        #expect(check.mean <= 1.5, "the SDR frame: \(check)")
        try await HDROracle.expectLight(out, "hlg", frame: 6, region: "320,0,320,216", "the map follows the crop")
    }

    @Test("SPEC E6: an HLG movie re-encoded as its samples keeps its HDR in 10 bits (transcode, compress, a portrait track, a cropped Live edit); one that cannot is re-encoded only with consent, then SDR Display P3; its GIF is sRGB")
    func transcodeAndGIF() async throws {
        let dir = try TempDir("hdr-transcode")
        defer { dir.remove() }
        let clip = try await HDROracle.clip("hlg", in: dir)
        let decode = try await CLI.run(["video", "decode", clip, "--json"])
        #expect(decode.succeeded && decode.stdout.contains("\"hdr\":\"hlg\"") && decode.stdout.contains("\"frame_primaries\":12")
                && decode.stdout.contains("\"transfer\":18"), "the reader says what its frames are: \(decode.stdout)")
        // Kept: the decoder's 10-bit samples into Main 10 with the HLG description, no question asked.
        let kept = dir.file("hdr.mov")
        let transcode = try await CLI.run(["video", "transcode", clip, "-o", kept, "--json"])
        #expect(transcode.succeeded && transcode.stdout.contains("\"kept\":[\"hdr-video\"]")
                && !transcode.stdout.contains("\"name\":\"hdr-video\""), "\(transcode)")
        #expect(try await HDROracle.probe(kept, "profile,pix_fmt,color_space,color_transfer,color_primaries")
                == "Main 10,yuv420p10le,bt2020nc,arib-std-b67,bt2020", "10-bit HLG out")
        let psnr = try await runTool("ffmpeg", ["-i", clip, "-i", kept, "-lavfi", "psnr", "-f", "null", "-"])
        let average = psnr.stderr.components(separatedBy: "average:").last.flatMap { Double($0.prefix(while: { $0 != " " })) }
        #expect((average ?? 0) >= 50, "10-bit planes vs the source's (ffmpeg psnr): \(average ?? -1) dB")
        #expect(try VideoTranscode.hdrOutcome(clip) == .kept)
        let squeezed = dir.file("small.mov")
        let compress = try await CLI.run(["compress", clip, "-o", squeezed])
        #expect(compress.succeeded, "compress keeps the HDR without asking: \(compress)")
        #expect(try await HDROracle.probe(squeezed, "pix_fmt,color_transfer") == "yuv420p10le,arib-std-b67")
        // A portrait HDR track (stored landscape, turned by its matrix) keeps the matrix and the HDR.
        let turned = dir.file("turned.mov"), turnedOut = dir.file("turned-hdr.mov")
        let rotate = try await runTool("ffmpeg", ["-v", "error", "-i", clip, "-c", "copy", "-metadata:s:v:0", "rotate=90", turned])
        #expect(rotate.succeeded, "\(rotate)")
        let t = try await CLI.run(["video", "transcode", turned, "-o", turnedOut, "--json"])
        #expect(t.succeeded && t.stdout.contains("\"width\":360") && t.stdout.contains("\"hdr-video\""), "\(t)")
        #expect(try await runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                              "stream=width,pix_fmt:stream_side_data=rotation", "-of", "csv=p=0", turnedOut])
                .stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "640,yuv420p10le,90", "matrix and depth kept")

        // Not kept: a 4:2:2 HLG movie comes as RGB frames, so its 8-bit re-encode is SDR and asks first (SPEC E6);
        // without consent nothing is written.
        let wide = dir.file("clip422.mov"), out = dir.file("sdr.mov")
        let make422 = try await runTool("ffmpeg", ["-v", "error", "-i", clip, "-c:v", "libx265", "-preset", "ultrafast",
                                                   "-x265-params", "log-level=error:lossless=1:colorprim=bt2020:transfer=arib-std-b67:colormatrix=bt2020nc",
                                                   "-pix_fmt", "yuv422p10le", "-tag:v", "hvc1", wide])
        #expect(make422.succeeded, "\(make422)")
        #expect(try VideoTranscode.hdrOutcome(wide) == .becomesSDR)
        let refused = try await CLI.run(["video", "transcode", wide, "-o", out])
        #expect(refused.status == 1 && refused.stderr.contains("HDR video (HLG)") && refused.stderr.contains("--allow-sdr")
                && !FileManager.default.fileExists(atPath: out), "\(refused)")
        let squeezedWide = dir.file("small422.mov")
        let compressWide = try await CLI.run(["compress", wide, "-o", squeezedWide])
        #expect(compressWide.status == 1 && compressWide.stderr.contains("the movie's HDR would be lost")
                && !FileManager.default.fileExists(atPath: squeezedWide), "\(compressWide)")
        let live = try await CLI.run(["convert", "--to", "live", clip, "-o", dir.file("live")])
        #expect(live.succeeded, "\(live)")
        // A Live edit that crops re-encodes the movie's samples: the HDR stays, no question asked; one whose
        // recipe needs RGB frames (a filter) would make it SDR, so it asks first and writes nothing.
        let edit = try await CLI.run(["live", "edit", dir.file("live/clip_hlg_live.jpg"), dir.file("live/clip_hlg_live.mov"),
                                      "--recipe", try writeCropRecipe(dir), "-o", dir.file("edit"), "--json"])
        #expect(edit.succeeded && edit.stdout.contains("\"hdr-video\""), "\(edit)")
        let editedMovie = try #require(((try? FileManager.default.contentsOfDirectory(atPath: dir.file("edit"))) ?? [])
            .first { $0.hasSuffix(".mov") }, "\(edit)")
        #expect(try await HDROracle.probe(dir.file("edit/" + editedMovie), "pix_fmt,color_transfer") == "yuv420p10le,arib-std-b67",
                "the cropped Live movie is 10-bit HLG")
        let filter = dir.file("filter.json")
        try #"{"version":1,"adjustments":{"exposure":0.3}}"#.write(toFile: filter, atomically: true, encoding: .utf8)
        let graded = try await CLI.run(["live", "edit", dir.file("live/clip_hlg_live.jpg"), dir.file("live/clip_hlg_live.mov"),
                                        "--recipe", filter, "-o", dir.file("graded")])
        let written = (try? FileManager.default.contentsOfDirectory(atPath: dir.file("graded"))) ?? []
        #expect(graded.status == 1 && graded.stderr.contains("this Live save cannot keep") && written.isEmpty,
                "an adjusted Live movie would be SDR: \(graded), wrote \(written)")
        let run = try await CLI.run(["video", "transcode", wide, "-o", out, "--allow-sdr", "--json"])
        #expect(run.succeeded, "\(run)")
        #expect(run.lastLine?.contains("\"name\":\"hdr-video\"") == true, "the report says the HDR is gone: \(run.stdout)")
        #expect(try await HDROracle.probe(out, "color_primaries,color_transfer") == "bt709,smpte432",
                "output is tagged SDR P3")
        let png = dir.file("frame6.png")
        let frame = try await runTool("ffmpeg", ["-v", "error", "-i", out, "-vf", "select=eq(n\\,6)", "-frames:v", "1", png])
        #expect(frame.succeeded, "\(frame)")
        let movieCheck = try await HDROracle.check(png, "hlg", frame: 6)
        #expect(movieCheck.mean <= 2.5 && movieCheck.max <= 16, "transcoded frame 6: \(movieCheck)")

        let gif = dir.file("clip.gif")
        let made = try await CLI.run(["convert", "--to", "gif", clip, "-o", gif])
        #expect(made.succeeded, "\(made)")
        let gifCheck = try await HDROracle.check(gif, "hlg", frame: 0, srgb: true)
        #expect(gifCheck.mean <= 2.5 && gifCheck.max <= 16, "GIF frame 0 vs the mapped light in sRGB: \(gifCheck)")
    }

    @Test("a moving collage with an HLG Live cell asks first (its movie is SDR); with consent it is Display P3, its still and movie frames the tone-mapped frame, the still's HDR kept")
    func movingCollage() async throws {
        let dir = try TempDir("hdr-collage")
        defer { dir.remove() }
        let clip = try await HDROracle.clip("hlg", in: dir)
        let live = try await CLI.run(["convert", "--to", "live", clip, "-o", dir.file("live")])
        #expect(live.succeeded, "\(live)")
        let args = ["collage", "--layout", "long", "--width", "640", "--motion", "together", "--export", "live", "--json",
                    "-o", dir.file("out"), "--live", dir.file("live/clip_hlg_live.jpg"), dir.file("live/clip_hlg_live.mov")]
        // SPEC E6: the HLG movie's HDR is lost in the SDR collage movie — not without consent (a sweep found it silent)
        let refused = try await CLI.run(args)
        #expect(refused.status == 1 && refused.stderr.contains("HDR video") && refused.stderr.contains("--allow-sdr"),
                "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("out/collage.mov")), "nothing written")
        let run = try await CLI.run(args + ["--allow-sdr"])
        #expect(run.succeeded, "\(run)")
        let line = try #require(run.lastLine, "\(run)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(json["movie_hdr"] as? String == "dropped", "\(run.stdout)")
        let still = try #require(json["still"] as? String), movie = try #require(json["movie"] as? String)
        #expect(json["color_space"] as? String == "Display P3", "\(run.stdout)")
        #expect(json["still_frame"] as? Int == 6, "the clip's middle: \(run.stdout)")
        let stillCheck = try await HDROracle.check(still, "hlg", frame: 6)
        #expect(stillCheck.mean <= 1.5, "collage still: \(stillCheck)")
        #expect(json["gain_map"] as? String == "kept", "the Live photo's HDR goes on into the collage: \(run.stdout)")
        try await HDROracle.expectLight(still, "hlg", frame: 6, "the collage still's HDR")
        let png = dir.file("frame6.png")
        let frame = try await runTool("ffmpeg", ["-v", "error", "-i", movie, "-vf", "select=eq(n\\,6)", "-frames:v", "1", png])
        #expect(frame.succeeded, "\(frame)")
        let frameCheck = try await HDROracle.check(png, "hlg", frame: 6)
        #expect(frameCheck.mean <= 2.5, "collage movie frame 6: \(frameCheck)")
    }
}

/// A recipe that crops (so a Live edit re-encodes its movie), written into `dir`.
private func writeCropRecipe(_ dir: TempDir) throws -> String {
    let path = dir.file("crop.json")
    try Data(#"{"version":1,"crop":{"x":0.1,"y":0.1,"width":0.8,"height":0.8}}"#.utf8).write(to: URL(fileURLWithPath: path))
    return path
}
