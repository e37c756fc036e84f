import Foundation
import Shiying
import ShiyingLibrary
import ShiyingOrganize

/// `shiying collage --layout long|grid [...] -o OUT IN...`
enum CollageCommand {
    static let formats: KeyValuePairs<String, String> = ["jpg": "jpeg", "jpeg": "jpeg", "png": "png", "heic": "heic", "heif": "heic"]

    static let spec = CommandSpec(
        path: ["collage"], summary: "a long image (超长图) or a grid collage, still or moving",
        forms: [stillSpec, MotionCollageCommand.spec])

    static let stillSpec = CommandSpec(
        path: ["collage"], summary: "a still collage drawn strip by strip (SPEC C1–C15)",
        operands: [OperandSpec("IN", .oneOrMore, "the photos, in order (JPEG, PNG, HEIC)", missing: "no input photos")],
        options: [
            .choice("layout", ["long", "grid"], "long image or grid collage", required: true),
            .output("OUT", "the collage (.jpg, .jpeg, .png, .heic); with --library only its name"),
            .path("library", "DIR", "deposit the collage into this library's 「拾映创作」 (SPEC C9)"),
            .int("width", "PX", 16...65500, "canvas width", default: 1080),
            .int("columns", "N", 1...100, "grid columns (default: chosen for the count)"),
            .int("spacing", "PX", 0...4096, "space between cells"),
            .int("margin", "PX", 0...4096, "space around the canvas"),
            .text("background", "RRGGBB", "background colour, hex (`#` optional)"),
            .choice("format", ["jpeg", "png", "heic"], "output format; must agree with -o's extension"),
            .int("quality", "Q", 1...100, "JPEG / HEIC quality", default: 90),
            .int("threads", "N", 0...64, "decode threads (0 = one per core)"),
            .flag("naive", "decode every photo whole instead of strip by strip (for comparison)"),
            .flag("fail-too-tall", "refuse a long image taller than JPEG's 65,500 px (HEIC's 32,768) instead of scaling it"),
            .flag("allow-sdr", "consent to dropping an HDR gain map the collage cannot keep (PNG, an unreadable map; SPEC E6)"),
            .json,
        ],
        oneOf: ["output", "library"],
        formTitle: "still collage", run: { try run($0) })

    static func run(_ parsed: ParsedArguments) throws -> Int32 {
        guard let layout = parsed.string("layout").flatMap(CollageRequest.Layout.init(rawValue:)) else {
            throw UsageError("--layout long|grid is required")
        }
        let library = parsed.string("library")
        guard let output = parsed.string("output")
            ?? library.map({ _ in
                "collage." + (parsed.string("format").flatMap(CollageRequest.Format.init(rawValue:)) ?? .jpeg).fileExtension
            })
        else { throw UsageError("collage: -o OUT (or --library DIR) is required") }

        var request = CollageRequest(layout: layout, inputs: parsed.positionals, output: output)
        if let width = parsed.int("width") { request.width = width }
        request.columns = parsed.int("columns")
        request.spacing = parsed.int("spacing")
        request.margin = parsed.int("margin")
        if let quality = parsed.int("quality") { request.quality = quality }
        if let threads = parsed.int("threads") { request.threads = threads }
        if let hex = parsed.string("background") { request.background = try rgb(hex) }
        let format = try outputFormat(output, command: "collage", formats: formats, chosen: parsed.string("format"))
        request.format = CollageRequest.Format(rawValue: format) ?? .jpeg
        request.naive = parsed.has("naive")
        request.failWhenTooTall = parsed.has("fail-too-tall")
        request.allowSDR = parsed.has("allow-sdr")
        request.measureProcessPeak = true // the CLI is its own process: its peak is the job's

        let progress = ProgressReporter(label: "collage")
        var deposited: LibraryOutputReport?
        let report: CollageReport
        if let library {
            // SPEC C9: through the library's exit path into 「拾映创作」; -o only names it
            let opened = try PhotoLibrary(at: library)
            let wanted = request, name = (output as NSString).lastPathComponent
            let result = try blocking {
                try await LibraryWorkflows.collage(wanted, into: opened, name: name, progress: progress.report)
            }
            (report, deposited) = (result.collage, result.library)
        } else {
            do {
                report = try Collage.renderBlocking(request, progress: progress.report)
            } catch let error as ShiyingError where error.code == .unsupported && error.message.contains("allow_sdr") {
                progress.finish()
                throw consentInCLITerms(error)
            } catch {
                progress.finish()
                throw error
            }
        }
        progress.finish()
        for grey in report.greyCells {
            writeStderr(Data("shiying: input \(grey.index) painted grey: \(grey.reason)\n".utf8))
        }
        if report.scaledToFit {
            let limit = request.format == .heic ? "the 32,768 px libheif opens in a HEIC" : "JPEG's 65,500 px"
            let note = "shiying: canvas scaled by \(String(format: "%.3f", report.scaleFactor)) to stay within "
                + "\(limit) (use --format png for full width)\n"
            writeStderr(Data(note.utf8))
        }
        if let deposited {
            if parsed.json {
                var placed = request
                placed.output = deposited.files.first ?? request.output
                print(try JSONReport.line(LibraryExitJSON(deposited, conversion: CollageJSON(report, request: placed))))
            } else {
                print("\(deposited.files.joined(separator: " ")): asset \(deposited.id) in 「\(deposited.album)」, "
                      + "\(report.width)x\(report.height), \(report.cells) cells")
            }
        } else if parsed.json {
            print(try JSONReport.line(CollageJSON(report, request: request)))
        } else {
            print("\(output): \(report.width)x\(report.height), \(report.cells) cells, "
                  + "\(report.greyCells.count) grey, peak RSS +\((report.peakRSSDeltaBytes ?? 0) / 1_048_576) MB, "
                  + String(format: "%.2f s", report.seconds))
        }
        return 0
    }

