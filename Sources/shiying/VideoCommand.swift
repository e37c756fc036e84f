import Foundation
import Shiying

/// `shiying video info IN [--json]`,
/// `shiying video transcode IN -o OUT.(mov|mp4) [--bitrate BPS] [--preset P] [--no-audio] [--allow-sdr] [--json]`
enum VideoCommand {
    static let spec = CommandSpec(
        path: ["video"], summary: "movies: tracks and metadata, a timed decode, an HEVC transcode",
        subcommands: [
            CommandSpec(path: ["video", "info"], summary: "tracks, codecs, rotation, frame rate and metadata keys",
                        operands: [OperandSpec("IN", .one, "the movie (MOV/MP4)", missing: "one input movie")], options: [.json], run: { try info($0) }),
            CommandSpec(path: ["video", "decode"], summary: "decode every frame (upright RGB), timed",
                        operands: [OperandSpec("IN", .one, "the movie (MOV/MP4)", missing: "one input movie")], options: [.json], run: { try decode($0) }),
            CommandSpec(path: ["video", "transcode"], summary: "re-encode as HEVC (x265), audio and metadata copied",
                        operands: [OperandSpec("IN", .one, "the movie (MOV/MP4)", missing: "one input movie")],
                        options: [.output("OUT", "the movie (.mov, .mp4)", required: true),
                                  .int("bitrate", "BPS", 100_000...1_000_000_000, "bits per second (default: SPEC C14)"),
                                  .text("preset", "P", "x265 preset"),
                                  .flag("no-audio", "leave the audio out"), .flag("no-metadata", "leave the metadata out"),
                                  .flag("allow-sdr", "consent to an HDR (HLG, PQ) movie becoming SDR (SPEC E6)"),
                                  .json],
                        run: { try transcode($0) }),
        ])

    /// What `video decode` reports: every frame decoded (upright RGB), timed.
    struct DecodeReport: Codable {
        var input: String
        var info: VideoReader.Info
        var frames: Int
        var firstSeconds: Double?
        var lastSeconds: Double?
        var seconds: Double
        var framesPerSecond: Double
        var enginePeakBytes: UInt64
    }

    /// Decodes every frame (the decode half of transcode, for checks and benchmarks).
    static func decode(_ parsed: ParsedArguments) throws -> Int32 {
        let input = parsed.positionals[0]
        let reader = try VideoReader(input)
        let progress = ProgressReporter(label: "decode")
        defer { progress.finish() }
        let clock = ContinuousClock(), start = clock.now
        var frames = 0, first: Double?, last: Double?
        while let frame = try reader.skip() {
            frames += 1
            if first == nil { first = frame.seconds }
            last = frame.seconds
            progress.report("frames", UInt64(frames), UInt64(reader.info.frameCount))
        }
        progress.finish()
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        let report = DecodeReport(input: input, info: reader.info, frames: frames, firstSeconds: first, lastSeconds: last,
                                  seconds: seconds, framesPerSecond: seconds > 0 ? Double(frames) / seconds : 0,
                                  enginePeakBytes: reader.memoryStats.peakBytes)
        if parsed.json {
            print(try JSONReport.line(report))
        } else {
            var hdr = report.info.hdr.map { ", \($0.uppercased()) HDR tone-mapped to SDR Display P3" } ?? ""
            if let m = report.info.masteringDisplay { hdr += String(format: ", graded on a %.0f cd/m² display", m.maxLuminance) }
            if let l = report.info.contentLightLevel { hdr += ", MaxCLL \(l.maxContentLightLevel) / MaxFALL \(l.maxFrameAverageLightLevel)" }
            if report.info.hdr10Plus { hdr += ", HDR10+ scene metadata" }
            if let dv = report.info.dolbyVision { hdr += ", Dolby Vision \(dv)" }
            let shape = report.info.sampleAspectRatio == "1:1" ? ""
                : " (\(report.info.codedWidth)x\(report.info.codedHeight) samples of \(report.info.sampleAspectRatio))"
            print("\(input): \(report.info.codec) \(report.info.width)x\(report.info.height)\(shape)\(hdr), \(frames) frames in "
                  + String(format: "%.2f s (%.1f fps)", seconds, report.framesPerSecond))
            if let note = report.info.aspectNote { print("  note: \(note)") }
        }
        return 0
    }

    static func transcode(_ parsed: ParsedArguments) throws -> Int32 {
        let input = parsed.positionals[0]
        guard let output = parsed.string("output") else { preconditionFailure("required by the table") }
        _ = try outputFormat(output, command: "video transcode", formats: ["mov": "mov", "mp4": "mp4"])
        var options = VideoTranscode.Options(bitrate: parsed.int("bitrate"), preset: parsed.string("preset"))
        options.copyAudio = !parsed.has("no-audio")
        options.copyMetadata = !parsed.has("no-metadata")
        options.allowSDR = parsed.has("allow-sdr")
        let progress = ProgressReporter(label: "transcode")
        defer { progress.finish() }
        let report: VideoTranscode.Report
        do {
            report = try VideoTranscode.runBlocking(input, to: output, options: options, progress: progress.report)
        } catch let error as ShiyingError where error.code == .unsupported && error.message.contains("allow_sdr") {
            throw consentInCLITerms(error)
        }
        progress.finish()
        if parsed.json {
            print(try JSONReport.line(report))
        } else {
            let audio = report.audioCodec.map { "\($0) audio copied (\(report.audioSamples) samples)" } ?? "no audio"
            print("\(output): hevc \(report.width)x\(report.height), \(report.frames) frames, "
                  + String(format: "%.3f s, %.1f Mbps, ", report.durationSeconds, Double(report.bitrate) / 1e6) + audio)
        }
        return 0
    }

    static func info(_ parsed: ParsedArguments) throws -> Int32 {
        let input = parsed.positionals[0]
        let info = try VideoInfo.read(input)
        if parsed.json {
            print(try JSONReport.line(info))
            return 0
        }
        let brand = info.brand.trimmingCharacters(in: .whitespaces)
        print("\(input): \(brand.isEmpty ? "no ftyp" : brand), \(String(format: "%.3f", info.durationSeconds)) s, \(info.tracks.count) tracks")
        for t in info.tracks {
            var line = "  track \(t.id) \(t.handler) \(t.codec.isEmpty ? "-" : t.codec)"
            if t.handler == "vide" {
                line += " \(t.width)x\(t.height)"
                if t.rotation != 0 { line += " rotated \(t.rotation)" }
                if let rate = t.frameRate { line += String(format: " %.3f fps", rate) }
                if let dv = t.dolbyVision { line += " Dolby Vision \(dv)" }
                if let aspect = t.pixelAspect { line += " pasp \(aspect)" }
            }
            if let channels = t.channels, let rate = t.sampleRate { line += " \(channels) ch \(Int(rate)) Hz" }
            line += " \(t.sampleCount) samples"
            if !t.enabled { line += " (disabled)" }
            if t.id == info.mainVideoTrackId { line += " (main)" }
            if !t.mebxKeys.isEmpty { line += " keys: \(t.mebxKeys.joined(separator: ", "))" }
            print(line)
        }
        for item in info.metadata {
            print("  \(item.key) = \(item.value ?? "<\(item.byteCount) bytes, type \(item.dataType)>")")
        }
        return 0
    }
}
