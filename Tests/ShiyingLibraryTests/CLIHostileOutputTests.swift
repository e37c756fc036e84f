// Found by a sweep of every writing command against hostile output conditions (2026-12-06, eleventh session):
// a FIFO, a socket or a device node at the output path was replaced by the finished file (exit 0: the rename
// put a regular file in its place); compress checked only its hidden staging name; under a file-size limit a
// JPEG writer said "out of disk space?" (code codec), SQLite "disk I/O error", and `library init`,
// `sample-photos` and a new record store left what they had begun (a half library, an empty folder, a
// half database); `library import /dev/zero` passed over the device in silence (exit 0).
import Foundation
import Testing

@Suite("CLI outputs under hostile conditions: special files kept, file-size limits reported, nothing begun left")
struct CLIHostileOutputTests {
    /// Two 320×240 sample photos, a Live pair (a.jpg + a.mov) and a 1 s H.264 movie with sound in a fresh folder.
    static func inputs() async throws -> TempFolder {
        let dir = try TempFolder()
        let photos = try await ShiyingBinary.shiying(["sample-photos", "--count", "2", "--width", "320", "--height", "240",
                                                      "-o", dir.path])
        try #require(photos.status == 0, "\(photos.stderr)")
        let live = try await ShiyingBinary.shiying(["sample-photos", "--live", "--count", "1", "-o", dir.path])
        try #require(live.status == 0, "\(live.stderr)")
        try FileManager.default.moveItem(atPath: dir.file("LIVE_0001.JPG"), toPath: dir.file("a.jpg"))
        try FileManager.default.moveItem(atPath: dir.file("LIVE_0001.MOV"), toPath: dir.file("a.mov"))
        let movie = try await ShiyingBinary.run("/usr/bin/ffmpeg", [
            "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=1",
            "-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-c:v", "libx264", "-c:a", "aac", "-shortest",
            dir.file("m.mp4")])
        try #require(movie.status == 0, "ffmpeg: \(movie.stderr)")
        return dir
    }

    /// `template` with IN replaced by the inputs' folder and OUT by `output`.
    static func arguments(_ template: [String], _ dir: TempFolder, output: String) -> [String] {
        template.map { $0.replacingOccurrences(of: "OUT", with: output).replacingOccurrences(of: "IN", with: dir.path) }
    }

