import Foundation
import Shiying

/// `shiying live …` (issue 6): Live photo pairs — make (video → Live, SPEC S3),
/// validate (SPEC C3/C8), edit (SPEC E1), frame (SPEC E2), key photo, strip (SPEC C4).
enum LiveCommand {
    static let formatOption = OptionSpec.choice("format", ["jpeg", "heic"], "the still's format", aliases: ["jpg": "jpeg"])
    static let recipeOption = OptionSpec.path("recipe", "R.json", "an edit recipe applied to every frame and the still")
    static let allowSDR = OptionSpec.flag("allow-sdr", "consent to dropping an HDR gain map, or an HDR movie becoming SDR (SPEC E6)")
    static let at = OptionSpec.double("at", "SEC", 0...86_400, "the still-image time in seconds")
    static let pairOperands = [OperandSpec("STILL", .one, "the pair's still (JPEG or HEIC)", missing: "STILL MOVIE expected"),
                   OperandSpec("MOVIE", .one, "the pair's movie (.MOV)", missing: "STILL MOVIE expected")]

    static let spec = CommandSpec(
        path: ["live"], summary: "Live photo pairs: make, validate (SPEC C3/C8), edit (E1), frame and key photo (E2), strip (C4)",
        subcommands: [
            CommandSpec(path: ["live", "make"], summary: "a video as a verified Live pair (SPEC S3)",
                        options: [.path("video", "V", "the video", required: true), at, recipeOption, formatOption,
                                  .output("DIR", "the folder the pair is written into", required: true), .json],
                        run: { try make($0) }),
            CommandSpec(path: ["live", "validate"], summary: "check a pair as the Photos app would (SPEC C3/C8); exit 1 when it fails",
                        operands: pairOperands,
                        options: [.double("timeout", "SEC", 0.001...3600, "give up after this long", default: 45), .json],
                        run: { try validate($0) }),
            CommandSpec(path: ["live", "edit"], summary: "edit both halves of a pair with one recipe (SPEC E1)",
                        operands: pairOperands,
                        options: [OptionSpec.path("recipe", "R.json", "the edit recipe", required: true), formatOption, allowSDR,
                                  OptionSpec.double("at", "SEC", 0...86_400, "move the still-image time (default: keep it)"),
                                  .output("DIR", "the folder the pair is written into", required: true), .json],
                        run: { try edit($0) }),
            CommandSpec(path: ["live", "frame"], summary: "save one frame of the movie as a plain photo (SPEC E2)",
                        operands: pairOperands,
                        options: [OptionSpec.double("at", "SEC", 0...86_400, "the frame's time in seconds", required: true),
                                  recipeOption, .output("OUT", "the photo (.jpg, .jpeg, .heic, .heif)", required: true), .json],
                        run: { try frame($0) }),
            CommandSpec(path: ["live", "keyphoto"], summary: "set the key photo: move the still-image time and re-render the still (SPEC E2)",
                        operands: pairOperands,
                        options: [OptionSpec.double("at", "SEC", 0...86_400, "the new still-image time", required: true),
                                  formatOption, allowSDR,
                                  .output("DIR", "the folder the pair is written into", required: true), .json],
                        run: { try keyPhoto($0) }),
            CommandSpec(path: ["live", "strip"], summary: "a copy of the still without its content identifier (SPEC C4)",
                        operands: [OperandSpec("STILL", .one, "the still", missing: "one still")],
                        options: [.output("OUT", "the plain still (.jpg, .jpeg, .heic, .heif; the still's own format)",
                                          required: true), .json],
                        run: { try strip($0) }),
        ])

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

    static func make(_ parsed: ParsedArguments) throws -> Int32 {
        guard let video = parsed.string("video") else { preconditionFailure("required by the table") }
        var options = try saveOptions(parsed)
        options.stillTime = parsed.double("at")
        return try saveAndDeliver(movie: video, still: nil, stem: stem(video) + "_live", parsed: parsed, options: options)
    }

    static func edit(_ parsed: ParsedArguments) throws -> Int32 {
        let (still, movie) = pair(parsed)
        var options = try saveOptions(parsed)
        options.allowSDR = parsed.has("allow-sdr")
        if let at = parsed.double("at") {
            options.stillTime = at
        } else if let t = try LivePhoto.movieInfo(movie).stillTime {
            options.stillTime = t // keep the key photo where it was
        }
        return try saveAndDeliver(movie: movie, still: still, stem: stem(still) + "_edited", parsed: parsed, options: options)
    }

    /// "Set as key photo" (SPEC E2): moves the still-image time and re-renders the still from that frame.
    static func keyPhoto(_ parsed: ParsedArguments) throws -> Int32 {
        let (still, movie) = pair(parsed)
        guard let at = parsed.double("at") else { preconditionFailure("required by the table") }
        var options = try saveOptions(parsed)
        options.stillTime = at
        options.metadataFrom = still
        options.allowSDR = parsed.has("allow-sdr") // SPEC E6: a movie frame has no gain map
        return try saveAndDeliver(movie: movie, still: nil, stem: stem(still) + "_key", parsed: parsed, options: options)
    }

    static func validate(_ parsed: ParsedArguments) throws -> Int32 {
        let (still, movie) = pair(parsed)
        let timeout = parsed.double("timeout") ?? 45
        let progress = ProgressReporter(label: "live validate")
        defer { progress.finish() }
        let outcome = try progress.waiting("verifying") {
            try blocking {
                try await LiveVerifier(deadline: .milliseconds(Int64(timeout * 1000))).verify(still: still, movie: movie)
            }
        }
        progress.finish()
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
        if parsed.json {
            print(try JSONReport.line(line))
        } else {
            print("\(line.result)\(line.reason.map { ": \($0)" } ?? "")\(line.contentIdentifier.map { " (\($0))" } ?? "")")
        }
        return outcome.failure == nil ? 0 : 1
    }

