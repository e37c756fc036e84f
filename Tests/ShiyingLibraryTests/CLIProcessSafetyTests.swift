// Found by a user-level sweep (2026-12-06, ninth session): `live strip` and `live frame` wrote over their
// input still; a file-size limit (SIGXFSZ) or a reader gone (SIGPIPE) killed a job mid-write, leaving
// temporary files; an output name near 255 bytes could not be written (its temp name was too long) and the
// message lost its reason; a library import that skipped files, and a report stdout could not take, exited 0.
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

@Suite("CLI processes: inputs kept, signals and limits reported as errors, exit status honest")
struct CLIProcessSafetyTests {
    /// A Live pair (a.jpg + a.mov) from `sample-photos --live` in a fresh folder.
    static func livePair() async throws -> TempFolder {
        let dir = try TempFolder()
        let made = try await ShiyingBinary.shiying(["sample-photos", "--live", "--count", "1", "-o", dir.path])
        try #require(made.status == 0, "\(made.stderr)")
        try FileManager.default.moveItem(atPath: dir.file("LIVE_0001.JPG"), toPath: dir.file("a.jpg"))
        try FileManager.default.moveItem(atPath: dir.file("LIVE_0001.MOV"), toPath: dir.file("a.mov"))
        return dir
    }

    static func leftovers(_ dir: TempFolder) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".tmp-") }
    }

    @Test("live strip and live frame refuse to write over the still they read (also through a symlink)")
    func liveStillsAreNotOverwritten() async throws {
        let dir = try await Self.livePair()
        defer { dir.remove() }
        let still = dir.file("a.jpg"), before = FileManager.default.contents(atPath: still)
        let link = dir.file("link.jpg")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: still)
        for output in [still, link] {
            let strip = try await ShiyingBinary.shiying(["live", "strip", "-o", output, still])
            #expect(strip.status == 2 && strip.stderr.contains("is also an input"), "strip: \(strip.status) \(strip.stderr)")
            let frame = try await ShiyingBinary.shiying(["live", "frame", "--at", "0.5", "-o", output, still, dir.file("a.mov")])
            #expect(frame.status == 2 && frame.stderr.contains("is also an input"), "frame: \(frame.status) \(frame.stderr)")
        }
        #expect(FileManager.default.contents(atPath: still) == before, "the Live still changed")
        let valid = try await ShiyingBinary.shiying(["live", "validate", still, dir.file("a.mov")])
        #expect(valid.status == 0, "the pair no longer validates: \(valid.stdout) \(valid.stderr)")
    }

    @Test("a file-size limit (ulimit -f) is a write error: exit 1 naming the output and 'File too large', nothing left",
          arguments: [["convert", "-o", "OUT/o.png", "IN/a.jpg"],
                      ["convert", "--to", "motion-photo", "-o", "OUT/mp.jpg", "IN/a.jpg", "IN/a.mov"]])
    func fileSizeLimit(_ template: [String]) async throws {
        let dir = try await Self.livePair()
        defer { dir.remove() }
        let out = dir.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let args = template.map { $0.replacingOccurrences(of: "OUT", with: out).replacingOccurrences(of: "IN", with: dir.path) }
        let binary = try await ShiyingBinary.path.value
        let run = try await ShiyingBinary.run("/bin/sh", ["-c", "ulimit -f 40; exec \"$0\" \"$@\" --json", binary] + args)
        #expect(run.status == 1, "\(run.status): \(run.stderr)")
        #expect(run.stderr.contains("File too large") && !run.stderr.contains(".tmp-"), "\(run.stderr)")
        #expect(run.stdout.contains(#""code":"io""#), "one JSON line: \(run.stdout)")
        let left = try FileManager.default.contentsOfDirectory(atPath: out)
        #expect(left.isEmpty, "left behind: \(left)")
    }

    @Test("an output name of 250 bytes is written (its temp name is cut, not refused); a long message keeps its reason")
    func longNames() async throws {
        let dir = try await Self.livePair()
        defer { dir.remove() }
        let long = dir.file(String(repeating: "照", count: 82) + ".jpg") // 246 + 4 bytes
        let made = try await ShiyingBinary.shiying(["convert", "-o", long, dir.file("a.jpg")])
        #expect(made.status == 0 && FileManager.default.fileExists(atPath: long), "\(made.stderr)")
        #expect(try Self.leftovers(dir).isEmpty)
        let deep = dir.file(String(repeating: "d", count: 200) + "/" + String(repeating: "e", count: 200) + ".jpg")
        let failed = try await ShiyingBinary.shiying(["convert", "-o", deep, dir.file("a.jpg")])
        #expect(failed.status == 1 && failed.stderr.contains("does not exist"), "the reason is cut off: \(failed.stderr)")
    }

    @Test("a library import that skips a file exits 1 (the rest imported); a report stdout cannot take exits 1")
    func honestExitStatus() async throws {
        let dir = try await Self.livePair()
        defer { dir.remove() }
        let photos = dir.file("photos")
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: dir.file("a.jpg"), toPath: photos + "/good.jpg")
        try Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 16]).write(to: URL(fileURLWithPath: photos + "/broken.jpg"))
        let lib = dir.file("lib")
        #expect(try await ShiyingBinary.shiying(["library", "init", lib]).status == 0)
        let imported = try await ShiyingBinary.shiying(["library", "import", "--library", lib, photos, "--json"])
        #expect(imported.status == 1 && imported.stderr.contains("broken.jpg"), "\(imported.status) \(imported.stderr)")
        #expect(imported.stdout.contains(#""photos":1"#), "\(imported.stdout)")
        let binary = try await ShiyingBinary.path.value
        let full = try await ShiyingBinary.run("/bin/sh", ["-c", "exec \"$0\" probe --json \"$1\" > /dev/full", binary,
                                                          dir.file("a.jpg")])
        #expect(full.status == 1 && full.stderr.contains("standard output could not be written"), "\(full.status) \(full.stderr)")
        let file = dir.file("plain")
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let blocked = try await ShiyingBinary.shiying(["library", "init", file + "/lib"])
        #expect(blocked.status == 1 && blocked.stderr.contains("a file is in the way"), "\(blocked.stderr)")
        #expect(!blocked.stderr.contains("NSCocoaErrorDomain"), "\(blocked.stderr)")
    }

    /// A 96 KiB tmpfs mounted for the test (root only: elsewhere the test is skipped); unmounted by `unmount`.
    struct SmallDisk {
        let path: String
        static var canMount: Bool {
            guard getuid() == 0, let probe = try? TempFolder() else { return false }
            defer { probe.remove() }
            guard mount("tmpfs", probe.path, "tmpfs", 0, "size=96k") == 0 else { return false }
            umount(probe.path)
            return true
        }
        init(in dir: TempFolder) throws {
            path = dir.file("disk")
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            guard mount("tmpfs", path, "tmpfs", 0, "size=96k") == 0 else { throw CLIFailure("mount tmpfs") }
        }
        func unmount() { umount(path) }
    }

    @Test("a full disk (ENOSPC) is a write error: exit 1 naming the output and the reason, nothing left, the old file kept",
          .enabled(if: SmallDisk.canMount),
          arguments: [["convert", "-o", "OUT/o.png", "IN/a.jpg"],
                      ["convert", "-o", "OUT/o.heic", "IN/a.jpg"],
                      ["collage", "--motion", "together", "--export", "live", "--name", "o", "-o", "OUT", "IN/a.jpg", "IN/a.jpg"],
                      ["collage", "--layout", "long", "-o", "OUT/o.heic", "IN/a.jpg", "IN/a.jpg"]])
    func fullDisk(_ template: [String]) async throws {
        let dir = try await Self.livePair()
        defer { dir.remove() }
        let disk = try SmallDisk(in: dir)
        defer { disk.unmount() }
        // the file the command would replace (the first named output), 16 KiB of known bytes
        let target = template.first { $0.hasPrefix("OUT/") }.map { $0.replacingOccurrences(of: "OUT", with: disk.path) }
            ?? disk.path + "/o.jpg"
        let old = Data((0..<16384).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try old.write(to: URL(fileURLWithPath: target))
        let args = template.map { $0.replacingOccurrences(of: "OUT", with: disk.path).replacingOccurrences(of: "IN", with: dir.path) }
        let run = try await ShiyingBinary.shiying(args + ["--json"])
        #expect(run.status == 1, "\(args): \(run.status) \(run.stderr)")
        #expect(run.stderr.contains("No space left on device") && run.stderr.contains(disk.path), "\(run.stderr)")
        #expect(run.stdout.contains(#""code":"io""#), "one JSON line: \(run.stdout)")
        let left = try FileManager.default.contentsOfDirectory(atPath: disk.path)
        #expect(left == [(target as NSString).lastPathComponent], "left behind: \(left)")
        #expect(FileManager.default.contents(atPath: target) == old, "the file it would replace changed")
    }
}
