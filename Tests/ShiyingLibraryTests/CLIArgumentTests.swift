// The command line's conventions (issue 24) and its checked numbers (issue 20):
// through the built `shiying` binary, every out-of-range or malformed number is
// a usage error (exit 2) that names the option, never a runtime trap (SIGILL).
import Foundation
import Testing

@Suite("CLI arguments: --help, --version, --name=value, --, checked numbers")
struct CLIArgumentTests {
    @Test("every command answers --help with its own usage and exit 0",
          arguments: ["collage", "sample-photos", "probe", "convert", "edit", "hdr", "filters", "date-phrase",
                      "recent", "video", "organize", "live", "search"])
    func helpPerCommand(_ command: String) async throws {
        let result = try await ShiyingBinary.shiying([command, "--help"])
        #expect(result.status == 0, "\(command) --help: \(result.stderr)")
        #expect(result.stdout.hasPrefix("usage:\n"), "\(command): \(result.stdout.prefix(200))")
        #expect(result.stdout.contains("shiying \(command)"), "\(command): \(result.stdout.prefix(200))")
        #expect(!result.stdout.contains("needs a value"))
    }

    @Test("--version prints the tool's version")
    func version() async throws {
        let result = try await ShiyingBinary.shiying(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.range(of: #"^shiying \d+\.\d+\.\d+\n$"#, options: .regularExpression) != nil, "\(result.stdout)")
    }

    /// A number that used to trap or pass silently: (arguments, option named in the message).
    static let badNumbers: [([String], String)] = [
        (["sample-photos", "--width", "-3", "-o", "OUT"], "--width"),
        (["sample-photos", "--height", "4294967296", "-o", "OUT"], "--height"),
        (["sample-photos", "--seed", "-1", "-o", "OUT"], "--seed"),
        (["sample-photos", "--count", "1e3", "-o", "OUT"], "--count"),
        (["sample-photos", "--hdr", "--width", "0", "-o", "OUT"], "--width"),
        (["live", "validate", "a.jpg", "a.mov", "--timeout", "1e16"], "--timeout"),
        (["live", "validate", "a.jpg", "a.mov", "--timeout", "nan"], "--timeout"),
        (["live", "frame", "a.jpg", "a.mov", "--at", "-1", "-o", "OUT"], "--at"),
        (["collage", "--layout", "grid", "--columns", "0", "-o", "OUT", "a.jpg"], "--columns"),
        (["collage", "--layout", "grid", "--columns", "-1", "-o", "OUT", "a.jpg"], "--columns"),
        (["collage", "--layout", "grid", "--columns", "1000", "-o", "OUT", "a.jpg"], "--columns"),
        (["collage", "--layout", "long", "--spacing", "-5", "-o", "OUT", "a.jpg"], "--spacing"),
        (["collage", "--layout", "long", "--margin", "-1", "-o", "OUT", "a.jpg"], "--margin"),
        (["collage", "--layout", "long", "--threads", "-1", "-o", "OUT", "a.jpg"], "--threads"),
        (["collage", "--layout", "long", "--quality", "101", "-o", "OUT", "a.jpg"], "--quality"),
        (["collage", "--layout", "long", "--width", "99999999999999999999", "-o", "OUT", "a.jpg"], "--width"),
        (["convert", "a.jpg", "-o", "OUT", "--quality", "0"], "--quality"),
        (["video", "transcode", "a.mov", "-o", "OUT", "--bitrate", "-8"], "--bitrate"),
    ]

    @Test("a malformed or out-of-range number is a usage error naming the option; nothing is written",
          arguments: badNumbers)
    func checkedNumbers(_ arguments: [String], _ option: String) async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let out = dir.file("out.jpg")
        let result = try await ShiyingBinary.shiying(arguments.map { $0 == "OUT" ? out : $0 })
        #expect(result.status == 2, "\(arguments): status \(result.status), \(result.stderr)")
        #expect(result.stderr.contains(option), "\(arguments): \(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test("--name=value equals --name value; after -- a file may start with a dash")
    func inlineValuesAndEndOfOptions() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let made = try await ShiyingBinary.shiying(["sample-photos", "--count=1", "--width=64", "--height=48",
                                                    "-o", dir.path])
        #expect(made.status == 0, "\(made.stderr)")
        let sample = dir.file("sample-0001.jpg")
        let dashed = dir.file("-dash.jpg")
        try FileManager.default.copyItem(atPath: sample, toPath: dashed)
        // Relative "-dash.jpg" from inside the folder: only `--` makes it a file name.
        let probe = try await ShiyingBinary.run(try await ShiyingBinary.path.value,
                                                ["probe", "--json", "--", "-dash.jpg"], in: dir.path)
        #expect(probe.status == 0, "\(probe.stderr)")
        #expect(probe.stdout.contains("\"width\":64"), "\(probe.stdout)")
        let withoutEnd = try await ShiyingBinary.run(try await ShiyingBinary.path.value, ["probe", "-dash.jpg"],
                                                     in: dir.path)
        #expect(withoutEnd.status == 2, "without --, -dash.jpg is an option: \(withoutEnd.stderr)")
    }

    /// Writers and an output their format cannot be: (arguments with OUT, expected words).
    static let badOutputs: [([String], String)] = [
        (["collage", "--layout", "long", "-o", "OUT.gif", "IN"], ".gif names none of them"),
        (["collage", "--layout", "long", "--format", "png", "-o", "OUT.jpg", "IN"], "disagrees with the extension"),
        (["collage", "--layout", "long", "-o", "-", "IN"], "standard output"),
        (["convert", "IN", "-o", "OUT.webp"], ".webp names none of them"),
        (["convert", "IN", "-o", "OUT.jpg", "--format", "png"], "disagrees with the extension"),
        (["convert", "IN", "-o", "OUT"], "OUT: the name has no extension to say the format; convert writes"),
        (["edit", "IN", "--recipe", "R.json", "-o", "OUT.tiff"], ".tiff names none of them"),
        (["video", "transcode", "IN", "-o", "OUT.avi"], ".avi names none of them"),
        (["live", "frame", "IN", "M.mov", "--at", "0", "-o", "OUT.png"], ".png names none of them"),
    ]

    @Test("every single-file writer refuses an extension it cannot write, a --format that disagrees, and -o -",
          arguments: badOutputs)
    func outputExtensions(_ arguments: [String], _ words: String) async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let made = try await ShiyingBinary.shiying(["sample-photos", "--count", "1", "--width", "64", "--height", "48",
                                                    "-o", dir.path])
        #expect(made.status == 0)
        let input = dir.file("sample-0001.jpg")
        let args = arguments.map { $0 == "IN" ? input : $0.hasPrefix("OUT") ? dir.file($0) : $0 }
        let result = try await ShiyingBinary.shiying(args)
        #expect(result.status == 2, "\(arguments): \(result.status) \(result.stderr)")
        #expect(result.stderr.contains(words), "\(arguments): \(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["sample-0001.jpg"])
    }

    @Test("convert to HEIC shows its progress on stderr (issue 24: it ran seconds in silence)")
    func convertShowsProgress() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let made = try await ShiyingBinary.shiying(["sample-photos", "--count", "1", "--width", "1024", "--height", "768",
                                                    "-o", dir.path])
        #expect(made.status == 0)
        let result = try await ShiyingBinary.shiying(["convert", dir.file("sample-0001.jpg"), "-o", dir.file("out.heic")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("convert: heif tiles"), "\(result.stderr)")
        #expect(result.stderr.contains("(100%)"), "\(result.stderr)")
    }

    @Test("probe with no files is a usage error, not a silent success")
    func probeNeedsFiles() async throws {
        let result = try await ShiyingBinary.shiying(["probe"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("no files"))
    }
}
