// The command line's conventions (issue 24), for every command and subcommand
// the option tables declare (`shiying help --list`), through the built binary.
import Foundation
import Testing

@Suite("CLI conventions: every (sub)command from the option tables")
struct CLIConventionTests {
    struct Entry { let path: [String]; let needsArguments: Bool; let valueOptions: [String] }

    /// The tables' commands, as the binary lists them.
    static func entries() async throws -> [Entry] {
        let listed = try await ShiyingBinary.shiying(["help", "--list"])
        #expect(listed.status == 0, "\(listed.stderr)")
        return listed.stdout.split(separator: "\n").map { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return Entry(path: fields[0].split(separator: " ").map(String.init), needsArguments: fields[1] == "needs-arguments",
                         valueOptions: fields.count > 2 ? fields[2].split(separator: ",").map(String.init) : [])
        }
    }

    @Test("the tables list every command the tool has")
    func everyCommandListed() async throws {
        let names = Set(try await Self.entries().map { $0.path.joined(separator: " ") })
        for expected in ["collage", "convert", "edit", "live make", "live edit", "live validate", "live frame", "live keyphoto",
                         "live strip", "video info", "video decode", "video transcode", "library init", "library import",
                         "library compress", "library undo-compress", "organize scan", "organize decide", "search",
                         "compress", "hdr info", "sample-photos", "date-phrase", "recent add", "recent list", "probe",
                         "filters", "help"] {
            #expect(names.contains(expected), "\(expected) missing from `shiying help --list`")
        }
    }

    @Test("--help exits 0 and names the command; `shiying help X` prints the same")
    func helpForEvery() async throws {
        for entry in try await Self.entries() {
            let own = try await ShiyingBinary.shiying(entry.path + ["--help"])
            let name = entry.path.joined(separator: " ")
            #expect(own.status == 0, "\(name) --help: \(own.stderr)")
            #expect(own.stdout.hasPrefix("usage:\n") && own.stdout.contains("shiying \(name)"), "\(name): \(own.stdout.prefix(300))")
            #expect(own.stdout.contains("exit status:"), "\(name): the exit codes are documented")
            let viaHelp = try await ShiyingBinary.shiying(["help"] + entry.path)
            #expect(viaHelp.status == 0 && viaHelp.stdout == own.stdout, "shiying help \(name) differs from \(name) --help")
        }
    }

    @Test("an unknown option exits 2 naming it; no arguments exits 2 where arguments are required")
    func unknownOptionAndNoArguments() async throws {
        for entry in try await Self.entries() {
            let name = entry.path.joined(separator: " ")
            let dir = try TempFolder()
            defer { dir.remove() }
            let unknown = try await ShiyingBinary.run(try await ShiyingBinary.path.value, entry.path + ["--no-such-option", "x"],
                                                      in: dir.path)
            #expect(unknown.status == 2, "\(name) --no-such-option: \(unknown.status) \(unknown.stderr)")
            let isParent = try await ShiyingBinary.shiying(["help"] + entry.path).stdout.contains("\nsubcommands:\n")
            if !isParent {
                #expect(unknown.stderr.contains("unknown option --no-such-option"), "\(name): \(unknown.stderr)")
            }
            let bare = try await ShiyingBinary.run(try await ShiyingBinary.path.value, entry.path, in: dir.path)
            if entry.needsArguments {
                #expect(bare.status == 2 && bare.stderr.hasPrefix("shiying: "), "\(name) with no arguments: \(bare.status) \(bare.stderr)")
            } else {
                #expect(bare.status == 0, "\(name) with no arguments: \(bare.status) \(bare.stderr)")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty || !entry.needsArguments,
                    "\(name): a usage error wrote something")
        }
    }

