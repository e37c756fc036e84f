import Foundation
import Shiying
import ShiyingLibrary
import ShiyingOrganize

/// `shiying convert IN -o OUT.(heic|jpg|png) [--quality Q] [--json]`
enum ConvertCommand {
    static let usage = """
        shiying convert IN -o OUT.(heic|jpg|png) [--format heic|jpeg|png] [--quality Q] [--allow-sdr] [--json]
          shiying convert IN --library DIR [-o NAME.(heic|jpg|png) | --format heic|jpeg|png] [--quality Q] [--json]
          shiying convert (VIDEO|MOTION_PHOTO) --to live (-o DIR | --library DIR) [--json]
          shiying convert (VIDEO|MOTION_PHOTO) --to gif (-o OUT.gif | --library DIR) [--fps N (15)] [--size PX (640)]
            [--colors N (255)] [--dither A (2)] [--json]
        """

    static func run(_ args: [String]) throws -> Int32 {
        let parsed = try Arguments(args, booleans: ["json", "allow-sdr"])
        try parsed.rejectUnknown(["o", "output", "quality", "format", "library", "to", "fps", "size", "colors", "dither"])
        guard parsed.positionals.count == 1, let input = parsed.positionals.first else {
            throw UsageError("one input photo\n\(usage)")
        }
        switch parsed.options["to"] {
        case nil, "photo": break
        case "live": return try ConvertLiveCommand.run(input, parsed)
        case "gif": return try ConvertGIFCommand.run(input, parsed)
        case let other?: throw UsageError("--to \(other): use live or gif\n\(usage)")
        }
        if let library = parsed.options["library"] { return try intoLibrary(input, library, parsed) }
        guard let output = parsed.options["o"] ?? parsed.options["output"] else { throw UsageError("-o OUT is required") }
        var format: Conversion.Format?
        if let name = parsed.options["format"] {
            guard let value = Conversion.Format(rawValue: name == "jpg" ? "jpeg" : name) else {
                throw UsageError("--format heic|jpeg|png")
            }
            format = value
        }
        let implied = try outputFormat(output, command: "convert", formats: stillFormats, chosen: format?.rawValue)
        format = Conversion.Format(rawValue: implied)
        let quality = try parsed.int("quality", in: 1...100) ?? 90
        let progress = StderrProgress(label: "convert")
        let report: Conversion.Report
        do { // SPEC E6: a gain map is kept; SDR only with --allow-sdr
            report = try Conversion.convertBlocking(input, to: output, format: format, quality: quality,
                                            onHDRLoss: parsed.has("allow-sdr") ? { _ in true } : nil,
                                            progress: progress.report)
        } catch let error as HDRLossError {
            progress.finish()
            throw ShiyingError(code: .cancelled, message: "\(error.description) (use --allow-sdr to save SDR)", file: input)
        }
        progress.finish()
        if parsed.has("json") {
            print(try JSONReport.line(report))
        } else {
            let kept = report.kept.isEmpty ? "no metadata" : report.kept.joined(separator: ", ")
            print("\(output): \(report.format.rawValue) \(report.width)x\(report.height), kept \(kept)\(droppedText(report.dropped))")
        }
        return 0
    }

    /// SPEC S3: the copy goes through the library's exit path into 「拾映转换」
    /// (nothing is written outside the library; `-o` only names the copy).
    private static func intoLibrary(_ input: String, _ dir: String, _ parsed: Arguments) throws -> Int32 {
        let named = parsed.options["o"] ?? parsed.options["output"]
        let implied = try named.map { try outputFormat($0, command: "convert", formats: stillFormats, chosen: parsed.options["format"]) }
        guard let format = Conversion.Format(rawValue: implied ?? parsed.options["format"].map { $0 == "jpg" ? "jpeg" : $0 } ?? "jpeg") else {
            throw UsageError("--format heic|jpeg|png")
        }
        let quality = try parsed.int("quality", in: 1...100) ?? 90
        let library = try PhotoLibrary(at: dir)
        let progress = StderrProgress(label: "convert")
        let name = named.map { ($0 as NSString).lastPathComponent }
        let result = try blocking {
            try await LibraryWorkflows.convert(input, into: library, format: format, quality: quality, name: name,
                                               progress: progress.report)
        }
        progress.finish()
        if parsed.has("json") {
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