    /// A bound Unix socket at `path` (the descriptor is closed; the socket file stays, as a server's would).
    static func makeSocket(_ path: String) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(path.utf8.prefix(raw.count - 1)))
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0, "bind \(path): \(String(cString: strerror(errno)))")
    }

    static func fileType(_ path: String) -> mode_t? {
        var st = stat()
        return lstat(path, &st) == 0 ? st.st_mode & S_IFMT : nil
    }

    /// Every single-file writer, its output as OUT (the extension comes from the test).
    static let writers: [[String]] = [
        ["collage", "--layout", "long", "-o", "OUT.jpg", "IN/sample-0001.jpg", "IN/sample-0002.jpg"],
        ["convert", "-o", "OUT.heic", "IN/sample-0001.jpg"],
        ["convert", "--to", "gif", "-o", "OUT.gif", "IN/m.mp4"],
        ["convert", "--to", "motion-photo", "-o", "OUT.jpg", "IN/a.jpg", "IN/a.mov"],
        ["compress", "-o", "OUT.jpg", "IN/sample-0001.jpg"],
        ["compress", "-o", "OUT.mov", "IN/m.mp4"],
        ["edit", "--recipe", "IN/r.json", "-o", "OUT.jpg", "IN/sample-0001.jpg"],
        ["live", "frame", "--at", "0.5", "-o", "OUT.jpg", "IN/a.jpg", "IN/a.mov"],
        ["live", "strip", "-o", "OUT.jpg", "IN/a.jpg"],
        ["video", "transcode", "-o", "OUT.mov", "IN/m.mp4"],
    ]

    @Test("a FIFO, a socket or a device at the output path is refused up front (exit 2), and stays what it was",
          arguments: writers)
    func specialFilesAreNotReplaced(_ template: [String]) async throws {
        let dir = try await Self.inputs()
        defer { dir.remove() }
        try Data("{}".utf8).write(to: URL(fileURLWithPath: dir.file("r.json")))
        let out = dir.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        let ext = (template.first { $0.hasPrefix("OUT") }! as NSString).pathExtension
        let fifo = out + "/pipe." + ext, sock = out + "/sock." + ext, device = out + "/full." + ext
        try #require(mkfifo(fifo, 0o644) == 0)
        try Self.makeSocket(sock)
        try FileManager.default.createSymbolicLink(atPath: device, withDestinationPath: "/dev/full")
        for (path, words, type) in [(fifo, "is a FIFO", S_IFIFO), (sock, "is a socket", S_IFSOCK), (device, "is a device", S_IFLNK)] {
            let stem = (path as NSString).deletingPathExtension
            let args = Self.arguments(template, dir, output: stem).map { $0 == stem + "." + ext ? path : $0 }
            let run = try await ShiyingBinary.shiying(args)
            #expect(run.status == 2 && run.stderr.contains(path) && run.stderr.contains(words) && run.stderr.contains("not an output file"),
                    "\(template[0]) onto \(words): \(run.status) \(run.stderr)")
            #expect(Self.fileType(path) == type, "\(template[0]): \(path) was replaced")
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(left == ["full.\(ext)", "pipe.\(ext)", "sock.\(ext)"], "left behind: \(left)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: device) == "/dev/full")
    }

    @Test("a file-size limit (ulimit -f 8) over an existing file: exit 1, 'File too large' naming it, code io; the file byte-identical, nothing else left",
          arguments: [["collage", "--layout", "long", "-o", "OUT.jpg", "IN/sample-0001.jpg", "IN/sample-0002.jpg"],
                      ["edit", "--recipe", "IN/r.json", "-o", "OUT.jpg", "IN/sample-0001.jpg"],
                      ["live", "frame", "--at", "0.5", "-o", "OUT.jpg", "IN/a.jpg", "IN/a.mov"],
                      ["video", "transcode", "-o", "OUT.mov", "IN/m.mp4"]])
    func fileSizeLimitKeepsTheOldFile(_ template: [String]) async throws {
        let dir = try await Self.inputs()
        defer { dir.remove() }
        try Data(#"{"adjustments":{"exposure":0.3}}"#.utf8).write(to: URL(fileURLWithPath: dir.file("r.json")))
        let out = dir.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        let ext = (template.first { $0.hasPrefix("OUT") }! as NSString).pathExtension
        let target = out + "/old." + ext
        let old = Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7) }) // smaller than the limit
        try old.write(to: URL(fileURLWithPath: target))
        let binary = try await ShiyingBinary.path.value
        let args = Self.arguments(template, dir, output: out + "/old")
        let run = try await ShiyingBinary.run("/bin/sh", ["-c", "ulimit -f 8; exec \"$0\" \"$@\" --json", binary] + args)
        #expect(run.status == 1, "\(template[0]): \(run.status) \(run.stderr)")
        #expect(run.stderr.contains("\(target): write failed: File too large") || run.stderr.contains("\(target): write of"),
                "\(template[0]): \(run.stderr)")
        #expect(run.stderr.contains("File too large") && !run.stderr.contains("out of disk space"), "\(run.stderr)")
        #expect(run.stdout.contains(#""code":"io""#), "\(template[0]): \(run.stdout)")
        #expect(FileManager.default.contents(atPath: target) == old, "\(template[0]): the existing file changed")
        let left = try FileManager.default.contentsOfDirectory(atPath: out)
        #expect(left == ["old.\(ext)"], "\(template[0]) left: \(left)")
    }

    @Test("under a file-size limit, what a run begins goes: sample-photos' new folder, library init's library, a new record store",
          arguments: [["sample-photos", "--count", "1", "--width", "320", "--height", "240", "-o", "OUT/new"],
                      ["library", "init", "OUT/new/lib"],
                      ["recent", "add", "--db", "OUT/recent.db", "beach"],
                      ["organize", "scan", "--db", "OUT/organize.db", "IN"]])
    func fileSizeLimitLeavesNothingBegun(_ template: [String]) async throws {
        let dir = try await Self.inputs()
        defer { dir.remove() }
        let out = dir.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        let binary = try await ShiyingBinary.path.value
        let args = template.map { $0.replacingOccurrences(of: "OUT", with: out).replacingOccurrences(of: "IN", with: dir.path) }
        let run = try await ShiyingBinary.run("/bin/sh", ["-c", "ulimit -f 8; exec \"$0\" \"$@\"", binary] + args)
        #expect(run.status == 1, "\(template[0]): \(run.status) \(run.stderr)")
        #expect(run.stderr.contains("File too large") && run.stderr.contains(out), "\(template[0]): \(run.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: out)
        #expect(left.isEmpty, "\(template[0]) left: \(left)")
    }

    // Found by the same sweep, left then: `library compress` said "<library>/.staging/<pid>-<hex>.heic: ... File too
    // large", a hidden name the user never gave.
    @Test("library compress under a file-size limit: exit 1, 'File too large' naming the asset's file, not the staging file")
    func libraryCompressNamesTheAsset() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let lib = dir.file("lib"), photos = dir.file("photos")
        let made = try await ShiyingBinary.shiying(["sample-photos", "--count", "1", "--width", "2400", "--height", "1800",
                                                    "-o", photos])
        try #require(made.status == 0, "\(made.stderr)")
        #expect(try await ShiyingBinary.shiying(["library", "init", lib]).status == 0)
        let imported = try await ShiyingBinary.shiying(["library", "import", "--library", lib, photos])
        try #require(imported.status == 0, "\(imported.stderr)")
        let binary = try await ShiyingBinary.path.value
        // 400 KiB: above the catalogue, below the HEIC copy of a 2400×1800 photo
        let run = try await ShiyingBinary.run("/bin/bash", ["-c", "ulimit -f 400; exec \"$0\" \"$@\"", binary,
                                                            "library", "compress", "--library", lib, "1", "--json"])
        #expect(run.status == 1, "\(run.status) \(run.stderr)")
        #expect(run.stderr.contains("File too large") && run.stderr.contains("sample-0001.jpg (asset 1)"), "\(run.stderr)")
        #expect(!run.stderr.contains(".staging") && !run.stdout.contains(".staging"), "\(run.stderr)")
        #expect(run.stdout.contains(#""code":"io""#), "\(run.stdout)")
        let staging = (try? FileManager.default.contentsOfDirectory(atPath: lib + "/.staging")) ?? []
        #expect(staging.isEmpty, "left in staging: \(staging)")
    }

    @Test("library import given /dev/zero or a socket: skipped by name (exit 1), not passed over in silence")
    func libraryImportNamesSpecialFiles() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let lib = dir.file("lib"), sock = dir.file("camera.sock")
        #expect(try await ShiyingBinary.shiying(["library", "init", lib]).status == 0)
        try Self.makeSocket(sock)
        for (path, words) in [("/dev/zero", "is a device"), (sock, "is a socket")] {
            let run = try await ShiyingBinary.shiying(["library", "import", "--library", lib, path, "--json"])
            #expect(run.status == 1 && run.stderr.contains("skipped \(path)") && run.stderr.contains(words),
                    "\(path): \(run.status) \(run.stderr)")
            #expect(run.stdout.contains(#""skipped":[{"#), "\(run.stdout)")
        }
    }
}
