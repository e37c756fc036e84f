import Foundation
import Shiying

/// `shiying convert IN -o OUT.(heic|jpg|png) [--quality Q] [--json]`
enum ConvertCommand {
    static let usage = "shiying convert IN -o OUT.(heic|jpg|png) [--format heic|jpeg|png] [--quality Q] [--allow-sdr] [--json]"

    static func run(_ args: [String]) throws -> Int32 {
        let parsed = try Arguments(args, booleans: ["json", "allow-sdr"])
        try parsed.rejectUnknown(["o", "output", "quality", "format"])
        guard parsed.positionals.count == 1, let input = parsed.positionals.first else {
            throw UsageError("one input photo\n\(usage)")
        }
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
            report = try Conversion.convert(input, to: output, format: format, quality: quality,
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
}

/// ", dropped makernote (JPEG holds at most 64 KB of Exif)", or "" when nothing was dropped.
func droppedText(_ dropped: [DroppedMetadata]) -> String {
    dropped.isEmpty ? "" : ", dropped " + dropped.map { "\($0.name) (\($0.reason))" }.joined(separator: ", ")
}
