import Foundation
import Shiying
import ShiyingLibrary
import ShiyingOrganize

/// `shiying convert IN --to live -o DIR [--library LIB] [--json]`: a Motion
/// Photo (its embedded movie remuxed, the photo kept) or a video (SPEC S3
/// video → Live) into a Live pair, verified (SPEC C3) before it is reported.
enum ConvertLiveCommand {
    struct Line: Encodable {
        var result: String             // "live"
        var still: String
        var movie: String
        var contentIdentifier: String
        var source: String             // "motion-photo" | "video"
        var motionPhoto: MotionPhoto.LiveReport?
        var video: LivePhoto.SaveReport?
    }

    static func run(_ input: String, _ parsed: ParsedArguments) throws -> Int32 {
        let stem = ((input as NSString).lastPathComponent as NSString).deletingPathExtension + "_live"
        if let dir = parsed.string("library") { return try intoLibrary(input, dir, stem: stem, parsed) }
        guard let dir = parsed.string("output") else { throw UsageError("convert --to live: -o DIR (or --library DIR) is required") }
        let progress = ProgressReporter(label: "convert")
        defer { progress.finish() }
        let line = try OutputFolder.using(dir) {
            let line = try convert(input, stillBase: dir + "/" + stem, movieOut: dir + "/" + stem + ".mov",
                                   allowSDR: parsed.has("allow-sdr"), progress: progress.report)
            try progress.waiting("verifying the Live pair") { try verify(line) }
            return line
        }
        progress.finish()
        if parsed.json {
            print(try JSONReport.line(line))
        } else {
            print("live: \(line.still) + \(line.movie) (\(line.contentIdentifier))")
        }
        return 0
    }

    /// Writes the pair: `stillBase` gets the still's extension.
    static func convert(_ input: String, stillBase: String, movieOut: String, allowSDR: Bool = false,
                        progress: @escaping (ShiyingProgress) -> Void) throws -> Line {
        if let info = try MotionPhoto.probe(input) {
            let still = stillBase + "." + MotionPhoto.stillExtension(info)
            let r = try MotionPhoto.toLiveBlocking(input, stillOut: still, movieOut: movieOut, allowSDR: allowSDR,
                                                   progress: progress)
            return Line(result: "live", still: still, movie: movieOut, contentIdentifier: r.contentIdentifier,
                        source: "motion-photo", motionPhoto: r, video: nil)
        }
        let still = stillBase + ".jpg"
        let r = try LivePhoto.saveBlocking(movie: input, stillOut: still, movieOut: movieOut, progress: progress)
        return Line(result: "live", still: still, movie: movieOut, contentIdentifier: r.contentIdentifier ?? "",
                    source: "video", motionPhoto: nil, video: r)
    }

    /// SPEC C3: a pair is reported only once our verifier accepts it; a failed one is removed.
    static func verify(_ line: Line) throws {
        let outcome = try blocking {
            try await LiveVerifier(deadline: LiveVerifier<ContinuousClock>.collageDeadline)
                .verify(still: line.still, movie: line.movie)
        }
        if case .ok = outcome { return }
        try? FileManager.default.removeItem(atPath: line.still)
        try? FileManager.default.removeItem(atPath: line.movie)
        var reason = "verification timed out"
        if case let .mismatch(r) = outcome { reason = r }
        throw ShiyingError(code: .codec, message: "the Live pair failed verification: \(reason)", file: line.still)
    }

    /// SPEC S3: both files through the library's exit path into 「拾映转换」.
    private static func intoLibrary(_ input: String, _ dir: String, stem: String, _ parsed: ParsedArguments) throws -> Int32 {
        let library = try PhotoLibrary(at: dir)
        let progress = ProgressReporter(label: "convert")
        let base = library.stagingPath(extension: "live")
        let movie = library.stagingPath(extension: "mov")
        let line: Line
        do {
            line = try convert(input, stillBase: (base as NSString).deletingPathExtension, movieOut: movie,
                               progress: progress.report)
            try progress.waiting("verifying the Live pair") { try verify(line) }
        } catch {
            progress.finish()
            throw error
        }
        progress.finish()
        let ext = (line.still as NSString).pathExtension
        let named = parsed.string("output").map { ($0 as NSString).lastPathComponent }
        let result = try blocking {
            try await LibraryWorkflows.deposit(converted: line.still, movie: line.movie, from: input, into: library,
                                               name: named.map { ($0 as NSString).deletingPathExtension + "." + ext }
                                                   ?? "\(stem).\(ext)")
        }
        if parsed.json {
            print(try JSONReport.line(LibraryExitJSON(result, conversion: line)))
        } else {
            print("\(result.files.joined(separator: " ")): asset \(result.id) in 「\(result.album)」")
        }
        return 0
    }
}
