// HDR10 static metadata: a PQ movie (HDR10, as Android phones and cameras record it) says on which display it
// was graded (SMPTE ST 2086 mastering display) and how bright it gets (CTA-861.3 MaxCLL / MaxFALL), in SEI
// messages of its stream, in `mdcv` / `clli` boxes of its sample entry, or both. A player tone-maps with them;
// a re-encode that keeps the HDR dropped them (ffprobe showed no side data on the output), so a 4000-nit grade
// came out described as nothing. Now the reader reports them (SEI or boxes) and a kept-HDR re-encode writes
// both forms. The outside witness is ffprobe (libavformat reads the boxes, libavcodec the SEI).
import Foundation
@testable import Shiying
import Testing

@Suite("HDR10 mastering display and light levels survive re-encodes (issue 17: fidelity)",
       .enabled(if: HDROracle.available, "numpy, ffmpeg with zscale and libx265 needed"))
struct HDR10MetadataTests {
    /// A 4000-nit P3-D65 grading display, as a Dolby reference monitor is; light levels of a bright clip.
    static let masterDisplay = "G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(40000000,50)"
    static let maxCLL = "1200,350"

    struct SideData: Equatable, CustomStringConvertible {
        var red: [String], green: [String], white: [String], maxLuminance: String, minLuminance: String
        var maxContent: Int, maxAverage: Int
        var description: String { "R \(red) G \(green) WP \(white) L \(maxLuminance)/\(minLuminance) CLL \(maxContent)/\(maxAverage)" }
    }

    static let expected = SideData(red: ["34000/50000", "16000/50000"], green: ["13250/50000", "34500/50000"],
                                   white: ["15635/50000", "16450/50000"], maxLuminance: "40000000/10000",
                                   minLuminance: "50/10000", maxContent: 1200, maxAverage: 350)

    /// ffprobe's side data: the stream's (the sample entry's boxes) or the first frame's (the SEI).
    static func sideData(_ movie: String, frame: Bool) async throws -> SideData? {
        let args = frame
            ? ["-v", "error", "-select_streams", "v:0", "-read_intervals", "%+#1", "-show_frames", "-of", "json", movie]
            : ["-v", "error", "-select_streams", "v:0", "-show_streams", "-of", "json", movie]
        let run = try await runTool("ffprobe", args)
        guard run.succeeded else { throw TestFailure("ffprobe: \(run)") }
        let json = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        let holder = ((json?[frame ? "frames" : "streams"] as? [[String: Any]]) ?? []).first
        let list = (holder?["side_data_list"] as? [[String: Any]]) ?? []
        guard let m = list.first(where: { $0["side_data_type"] as? String == "Mastering display metadata" }),
              let l = list.first(where: { $0["side_data_type"] as? String == "Content light level metadata" }) else { return nil }
        func s(_ k: String) -> String { m[k] as? String ?? "\(m[k] ?? "")" }
        return SideData(red: [s("red_x"), s("red_y")], green: [s("green_x"), s("green_y")],
                        white: [s("white_point_x"), s("white_point_y")], maxLuminance: s("max_luminance"),
                        minLuminance: s("min_luminance"), maxContent: l["max_content"] as? Int ?? -1,
                        maxAverage: l["max_average"] as? Int ?? -1)
    }

