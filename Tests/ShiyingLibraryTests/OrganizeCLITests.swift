// issue 9 end to end through the built `shiying` binary: a generated library
// (byte-identical and re-encoded duplicates, a resized near-duplicate, a
// burst, a screenshot, a camera-less saved image, a receipt) gives the
// expected groups and keepers; SPEC D7 still verifies after the originals are
// deleted; Life (D9/D10) with and without `--ocr`.
import Foundation
import ShiyingLibrary
import Testing

/// Runs an outside tool by name from the usual bin folders; nil when not installed.
private func tool(_ name: String, _ args: [String]) async throws -> (status: Int32, stdout: String, stderr: String)? {
    guard let path = ["/usr/bin/\(name)", "/usr/local/bin/\(name)"].first(where: {
        FileManager.default.isExecutableFile(atPath: $0)
    }) else { return nil }
    let r = try await ShiyingBinary.run(path, args)
    guard r.status == 0 else { throw CLIFailure("\(name) \(args.joined(separator: " ")): \(r.stderr.suffix(400))") }
    return r
}

private struct GroupsJSON: Decodable {
    struct Member: Decodable { var id: Int64; var path: String; var quality: Double? }
    struct Group: Decodable { var id: Int64; var kind: String; var members: [Member]; var keeper: Int64?; var organized: Bool }
    var groups: [Group]
}

private struct LifeJSON: Decodable {
    struct Line: Decodable { var id: Int64; var path: String; var reason: String; var infoLine: String }
    var inLife: Int
    var notInLife: [Line]
}

private func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
    let d = JSONDecoder()
    d.keyDecodingStrategy = .convertFromSnakeCase
    return try d.decode(T.self, from: Data(text.utf8))
}

/// Builds the library; nil when ImageMagick or exiftool is missing.
private func makeLibrary(_ folder: TempFolder) async throws -> String? {
    let src = folder.file("src"), lib = folder.file("lib")
    try FileManager.default.createDirectory(atPath: lib, withIntermediateDirectories: true)
    let made = try await ShiyingBinary.shiying(["sample-photos", "--count", "6", "--seed", "9", "--width", "800",
                                                "--height", "600", "-o", src])
    guard made.status == 0 else { throw CLIFailure(made.stderr) }
    let s = { (n: Int) in "\(src)/sample-000\(n).jpg" }
    let l = { (name: String) in "\(lib)/\(name)" }
    guard try await tool("convert", [s(1), "-strip", l("p1.png")]) != nil, try await tool("exiftool", ["-ver"]) != nil else {
        return nil
    }
    try FileManager.default.copyItem(atPath: s(1), toPath: l("p1.jpg"))
    try FileManager.default.copyItem(atPath: s(1), toPath: l("p1-copy.jpg"))
    _ = try await tool("convert", [s(1), "-resize", "50%", l("p1-small.jpg")])
    try FileManager.default.copyItem(atPath: s(3), toPath: l("burst-1.jpg"))
    _ = try await tool("convert", [s(3), "-blur", "0x1.5", l("burst-2.jpg")])
    _ = try await tool("convert", [s(3), "-blur", "0x3", l("burst-3.jpg")])
    for (name, second) in [("burst-1.jpg", "00"), ("burst-2.jpg", "00"), ("burst-3.jpg", "01")] {
        _ = try await tool("exiftool", ["-q", "-overwrite_original", "-DateTimeOriginal=2024:05:01 10:00:\(second)", l(name)])
    }
    _ = try await tool("convert", [s(5), "-strip", l("shot-plain.png")])
    _ = try await tool("exiftool", ["-q", "-UserComment=Screenshot", "-o", l("screenshot.png"), l("shot-plain.png")])
    try FileManager.default.removeItem(atPath: l("shot-plain.png"))
    _ = try await tool("convert", [s(6), "-strip", l("saved.png")])
    try FileManager.default.copyItem(atPath: s(2), toPath: l("ordinary.jpg"))
    _ = try await tool("convert", ["-size", "700x900", "xc:white", "-font", "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
                                   "-fill", "black", "-pointsize", "36",
                                   "-annotate", "+60+120",
                                   "CORNER CAFE RECEIPT\nLatte        4.50\nBagel        3.25\nMuffin       2.75\nSUBTOTAL    10.50\nTAX          0.84\nTOTAL       11.34\nCASH        20.00\nCHANGE DUE   8.66",
                                   l("receipt.png")])
    return lib
}

