// Issue 20 item 8: a writer killed with SIGKILL leaves nothing behind. Outputs
// are written to an anonymous file (O_TMPFILE) and named only at commit; where
// a named "<target>.tmp-<pid>-XXXXXX" is left by a dead process, the next
// writer of that target removes it.
import Foundation
import Testing

@Suite("Killed writers leave nothing (issue 20)")
struct KilledWriterTests {
    static func listing(_ dir: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
    }

    @Test("kill -9 mid-collage, then a second run: nothing is left but the inputs and the output")
    func killMidCollage() async throws {
        let photos = try await FixtureCache.shared.samples("killed-writer-20", count: 20, seed: 5, width: 2400, height: 1800)
        let dir = try TempDir("killed-collage")
        defer { dir.remove() }
        let output = dir.file("long.jpg")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try await CLI.binary())
        process.arguments = ["collage", "--layout", "long", "--width", "4000", "--threads", "1", "-o", output] + photos
        process.standardOutput = FileHandle.nullDevice
        let stderr = Pipe()
        process.standardError = stderr
        try process.run()
        // Wait for the first strip progress line: the output is being written
        // (20 photos at 4000 px wide: ~3,700 strips, seconds of encoding).
        let started = Date()
        var seen = Data()
        while !String(decoding: seen, as: UTF8.self).contains("strips") && Date().timeIntervalSince(started) < 60 {
            seen.append(stderr.fileHandleForReading.availableData)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "the collage finished before it could be killed")
        #expect(Self.listing(dir.path).isEmpty, "a killed collage left: \(Self.listing(dir.path))")

        // A named leftover of a dead writer (as on a file system without O_TMPFILE).
        let dead = Process()
        dead.executableURL = URL(fileURLWithPath: "/bin/true")
        try dead.run()
        dead.waitUntilExit()
        let leftover = dir.file("long.jpg.tmp-\(dead.processIdentifier)-abc123")
        _ = FileManager.default.createFile(atPath: leftover, contents: Data(count: 4096))
        let again = try await CLI.run(["collage", "--layout", "long", "-o", output] + photos)
        #expect(again.status == 0, "\(again)")
        #expect(Self.listing(dir.path) == ["long.jpg"], "\(Self.listing(dir.path))")
    }
}
