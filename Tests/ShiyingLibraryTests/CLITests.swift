// SPEC Q1/Q2 through the built `shiying` binary: `date-phrase --json` and `recent`.
import Foundation
import ShiyingLibrary
import Testing

/// Locates the CLI like Tests/ShiyingTests/TestSupport.swift: $SHIYING_BIN, else
/// <root>/.build/debug/shiying, else .build/release/shiying, else builds it once.
enum ShiyingBinary {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let path = Task<String, Error> {
        let fm = FileManager.default
        if let env = ProcessInfo.processInfo.environment["SHIYING_BIN"], fm.isExecutableFile(atPath: env) { return env }
        for config in ["debug", "release"] {
            let path = packageRoot.appendingPathComponent(".build/\(config)/shiying").path
            if fm.isExecutableFile(atPath: path) { return path }
        }
        let swift = ["/opt/swift/usr/bin/swift", "/usr/bin/swift"].first { fm.isExecutableFile(atPath: $0) } ?? "swift"
        let build = try await run(swift, ["build", "--product", "shiying"], in: packageRoot.path)
        let path = packageRoot.appendingPathComponent(".build/debug/shiying").path
        guard build.status == 0, fm.isExecutableFile(atPath: path) else {
            throw CLIFailure("could not build the shiying CLI: \(build.stderr.suffix(2000))")
        }
        return path
    }

    /// Runs a process without blocking a cooperative thread; stdout/stderr go to temp files.
    static func run(_ executable: String, _ arguments: [String], in directory: String? = nil) async throws
        -> (status: Int32, stdout: String, stderr: String) {
        let dir = try TempFolder()
        defer { dir.remove() }
        for name in ["out", "err"] { _ = FileManager.default.createFile(atPath: dir.file(name), contents: nil) }
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: dir.file("out")))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: dir.file("err")))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            process.terminationHandler = { _ in c.resume() }
            do { try process.run() } catch { process.terminationHandler = nil; c.resume() }
        }
        try? out.close()
        try? err.close()
        let stdout = (try? String(contentsOfFile: dir.file("out"), encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOfFile: dir.file("err"), encoding: .utf8)) ?? ""
        return (process.isRunning ? -1 : process.terminationStatus, stdout, stderr)
    }

    static func shiying(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await run(try await path.value, arguments)
    }
}

struct CLIFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

private struct DatePhraseJSON: Decodable, Equatable {
    struct Range: Decodable, Equatable {
        var start: String
        var end: String
    }
    var ranges: [Range]
    var rest: String
}

@Test("SPEC Q2 CLI: date-phrase --json", arguments: [
    ("上周日本", "2025-03-12", [["2025-03-03", "2025-03-09"]], "本"),
    ("上个月底 海边", "2024-03-05", [["2024-02-21", "2024-02-29"]], "海边"),
    ("1 de mayo", "2025-03-12", [["2024-05-01", "2024-05-01"]], ""),
    ("1. FC Köln", "2025-03-12", [], "1. FC Köln"),
    ("May 1 五月一日", "2025-03-12", [["2024-05-01", "2024-05-01"], ["2024-05-01", "2024-05-01"]], ""),
])
func cliDatePhrase(_ c: (String, String, [[String]], String)) async throws {
    let r = try await ShiyingBinary.shiying(["date-phrase", c.0, "--today", c.1, "--json"])
    #expect(r.status == 0, "\(r.stderr)")
    let line = r.stdout.split(separator: "\n").last.map(String.init) ?? ""
    let json = try JSONDecoder().decode(DatePhraseJSON.self, from: Data(line.utf8))
    #expect(json == DatePhraseJSON(ranges: c.2.map { .init(start: $0[0], end: $0[1]) }, rest: c.3))
    if c.2.isEmpty { #expect(line.contains("\"ranges\":[]")) }
}

@Test("SPEC Q2 CLI: a bad --today is a usage error")
func cliBadToday() async throws {
    let r = try await ShiyingBinary.shiying(["date-phrase", "昨天", "--today", "2025-02-30", "--json"])
    #expect(r.status == 2)
}

@Test("SPEC Q1 CLI: recent add/list/remove/clear on a database file")
func cliRecent() async throws {
    let dir = try TempFolder()
    defer { dir.remove() }
    let db = dir.file("records.sqlite")
    for q in ["abc", "Café", "ＡＢＣ", "  cafe "] {
        #expect(try await ShiyingBinary.shiying(["recent", "add", q, "--db", db]).status == 0)
    }
    let listed = try await ShiyingBinary.shiying(["recent", "list", "--db", db, "--json"])
    #expect(listed.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == #"{"recent":["cafe","ＡＢＣ"]}"#)
    let removed = try await ShiyingBinary.shiying(["recent", "remove", "CAFE", "--db", db, "--json"])
    #expect(removed.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == #"{"recent":["ＡＢＣ"]}"#)
    let cleared = try await ShiyingBinary.shiying(["recent", "clear", "--db", db, "--json"])
    #expect(cleared.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == #"{"recent":[]}"#)
}