@Suite("Organize CLI", .serialized)
struct OrganizeCLITests {
    @Test("Generated library: expected duplicate, similar and burst groups with default keepers; SPEC D7 after deleting originals")
    func generatedLibrary() async throws {
        let folder = try TempFolder()
        defer { folder.remove() }
        guard let lib = try await makeLibrary(folder) else { return }
        let db = folder.file("organize.sqlite")
        _ = FileManager.default.createFile(atPath: lib + "/broken.jpg", contents: Data("not a photo".utf8))
        let scan = try await ShiyingBinary.shiying(["organize", "scan", lib, "--db", db, "--json"])
        #expect(scan.status == 0, "\(scan.stderr)")
        #expect(scan.stdout.contains("broken.jpg: not a JPEG, PNG or HEIF image"), "bad input is named and skipped: \(scan.stdout)")
        #expect(scan.stdout.contains("\"scanned\":11") && scan.stderr.contains("organize scan: photos 12/12"))
        let listed = try await ShiyingBinary.shiying(["organize", "groups", "--db", db, "--json"])
        let groups = try decode(GroupsJSON.self, listed.stdout).groups
        let names = { (g: GroupsJSON.Group) in Set(g.members.map { ($0.path as NSString).lastPathComponent }) }
        let keeperName = { (g: GroupsJSON.Group) in g.members.first { $0.id == g.keeper }.map { ($0.path as NSString).lastPathComponent } }
        let dup = try #require(groups.first { $0.kind == "duplicate" })
        #expect(names(dup) == ["p1.jpg", "p1-copy.jpg", "p1.png"], "byte-identical and re-encoded share one group")
        let similar = try #require(groups.first { $0.kind == "similar" })
        // the duplicate group takes part in similarity through its first member
        let dupFirst = (dup.members[0].path as NSString).lastPathComponent
        #expect(names(similar) == [dupFirst, "p1-small.jpg"])
        let burst = try #require(groups.first { $0.kind == "burst" })
        #expect(names(burst) == ["burst-1.jpg", "burst-2.jpg", "burst-3.jpg"])
        #expect(keeperName(burst) == "burst-1.jpg", "SPEC D8: the sharpest of an own burst")
        #expect(groups.count == 3, "\(groups.map { ($0.kind, names($0)) })")
        #expect(!groups.contains { !names($0).isDisjoint(with: ["screenshot.png", "saved.png", "ordinary.jpg", "receipt.png"]) })

        // SPEC D7: the originals are gone; the check runs from stored data only
        try FileManager.default.removeItem(atPath: lib)
        let verify = try await ShiyingBinary.shiying(["organize", "verify", "\(dup.id)", "--db", db, "--json"])
        #expect(verify.status == 0 && verify.stdout.contains("\"verified\":true"), "\(verify.stdout) \(verify.stderr)")

        // SPEC D6 through the CLI: keep one of every similar group, set the rest aside
        let decided = try await ShiyingBinary.shiying(["organize", "decide", "--all-similar", "--keep-one", "--db", db, "--json"])
        #expect(decided.status == 0 && decided.stdout.contains("\"groups\":1"), "\(decided.stdout) \(decided.stderr)")
        let after = try decode(GroupsJSON.self, try await ShiyingBinary.shiying(["organize", "groups", "--db", db, "--json"]).stdout)
        #expect(after.groups.first { $0.id == similar.id }?.organized == true)
        let aside = try await ShiyingBinary.shiying(["organize", "set-aside", "--db", db, "--json"])
        #expect(aside.stdout.contains("最多可释放") && aside.stdout.contains("实际数量以系统确认删除的项目为准"))

        // SPEC D9/D10 without OCR: only the real screenshot marker hides a photo
        let life = try decode(LifeJSON.self, try await ShiyingBinary.shiying(["organize", "life", "--db", db, "--json"]).stdout)
        #expect(life.notInLife.map { ($0.path as NSString).lastPathComponent } == ["screenshot.png"])
        #expect(life.notInLife.first?.reason == "screenshot" && life.inLife == 10)
        let shotID = try #require(life.notInLife.first?.id)
        let restored = try await ShiyingBinary.shiying(["organize", "life", "--set", "\(shotID)", "life", "--db", db, "--json"])
        #expect(try decode(LifeJSON.self, restored.stdout).notInLife.isEmpty, "SPEC D9: the user's override")
    }

