import Foundation
import Shiying

/// `shiying live …` (issue 6): Live photo pairs — make (video → Live, SPEC S3),
/// validate (SPEC C3/C8), edit (SPEC E1), frame (SPEC E2), key photo, strip (SPEC C4).
enum LiveCommand {
    static let usage = """
        shiying live make --video V [--at SEC] [--recipe R.json] [--format jpeg|heic] -o DIR [--json]
          shiying live validate STILL MOVIE [--timeout SEC] [--json]
          shiying live edit STILL MOVIE --recipe R.json -o DIR [--format jpeg|heic] [--allow-sdr] [--json]
          shiying live frame STILL MOVIE --at SEC [--recipe R.json] -o OUT [--json]
          shiying live keyphoto STILL MOVIE --at SEC -o DIR [--allow-sdr] [--json]
          shiying live strip STILL -o OUT [--json]
        """

    static func run(_ args: [String]) throws -> Int32 {
        let rest = Array(args.dropFirst())
        switch args.first {
        case "make": return try make(rest)
        case "validate": return try validate(rest)
        case "edit": return try edit(rest)
        case "frame": return try frame(rest)
        case "keyphoto": return try keyPhoto(rest)
        case "strip": return try strip(rest)
        default: throw UsageError("live: unknown subcommand\n\(usage)")
        }
    }

    /// The `--json` line of a save: the pair (or the fallback still) and the C3 outcome.
    struct SaveLine: Encodable {
        var result: String           // "live" | "still"
        var still: String
        var movie: String?
        var contentIdentifier: String?
        var failureTitle: String?
        var failureMessage: String?
        var reason: String?
        var save: LivePhoto.SaveReport
    }

    static func make(_ args: [String]) throws -> Int32 {
        let parsed = try Arguments(args, booleans: ["json"])
        try parsed.rejectUnknown(["video", "at", "recipe", "format", "o", "output"])
        guard let video = parsed.options["video"] else { throw UsageError("--video V is required\n\(usage)") }
        var options = try saveOptions(parsed)
        options.stillTime = try parsed.double("at", in: 0...86_400)
        return try saveAndDeliver(movie: video, still: nil, stem: stem(video) + "_live", parsed: parsed, options: options)
    }

    static func edit(_ args: [String]) throws -> Int32 {
        let parsed = try Arguments(args, booleans: ["json", "allow-sdr"])
        try parsed.rejectUnknown(["recipe", "format", "o", "output", "at"])
        let (still, movie) = try pair(parsed)
        guard parsed.options["recipe"] != nil else { throw UsageError("--recipe R.json is required\n\(usage)") }
        var options = try saveOptions(parsed)
        options.allowSDR = parsed.flags.contains("allow-sdr")
        if let at = try parsed.double("at", in: 0...86_400) {
            options.stillTime = at
        } else if let t = try LivePhoto.movieInfo(movie).stillTime {
            options.stillTime = t // keep the key photo where it was
        }
        return try saveAndDeliver(movie: movie, still: still, stem: stem(still) + "_edited", parsed: parsed, options: options)
    }

    /// "Set as key photo" (SPEC E2): moves the still-image time and re-renders the still from that frame.
    static func keyPhoto(_ args: [String]) throws -> Int32 {
        let parsed = try Arguments(args, booleans: ["json", "allow-sdr"])
        try parsed.rejectUnknown(["at", "o", "output", "format"])
        let (still, movie) = try pair(parsed)
        guard let at = try parsed.double("at", in: 0...86_400) else { throw UsageError("--at SEC is required\n\(usage)") }
        var options = try saveOptions(parsed)
        options.stillTime = at
        options.metadataFrom = still
        options.allowSDR = parsed.flags.contains("allow-sdr") // SPEC E6: a movie frame has no gain map
        return try saveAndDeliver(movie: movie, still: nil, stem: stem(still) + "_key", parsed: parsed, options: options)
    }

    static func validate(_ args: [String]) throws -> Int32 {
        let parsed = try Arguments(args, booleans: ["json"])
        try parsed.rejectUnknown(["timeout"])
        let (still, movie) = try pair(parsed)
        let timeout = try parsed.double("timeout", in: 0.001...3600) ?? 45
        let outcome = try blocking {
            try await LiveVerifier(deadline: .milliseconds(Int64(timeout * 1000))).verify(still: still, movie: movie)
        }
        struct Line: Encodable {
            var result: String
            var reason: String?
            var contentIdentifier: String?
            var stillTime: Double?
            var title: String?
            var message: String?
        }
        var line = Line(result: "ok")
        switch outcome {
        case let .ok(id, t):
            line.contentIdentifier = id
            line.stillTime = t
        case let .mismatch(reason):
            line.result = "mismatch"
            line.reason = reason
            line.contentIdentifier = try? LivePhoto.stillIdentifier(still)
        case .timeout:
            line.result = "timeout"
            line.reason = "verification did not finish within \(timeout) s"
        }
        line.title = outcome.failure?.title
        line.message = outcome.failure?.message
        if parsed.has("json") {
            print(try JSONReport.line(line))
        } else {
            print("\(line.result)\(line.reason.map { ": \($0)" } ?? "")\(line.contentIdentifier.map { " (\($0))" } ?? "")")
        }
        return outcome.failure == nil ? 0 : 1
    }

