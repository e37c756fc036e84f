import Foundation
import ShiyingLibrary

/// `shiying search TEXT --library DIR [--today YYYY-MM-DD] [--json]` (issue 21; SPEC Q1–Q3).
enum SearchCommand {
    static let usage = "shiying search TEXT --library DIR [--today YYYY-MM-DD] [--json]   (recorded in the library's recent searches)"

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

    static func run(_ args: [String]) throws -> Int32 {
        let parsed = try Arguments(args, booleans: ["json"])
        try parsed.rejectUnknown(["library", "today"])
        guard parsed.positionals.count == 1 else { throw UsageError("search takes one TEXT argument\nusage: \(usage)") }
        guard let dir = parsed.options["library"] else { throw UsageError("search needs --library DIR\nusage: \(usage)") }
        var today = Day.today()
        if let text = parsed.options["today"] {
            guard let day = Day(iso: text) else { throw UsageError("--today expects YYYY-MM-DD, got \(text)") }
            today = day
        }
        let text = parsed.positionals[0]
        let json = parsed.has("json")
        do {
            let library = try PhotoLibrary(at: dir)
            let found = try blocking {
                let found = try await library.search(text, today: today)
                try await library.recordRecentSearch(text)
                return found
            }
            if json {
                print(try JSONReport.line(Report(query: text, ranges: found.query.ranges.map { .init(start: $0.start.iso, end: $0.end.iso) },
                                                 terms: found.query.terms, ids: found.ids)))
            } else {
                for r in found.query.ranges { print("date \(r.start.iso) … \(r.end.iso)") }
                if !found.query.terms.isEmpty { print("terms \(found.query.terms.joined(separator: " "))") }
                print("\(found.ids.count) found" + (found.ids.isEmpty ? "" : ": " + found.ids.map(String.init).joined(separator: " ")))
            }
            return 0
        } catch let error as LibraryError {
            FileHandle.standardError.write(Data("shiying: \(error.description)\n".utf8))
            if json { print(try JSONReport.line(["error": error.message, "kind": error.kind.rawValue, "detail": error.detail])) }
            return 1
        }
    }
}