    private static func rgb(_ hex: String) throws -> [UInt8] {
        let digits = hex.hasPrefix("#") ? String(hex.dropFirst()) : hex
        guard digits.count == 6, let value = UInt32(digits, radix: 16) else {
            throw UsageError("--background expects RRGGBB, got \(hex)")
        }
        return [UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}

/// The `--json` report: the contract other tools read (snake_case keys).
struct CollageJSON: Encodable {
    let output: String
    let layout: String
    let format: String
    let width: Int
    let height: Int
    let cells: Int
    let greyCells: [Int]
    let greyReasons: [String]
    let overBudgetCells: [Int]
    let scaledToFit: Bool
    let scaleFactor: Double
    let naive: Bool
    let peakRssDeltaBytes: UInt64
    let colorSpace: String
    let enginePeakBytes: UInt64
    let cellPeakBytes: UInt64
    /// "kept", "dropped" or "none"; per cell "kept", "dropped" or "sdr".
    let gainMap: String
    let gainMapCells: [String]
    let gainMapForms: [String]
    let gainMapHeadroom: Double
    let gainMapDropReason: String?
    let seconds: Double

    init(_ report: CollageReport, request: CollageRequest) {
        output = request.output
        layout = request.layout.rawValue
        format = request.format.rawValue
        width = report.width
        height = report.height
        cells = report.cells
        greyCells = report.greyCells.map(\.index)
        greyReasons = report.greyCells.map(\.reason)
        overBudgetCells = report.overBudgetCells
        scaledToFit = report.scaledToFit
        scaleFactor = report.scaleFactor
        naive = request.naive
        peakRssDeltaBytes = report.peakRSSDeltaBytes ?? 0
        colorSpace = report.colorSpace
        enginePeakBytes = report.enginePeakBytes
        cellPeakBytes = report.cellPeakBytes
        gainMap = report.gainMap
        gainMapCells = report.cellGainMaps
        gainMapForms = report.gainMapForms
        gainMapHeadroom = report.gainMapHeadroom
        gainMapDropReason = report.gainMapDropReason
        seconds = report.seconds
    }
}

/// SPEC E6: a collage refusing to drop a gain map says how to consent in the CLI's own terms.
func consentInCLITerms(_ error: ShiyingError) -> ShiyingError {
    let text = error.message.replacingOccurrences(of: "allow_sdr records", with: "--allow-sdr records")
    return ShiyingError(code: error.code, message: text, file: error.file)
}
