// Issue 20 item 4: a FIFO, a directory or a device as input is an error at
// once, naming the file and what it is — never a hang (a FIFO with no writer
// used to block every read path forever) and never "empty file".
import Foundation
import Testing

@Suite("CLI inputs: only regular files are read")
struct CLIInputSafetyTests {
    /// Every read path of the CLI with IN as its input.
    static let readers: [[String]] = [
        ["probe", "IN"], ["hdr", "info", "IN"], ["convert", "IN", "-o", "OUT.jpg"],
        ["edit", "IN", "--recipe", "RECIPE", "-o", "OUT.jpg"], ["collage", "--layout", "long", "-o", "OUT.jpg", "IN"],
        ["video", "info", "IN"], ["video", "decode", "IN"], ["live", "validate", "IN", "IN"],
    ]

    @Test("a FIFO with no writer: every read path fails at once naming it", arguments: readers)
    func fifo(_ arguments: [String]) async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let fifo = dir.file("photo.jpg")
        try #require(mkfifo(fifo, 0o644) == 0)
        try await expectRefused(arguments, input: fifo, words: "FIFO", dir: dir)
    }

    @Test("a directory or a device: an error saying what it is, not 'empty file'", arguments: readers)
    func directoryAndDevice(_ arguments: [String]) async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let folder = dir.file("folder.jpg")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        try await expectRefused(arguments, input: folder, words: "directory", dir: dir)
        try await expectRefused(arguments, input: "/dev/zero", words: "device", dir: dir)
    }

    @Test("a socket: an error saying it is one, not 'No such device or address'", arguments: readers)
    func socket(_ arguments: [String]) async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let sock = dir.file("photo.jpg")
        try CLIHostileOutputTests.makeSocket(sock)
        try await expectRefused(arguments, input: sock, words: "is a socket", dir: dir)
    }

    private func expectRefused(_ arguments: [String], input: String, words: String, dir: TempFolder) async throws {
        let recipe = dir.file("r.json")
        try Data("{}".utf8).write(to: URL(fileURLWithPath: recipe))
        let args = arguments.map { $0 == "IN" ? input : $0 == "RECIPE" ? recipe : $0.hasPrefix("OUT") ? dir.file($0) : $0 }
        let result = try await withThrowingTaskGroup(of: (status: Int32, stdout: String, stderr: String)?.self) { group in
            group.addTask { try await ShiyingBinary.shiying(args) }
            // A hang guard, not a timing: a blocked read never returns at all.
            group.addTask { try await Task.sleep(for: .seconds(120)); return nil }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
        let run = try #require(result, "\(arguments) on \(input): still running after 120 s (blocked)")
        #expect(run.status == 1, "\(arguments): \(run.status) \(run.stderr)")
        // `live validate` reports an unreadable pair as its verdict (stdout); the others on stderr.
        let said = run.stderr + run.stdout
        #expect(said.contains(input) && said.contains(words), "\(arguments): \(said)")
        #expect(!said.contains("empty file"))
    }
}
