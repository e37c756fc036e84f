import Foundation
import Shiying
import ShiyingFixtures

/// `shiying sample-photos --count N [--seed S] -o DIR`
enum SampleCommand {
    /// Stored sides the sample writers accept (the JPEG limit; sy_sample_write_jpeg checks it too).
    static let sampleSides = 16...65500
    static let directory = OptionSpec.output("DIR", "the folder written into", required: true)

    static let spec = CommandSpec(
        path: ["sample-photos"], summary: "deterministic photo-like samples: JPEG/HEIC photos, HDR photos, Live pairs",
        forms: [
            CommandSpec(path: ["sample-photos"], summary: "12 MP-style photos, one per count",
                        options: [.int("count", "N", 1...1000, "how many", default: 7), .seed("seed", "the content's seed", default: 1),
                                  .int("width", "W", sampleSides, "stored width", default: 4032),
                                  .int("height", "H", sampleSides, "stored height", default: 3024),
                                  .choice("format", ["jpeg", "heic"], "file format", aliases: ["jpg": "jpeg"], default: "jpeg"),
                                  .flag("progressive", "progressive JPEGs"), directory, .json],
                        formTitle: "photos", run: { try run($0) }),
            CommandSpec(path: ["sample-photos"], summary: "an Ultra HDR JPEG and an Apple-style HEIC per count (issue 7)",
                        options: [.flag("hdr", "HDR samples"), .int("count", "N", 1...100, "how many", default: 1),
                                  .seed("seed", "the content's seed", default: 1),
                                  .int("width", "W", sampleSides, "width", default: 1024),
                                  .int("height", "H", sampleSides, "height", default: 768),
                                  .flag("iso-heic", "also an ISO 21496-1-only HEIC (a 'tmap' item and its own map, no Apple map)"),
                                  directory, .json],
                        formTitle: "HDR photos", selectors: ["hdr"], run: { try runHDR($0) }),
            CommandSpec(path: ["sample-photos"], summary: "Live pairs: a still and a same-stem MOV sharing one content identifier (issue 17)",
                        options: [.flag("live", "Live pairs"), .int("count", "N", 1...100, "how many", default: 2),
                                  .seed("seed", "the content's seed", default: 1),
                                  .int("width", "W", 64...4096, "width (even)", default: 360),
                                  .int("height", "H", 64...4096, "height (even)", default: 480),
                                  .int("frames", "N", 1...3600, "movie frames", default: 45),
                                  .int("fps", "F", 1...60, "frame rate; must divide 600", default: 30),
                                  .choice("format", ["jpeg", "heic"], "the still's format", aliases: ["jpg": "jpeg"], default: "jpeg"),
                                  .flag("silent", "no sound track"), directory, .json],
                        formTitle: "Live pairs", selectors: ["live"], run: { try runLive($0) }),
        ])

    static func run(_ parsed: ParsedArguments) throws -> Int32 {
        guard let directory = parsed.string("output"), let count = parsed.int("count"), let seed = parsed.uint64("seed"),
              let width = parsed.int("width"), let height = parsed.int("height") else {
            preconditionFailure("required or defaulted by the table")
        }
        let progress = ProgressReporter(label: "sample-photos")
        defer { progress.finish() }
        let clock = ContinuousClock()
        let start = clock.now
        let paths = try SamplePhotos.write(
            count: count, seed: seed, width: width, height: height,
            progressive: parsed.has("progressive"), heic: parsed.string("format") == "heic", to: directory,
            progress: progress.counter("photos"))
        progress.finish()
        let elapsed = clock.now - start
        if parsed.json {
            struct Report: Encodable { let files: [String]; let seconds: Double }
            print(try JSONReport.line(Report(files: paths, seconds: Double(elapsed.components.seconds))))
        } else {
            paths.forEach { print($0) }
        }
        return 0
    }
}

