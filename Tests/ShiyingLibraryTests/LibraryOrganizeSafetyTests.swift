// Found by a user-level sweep of the library rules (2026-12-06, ninth session):
// - a library scanned through a symlink, or after its folder was moved, had every photo recorded twice (two
//   spellings of one file) and grouped as its own "duplicate": keep-one then set the whole library aside;
// - a photo in a duplicate pair and in a burst, kept by one group, was set aside by the other in the same batch;
// - organize printed its own record ids, which `library delete` took for library ids: another photo was deleted;
// - of two exact duplicates, the copy with a tag added outranked the original (its file is a few bytes larger);
// - organize's "up to X freed" left out Live movies and edits' files (SPEC D2).
import Foundation
import Testing

@Suite("Organize on a library: one record per file, keepers kept, library ids, D2 from disk", .serialized)
struct LibraryOrganizeSafetyTests {
    static func json(_ text: String) throws -> [String: Any] {
        let line = text.split(separator: "\n").last.map(String.init) ?? ""
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(text)")
    }

    static func setAsideIDs(_ lib: String) async throws -> Set<Int> {
        let list = try await ShiyingBinary.shiying(["library", "list", "--scope", "set-aside", "--library", lib, "--json"])
        return Set(list.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["id"] as? Int
        })
    }

    /// A library of `count` distinct sample photos, imported and scanned once.
    static func library(_ dir: TempFolder, count: Int = 4) async throws -> String {
        let input = dir.file("in"), lib = dir.file("lib")
        #expect(try await ShiyingBinary.shiying(["sample-photos", "--count", "\(count)", "--width", "320", "--height", "240",
                                                 "-o", input]).status == 0)
        #expect(try await ShiyingBinary.shiying(["library", "init", lib]).status == 0)
        #expect(try await ShiyingBinary.shiying(["library", "import", "--library", lib, input]).status == 0)
        let scan = try await ShiyingBinary.shiying(["organize", "scan", "--library", lib, "--json"])
        #expect(try Self.json(scan.stdout)["duplicate_groups"] as? Int == 0, "\(scan.stdout)")
        return lib
    }

    @Test("a library scanned through a symlink, or after its folder moved, is not its own duplicate; keep-one sets nothing aside",
          arguments: ["symlink", "moved"])
    func oneRecordPerFile(_ how: String) async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        var lib = try await Self.library(dir)
        if how == "symlink" {
            let link = dir.file("link")
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: lib)
            lib = link
        } else {
            let moved = dir.file("moved")
            try FileManager.default.moveItem(atPath: lib, toPath: moved)
            lib = moved
        }
        let scan = try await ShiyingBinary.shiying(["organize", "scan", "--library", lib, "--json"])
        let report = try Self.json(scan.stdout)
        #expect(report["duplicate_groups"] as? Int == 0 && report["scanned"] as? Int == 4, "\(how): \(scan.stdout)")
        let groups = try await ShiyingBinary.shiying(["organize", "groups", "--library", lib, "--json"])
        let ids = (try Self.json(groups.stdout)["groups"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }
        if !ids.isEmpty {
            _ = try await ShiyingBinary.shiying(["organize", "decide", "--groups", ids.map(String.init).joined(separator: ","),
                                                 "--keep-one", "--library", lib])
        }
        #expect(try await Self.setAsideIDs(lib).isEmpty, "\(how): photos set aside as duplicates of themselves")
    }

    @Test("a duplicate pair inside a burst: the batch keeps every group's keeper; the original outranks a tagged copy; ids are the library's; D2 from disk",
          .enabled(if: ExternalTool.find("exiftool") != nil))
    func overlappingGroups() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let input = dir.file("in"), lib = dir.file("lib")
        let scene = dir.file("scene")
        #expect(try await ShiyingBinary.shiying(["sample-photos", "--count", "1", "--width", "320", "--height", "240",
                                                 "-o", scene]).status == 0)
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let exiftool = try #require(ExternalTool.find("exiftool"))
        // a burst: three shots of one scene in one second (a little brighter each); and an exact copy of the
        // second with a tag added, named so it is imported after it
        for n in 1...3 {
            let recipe = dir.file("r\(n).json"), shot = input + "/sample-000\(n).jpg"
            try Data(#"{"adjustments":{"exposure":\#(0.04 * Double(n))}}"#.utf8).write(to: URL(fileURLWithPath: recipe))
            #expect(try await ShiyingBinary.shiying(["edit", "--recipe", recipe, "-o", shot, scene + "/sample-0001.jpg"]).status == 0)
            _ = try await ShiyingBinary.run(exiftool, ["-q", "-overwrite_original", "-DateTimeOriginal=2025:06:01 10:00:00",
                                                       "-Make=Shiying", "-Model=Test", shot])
        }
        _ = try await ShiyingBinary.run(exiftool, ["-q", "-o", input + "/sample-0002_tagged.jpg", "-Artist=me",
                                                   input + "/sample-0002.jpg"])
        #expect(try await ShiyingBinary.shiying(["library", "init", lib]).status == 0)
        #expect(try await ShiyingBinary.shiying(["library", "import", "--library", lib, input]).status == 0)
        #expect(try await ShiyingBinary.shiying(["organize", "scan", "--library", lib]).status == 0)
        let listed = try await ShiyingBinary.shiying(["library", "list", "--scope", "all", "--library", lib, "--json"])
        var libraryID: [String: Int] = [:]
        for line in listed.stdout.split(separator: "\n") {
            guard let a = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let id = a["id"] as? Int, let files = a["files"] as? [String], let file = files.first else { continue }
            libraryID[(file as NSString).lastPathComponent] = id
        }
        let groupsRun = try await ShiyingBinary.shiying(["organize", "groups", "--library", lib, "--json"])
        let groups = try Self.json(groupsRun.stdout)["groups"] as? [[String: Any]] ?? []
        #expect(groups.count >= 2, "a duplicate and a burst group: \(groupsRun.stdout)")
        for g in groups { // ids shown are the library's
            for m in g["members"] as? [[String: Any]] ?? [] {
                let name = ((m["path"] as? String ?? "") as NSString).lastPathComponent
                #expect(m["id"] as? Int == libraryID[name], "\(name): organize shows \(m["id"] ?? "-"), the library says \(libraryID[name] ?? -1)")
            }
        }
        let duplicate = try #require(groups.first { $0["kind"] as? String == "duplicate" })
        let ids = groups.compactMap { $0["id"] as? Int }.map(String.init).joined(separator: ",")
        let decided = try Self.json(try await ShiyingBinary.shiying(["organize", "decide", "--groups", ids, "--keep-one",
                                                                        "--library", lib, "--json"]).stdout)
        let kept = Set(decided["kept"] as? [Int] ?? []), aside = Set(decided["set_aside"] as? [Int] ?? [])
        #expect(kept.isDisjoint(with: aside), "kept and set aside at once: \(kept.intersection(aside))")
        #expect(try await Self.setAsideIDs(lib) == aside, "the library's list is the report's")
        for g in groups {
            let members = Set((g["members"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int })
            #expect(!members.isSubset(of: aside), "group \(g["id"] ?? "-") lost every member")
        }
        // of the exact pair, the original (no tag added) is the one kept
        let pair = (duplicate["members"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }
        #expect(pair.contains(libraryID["sample-0002.jpg"] ?? -1) && !aside.contains(libraryID["sample-0002.jpg"] ?? -1))
        #expect(aside.contains(libraryID["sample-0002_tagged.jpg"] ?? -1), "the tagged copy is the one set aside")
        // D2: organize's "up to X freed" is what the files on disk weigh
        let shown = try Self.json(try await ShiyingBinary.shiying(["organize", "set-aside", "--library", lib, "--json"]).stdout)
        var onDisk: Int64 = 0
        for line in listed.stdout.split(separator: "\n") {
            guard let a = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let id = a["id"] as? Int, aside.contains(id) else { continue }
            for f in a["files"] as? [String] ?? [] {
                onDisk += (try FileManager.default.attributesOfItem(atPath: f)[.size] as? NSNumber)?.int64Value ?? 0
            }
        }
        #expect((shown["freed_bytes"] as? NSNumber)?.int64Value == onDisk, "freed \(shown["freed_bytes"] ?? "-") vs \(onDisk) on disk")
    }
}
