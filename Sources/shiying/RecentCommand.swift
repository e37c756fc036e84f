import Foundation
import ShiyingLibrary

/// `shiying recent add|list|remove|clear --db FILE [--json]` (SPEC Q1).
enum RecentCommand {
    private static func action(_ name: String, _ summary: String, operands: [OperandSpec] = []) -> CommandSpec {
        CommandSpec(path: ["recent", name], summary: summary, operands: operands,
                    options: [.path("db", "FILE", "the record store (SQLite)", required: true), .json],
                    run: { try run(name, $0) })
    }

    static let spec = CommandSpec(
        path: ["recent"], summary: "the recent searches of a record store (SPEC Q1); each action prints the list after it",
        subcommands: [
            action("add", "record a search", operands: [OperandSpec("QUERY", .one, "the search")]),
            action("list", "the recent searches, newest first"),
            action("remove", "forget one search", operands: [OperandSpec("QUERY", .one, "the search")]),
            action("clear", "forget them all"),
        ])

    private struct Report: Encodable {
        var recent: [String]
    }

    static func run(_ action: String, _ parsed: ParsedArguments) throws -> Int32 {
        guard let db = parsed.string("db") else { preconditionFailure("required by the table") }
        // reading a store that is not there: an empty list, and no file made for it
        if action == "list" && !FileManager.default.fileExists(atPath: db) {
            if parsed.json { print(try JSONReport.line(Report(recent: []))) }
            return 0
        }
        let recent = RecentSearches(store: try RecordStore(path: db))
        switch action {
        case "add": try recent.add(parsed.positionals[0])
        case "remove": try recent.remove(parsed.positionals[0])
        case "clear": try recent.clear()
        default: break // list
        }
        let entries = try recent.list().map(\.query)
        if parsed.json {
            print(try JSONReport.line(Report(recent: entries)))
        } else {
            for entry in entries { print(entry) }
        }
        return 0
    }
}
