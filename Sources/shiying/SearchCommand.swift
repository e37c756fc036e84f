import Foundation
import ShiyingLibrary

/// `shiying search TEXT --library DIR [--today YYYY-MM-DD] [--json]` (issue 21; SPEC Q1–Q3).
enum SearchCommand {
    static let spec = CommandSpec(
        path: ["search"], summary: "search a library by date phrase, words, camera, place, text (SPEC Q1–Q3); recorded in its recent searches",
        operands: [OperandSpec("TEXT", .one, "what to search for", missing: "search takes one TEXT argument")],
        options: [.path("library", "DIR", "the photo library", required: true),
                  .text("today", "YYYY-MM-DD", "the day date phrases count from (default: today)"), .json],
        run: { try run($0) })

    private struct Report: Encodable {
        struct Range: Encodable {
            var start: String
            var end: String
        }
        var query: String
        var ranges: [Range]
        var terms: [String]
        var ids: [Int64]
    }

    static func run(_ parsed: ParsedArguments) throws -> Int32 {
        guard let dir = parsed.string("library") else { preconditionFailure("required by the table") }
        let today = try DatePhraseCommand.today(parsed)
        let text = parsed.positionals[0]
        let library = try PhotoLibrary(at: dir) // a LibraryError is reported by main (stderr, and JSON with --json)
        let found = try blocking {
            let found = try await library.search(text, today: today)
            try await library.recordRecentSearch(text)
            return found
        }
        if parsed.json {
            print(try JSONReport.line(Report(query: text, ranges: found.query.ranges.map { .init(start: $0.start.iso, end: $0.end.iso) },
                                             terms: found.query.terms, ids: found.ids)))
        } else {
            for r in found.query.ranges { print("date \(r.start.iso) … \(r.end.iso)") }
            if !found.query.terms.isEmpty { print("terms \(found.query.terms.joined(separator: " "))") }
            print("\(found.ids.count) found" + (found.ids.isEmpty ? "" : ": " + found.ids.map(String.init).joined(separator: " ")))
        }
        return 0
    }
}
