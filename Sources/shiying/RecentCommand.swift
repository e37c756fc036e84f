import Foundation
import ShiyingLibrary

/// `shiying recent add|list|remove|clear --db FILE [--json]` (SPEC Q1).
enum RecentCommand {
    static let usage = "shiying recent add QUERY | list | remove QUERY | clear  --db FILE [--json]"

    private struct Report: Encodable {
        var recent: [String]
    }

    static func run(_ args: [String]) throws -> Int32 {
        let parsed = try Arguments(args, booleans: ["json"])
        try parsed.rejectUnknown(["db"])
        guard let db = parsed.options["db"] else { throw UsageError("recent needs --db FILE\nusage: \(usage)") }
        guard let action = parsed.positionals.first else { throw UsageError("usage: \(usage)") }
        let operands = Array(parsed.positionals.dropFirst())
        let store = try RecordStore(path: db)
        let recent = RecentSearches(store: store)
        switch action {
        case "add", "remove":
            guard operands.count == 1 else { throw UsageError("recent \(action) takes one QUERY\nusage: \(usage)") }
            if action == "add" { try recent.add(operands[0]) } else { try recent.remove(operands[0]) }
        case "clear":
            guard operands.isEmpty else { throw UsageError("usage: \(usage)") }
            try recent.clear()
        case "list":
            guard operands.isEmpty else { throw UsageError("usage: \(usage)") }
        default:
            throw UsageError("unknown recent action \(action)\nusage: \(usage)")
        }
        let entries = try recent.list().map(\.query)
        if parsed.has("json") {
            print(try JSONReport.line(Report(recent: entries)))
        } else {
            for entry in entries { print(entry) }
        }
        return 0
    }
}
