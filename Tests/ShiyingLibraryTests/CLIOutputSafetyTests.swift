// No command overwrites one of its inputs, and a bad output path is refused
// before any work (issue 20 item 2): the one output check in the engine
// (sy__output_check: same device + inode as any input, a directory, a missing
// or read-only folder), through the built `shiying` binary.
import Foundation
import Testing

@Suite("CLI outputs: never an input, never a directory, checked before work")
struct CLIOutputSafetyTests {
    /// Two small sample photos in a fresh folder.
    static func photos() async throws -> (TempFolder, [String]) {
        let dir = try TempFolder()
        let made = try await ShiyingBinary.shiying(["sample-photos", "--count", "2", "--width", "96", "--height", "64",
                                                    "-o", dir.path])
        #expect(made.status == 0, "\(made.stderr)")
        return (dir, [dir.file("sample-0001.jpg"), dir.file("sample-0002.jpg")])
    }

    static func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    @Test("collage -o a.jpg a.jpg b.jpg (and through a symlink or a hard link) is refused; a.jpg is untouched",
          arguments: ["same", "symlink", "hardlink"])
    func collageNeverOverwritesAnInput(_ spelling: String) async throws {
        let (dir, inputs) = try await Self.photos()
        defer { dir.remove() }
        let before = Self.bytes(inputs[0])
        var output = inputs[0]
        if spelling == "symlink" {
            output = dir.file("link.jpg")
            try FileManager.default.createSymbolicLink(atPath: output, withDestinationPath: inputs[0])
        } else if spelling == "hardlink" {
            output = dir.file("hard.jpg")
            try FileManager.default.linkItem(atPath: inputs[0], toPath: output)
        }
        let result = try await ShiyingBinary.shiying(["collage", "--layout", "long", "-o", output] + inputs)
        #expect(result.status != 0, "\(spelling): the collage replaced its own input")
        #expect(result.stderr.contains("is also an input"), "\(result.stderr)")
        #expect(Self.bytes(inputs[0]) == before)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    @Test("convert onto its own input is refused; the input is untouched")
    func convertNeverOverwritesItsInput() async throws {
        let (dir, inputs) = try await Self.photos()
        defer { dir.remove() }
        let before = Self.bytes(inputs[1])
        let result = try await ShiyingBinary.shiying(["convert", inputs[1], "-o", inputs[1]])
        #expect(result.status != 0)
        #expect(result.stderr.contains("is also an input"), "\(result.stderr)")
        #expect(Self.bytes(inputs[1]) == before)
    }

    @Test("an output that is a directory, or in a missing folder, fails at once naming the path")
    func badOutputPaths() async throws {
        let (dir, inputs) = try await Self.photos()
        defer { dir.remove() }
        let folder = dir.file("already-a-folder.jpg")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let intoFolder = try await ShiyingBinary.shiying(["collage", "--layout", "grid", "-o", folder] + inputs)
        #expect(intoFolder.status != 0)
        #expect(intoFolder.stderr.contains("\(folder): is a directory"), "\(intoFolder.stderr)")
        // edit and convert alike: a usage error (exit 2), before any work (edit said "write failed", exit 1)
        let recipe = dir.file("identity.json")
        try Data("{}".utf8).write(to: URL(fileURLWithPath: recipe))
        for run in [["edit", inputs[0], "--recipe", recipe, "-o", folder], ["convert", inputs[0], "-o", folder]] {
            let r = try await ShiyingBinary.shiying(run)
            #expect(r.status == 2 && r.stderr.contains("\(folder): is a directory"), "\(run[0]): \(r.status) \(r.stderr)")
        }
        let missing = dir.file("no-such-folder/out.jpg")
        let intoNothing = try await ShiyingBinary.shiying(["collage", "--layout", "grid", "-o", missing] + inputs)
        #expect(intoNothing.status != 0)
        #expect(intoNothing.stderr.contains("does not exist"), "\(intoNothing.stderr)")
    }

    /// A 0.5 s HEVC clip from ffmpeg's test source, as `name` in `dir`.
    static func movie(_ dir: TempFolder, _ name: String) async throws -> String {
        let path = dir.file(name)
        let made = try await ShiyingBinary.run("/usr/bin/ffmpeg", [
            "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10:duration=0.5",
            "-c:v", "libx265", "-x265-params", "log-level=error", "-tag:v", "hvc1", "-pix_fmt", "yuv420p", path])
        try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        return path
    }

    @Test("video transcode onto its own input is refused before any encoding; the movie is untouched",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")))
    func transcodeNeverOverwritesItsInput() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let movie = try await Self.movie(dir, "m.mov")
        let before = Self.bytes(movie)
        let result = try await ShiyingBinary.shiying(["video", "transcode", movie, "-o", movie])
        #expect(result.status != 0)
        #expect(result.stderr.contains("is also an input"), "\(result.stderr)")
        #expect(Self.bytes(movie) == before)
    }

    @Test("live edit whose generated movie name is the input movie is refused; both inputs untouched",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")))
    func liveEditNeverOverwritesItsMovie() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let source = try await Self.movie(dir, "clip.mov")
        let made = try await ShiyingBinary.shiying(["live", "make", "--video", source, "-o", dir.path, "--json"])
        try #require(made.status == 0, "\(made.stderr)")
        // The still is b.jpg and its movie b_edited.mov: `live edit` names its outputs b_edited.*.
        let still = dir.file("b.jpg"), movie = dir.file("b_edited.mov")
        try FileManager.default.moveItem(atPath: dir.file("clip_live.jpg"), toPath: still)
        try FileManager.default.moveItem(atPath: dir.file("clip_live.mov"), toPath: movie)
        let recipe = dir.file("r.json")
        try Data(#"{"straighten": 2}"#.utf8).write(to: URL(fileURLWithPath: recipe))
        let (stillBefore, movieBefore) = (Self.bytes(still), Self.bytes(movie))
        let result = try await ShiyingBinary.shiying(["live", "edit", still, movie, "--recipe", recipe, "-o", dir.path])
        #expect(result.status != 0, "the edit replaced its own input movie")
        #expect(result.stderr.contains("is also an input"), "\(result.stderr)")
        #expect(Self.bytes(still) == stillBefore && Self.bytes(movie) == movieBefore)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    // Found by a user-level sweep (2026-12-06): Ctrl-C during `live make` (and the other pair and Motion
    // Photo writers, whose side files have names) left "<name>.mov.tmp-PID-XXXXXX" in the output folder.
    @Test("Ctrl-C: the job stops, its temporary files go, the exit status is 130",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")))
    func interruptedLeavesNothing() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let source = dir.file("long.mov")
        let made = try await ShiyingBinary.run("/usr/bin/ffmpeg", [
            "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=640x480:rate=30:duration=3",
            "-c:v", "libx265", "-x265-params", "log-level=error", "-tag:v", "hvc1", "-pix_fmt", "yuv420p", source])
        try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        let out = dir.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try await ShiyingBinary.path.value)
        process.arguments = ["live", "make", "--video", source, "-o", out]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // wait until it is encoding (its first progress line), then interrupt it
        var seen = Data()
        while !String(decoding: seen, as: UTF8.self).contains("frames"), process.isRunning {
            seen += errors.fileHandleForReading.availableData
        }
        process.interrupt()
        process.waitUntilExit()
        let text = String(decoding: seen + errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 130, "\(process.terminationStatus): \(text)")
        #expect(text.contains("interrupted"), "\(text)")
        let left = try FileManager.default.contentsOfDirectory(atPath: out)
        #expect(left.isEmpty, "left behind: \(left)")
    }

    // Found by a user-level sweep (2026-12-06): a moving collage named like one of its Live cells (A.heic with
    // A.mov beside it, `--name A`) wrote its movie over A.mov, and the user's Live photo was gone.
    @Test("a moving collage never writes over the movie found beside one of its stills",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")))
    func movingCollageKeepsTheMovieBesideItsStill() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let source = try await Self.movie(dir, "clip.mov")
        let made = try await ShiyingBinary.shiying(["live", "make", "--video", source, "-o", dir.path, "--json"])
        try #require(made.status == 0, "\(made.stderr)")
        let still = dir.file("A.jpg"), movie = dir.file("A.mov")
        try FileManager.default.moveItem(atPath: dir.file("clip_live.jpg"), toPath: still)
        try FileManager.default.moveItem(atPath: dir.file("clip_live.mov"), toPath: movie)
        let (stillBefore, movieBefore) = (Self.bytes(still), Self.bytes(movie))
        let other = dir.file("other.jpg")
        try FileManager.default.copyItem(atPath: still, toPath: other)
        let result = try await ShiyingBinary.shiying(["collage", "--motion", "together", "-o", dir.path, "--name", "A",
                                                       "--format", "heic", still, other])
        #expect(result.status == 2, "\(result.status) \(result.stderr)")
        #expect(result.stderr.contains("is also an input") && result.stderr.contains("A.mov"), "\(result.stderr)")
        #expect(Self.bytes(still) == stillBefore && Self.bytes(movie) == movieBefore)
        #expect(!FileManager.default.fileExists(atPath: dir.file("A.heic")))
    }

    // Found by a user-level sweep of the real files (2026-12-05): `compress` removed its output on any
    // failure — which was its own input when -o named it, or the file a failed run should have left.
    @Test("compress onto its own input is refused (exit 2) and the input kept; a failed or useless compress keeps an existing output")
    func compressKeepsInputAndExistingOutput() async throws {
        let (dir, inputs) = try await Self.photos()
        defer { dir.remove() }
        let before = Self.bytes(inputs[0])
        let same = try await ShiyingBinary.shiying(["compress", "-o", inputs[0], inputs[0]])
        #expect(same.status == 2 && same.stderr.contains("is also an input"), "\(same.status) \(same.stderr)")
        #expect(Self.bytes(inputs[0]) == before, "compress removed its own input")
        let existing = dir.file("keep.jpg")
        try Data("keep".utf8).write(to: URL(fileURLWithPath: existing))
        let truncated = dir.file("half.jpg")
        try Self.bytes(inputs[1])!.prefix(Self.bytes(inputs[1])!.count / 2).write(to: URL(fileURLWithPath: truncated))
        let failed = try await ShiyingBinary.shiying(["compress", "-o", existing, truncated])
        #expect(failed.status == 1, "\(failed.stderr)")
        #expect(Self.bytes(existing) == Data("keep".utf8), "a failed compress destroyed the existing output")
        // at quality 100 the copy is larger than the photo: "already small", and the existing file stays
        let useless = try await ShiyingBinary.shiying(["compress", "--quality", "100", "-o", existing, inputs[1]])
        #expect(useless.status == 1 && useless.stderr.contains("already small"), "\(useless.stderr)")
        #expect(Self.bytes(existing) == Data("keep".utf8), "a useless compress destroyed the existing output")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    @Test("a truncated photo is refused by probe and live strip, naming the reason; nothing is written")
    func truncatedStillsRefused() async throws {
        let (dir, inputs) = try await Self.photos()
        defer { dir.remove() }
        let jpeg = Self.bytes(inputs[0])!
        let cut = dir.file("cut.jpg")
        try jpeg.prefix(jpeg.count - 200).write(to: URL(fileURLWithPath: cut))
        let probe = try await ShiyingBinary.shiying(["probe", cut])
        #expect(probe.status == 1 && probe.stderr.contains("JPEG truncated"), "\(probe.stderr)")
        let whole = try await ShiyingBinary.shiying(["probe", inputs[0]])
        #expect(whole.status == 0, "\(whole.stderr)")
        let strip = try await ShiyingBinary.shiying(["live", "strip", "-o", dir.file("plain.jpg"), cut])
        #expect(strip.status == 1 && strip.stderr.contains("JPEG truncated"), "\(strip.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("plain.jpg")))
        let renamed = try await ShiyingBinary.shiying(["live", "strip", "-o", dir.file("plain.heic"), inputs[0]])
        #expect(renamed.status == 2 && renamed.stderr.contains("keeps the still's own format (jpeg)"), "\(renamed.stderr)")
    }

    @Test("an output folder behind a file is a one-line error; a folder made for a failed job is taken away")
    func outputFolders() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let file = dir.file("f")
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let empty = dir.file("empty.mov")
        try Data().write(to: URL(fileURLWithPath: empty))
        let behind = try await ShiyingBinary.shiying(["convert", "--to", "live", "-o", file + "/lv", empty])
        #expect(behind.status == 1 && behind.stderr.contains("\(file) is a file"), "\(behind.stderr)")
        #expect(!behind.stderr.contains("NSCocoaErrorDomain"), "\(behind.stderr)")
        let fresh = dir.file("new/deeper")
        let failed = try await ShiyingBinary.shiying(["convert", "--to", "live", "-o", fresh, empty])
        #expect(failed.status == 1, "\(failed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("new")), "the folders made for the failed job stay")
    }
}
