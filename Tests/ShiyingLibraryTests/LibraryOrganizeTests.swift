// Issue 18: organize on a photo library. What organize sets aside (D6
// keepers, duplicates) is the library's own set-aside list, so the library's
// delete (D1: confirmation, Recently Deleted, 30 days, restore, purge; D2
// freed bytes) acts on it — through the Swift API and through the CLI.
import Foundation
import Shiying
import ShiyingFixtures
import ShiyingLibrary
import ShiyingOrganize
import Synchronization
import Testing

/// Three sample photos, a half-size copy of the first (a similar group) and,
/// with exiftool, a copy of the second with other metadata bytes (an
/// exact-duplicate group: same pixels, different file, so the import keeps both).
private func organizeFolder(_ dir: TempFolder) async throws -> (input: String, hasDuplicate: Bool) {
    let input = dir.file("in")
    let photos = try SamplePhotos.write(count: 3, seed: 41, width: 480, height: 360, to: input)
    _ = try Editor.saveBlocking(photos[0], recipe: .identity, to: input + "/sample-0001-small.jpg", maxSize: (240, 180))
    var duplicate = false
    if let exiftool = ExternalTool.find("exiftool") {
        let copy = input + "/sample-0002-copy.jpg"
        let r = try await ShiyingBinary.run(exiftool, ["-q", "-o", copy, "-Artist=copy", photos[1]])
        duplicate = r.status == 0
    }
    return (input, duplicate)
}

/// Rows of organize's own set-aside table (loose folders only).
private func organizeSetAsideRows(_ catalogue: String) throws -> Int64 {
    try RecordStore(path: catalogue).query("SELECT COUNT(*) FROM organize_set_aside")[0][0].int64 ?? -1
}

@Suite("Organize on a photo library", .serialized)
struct LibraryOrganizeTests {
    let reader = EngineMediaReader()

    @Test("API: organize's keep-one decisions land on the library's set-aside list; delete, restore and purge act on them")
    func organizeFeedsSetAside() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let (input, hasDuplicate) = try await organizeFolder(dir)
        let time = ManualWallClock()
        let library = try PhotoLibrary.create(at: dir.file("lib"), clock: time.clock)
        let imported = try await library.importFiles([input], reader: reader)
        #expect(imported.imported.count == (hasDuplicate ? 5 : 4) && imported.duplicates == 0)

        let org = try LibraryWorkflows.organizeStore(for: library)
        let scan = try await LibraryWorkflows.organizeScan(library, into: org)
        #expect(scan.scanned == imported.imported.count && scan.similarGroups == 1)
        #expect(scan.duplicateGroups == (hasDuplicate ? 1 : 0))
        let links = try org.libraryAssetIDs()
        #expect(Set(links.values) == Set(imported.imported), "every organize record names its library asset")

        let groups = try org.groupViews().map(\.group.id)
        let decision = try org.decide(groupIDs: groups, action: .keepOne, nowMs: time.clock())
        #expect(decision.setAside.count == groups.count, "one of each pair is set aside")
        let asideIDs = Set(decision.setAside.compactMap { links[$0] })
        #expect(asideIDs.count == decision.setAside.count)
        #expect(Set(try await library.list(.setAside).map(\.id)) == asideIDs, "the library's list is organize's decision")
        #expect(try organizeSetAsideRows(library.folder.catalogue) == 0, "no second list for library assets")
        #expect(Set(try org.setAsideAssets().map(\.id)) == Set(decision.setAside))
        for id in decision.kept.values { #expect(try await library.asset(links[id]!).setAside == false) }

        // one list: the library's keep takes it off organize's view too, set-aside puts it back
        let first = try #require(asideIDs.sorted().first)
        try await library.keep([first])
        #expect(try org.setAsideAssets().count == decision.setAside.count - 1)
        try await library.setAside([first])
        #expect(try org.setAsideAssets().count == decision.setAside.count)

        // D1/D2: delete what organize put aside, after the confirmation
        let wanted = try await library.list(.setAside).map(\.id)
        let expectedFreed = try await library.assets(wanted).flatMap(\.allFiles).reduce(Int64(0)) { total, f in
            total + Int64(try Data(contentsOf: URL(fileURLWithPath: library.folder.absolute(f.path))).count)
        }
        let asked = Mutex<[SetAsideDeletionRequest]>([])
        let report = try await library.delete(wanted) { r in asked.withLock { $0.append(r) }; return true }
        let request = try #require(asked.withLock { $0.first })
        #expect(request.systemConfirmation && !request.requiresGroupCheck && request.recentlyDeletedDays == 30)
        #expect(Set(report.deleted) == asideIDs && report.refused.isEmpty && report.notVisible.isEmpty)
        #expect(report.freedBytes == expectedFreed, "up to X freed = the files of what organize set aside")
        #expect(Set(try await library.list(.recentlyDeleted).map(\.id)) == asideIDs)
        let stillAside = try await library.list(.setAside)
        #expect(try org.setAsideAssets().isEmpty && stillAside.isEmpty)
        #expect(try await library.list().count == imported.imported.count - asideIDs.count, "the keepers stay")

        // restore one, purge the rest after 30 days: organize forgets the purged ones
        #expect(try await library.restore([first]) == [first])
        time.advance(days: 30.1)
        let purge = try await library.purge()
        #expect(Set(purge.purged) == asideIDs.subtracting([first]))
        let left = Set(try org.libraryAssetIDs().values)
        #expect(left == Set(imported.imported).subtracting(purge.purged))
        #expect(filesUnder(library.folder.trash).isEmpty)
        let check = try catalogueConsistent(library.folder.catalogue)
        #expect(check.integrity == "ok" && check.foreignKeyProblems == 0)
    }