    static func expectReaderSees(_ movie: String, _ what: String) throws {
        let info = try VideoReader(movie).info
        let m = try #require(info.masteringDisplay, "\(what): no mastering display read")
        #expect(m.red == [0.68, 0.32] && m.green == [0.265, 0.69] && m.blue == [0.15, 0.06]
                && m.whitePoint == [0.3127, 0.329] && m.maxLuminance == 4000 && m.minLuminance == 0.005, "\(what): \(m)")
        #expect(info.contentLightLevel == .init(maxContentLightLevel: 1200, maxFrameAverageLightLevel: 350), "\(what)")
    }

    /// The clip re-encoded losslessly by x265 with the grade in its SEI.
    static func graded(_ source: String, _ out: String, pixelFormat: String = "yuv420p10le") async throws {
        let params = "log-level=error:lossless=1:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc:range=limited"
            + ":master-display=\(masterDisplay):max-cll=\(maxCLL)"
        let run = try await runTool("ffmpeg", ["-y", "-v", "error", "-i", source, "-c:v", "libx265", "-preset", "ultrafast",
                                               "-x265-params", params, "-pix_fmt", pixelFormat, "-tag:v", "hvc1", out])
        guard run.succeeded else { throw TestFailure("ffmpeg x265: \(run)") }
    }

    @Test("read from the stream's SEI; written as SEI and mdcv / clli by a transcode and a compress that keep the HDR, not by an SDR one (SPEC E6: consented)")
    func carriedThroughReencodes() async throws {
        let dir = try TempDir("hdr10")
        defer { dir.remove() }
        let clip = try await HDROracle.clip("pq", in: dir)
        #expect(try VideoReader(clip).info.masteringDisplay == nil, "the plain PQ clip says nothing")
        // SEI only: x265 told the grade (ffmpeg 5.1's .mov muxer writes no boxes).
        let sei = dir.file("hdr10_sei.mov")
        try await Self.graded(clip, sei)
        let (seiFrame, seiStream) = (try await Self.sideData(sei, frame: true), try await Self.sideData(sei, frame: false))
        #expect(seiFrame == Self.expected && seiStream == nil, "fixture: SEI, no boxes")
        try Self.expectReaderSees(sei, "source with SEI")
        let out = dir.file("out.mov")
        let run = try await CLI.run(["video", "transcode", sei, "-o", out, "--json"])
        #expect(run.succeeded && run.stdout.contains("\"hdr-video\""), "\(run)")
        let (outFrame, outStream) = (try await Self.sideData(out, frame: true), try await Self.sideData(out, frame: false))
        #expect(outFrame == Self.expected, "SEI of the re-encode: \(outFrame.map(String.init(describing:)) ?? "none")")
        #expect(outStream == Self.expected, "mdcv / clli of the re-encode: \(outStream.map(String.init(describing:)) ?? "none")")
        try Self.expectReaderSees(out, "the re-encode")
        // ffmpeg's .mp4 copy (boxes written from what it read) reads the same; a movie with the boxes alone is
        // MovWriterTests' (ffmpeg 5.1 cannot make one).
        let copied = dir.file("hdr10_copy.mp4")
        let copy = try await runTool("ffmpeg", ["-y", "-v", "error", "-i", out, "-c", "copy", copied])
        #expect(copy.succeeded, "\(copy)")
        try Self.expectReaderSees(copied, "ffmpeg's .mp4 copy")
        let squeezed = dir.file("small.mov")
        let compress = try await CLI.run(["compress", sei, "-o", squeezed])
        #expect(compress.succeeded, "\(compress)")
        let (squeezedFrame, squeezedStream) = (try await Self.sideData(squeezed, frame: true), try await Self.sideData(squeezed, frame: false))
        #expect(squeezedFrame == Self.expected && squeezedStream == Self.expected, "compress keeps the grade")
        // An SDR re-encode (consented) describes no grade: its frames were tone-mapped.
        let sdr = dir.file("sdr.mov")
        let wide = dir.file("hdr10_422.mov")
        try await Self.graded(sei, wide, pixelFormat: "yuv422p10le")
        let toSDR = try await CLI.run(["video", "transcode", wide, "-o", sdr, "--allow-sdr"])
        #expect(toSDR.succeeded, "\(toSDR)")
        let (sdrFrame, sdrStream) = (try await Self.sideData(sdr, frame: true), try await Self.sideData(sdr, frame: false))
        #expect(sdrFrame == nil && sdrStream == nil, "SDR output carries no HDR10 metadata")
    }

    @Test("SPEC E6: a PQ grade brighter than 1000 cd/m² keeps its highlights: frames tone-mapped to its MaxCLL, a Live still's gain map gives the lamp back at 3600 cd/m² (was clipped at 1000)")
    func brightGrade() async throws {
        guard HDROracle.ultraHDR else { return }
        let dir = try TempDir("hdr10-grade")
        defer { dir.remove() }
        let script = HDROracle.script
        for (peak, name) in [("4000", "graded"), (nil, "plain")] {
            let clip = dir.file("\(name).mov")
            let made = try await runProcess("/usr/bin/env", ["python3", script, "make", clip, "pq"] + (peak.map { ["--peak", $0] } ?? []),
                                            timeout: 300)
            #expect(made.succeeded, "\(made)")
            let live = try await CLI.run(["convert", "--to", "live", clip, "-o", dir.file(name), "--json"])
            #expect(live.succeeded, "\(live)")
            let still = dir.file("\(name)/\(name)_live.jpg")
            let grade = peak.map { ["--peak", $0] } ?? []
            let check = try await runProcess("/usr/bin/env", ["python3", script, "check", still, "pq", "6", clip] + grade, timeout: 300)
            let checked = try JSONDecoder().decode(HDROracle.Check.self, from: Data((check.lastLine ?? "").utf8))
            #expect(checked.mean <= 1.5 && checked.max <= 16, "\(name): the SDR still vs the mapping to its peak: \(checked)")
            let light = try await runProcess("/usr/bin/env", ["python3", script, "hdr", still, "pq", "6"] + grade, timeout: 300)
            let l = try JSONDecoder().decode(HDROracle.Light.self, from: Data((light.lastLine ?? "").utf8))
            #expect(abs(l.median) <= 0.03 && l.p5 >= -0.08 && l.p95 <= 0.08, "\(name): \(l)")
            if peak != nil {
                #expect(abs(l.highlight_median ?? 1) <= 0.05 && l.peak >= 16, "the 3600 cd/m² lamp comes back: \(l)")
                let info = try await CLI.run(["hdr", "info", still])
                #expect(info.stdout.contains("headroom 19.7"), "4000 / 203: \(info)")
            } else {
                #expect(l.peak < 5.5, "an ungraded PQ clip reaches the nominal 1000 cd/m² (4.93x): \(l)")
            }
        }
    }

    @Test("SPEC E6: a PQ HEIF graded to 4000 cd/m² (mdcv / clli properties, single item and grid): its SDR rendition and gain map reach that peak",
          arguments: [[String](), ["--tile", "128"]])
    func brightStill(_ layout: [String]) async throws {
        guard HDROracle.ultraHDR else { return }
        let dir = try TempDir("hdr10-still")
        defer { dir.remove() }
        let still = try await HDROracle.still("pq", ["--peak", "4000"] + layout, in: dir)
        let info = try GainMapInfo.probe(still)
        #expect(info.kind == "hdr-signal" && abs((info.headroom ?? 0) - 4000.0 / 203) < 0.01, "\(info)")
        let out = dir.file("out.jpg")
        let run = try await CLI.run(["convert", "-o", out, still])
        #expect(run.succeeded, "\(run)")
        let script = HDROracle.script
        let check = try await runProcess("/usr/bin/env", ["python3", script, "check", out, "pq", "0", "--peak", "4000"], timeout: 300)
        let checked = try JSONDecoder().decode(HDROracle.Check.self, from: Data((check.lastLine ?? "").utf8))
        #expect(checked.mean <= 1.5 && checked.max <= 16, "vs the mapping to 4000 cd/m²: \(checked)")
        let light = try await runProcess("/usr/bin/env", ["python3", script, "hdr", out, "pq", "0", "--peak", "4000"], timeout: 300)
        let l = try JSONDecoder().decode(HDROracle.Light.self, from: Data((light.lastLine ?? "").utf8))
        #expect(abs(l.median) <= 0.03 && abs(l.highlight_median ?? 1) <= 0.05 && l.peak >= 16, "the lamp at 3600 cd/m²: \(l)")
    }
}