    @Test("SPEC D9: `organize scan --ocr` (Tesseract) recognizes the receipt; the rules read the stored text")
    func ocrReceipt() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/tesseract") else {
            print("skipped: tesseract-ocr is not installed (make deps)")
            return
        }
        let folder = try TempFolder()
        defer { folder.remove() }
        guard let lib = try await makeLibrary(folder) else { return }
        let db = folder.file("ocr.sqlite")
        let scan = try await ShiyingBinary.shiying(["organize", "scan", lib, "--db", db, "--ocr", "--json"])
        #expect(scan.status == 0, "\(scan.stderr)")
        let life = try decode(LifeJSON.self, try await ShiyingBinary.shiying(["organize", "life", "--db", db, "--json"]).stdout)
        let reasons = Dictionary(uniqueKeysWithValues: life.notInLife.map { (($0.path as NSString).lastPathComponent, $0.reason) })
        #expect(reasons["receipt.png"] == "text_receipt", "\(reasons)")
        #expect(reasons["screenshot.png"] == "screenshot")
        #expect(reasons["saved.png"] == nil && reasons["ordinary.jpg"] == nil, "unsure → Life")
        #expect(life.notInLife.first { $0.reason == "text_receipt" }?.infoLine == "图里的字看起来像票据，所以不在「生活」里")
    }

    @Test("SPEC D4 through the CLI: a store that refuses the batch prints 「无法完成这次整理」 and exits 1")
    func cliCouldNotRecord() async throws {
        let folder = try TempFolder()
        defer { folder.remove() }
        let db = folder.file("d4.sqlite")
        do {
            let org = OrganizeStore(store: try RecordStore(path: db))
            try org.record(similarLibrary(groups: 2), nowMs: 1)
            try org.regroup(nowMs: 2)
            try org.store.execute("CREATE TRIGGER refuse BEFORE INSERT ON organize_set_aside BEGIN SELECT RAISE(ABORT, 'injected'); END")
        }
        let r = try await ShiyingBinary.shiying(["organize", "decide", "--all-similar", "--set-all-aside", "--db", db, "--json"])
        #expect(r.status == 1 && r.stdout.contains("无法完成这次整理") && r.stderr.contains("无法完成这次整理"))
        let groups = try decode(GroupsJSON.self, try await ShiyingBinary.shiying(["organize", "groups", "--db", db, "--json"]).stdout)
        #expect(groups.groups.count == 2 && groups.groups.allSatisfy { !$0.organized })
    }

    @Test("--keeper must be a member of the groups decided (exit 2, naming the group); life --set names an unknown asset")
    func keeperChecked() async throws {
        let folder = try TempFolder()
        defer { folder.remove() }
        let db = folder.file("k.sqlite")
        let groups: [OrganizeGroup]
        do {
            let org = OrganizeStore(store: try RecordStore(path: db))
            try org.record(similarLibrary(groups: 2), nowMs: 1)
            groups = try org.regroup(nowMs: 2)
        }
        try #require(groups.count == 2)
        let stranger = groups[1].members[0]
        let r = try await ShiyingBinary.shiying(["organize", "decide", "--groups", "\(groups[0].id)", "--keep-one",
                                                 "--keeper", "\(stranger)", "--db", db])
        #expect(r.status == 2 && r.stderr.contains("not a member of group \(groups[0].id)"), "\(r.status) \(r.stderr)")
        let life = try await ShiyingBinary.shiying(["organize", "life", "--set", "99999", "life", "--db", db])
        #expect(life.status == 2 && life.stderr.contains("no asset 99999"), "\(life.status) \(life.stderr)")
    }
}