    @Test("API: a loose folder's organize store keeps its own set-aside list")
    func looseFolderUnchanged() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let (input, _) = try await organizeFolder(dir)
        let path = dir.file("organize.sqlite")
        let org = OrganizeStore(store: try RecordStore(path: path))
        _ = try await OrganizeScanner.scan(folder: input, store: org)
        #expect(try org.libraryAssetIDs().isEmpty)
        let decision = try org.decide(groupIDs: try org.groupViews().map(\.group.id), action: .keepOne, nowMs: 1)
        #expect(try organizeSetAsideRows(path) == Int64(decision.setAside.count) && !decision.setAside.isEmpty)
        #expect(Set(try org.setAsideAssets().map(\.id)) == Set(decision.setAside))
        try org.removeFromSetAside(decision.setAside)
        #expect(try org.setAsideAssets().isEmpty)
    }

    @Test("CLI: organize scan/decide --library, then library delete/restore/purge act on what organize set aside")
    func organizeThroughCLI() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let (input, _) = try await organizeFolder(dir)
        let lib = dir.file("lib")
        #expect(try await ShiyingBinary.shiying(["library", "init", lib]).status == 0)
        #expect(try await ShiyingBinary.shiying(["library", "import", input, "--library", lib]).status == 0)
        let scan = try await ShiyingBinary.shiying(["organize", "scan", "--library", lib, "--json"])
        #expect(scan.status == 0, "\(scan.stderr)")
        let groups = try await ShiyingBinary.shiying(["organize", "groups", "--library", lib, "--json"])
        let groupIDs = try #require((try JSONSerialization.jsonObject(with: Data(groups.stdout.utf8)) as? [String: Any])?["groups"]
            as? [[String: Any]]).compactMap { $0["id"] as? Int }
        #expect(!groupIDs.isEmpty)
        let decide = try await ShiyingBinary.shiying(["organize", "decide", "--groups", groupIDs.map(String.init).joined(separator: ","),
                                                      "--keep-one", "--library", lib, "--json"])
        #expect(decide.status == 0, "\(decide.stderr)")
        let setAside = (try JSONSerialization.jsonObject(with: Data(decide.stdout.utf8)) as? [String: Any])?["set_aside"] as? [Int]
        #expect(setAside?.count == groupIDs.count)

        func listed(_ scope: String) async throws -> [Int] {
            let r = try await ShiyingBinary.shiying(["library", "list", "--library", lib, "--scope", scope, "--json"])
            #expect(r.status == 0, "\(r.stderr)")
            return r.stdout.split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["id"] as? Int
            }
        }
        let aside = try await listed("set-aside")
        #expect(aside.count == groupIDs.count, "organize's decision is the library's set-aside list")
        #expect(try organizeSetAsideRows(LibraryFolder(lib).catalogue) == 0)
        let organizeView = try await ShiyingBinary.shiying(["organize", "set-aside", "--library", lib, "--json"])
        let viewItems = (try JSONSerialization.jsonObject(with: Data(organizeView.stdout.utf8)) as? [String: Any])?["items"] as? [Any]
        #expect(viewItems?.count == aside.count)

        let delete = try await ShiyingBinary.shiying(["library", "delete"] + aside.map(String.init) + ["--yes", "--library", lib, "--json"])
        #expect(delete.status == 0, "\(delete.stderr)")
        #expect(Set(try await listed("recently-deleted")) == Set(aside))
        #expect(try await listed("set-aside").isEmpty)
        let restore = try await ShiyingBinary.shiying(["library", "restore", String(aside[0]), "--library", lib])
        #expect(restore.status == 0, "\(restore.stderr)")
        let purge = try await ShiyingBinary.shiying(["library", "purge", "--all", "--library", lib, "--json"])
        #expect(purge.status == 0, "\(purge.stderr)")
        let deletedNow = try await listed("recently-deleted"), inLibrary = try await listed("library")
        #expect(deletedNow.isEmpty && inLibrary.contains(aside[0]))
        let check = try catalogueConsistent(LibraryFolder(lib).catalogue)
        #expect(check.integrity == "ok" && check.foreignKeyProblems == 0)
    }
}