    static func frame(_ parsed: ParsedArguments) throws -> Int32 {
        let (still, movie) = pair(parsed)
        guard let at = parsed.double("at"), let output = parsed.string("output") else {
            preconditionFailure("required by the table")
        }
        let format = try outputFormat(output, command: "live frame", formats: liveStillFormats)
        let recipe = try parsed.string("recipe").map(EditCommand.loadRecipe) ?? .identity
        let progress = ProgressReporter(label: "live frame")
        defer { progress.finish() }
        let frame = try progress.waiting("rendering the frame") {
            try LivePhoto.saveFrame(movie: movie, at: at, recipe: recipe, metadataFrom: still, to: output,
                                    format: format == "heic" ? .heic : .jpeg)
        }
        progress.finish()
        struct Line: Encodable { var output: String; var frame: Int; var width: Int; var height: Int }
        let line = Line(output: output, frame: frame.index, width: frame.width, height: frame.height)
        if parsed.json { print(try JSONReport.line(line)) } else { print("\(output): frame \(frame.index), \(frame.width)x\(frame.height)") }
        return 0
    }

    static func strip(_ parsed: ParsedArguments) throws -> Int32 {
        let still = parsed.positionals[0]
        guard let output = parsed.string("output") else { preconditionFailure("required by the table") }
        // The copy keeps the still's bytes and format: the extension must say so. The still is read first
        // (a truncated or mislabelled file is refused, not copied), its format from its content.
        let info = try ImageInfo.probe(still, whole: true)
        let kept = info.format == "heif" ? "heic" : info.format
        let implied = try outputFormat(output, command: "live strip", formats: liveStillFormats)
        guard implied == kept else {
            let names = liveStillFormats.filter { $0.value == kept }.map { "." + $0.key }.joined(separator: " or ")
            throw UsageError("\(output): live strip keeps the still's own format (\(kept)): name the copy \(names)")
        }
        let removed = try LivePhoto.strip(still, to: output)
        struct Line: Encodable { var output: String; var removedIdentifier: Bool }
        if parsed.json {
            print(try JSONReport.line(Line(output: output, removedIdentifier: removed)))
        } else {
            print("\(output): \(removed ? "content identifier removed" : "had no content identifier")")
        }
        return 0
    }

    // MARK: - shared

    private static func pair(_ parsed: ParsedArguments) -> (String, String) {
        (parsed.positionals[0], parsed.positionals[1]) // two operands, checked by the table
    }

    /// What a Live still can be, by extension.
    static let liveStillFormats: KeyValuePairs<String, String> = ["jpg": "jpeg", "jpeg": "jpeg", "heic": "heic", "heif": "heic"]

    private static func stem(_ path: String) -> String {
        ((path as NSString).lastPathComponent as NSString).deletingPathExtension
    }

    private static func saveOptions(_ parsed: ParsedArguments) throws -> LivePhoto.SaveOptions {
        var options = LivePhoto.SaveOptions()
        if parsed.spec.option(named: "recipe") != nil, let path = parsed.string("recipe") {
            options.recipe = try EditCommand.loadRecipe(path)
        }
        if let format = parsed.string("format").flatMap(LivePhoto.StillFormat.init(rawValue:)) { options.stillFormat = format }
        return options
    }

    /// Saves the pair into the output folder, verifies it (SPEC C3, 45 s) and
    /// falls back to a plain still when it fails (SPEC C4).
    private static func saveAndDeliver(movie: String, still: String?, stem: String, parsed: ParsedArguments,
                                       options: LivePhoto.SaveOptions) throws -> Int32 {
        guard let dir = parsed.string("output") else { preconditionFailure("required by the table") }
        return try OutputFolder.using(dir) {
            try saveAndDeliver(movie: movie, still: still, stem: stem, into: dir, parsed: parsed, options: options)
        }
    }

    private static func saveAndDeliver(movie: String, still: String?, stem: String, into dir: String,
                                       parsed: ParsedArguments, options: LivePhoto.SaveOptions) throws -> Int32 {
        let stillOut = dir + "/" + stem + (options.stillFormat == .heic ? ".heic" : ".jpg")
        let movieOut = dir + "/" + stem + ".mov"
        let progress = ProgressReporter(label: "live")
        defer { progress.finish() }
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
            let delivery = try progress.waiting("verifying the Live pair") {
                try blocking {
                    try await LivePhoto.deliver(still: stillOut, movie: movieOut, plainStill: plain,
                                                verifier: LiveVerifier(deadline: LiveVerifier<ContinuousClock>.collageDeadline),
                                                failedMovie: .delete) // SPEC C4: the movie this command just wrote
                }
            }
            progress.finish()
            switch delivery {
            case let .live(s, m, id):
                line = SaveLine(result: "live", still: s, movie: m, contentIdentifier: id, save: report)
            case let .still(s, failure, reason):
                try? FileManager.default.removeItem(atPath: stillOut)
                line = SaveLine(result: "still", still: s, failureTitle: failure.title, failureMessage: failure.message,
                                reason: reason, save: report)
            }
        }
        if parsed.json {
            print(try JSONReport.line(line))
        } else {
            print("\(line.result): \(line.still)\(line.movie.map { " + \($0)" } ?? "")"
                  + "\(line.contentIdentifier.map { " (\($0))" } ?? "")\(line.failureMessage.map { " — \($0)" } ?? "")")
        }
        return 0
    }
}
