// Issue 20 item 1: `live validate` / `live make` used to segfault in ~1–2 % of
// runs at exit — the check's engine context outlived the command and was torn
// down (libheif deinit) while the process's libraries shut down. 200 runs, 3 at
// a time: valid pairs, mismatched pairs, checks abandoned by a 1 ms deadline
// (the case where a check is still inside a codec when the command answers),
// and saves. Not one may end on a signal.
import Foundation
import Shiying
import Testing

@Suite("Live commands exit cleanly under repetition (issue 20)",
       .enabled(if: LiveMovies.toolsPresent, "ffmpeg/exiftool/convert or corpus missing"))
struct LiveExitStressTests {
    @Test("200 live validate / live make runs, 3 in parallel: no crash, every exit code as expected")
    func noCrashAtExit() async throws {
        let src = try await LiveMovies.source()
        let dir = try TempDir("live-exit-stress")
        defer { dir.remove() }
        let made = try await CLI.run(["live", "make", "--video", src, "--at", "0.6", "-o", dir.path, "--json"])
        #expect(made.status == 0, "\(made)")
        let m = try liveJSON(made.stdout)
        let still = try #require(m["still"] as? String), movie = try #require(m["movie"] as? String)
        let foreign = Paths.corpus.appendingPathComponent("real/iphone15plus_IMG_3853.MOV").path

        /// (arguments, accepted exit statuses)
        func job(_ i: Int) -> ([String], Set<Int32>) {
            switch i % 10 {
            case 0: return (["live", "make", "--video", src, "--at", "0.3", "-o", dir.file("make-\(i)")], [0])
            case 1, 2: return (["live", "validate", still, foreign, "--json"], [1])
            case 3, 4: return (["live", "validate", still, movie, "--timeout", "0.001", "--json"], [0, 1])
            default: return (["live", "validate", still, movie, "--json"], [0])
            }
        }
        var crashes: [String] = []
        var unexpected: [String] = []
        var next = 0
        let total = 200
        try await withThrowingTaskGroup(of: (Int, ProcessResult).self) { group in
            func launch() {
                let i = next
                next += 1
                group.addTask { (i, try await CLI.run(job(i).0, timeout: 120)) }
            }
            for _ in 0..<3 { launch() }
            while let (i, result) = try await group.next() {
                if result.signaled || result.timedOut { crashes.append("run \(i) \(job(i).0): \(result)") }
                else if !job(i).1.contains(result.status) { unexpected.append("run \(i) \(job(i).0): \(result.status) \(result.stderr)") }
                if next < total { launch() }
            }
        }
        #expect(crashes.isEmpty, "\(crashes.count) of \(total) runs crashed or hung:\n\(crashes.prefix(5).joined(separator: "\n"))")
        #expect(unexpected.isEmpty, "\(unexpected.prefix(5).joined(separator: "\n"))")
    }

    @Test("live frame / make / keyphoto --at past the movie's end is an error naming the movie, nothing written")
    func timePastTheEnd() async throws {
        let src = try await LiveMovies.source()   // 1.2 s
        let dir = try TempDir("live-at-past-end")
        defer { dir.remove() }
        let made = try await CLI.run(["live", "make", "--video", src, "--at", "99", "-o", dir.path])
        #expect(made.status != 0 && made.stderr.contains("past the movie's end"), "\(made)")
        let frame = try await CLI.run(["live", "frame", src, src, "--at", "99", "-o", dir.file("f.jpg")])
        #expect(frame.status != 0 && frame.stderr.contains("past the movie's end"), "\(frame)")
        #expect(dir.contents().isEmpty, "\(dir.contents())")
        let inside = try await CLI.run(["live", "make", "--video", src, "--at", "1.1", "-o", dir.path])
        #expect(inside.status == 0, "\(inside)")
    }
}
