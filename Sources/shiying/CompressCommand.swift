import Foundation
import Shiying
import ShiyingLibrary
import ShiyingOrganize

/// Compression (issue 19; SPEC S3, D5): `shiying compress …` and its library
/// forms `shiying library compress ID` / `shiying library undo-compress ID`.
enum CompressCommand {
    static let usage = """
        shiying compress IN -o OUT.(heic|jpg|mov) [--quality Q (75)] [--bitrate BPS] [--allow-sdr] [--json]
          shiying compress IN --library DIR [--format heic|jpeg] [--quality Q] [--bitrate BPS] [--allow-sdr] [--json]
          shiying compress --undo ID --library DIR [--json]
        """

    /// `shiying compress`.
    static func run(_ args: [String]) throws -> Int32 {
        let parsed = try Arguments(args, booleans: ["json", "allow-sdr"])
        try parsed.rejectUnknown(["o", "output", "library", "undo", "format", "quality", "bitrate"])
        if let undo = parsed.options["undo"] {
            guard let dir = parsed.options["library"] else { throw UsageError("compress --undo needs --library DIR\n\(usage)") }
            return try self.undo([undo], try PhotoLibrary(at: dir), json: parsed.has("json"))
        }
        guard parsed.positionals.count == 1, let input = parsed.positionals.first else { throw UsageError("one input\n\(usage)") }
        if let dir = parsed.options["library"] {
            let library = try PhotoLibrary(at: dir)
            guard let id = try blocking({ try await library.assetID(forFile: input, reader: EngineMediaReader()) }) else {
                throw UsageError("\(input) is not in the library \(dir); import it first")
            }
            return try compress(parsed, id, library)
        }
        guard let output = parsed.options["o"] ?? parsed.options["output"] else { throw UsageError("-o OUT or --library DIR\n\(usage)") }
        let kind = try outputFormat(output, command: "compress",
                                    formats: ["heic": "heic", "heif": "heic", "jpg": "jpeg", "jpeg": "jpeg", "mov": "mov"],
                                    chosen: parsed.options["format"])
        var options = try self.options(parsed)
        options.format = kind == "jpeg" ? .jpeg : .heic
        let report = try withProgress { progress in
            try Compression.compressBlocking(input, to: output, movie: kind == "mov", options: options, progress: progress.report)
        }
        if parsed.has("json") {
            print(try JSONReport.line(CompressionJSON(report, originalID: nil)))
        } else {
            print("\(output): \(bytesText(report))")
        }
        return 0
    }

    /// `shiying library compress ID`: the copy goes through the exit path into 「拾映转换」.
    static func compress(_ parsed: Arguments, _ id: Int64, _ library: PhotoLibrary) throws -> Int32 {
        let options = try self.options(parsed)
        let result = try withProgress { progress in
            try blocking { try await LibraryWorkflows.compress(id, in: library, options: options, progress: progress.report) }
        }
        if parsed.has("json") {
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

    static func options(_ parsed: Arguments) throws -> Compression.Options {
        var options = Compression.Options()
        switch parsed.options["format"] {
        case nil, "heic", "heif": options.format = .heic
        case "jpeg", "jpg": options.format = .jpeg
        case let other?: throw UsageError("--format \(other): compress writes heic or jpeg")
        }
        options.quality = try parsed.int("quality", in: 1...100) ?? options.quality
        options.videoBitrate = try parsed.int("bitrate", in: 100_000...200_000_000)
        if parsed.has("allow-sdr") { options.onHDRLoss = { _ in true } }
        return options
    }

    /// Runs `body` with progress on stderr; SPEC E6's refusal names --allow-sdr.
    private static func withProgress<T>(_ body: (StderrProgress) throws -> T) throws -> T {
        let progress = StderrProgress(label: "compress")
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
