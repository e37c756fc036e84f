import Foundation
import Shiying
import ShiyingLibrary
import ShiyingOrganize

/// Compression (issue 19; SPEC S3, D5): `shiying compress …` and its library
/// forms `shiying library compress ID` / `shiying library undo-compress ID`.
enum CompressCommand {
    /// The options a compression takes, here and in `library compress`.
    static let compressionOptions: [OptionSpec] = [
        .choice("format", ["heic", "jpeg"], "the photo's format", aliases: ["heif": "heic", "jpg": "jpeg"]),
        .int("quality", "Q", 1...100, "photo quality", default: 75),
        .int("bitrate", "BPS", 100_000...200_000_000, "a movie's bitrate in bits per second"),
        .flag("allow-sdr", "consent to dropping an HDR gain map, or an HDR movie becoming SDR (SPEC E6)"),
    ]

    static let spec = CommandSpec(
        path: ["compress"], summary: "a smaller copy of a photo or movie; with --library through 「拾映转换」, undoable (issue 19; SPEC S3, D5)",
        operands: [OperandSpec("IN", .optional, "the photo or movie (not with --undo)")],
        options: [.output("OUT", "the compressed copy (.heic, .heif, .jpg, .jpeg, .mov)"), .library,
                  .text("undo", "ID", "undo the compression that made asset ID (with --library)")]
            + compressionOptions + [.json],
        oneOf: ["output", "library", "undo"],
        notes: ["--undo ID takes --library DIR and no IN."],
        run: { try run($0) })

    /// `shiying compress`.
    static func run(_ parsed: ParsedArguments) throws -> Int32 {
        if let undo = parsed.string("undo") {
            guard let dir = parsed.string("library") else { throw UsageError("compress --undo needs --library DIR") }
            guard parsed.positionals.isEmpty else { throw UsageError("compress --undo takes no IN") }
            return try self.undo([undo], try PhotoLibrary(at: dir), json: parsed.json)
        }
        guard parsed.positionals.count == 1, let input = parsed.positionals.first else {
            throw UsageError("compress: IN is required (see shiying compress --help)")
        }
        if let dir = parsed.string("library") {
            let library = try PhotoLibrary(at: dir)
            guard let id = try blocking({ try await library.assetID(forFile: input, reader: EngineMediaReader()) }) else {
                throw UsageError("\(input) is not in the library \(dir); import it first")
            }
            return try compress(parsed, id, library)
        }
        guard let output = parsed.string("output") else { throw UsageError("compress: -o OUT or --library DIR is required") }
        let kind = try outputFormat(output, command: "compress",
                                    formats: ["heic": "heic", "heif": "heic", "jpg": "jpeg", "jpeg": "jpeg", "mov": "mov"],
                                    chosen: parsed.string("format"))
        var options = self.options(parsed)
        options.format = kind == "jpeg" ? .jpeg : .heic
        let report = try withProgress { progress in
            try Compression.compressBlocking(input, to: output, movie: kind == "mov", options: options, progress: progress.report)
        }
        if parsed.json {
            print(try JSONReport.line(CompressionJSON(report, originalID: nil)))
        } else {
            print("\(output): \(bytesText(report))")
        }
        return 0
    }

    /// `shiying library compress ID`: the copy goes through the exit path into 「拾映转换」.
    static func compress(_ parsed: ParsedArguments, _ id: Int64, _ library: PhotoLibrary) throws -> Int32 {
        let options = self.options(parsed)
        let result = try withProgress { progress in
            try blocking { try await LibraryWorkflows.compress(id, in: library, options: options, progress: progress.report) }
        }
        if parsed.json {
            print(try JSONReport.line(LibraryExitJSON(result.library, conversion: CompressionJSON(result.compression,
                                                                                                 originalID: id))))
        } else {
            print("\(result.library.files.joined(separator: " ")): asset \(result.library.id) in 「\(result.library.album)」, "
                  + bytesText(result.compression))
        }
        return 0
    }

    /// `shiying library undo-compress ID`: SPEC D5's sentence.
    static func undo(_ operands: [String], _ library: PhotoLibrary, json: Bool) throws -> Int32 {
        let ids = try LibraryCommand.assetIDs(operands)
        guard ids.count == 1, let id = ids.first else { throw UsageError("undo-compress takes one asset id") }
        let undone = try blocking { try await library.undoCompression(id) }
        try LibraryCommand.emit(undone, json: json) { undone.message }
        return 0
    }

    static func options(_ parsed: ParsedArguments) -> Compression.Options {
        var options = Compression.Options()
        options.format = parsed.string("format") == "jpeg" ? .jpeg : .heic
        options.quality = parsed.int("quality") ?? options.quality
        options.videoBitrate = parsed.int("bitrate")
        if parsed.has("allow-sdr") { options.onHDRLoss = { _ in true } }
        return options
    }

    /// Runs `body` with progress on stderr; SPEC E6's refusal names --allow-sdr.
    private static func withProgress<T>(_ body: (ProgressReporter) throws -> T) throws -> T {
        let progress = ProgressReporter(label: "compress")
        defer { progress.finish() }
        do {
            return try body(progress)
        } catch let error as HDRLossError {
            throw ShiyingError(code: .cancelled, message: "\(error.description) (use --allow-sdr to save SDR)")
        }
    }

    private static func bytesText(_ r: Compression.Report) -> String {
        "\(r.originalBytes) → \(r.compressedBytes) bytes (\(SetAsideDeletion.byteText(r.savedBytes)) saved)"
    }
}

/// What a compression reports (under "engine" when it went through the library).
private struct CompressionJSON: Encodable {
    let originalId: Int64?
    let originalBytes: Int64
    let compressedBytes: Int64
    let savedBytes: Int64
    let photo: Conversion.Report?
    let video: VideoTranscode.Report?

    init(_ r: Compression.Report, originalID: Int64?) {
        originalId = originalID
        originalBytes = r.originalBytes
        compressedBytes = r.compressedBytes
        savedBytes = r.savedBytes
        photo = r.photo
        video = r.video
    }
}
