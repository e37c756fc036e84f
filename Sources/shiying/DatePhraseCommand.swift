import Foundation
import ShiyingLibrary

/// `shiying date-phrase "TEXT" [--today YYYY-MM-DD] [--json]` (SPEC Q2).
enum DatePhraseCommand {
    static let usage = "shiying date-phrase TEXT [--today YYYY-MM-DD] [--json]"

    private struct Report: Encodable {
        struct Range: Encodable {
            var start: String
            var end: String
        }
        var ranges: [Range]
        var rest: String
    }

    static func run(_ args: [String]) throws -> Int32 {
        let parsed = try Arguments(args, booleans: ["json"])
        try parsed.rejectUnknown(["today"])
        guard parsed.positionals.count == 1 else { throw UsageError("date-phrase takes one TEXT argument\nusage: \(usage)") }
        let today: Day
        if let text = parsed.options["today"] {
            guard let day = Day(iso: text) else { throw UsageError("--today expects YYYY-MM-DD, got \(text)") }
            today = day
        } else {
            today = Day.today()
        }
        let result = DatePhraseParser().parse(parsed.positionals[0], today: today)
        if parsed.has("json") {
            let report = Report(ranges: result.ranges.map { .init(start: $0.start.iso, end: $0.end.iso) }, rest: result.rest)
            print(try JSONReport.line(report))
        } else {
            for m in result.matches {
                print("\(m.text)\t\(m.range.start.iso) … \(m.range.end.iso)\t(\(m.kind.rawValue))")
            }
            if result.matches.isEmpty { print("no date phrase") }
            print("rest: \(result.rest)")
        }
        return 0
    }
}