extension SampleCommand {
    /// `--hdr`: an Ultra HDR JPEG and an Apple-style HEIC per count (issue 7).
    static func runHDR(_ parsed: ParsedArguments) throws -> Int32 {
        guard let directory = parsed.string("output"), let count = parsed.int("count"), let seed = parsed.uint64("seed"),
              let width = parsed.int("width"), let height = parsed.int("height") else {
            preconditionFailure("required or defaulted by the table")
        }
        let progress = ProgressReporter(label: "sample-photos --hdr")
        defer { progress.finish() }
        let paths = try HDRSamplePhotos.write(count: count, seed: seed, width: width, height: height,
                                              isoHEIC: parsed.has("iso-heic"), to: directory,
                                              progress: progress.counter("photos"))
        progress.finish()
        if parsed.json {
            struct Report: Encodable { let files: [String] }
            print(try JSONReport.line(Report(files: paths)))
        } else {
            paths.forEach { print($0) }
        }
        return 0
    }
}

extension SampleCommand {
    /// `--live`: Live pairs (still + same-stem MOV sharing one content identifier), issue 17.
    static func runLive(_ parsed: ParsedArguments) throws -> Int32 {
        guard let directory = parsed.string("output"), let count = parsed.int("count"), let seed = parsed.uint64("seed"),
              let width = parsed.int("width"), let height = parsed.int("height"), let fps = parsed.int("fps"),
              let frames = parsed.int("frames") else {
            preconditionFailure("required or defaulted by the table")
        }
        guard width % 2 == 0, height % 2 == 0 else { throw UsageError("--width and --height must be even") }
        guard 600 % fps == 0 else { throw UsageError("--fps must divide 600 (24, 25, 30, 60 ...)") }
        let progress = ProgressReporter(label: "sample-photos --live")
        defer { progress.finish() }
        let pairs = try SampleLivePhotos.write(
            count: count, seed: seed, width: width,
            height: height, fps: fps, frames: frames, heic: parsed.string("format") == "heic",
            sound: !parsed.has("silent"), to: directory,
            progress: progress.counter("pairs"))
        progress.finish()
        if parsed.json {
            struct Report: Encodable { let files: [String]; let contentIdentifiers: [String] }
            print(try JSONReport.line(Report(files: pairs.flatMap { [$0.still, $0.movie] },
                                             contentIdentifiers: pairs.map(\.contentIdentifier))))
        } else {
            pairs.forEach { print("\($0.still) \($0.movie) \($0.contentIdentifier)") }
        }
        return 0
    }
}

/// `shiying probe FILE...`
enum ProbeCommand {
    static let spec = CommandSpec(
        path: ["probe"], summary: "format, size, stored size and orientation of images; exit 1 if one cannot be read",
        operands: [OperandSpec("FILE", .oneOrMore, "the images", missing: "no files to probe")],
        options: [.json], run: { try run($0) })

    /// One file's `--json` line: the file named beside its `ImageInfo` fields, or why it cannot be read.
    private struct Line: Encodable {
        var file: String
        var info: ImageInfo?
        var error: String?

        private enum Keys: String, CodingKey { case file, error }

        func encode(to encoder: Encoder) throws {
            try info?.encode(to: encoder) // the info's keys at the top level, as before the file was named
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(file, forKey: .file)
            try c.encodeIfPresent(error, forKey: .error)
        }
    }

    static func run(_ parsed: ParsedArguments) throws -> Int32 {
        var failed = false
        for path in parsed.positionals {
            do {
                let info = try ImageInfo.probe(path, whole: true) // a truncated copy is "cannot be read"
                if parsed.json {
                    print(try JSONReport.line(Line(file: path, info: info)))
                } else {
                    print("\(path): \(info.format) \(info.width)x\(info.height) (stored \(info.storedWidth)x"
                          + "\(info.storedHeight), orientation \(info.orientation)\(info.progressive ? ", progressive" : ""))")
                }
            } catch let error as ShiyingError {
                failed = true
                writeStderr(Data("shiying: \(error.message)\n".utf8))
                if parsed.json { print(try JSONReport.line(Line(file: path, error: error.message))) }
            }
        }
        return failed ? 1 : 0
    }
}
