import Foundation
import Shiying
import ShiyingLibrary
import ShiyingOrganize

/// `shiying convert IN -o OUT.(heic|jpg|png) [--quality Q] [--json]`, and `--to live|gif|motion-photo`.
enum ConvertCommand {
    static let spec = CommandSpec(
        path: ["convert"],
        summary: "a photo to HEIC/JPEG/PNG, a video or Motion Photo to a Live pair or a GIF, a Live pair to a Motion Photo",
        operands: [OperandSpec("IN", .one, "the photo, video or Motion Photo (the Live still with --to motion-photo)",
                               missing: "one input photo"),
                   OperandSpec("MOVIE", .optional, "the Live movie (--to motion-photo only)")],
        options: [
            .output("OUT", "the converted file (.heic, .jpg, .png; .gif with --to gif; a folder with --to live; "
                    + ".jpg or .heic with --to motion-photo); "
                    + "with --library only its name"),
            .library,
            .choice("to", ["photo", "live", "gif", "motion-photo"], "what to make", default: "photo"),
            .choice("format", ["heic", "jpeg", "png"], "output format; must agree with -o's extension",
                    aliases: ["jpg": "jpeg"]),
            .int("quality", "Q", 1...100, "JPEG/HEIC quality", default: 90),
            .flag("allow-sdr", "consent to dropping an HDR gain map (SPEC E6; with --to live: a Motion Photo's HEIC still)"),
            .flag("reencode-still", "--to motion-photo: re-encode a still of the other format (a HEIC still into .jpg)"),
            .double("fps", "N", 0...120, "GIF frame rate (--to gif)", default: 15),
            .int("size", "PX", 0...8192, "GIF's longest side (--to gif)", default: 640),
            .int("colors", "N", 2...255, "GIF palette size (--to gif)", default: 255),
            .double("dither", "A", 0...128, "GIF dither amount (--to gif)", default: 2),
            .json,
        ],
        oneOf: ["output", "library"],
        notes: ["With --library the copy goes into the library's 「拾映转换」 (SPEC S3).",
                "--to motion-photo: the video is copied; LPCM sound is encoded as AAC-LC (Android plays no LPCM in MP4), AAC copied."],
        run: { try run($0) })

    static func run(_ parsed: ParsedArguments) throws -> Int32 {
        let input = parsed.positionals[0]
        if parsed.positionals.count > 1 && parsed.string("to") != "motion-photo" {
            throw UsageError("convert: a second operand (MOVIE) only with --to motion-photo")
        }
        switch parsed.string("to") {
        case "live": return try ConvertLiveCommand.run(input, parsed)
        case "gif": return try ConvertGIFCommand.run(input, parsed)
        case "motion-photo": return try ConvertMotionPhotoCommand.run(input, parsed)
        default: break
        }
        if let library = parsed.string("library") { return try intoLibrary(input, library, parsed) }
        guard let output = parsed.string("output") else { throw UsageError("convert: -o OUT (or --library DIR) is required") }
        var format = parsed.string("format").flatMap(Conversion.Format.init(rawValue:))
        let implied = try outputFormat(output, command: "convert", formats: stillFormats, chosen: format?.rawValue)
        format = Conversion.Format(rawValue: implied)
        let quality = parsed.int("quality") ?? 90
        let progress = ProgressReporter(label: "convert")
        let report: Conversion.Report
        do { // SPEC E6: a gain map is kept; SDR only with --allow-sdr
            report = try Conversion.convertBlocking(input, to: output, format: format, quality: quality,
                                            onHDRLoss: parsed.has("allow-sdr") ? { _ in true } : nil,
                                            progress: progress.report)
        } catch let error as HDRLossError {
            progress.finish()
            throw ShiyingError(code: .cancelled, message: "\(error.description) (use --allow-sdr to save SDR)", file: input)
        } catch {
            progress.finish()
            throw error
        }
        progress.finish()
        if parsed.json {
            print(try JSONReport.line(report))
        } else {
            let kept = report.kept.isEmpty ? "no metadata" : report.kept.joined(separator: ", ")
            print("\(output): \(report.format.rawValue) \(report.width)x\(report.height), kept \(kept)\(droppedText(report.dropped))")
        }
        return 0
    }

    /// SPEC S3: the copy goes through the library's exit path into 「拾映转换」
    /// (nothing is written outside the library; `-o` only names the copy).
    private static func intoLibrary(_ input: String, _ dir: String, _ parsed: ParsedArguments) throws -> Int32 {
        let named = parsed.string("output")
        let implied = try named.map { try outputFormat($0, command: "convert", formats: stillFormats, chosen: parsed.string("format")) }
        guard let format = Conversion.Format(rawValue: implied ?? parsed.string("format") ?? "jpeg") else {
            preconditionFailure("the table's formats are the conversion's")
        }
        let quality = parsed.int("quality") ?? 90
        let library = try PhotoLibrary(at: dir)
        let progress = ProgressReporter(label: "convert")
        let name = named.map { ($0 as NSString).lastPathComponent }
        let result: LibraryWorkflows.ConversionResult
        do {
            result = try blocking {
                try await LibraryWorkflows.convert(input, into: library, format: format, quality: quality, name: name,
                                                   progress: progress.report)
            }
        } catch {
            progress.finish()
            throw error
        }
        progress.finish()
        if parsed.json {
            print(try JSONReport.line(LibraryExitJSON(result.library, conversion: result.conversion)))
        } else {
            print("\(result.library.files.joined(separator: " ")): asset \(result.library.id) in 「\(result.library.album)」")
        }
        return 0
    }
}

/// The JSON report of an output that went through the library's exit path:
/// the new asset's id, album and files first, then what the engine reported.
struct LibraryExitJSON<Engine: Encodable>: Encodable {
    let id: Int64
    let kind: String
    let album: String
    let albums: [String]
    let files: [String]
    let captureDate: String?
    let gps: LibraryLocation?
    let favorite: Bool
    let tags: [String]
    let sourceAssetId: Int64?
    let engine: Engine

    init(_ r: LibraryOutputReport, conversion: Engine) {
        id = r.id
        kind = r.kind.rawValue
        album = r.album
        albums = r.albums
        files = r.files
        captureDate = r.captureDate
        gps = r.location
        favorite = r.favorite
        tags = r.tags
        sourceAssetId = r.sourceAssetID
        engine = conversion
    }

    enum CodingKeys: String, CodingKey {
        case id, kind, album, albums, files, captureDate, gps, favorite, tags, sourceAssetId, engine
    }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(kind, forKey: .kind)
        try c.encode(album, forKey: .album)
        try c.encode(albums, forKey: .albums)
        try c.encode(files, forKey: .files)
        try c.encode(captureDate, forKey: .captureDate)   // null when none: every key present
        try c.encode(gps, forKey: .gps)
        try c.encode(favorite, forKey: .favorite)
        try c.encode(tags, forKey: .tags)
        try c.encode(sourceAssetId, forKey: .sourceAssetId)
        try c.encode(engine, forKey: .engine)
    }
}

/// ", dropped makernote (JPEG holds at most 64 KB of Exif)", or "" when nothing was dropped.
func droppedText(_ dropped: [DroppedMetadata]) -> String {
    dropped.isEmpty ? "" : ", dropped " + dropped.map { "\($0.name) (\($0.reason))" }.joined(separator: ", ")
}
