import Foundation
import Shiying
import ShiyingFixtures

/// `shiying sample-photos --count N [--seed S] -o DIR`
enum SampleCommand {
    static let usage = """
        shiying sample-photos --count N [--seed S] [--width W --height H] [--format jpeg|heic] [--progressive] [--json] -o DIR
        shiying sample-photos --hdr [--count N] [--seed S] [--width W --height H] [--json] -o DIR
        shiying sample-photos --live [--count N] [--seed S] [--width W --height H] [--frames N] [--fps F]
                              [--format jpeg|heic] [--silent] [--json] -o DIR
        """
    /// Stored sides the sample writers accept (the JPEG limit; sy_sample_write_jpeg checks it too).
    static let sampleSides = 16...65500

    static func run(_ args: [String]) throws -> Int32 {
        let parsed = try Arguments(args, booleans: ["json", "progressive", "hdr", "live", "silent"])
        try parsed.rejectUnknown(["count", "seed", "o", "output", "width", "height", "format", "frames", "fps"])
        if parsed.has("hdr") { return try runHDR(parsed) }
        if parsed.has("live") { return try runLive(parsed) }
        let format = parsed.options["format"] ?? "jpeg"
        guard ["jpeg", "jpg", "heic"].contains(format) else { throw UsageError("--format jpeg|heic") }
        guard let directory = parsed.options["o"] ?? parsed.options["output"] else { throw UsageError("-o DIR is required") }
        let count = try parsed.int("count", in: 1...1000) ?? 7
        let seed = try parsed.uint64("seed") ?? 1
        let progress = StderrProgress(label: "sample-photos")
        let clock = ContinuousClock()
        let start = clock.now
        let paths = try SamplePhotos.write(
            count: count, seed: seed, width: try parsed.int("width", in: sampleSides) ?? 4032,
            height: try parsed.int("height", in: sampleSides) ?? 3024,
            progressive: parsed.has("progressive"), heic: format == "heic", to: directory,
            progress: { progress.report("photos", UInt64($0), UInt64($1)) })
        progress.finish()
        let elapsed = clock.now - start
        if parsed.has("json") {
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
    static func runHDR(_ parsed: Arguments) throws -> Int32 {
        guard let directory = parsed.options["o"] ?? parsed.options["output"] else { throw UsageError("-o DIR is required") }
        let count = try parsed.int("count", in: 1...100) ?? 1
        let progress = StderrProgress(label: "sample-photos --hdr")
        let paths = try HDRSamplePhotos.write(count: count, seed: try parsed.uint64("seed") ?? 1,
                                              width: try parsed.int("width", in: sampleSides) ?? 1024,
                                              height: try parsed.int("height", in: sampleSides) ?? 768,
                                              to: directory, progress: { progress.report("photos", UInt64($0), UInt64($1)) })
        progress.finish()
        if parsed.has("json") {
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
    static func runLive(_ parsed: Arguments) throws -> Int32 {
        guard let directory = parsed.options["o"] ?? parsed.options["output"] else { throw UsageError("-o DIR is required") }
        let format = parsed.options["format"] ?? "jpeg"
        guard ["jpeg", "jpg", "heic"].contains(format) else { throw UsageError("--format jpeg|heic") }
        let width = try parsed.int("width", in: 64...4096) ?? 360, height = try parsed.int("height", in: 64...4096) ?? 480
        guard width % 2 == 0, height % 2 == 0 else { throw UsageError("--width and --height must be even") }
        let fps = try parsed.int("fps", in: 1...60) ?? 30
        guard 600 % fps == 0 else { throw UsageError("--fps must divide 600 (24, 25, 30, 60 ...)") }
        let progress = StderrProgress(label: "sample-photos --live")
        let pairs = try SampleLivePhotos.write(
            count: try parsed.int("count", in: 1...100) ?? 2, seed: try parsed.uint64("seed") ?? 1, width: width,
            height: height, fps: fps, frames: try parsed.int("frames", in: 1...3600) ?? 45, heic: format == "heic",
            sound: !parsed.has("silent"), to: directory,
            progress: { progress.report("pairs", UInt64($0), UInt64($1)) })
        progress.finish()
        if parsed.has("json") {
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
    static let usage = "shiying probe [--json] FILE..."

    static func run(_ args: [String]) throws -> Int32 {
        let parsed = try Arguments(args, booleans: ["json"])
        try parsed.rejectUnknown([])
        guard !parsed.positionals.isEmpty else { throw UsageError("no files to probe\nusage: \(usage)") }
        var failed = false
        for path in parsed.positionals {
            do {
                let info = try ImageInfo.probe(path)
                if parsed.has("json") {
                    print(try JSONReport.line(info))
                } else {
                    print("\(path): \(info.format) \(info.width)x\(info.height) (stored \(info.storedWidth)x"
                          + "\(info.storedHeight), orientation \(info.orientation)\(info.progressive ? ", progressive" : ""))")
                }
            } catch let error as ShiyingError {
                failed = true
                FileHandle.standardError.write(Data("shiying: \(error.message)\n".utf8))
            }
        }
        return failed ? 1 : 0
    }
}
