import Foundation
import ShiyingLibrary

/// `shiying date-phrase "TEXT" [--today YYYY-MM-DD] [--json]` (SPEC Q2).
enum DatePhraseCommand {
    static let spec = CommandSpec(
        path: ["date-phrase"], summary: "the date ranges a phrase names, in eight languages (SPEC Q2)",
        operands: [OperandSpec("TEXT", .one, "the phrase (`上周`, `去年五月一日`, `May 1` …; relative words in Chinese, written month + day dates in eight languages)", missing: "date-phrase takes one TEXT argument")],
        options: [.text("today", "YYYY-MM-DD", "the day the phrase counts from (default: today)"), .json],
        run: { try run($0) })

    /// `--today YYYY-MM-DD`, or the real day.
    static func today(_ parsed: ParsedArguments) throws -> Day {
        guard let text = parsed.string("today") else { return Day.today() }
        guard let day = Day(iso: text) else { throw UsageError("--today expects YYYY-MM-DD, got \(text)") }
        return day
    }

    private struct Report: Encodable {
        struct Range: Encodable {
            var start: String
            var end: String
        }
        var ranges: [Range]
        var rest: String
    }

    static func run(_ parsed: ParsedArguments) throws -> Int32 {
        let today = try today(parsed)
        let result = DatePhraseParser().parse(parsed.positionals[0], today: today)
        if parsed.json {
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