    static func frame(_ args: [String]) throws -> Int32 {
        let parsed = try Arguments(args, booleans: ["json"])
        try parsed.rejectUnknown(["at", "recipe", "o", "output"])
        let (still, movie) = try pair(parsed)
        guard let at = try parsed.double("at", in: 0...86_400) else { throw UsageError("--at SEC is required\n\(usage)") }
        guard let output = parsed.options["o"] ?? parsed.options["output"] else { throw UsageError("-o OUT is required") }
        let recipe = try parsed.options["recipe"].map(EditCommand.loadRecipe) ?? .identity
        let format = try outputFormat(output, command: "live frame",
                                      formats: ["jpg": "jpeg", "jpeg": "jpeg", "heic": "heic", "heif": "heic"])
        let frame = try LivePhoto.saveFrame(movie: movie, at: at, recipe: recipe, metadataFrom: still, to: output,
                                            format: format == "heic" ? .heic : .jpeg)
        struct Line: Encodable { var output: String; var frame: Int; var width: Int; var height: Int }
        let line = Line(output: output, frame: frame.index, width: frame.width, height: frame.height)
        if parsed.has("json") { print(try JSONReport.line(line)) } else { print("\(output): frame \(frame.index), \(frame.width)x\(frame.height)") }
        return 0
    }

    static func strip(_ args: [String]) throws -> Int32 {
        let parsed = try Arguments(args, booleans: ["json"])
        try parsed.rejectUnknown(["o", "output"])
        guard parsed.positionals.count == 1, let still = parsed.positionals.first else { throw UsageError("one still\n\(usage)") }
        guard let output = parsed.options["o"] ?? parsed.options["output"] else { throw UsageError("-o OUT is required") }
        let removed = try LivePhoto.strip(still, to: output)
        struct Line: Encodable { var output: String; var removedIdentifier: Bool }
        if parsed.has("json") {
            print(try JSONReport.line(Line(output: output, removedIdentifier: removed)))
        } else {
            print("\(output): \(removed ? "content identifier removed" : "had no content identifier")")
        }
        return 0
    }

    // MARK: - shared

    private static func pair(_ parsed: Arguments) throws -> (String, String) {
        guard parsed.positionals.count == 2 else { throw UsageError("STILL MOVIE expected\n\(usage)") }
        return (parsed.positionals[0], parsed.positionals[1])
    }

    private static func stem(_ path: String) -> String {
        ((path as NSString).lastPathComponent as NSString).deletingPathExtension
    }

    private static func saveOptions(_ parsed: Arguments) throws -> LivePhoto.SaveOptions {
        var options = LivePhoto.SaveOptions()
        if let path = parsed.options["recipe"] { options.recipe = try EditCommand.loadRecipe(path) }
        if let format = parsed.options["format"] {
            guard let f = LivePhoto.StillFormat(rawValue: format == "jpg" ? "jpeg" : format) else {
                throw UsageError("--format jpeg|heic")
            }
            options.stillFormat = f
        }
        return options
    }

    /// Saves the pair into the output folder, verifies it (SPEC C3, 45 s) and
    /// falls back to a plain still when it fails (SPEC C4).
    private static func saveAndDeliver(movie: String, still: String?, stem: String, parsed: Arguments,
                                       options: LivePhoto.SaveOptions) throws -> Int32 {
        guard let dir = parsed.options["o"] ?? parsed.options["output"] else { throw UsageError("-o DIR is required") }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let stillOut = dir + "/" + stem + (options.stillFormat == .heic ? ".heic" : ".jpg")
        let movieOut = dir + "/" + stem + ".mov"
        let progress = StderrProgress(label: "live")
        let report: LivePhoto.SaveReport
        do {
            report = try LivePhoto.saveBlocking(movie: movie, still: still, stillOut: stillOut, movieOut: movieOut,
                                        options: options, progress: progress.report)
        } catch let error as ShiyingError where error.code == .unsupported && error.message.contains("allow_sdr") {
            // SPEC E6: say how to consent in the CLI's own terms
            let text = error.message.replacingOccurrences(of: "allow_sdr records", with: "--allow-sdr records")
            throw ShiyingError(code: error.code, message: text, file: error.file)
        }
        progress.finish()
        var line = SaveLine(result: "still", still: stillOut, save: report)
        if report.live {
            let plain = dir + "/" + stem + "_still" + (options.stillFormat == .heic ? ".heic" : ".jpg")
            let delivery = try blocking {
                try await LivePhoto.deliver(still: stillOut, movie: movieOut, plainStill: plain,
                                            verifier: LiveVerifier(deadline: LiveVerifier<ContinuousClock>.collageDeadline),
                                            failedMovie: .delete) // SPEC C4: the movie this command just wrote
            }
            switch delivery {
            case let .live(s, m, id):
                line = SaveLine(result: "live", still: s, movie: m, contentIdentifier: id, save: report)
            case let .still(s, failure, reason):
                try? FileManager.default.removeItem(atPath: stillOut)
                line = SaveLine(result: "still", still: s, failureTitle: failure.title, failureMessage: failure.message,
                                reason: reason, save: report)
            }
        }
        if parsed.has("json") {
            print(try JSONReport.line(line))
        } else {
            print("\(line.result): \(line.still)\(line.movie.map { " + \($0)" } ?? "")"
                  + "\(line.contentIdentifier.map { " (\($0))" } ?? "")\(line.failureMessage.map { " — \($0)" } ?? "")")
        }
        return 0
    }
}
