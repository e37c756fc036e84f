import Foundation
import Shiying
import ShiyingLibrary
import ShiyingOrganize

/// `shiying collage --layout long|grid [...] -o OUT IN...`
enum CollageCommand {
    static let usage = """
        shiying collage --layout long|grid [--width 1080] [--columns N] [--spacing PX] [--margin PX]
                        [--background RRGGBB] [--format jpeg|png] [--quality Q] [--threads N]
                        [--naive] [--fail-too-tall] [--json] (-o OUT | --library DIR [-o NAME]) IN...
        """ + "\n" + MotionCollageCommand.usage

    static func run(_ args: [String]) throws -> Int32 {
        if MotionCollageCommand.wanted(args) { return try MotionCollageCommand.run(args) }
        let parsed = try Arguments(args, booleans: ["naive", "json", "fail-too-tall"])
        try parsed.rejectUnknown(["layout", "width", "columns", "spacing", "margin", "background", "format",
                                  "quality", "threads", "o", "output", "library"])
        guard let layoutName = parsed.options["layout"], let layout = CollageRequest.Layout(rawValue: layoutName)
        else { throw UsageError("--layout long|grid is required\n\(usage)") }
        let library = parsed.options["library"]
        guard let output = parsed.options["o"] ?? parsed.options["output"]
            ?? library.map({ _ in "collage." + (parsed.options["format"] == "png" ? "png" : "jpg") })
        else { throw UsageError("-o OUT (or --library DIR) is required") }
        guard !parsed.positionals.isEmpty else { throw UsageError("no input photos\n\(usage)") }

        var request = CollageRequest(layout: layout, inputs: parsed.positionals, output: output)
        if let width = try parsed.int("width", in: 16...65500) { request.width = width }
        request.columns = try parsed.int("columns", in: 1...100)
        request.spacing = try parsed.int("spacing", in: 0...4096)
        request.margin = try parsed.int("margin", in: 0...4096)
        if let quality = try parsed.int("quality", in: 1...100) { request.quality = quality }
        if let threads = try parsed.int("threads", in: 0...64) { request.threads = threads }
        if let hex = parsed.options["background"] { request.background = try rgb(hex) }
        if let format = parsed.options["format"], CollageRequest.Format(rawValue: format) == nil {
            throw UsageError("--format jpeg|png")
        }
        let format = try outputFormat(output, command: "collage", formats: ["jpg": "jpeg", "jpeg": "jpeg", "png": "png"],
                                      chosen: parsed.options["format"])
        request.format = CollageRequest.Format(rawValue: format) ?? .jpeg
        request.naive = parsed.has("naive")
        request.failWhenTooTall = parsed.has("fail-too-tall")
        request.measureProcessPeak = true // the CLI is its own process: its peak is the job's

        let progress = StderrProgress(label: "collage")
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
            report = try Collage.renderBlocking(request, progress: progress.report)
        }
        progress.finish()
        for grey in report.greyCells {
            FileHandle.standardError.write(Data("shiying: input \(grey.index) painted grey: \(grey.reason)\n".utf8))
        }
        if report.scaledToFit {
            let note = "shiying: canvas scaled by \(String(format: "%.3f", report.scaleFactor)) to stay within "
                + "JPEG's 65,500 px (use --format png for full width)\n"
            FileHandle.standardError.write(Data(note.utf8))
        }
        if let deposited {
            if parsed.has("json") {
                var placed = request
                placed.output = deposited.files.first ?? request.output
                print(try JSONReport.line(LibraryExitJSON(deposited, conversion: CollageJSON(report, request: placed))))
            } else {
                print("\(deposited.files.joined(separator: " ")): asset \(deposited.id) in 「\(deposited.album)」, "
                      + "\(report.width)x\(report.height), \(report.cells) cells")
            }
        } else if parsed.has("json") {
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
        seconds = report.seconds
    }
}