    @Test("--opt=value is --opt value, for every command's first value option; after -- nothing is an option")
    func inlineValuesAndEndOfOptions() async throws {
        for entry in try await Self.entries() {
            let name = entry.path.joined(separator: " ")
            if let option = entry.valueOptions.first {
                let (a, b) = (try TempFolder(), try TempFolder())
                defer { a.remove(); b.remove() }
                let bin = try await ShiyingBinary.path.value
                let inline = try await ShiyingBinary.run(bin, entry.path + ["--\(option)=zz-value"], in: a.path)
                let spaced = try await ShiyingBinary.run(bin, entry.path + ["--\(option)", "zz-value"], in: b.path)
                #expect(inline.status == spaced.status && inline.stderr == spaced.stderr && inline.stdout == spaced.stdout,
                        "\(name) --\(option)=v: \(inline.status) \(inline.stderr) vs \(spaced.status) \(spaced.stderr)")
                #expect(!inline.stderr.contains("unknown option"), "\(name): \(inline.stderr)")
            }
            let dir = try TempFolder() // `library init -- --help` makes a library named --help: not in the tree
            defer { dir.remove() }
            let ended = try await ShiyingBinary.run(try await ShiyingBinary.path.value, entry.path + ["--", "--help"], in: dir.path)
            #expect(!ended.stdout.hasPrefix("usage:"), "\(name) -- --help printed the usage")
        }
    }

    /// Every writer of one file and an extension none of them writes.
    static let writers: [[String]] = [
        ["collage", "--layout", "grid", "-o", "OUT.xyz", "IN"],
        ["convert", "IN", "-o", "OUT.xyz"],
        ["convert", "IN", "--to", "gif", "-o", "OUT.xyz"],
        ["compress", "IN", "-o", "OUT.xyz"],
        ["edit", "IN", "--recipe", "R.json", "-o", "OUT.xyz"],
        ["video", "transcode", "M.mov", "-o", "OUT.xyz"],
        ["live", "frame", "IN", "M.mov", "--at", "0", "-o", "OUT.xyz"],
        ["live", "strip", "IN", "-o", "OUT.xyz"],
    ]

    @Test("every single-file writer refuses an unknown extension (exit 2, nothing written)", arguments: writers)
    func unknownExtension(_ arguments: [String]) async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let made = try await ShiyingBinary.shiying(["sample-photos", "--count", "1", "--width", "64", "--height", "48", "-o", dir.path])
        #expect(made.status == 0, "\(made.stderr)")
        let args = arguments.map { $0 == "IN" ? dir.file("sample-0001.jpg") : $0.hasPrefix("OUT") ? dir.file($0) : $0 }
        let result = try await ShiyingBinary.shiying(args)
        #expect(result.status == 2, "\(arguments): \(result.status) \(result.stderr)")
        #expect(result.stderr.contains(".xyz names none of them"), "\(arguments): \(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["sample-0001.jpg"])
    }

    @Test("live strip keeps the still's format: a .jpg still is not written as .heic")
    func stripKeepsFormat() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        _ = try await ShiyingBinary.shiying(["sample-photos", "--count", "1", "--width", "64", "--height", "48", "-o", dir.path])
        let result = try await ShiyingBinary.shiying(["live", "strip", dir.file("sample-0001.jpg"), "-o", dir.file("x.heic")])
        #expect(result.status == 2 && result.stderr.contains("keeps the still's own format (jpeg): name the copy .jpg or .jpeg"), "\(result.stderr)")
    }

    @Test("progress on a pipe: plain lines (no carriage return or escape), each phase's last at 100 %")
    func progressOnAPipe() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let made = try await ShiyingBinary.shiying(["sample-photos", "--count", "3", "--width", "640", "--height", "480",
                                                    "-o", dir.path])
        #expect(made.status == 0, "\(made.stderr)")
        let lines = made.stderr.split(separator: "\n").map(String.init)
        #expect(!made.stderr.contains("\r") && !made.stderr.contains("\u{1B}"), "\(made.stderr)")
        #expect(lines.allSatisfy { $0.range(of: #"^sample-photos: photos \d+/3 \(\d+%\)$"#, options: .regularExpression) != nil },
                "\(lines)")
        #expect(lines.last == "sample-photos: photos 3/3 (100%)", "\(lines)")
    }

    // Found by a user-level sweep (2026-12-06): `probe --json` lines did not name their file, a file that could
    // not be read printed nothing on stdout, and a usage error under --json left no JSON line.
    @Test("--json: probe names each file, a failure is a line too; a usage error's last line is JSON")
    func jsonLinesAlways() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let sample = try await ShiyingBinary.shiying(["sample-photos", "--count", "1", "--width", "64", "--height", "48",
                                                      "-o", dir.path])
        try #require(sample.status == 0, "\(sample.stderr)")
        let photo = dir.file("sample-0001.jpg"), missing = dir.file("nothere.jpg")
        let probe = try await ShiyingBinary.shiying(["probe", "--json", missing, photo])
        #expect(probe.status == 1)
        let lines = probe.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(lines.count == 2 && lines[0]["file"] as? String == missing && lines[0]["error"] is String, "\(probe.stdout)")
        #expect(lines.count == 2 && lines[1]["file"] as? String == photo && lines[1]["width"] as? Int == 64, "\(probe.stdout)")
        // any failure under --json ends with a JSON line: a store that cannot be opened, a photo that is not there
        for run in [["organize", "groups", "--db", dir.file("no/such.db"), "--json"], ["hdr", "info", missing, "--json"]] {
            let r = try await ShiyingBinary.shiying(run)
            let last = r.stdout.split(separator: "\n").last.map(String.init) ?? ""
            let object = try? JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any]
            #expect(r.status == 1 && object?["error"] is String, "\(run): \(r)")
        }
        let usage = try await ShiyingBinary.shiying(["collage", "--layout", "grid", "--bogus", "--json", "-o",
                                                     dir.file("c.jpg"), photo])
        #expect(usage.status == 2)
        let last = usage.stdout.split(separator: "\n").last.map(String.init) ?? ""
        let json = try? JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any]
        #expect(json?["code"] as? String == "usage" && (json?["error"] as? String)?.contains("--bogus") == true, "\(usage)")
    }
}
