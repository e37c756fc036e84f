import Foundation
import Shiying
import ShiyingLibrary
import ShiyingOrganize

/// `shiying library compress ID` and `shiying library undo-compress ID`
/// (issue 19; SPEC S3, D5): a smaller copy into 「拾映转换」, and its undo.
enum LibraryCompressCommand {
    static func compress(_ parsed: Arguments, _ operands: [String], _ library: PhotoLibrary) throws -> Int32 {
        let ids = try LibraryCommand.assetIDs(operands)
        guard ids.count == 1, let id = ids.first else { throw UsageError("library compress takes one asset id") }
        var options = LibraryWorkflows.CompressionOptions()
        switch parsed.options["format"] {
        case nil, "heic", "heif": options.format = .heic
        case "jpeg", "jpg": options.format = .jpeg
        case let other?: throw UsageError("--format \(other): compress writes heic or jpeg")
        }
        options.quality = try parsed.int("quality", in: 1...100) ?? options.quality
        options.videoBitrate = try parsed.int("bitrate", in: 100_000...200_000_000)
        if parsed.has("allow-sdr") { options.onHDRLoss = { _ in true } }
        let progress = StderrProgress(label: "compress")
        let result: LibraryWorkflows.CompressionResult
        do {
            result = try blocking { [options] in
                try await LibraryWorkflows.compress(id, in: library, options: options, progress: progress.report)
            }
        } catch let error as HDRLossError { // SPEC E6: a gain map is kept; SDR only with --allow-sdr
            progress.finish()
            throw ShiyingError(code: .cancelled, message: "\(error.description) (use --allow-sdr to save SDR)")
        }
        progress.finish()
        if parsed.has("json") {
            print(try JSONReport.line(LibraryExitJSON(result.library, conversion: CompressionJSON(result))))
        } else {
            print("\(result.library.files.joined(separator: " ")): asset \(result.library.id) in 「\(result.library.album)」, "
                  + "\(result.originalBytes) → \(result.compressedBytes) bytes "
                  + "(\(SetAsideDeletion.byteText(result.savedBytes)) saved)")
        }
        return 0
    }

    static func undo(_ operands: [String], _ library: PhotoLibrary, json: Bool) throws -> Int32 {
        let ids = try LibraryCommand.assetIDs(operands)
        guard ids.count == 1, let id = ids.first else { throw UsageError("library undo-compress takes one asset id") }
        let undone = try blocking { try await library.undoCompression(id) }
        try LibraryCommand.emit(undone, json: json) { undone.message }
        return 0
    }
}

/// What `library compress --json` reports under "engine".
private struct CompressionJSON: Encodable {
    let originalId: Int64
    let originalBytes: Int64
    let compressedBytes: Int64
    let savedBytes: Int64
    let photo: Conversion.Report?
    let video: VideoTranscode.Report?

    init(_ r: LibraryWorkflows.CompressionResult) {
        originalId = r.originalID
        originalBytes = r.originalBytes
        compressedBytes = r.compressedBytes
        savedBytes = r.savedBytes
        photo = r.photo
        video = r.video
    }
}
