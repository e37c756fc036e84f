// Issue 18 through the built `shiying` binary: an import killed with SIGKILL
// halfway and run again; eight writer processes at once; the list contract.
import Foundation
import Shiying
import ShiyingLibrary
import ShiyingOrganize
import Testing

@Suite("Photo library CLI")
struct LibraryCLITests {
    @Test("kill -9 halfway through an import, then re-run: consistent, nothing twice, nothing lost")
    func killedImport() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let fixture = try await LibraryFixture.make(in: dir, photos: 120, lives: 2, burst: 4, screenshots: 2)
        let lib = dir.file("lib")
        let catalogue = LibraryFolder(lib).catalogue
        // One asset per commit (two syncfs each) makes the import long enough to
        // be caught halfway; on a machine fast enough to finish first, try again.
        var killedHalfway = false
        for _ in 0..<3 where !killedHalfway {
            try? FileManager.default.removeItem(atPath: lib)
            #expect(try await ShiyingBinary.shiying(["library", "init", lib]).status == 0)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try await ShiyingBinary.path.value)
            process.arguments = ["library", "import", fixture.input, "--library", lib, "--batch", "1"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let watcher = try RecordStore(path: catalogue)
            let deadline = ContinuousClock.now + .seconds(120)
            while process.isRunning && ContinuousClock.now < deadline {
                if try watcher.query("SELECT COUNT(*) FROM library_assets")[0][0].int64 ?? 0 >= 4 {
                    kill(process.processIdentifier, SIGKILL)
                    break
                }
                usleep(500)
            }
            process.waitUntilExit()
            let atKill = Int(try watcher.query("SELECT COUNT(*) FROM library_assets")[0][0].int64 ?? 0)
            killedHalfway = process.terminationReason == .uncaughtSignal && atKill < fixture.expectedAssets
        }
        #expect(killedHalfway, "the import was killed before it finished")

        let rerun = try await ShiyingBinary.shiying(["library", "import", fixture.input, "--library", lib, "--json"])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let check = try catalogueConsistent(catalogue)
        #expect(check.integrity == "ok" && check.foreignKeyProblems == 0)
        let store = try RecordStore(path: catalogue)
        #expect(try store.query("SELECT COUNT(*) FROM library_assets")[0][0].int64 == Int64(fixture.expectedAssets), "nothing lost")
        #expect(try store.query("SELECT sha256 FROM library_files GROUP BY sha256 HAVING COUNT(*) > 1").isEmpty, "nothing twice")
        #expect(try store.query("SELECT COUNT(*) FROM library_assets WHERE kind = 'live'")[0][0].int64 == Int64(fixture.livePairs.count))
        // the folder holds exactly the catalogued files, each with its catalogued bytes
        let rows = try store.query("SELECT path, sha256 FROM library_files")
        let onDisk = filesUnder(lib + "/originals").map { "originals/" + $0 }
        #expect(Set(onDisk) == Set(rows.compactMap { $0[0].string }) && onDisk.count == rows.count)
        for row in rows { #expect(try sha256(lib + "/" + row[0].string!) == row[1].string) }
        #expect(filesUnder(lib + "/.staging").isEmpty)
        // and every source is in
        let sources = try store.query("SELECT path FROM library_sources").compactMap { $0[0].string }
        #expect(sources.count == fixture.expectedAssets + fixture.livePairs.count + 1)
    }

    @Test("8 writer processes adding favourites, tags and albums: no lost update, no \"database is locked\"")
    func concurrentWriters() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let fixture = try await LibraryFixture.make(in: dir, photos: 6, lives: 0)
        let lib = dir.file("lib")
        let library = try PhotoLibrary.create(at: lib)
        let ids = try await library.importFiles([fixture.input + "/photos"], reader: EngineMediaReader()).imported
        let list = ids.map(String.init)
        let writers = 8, rounds = 3
        let failures = try await withThrowingTaskGroup(of: [String].self) { group in
            for w in 1...writers {
                group.addTask {
                    var problems: [String] = []
                    for r in 1...rounds {
                        for args in [["tag"] + list + ["--add", "w\(w)r\(r)"], ["album", "A\(w)"] + list,
                                     ["favorite", list[(w + r) % list.count]]] {
                            let out = try await ShiyingBinary.shiying(["library"] + args + ["--library", lib])
                            if out.status != 0 || out.stderr.lowercased().contains("locked") {
                                problems.append("\(args): \(out.status) \(out.stderr)")
                            }
                        }
                    }
                    return problems
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(failures.isEmpty, "\(failures)")
        let assets = try await library.assets(ids)
        let tags = Set((1...writers).flatMap { w in (1...rounds).map { "w\(w)r\($0)" } })
        let albums = Set((1...writers).map { "A\($0)" })
        for a in assets {
            #expect(Set(a.tags) == tags, "asset \(a.id) lost a tag")
            #expect(Set(a.albums) == albums, "asset \(a.id) lost an album")
        }
        let favorites = Set((1...writers).flatMap { w in (1...rounds).map { ids[(w + $0) % ids.count] } })
        #expect(Set(assets.filter(\.favorite).map(\.id)) == favorites)
        let check = try catalogueConsistent(library.folder.catalogue)
        #expect(check.integrity == "ok" && check.foreignKeyProblems == 0)
    }

    @Test("library list --json: one object per asset with id, kind, files, capture_date, gps, favorite, albums, tags")
    func listContract() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let fixture = try await LibraryFixture.make(in: dir, photos: 2, lives: 1)
        let lib = dir.file("lib")
        #expect(try await ShiyingBinary.shiying(["library", "init", lib]).status == 0)
        let imported = try await ShiyingBinary.shiying(["library", "import", fixture.input, "--library", lib, "--json"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try await ShiyingBinary.shiying(["library", "favorite", "1", "--library", lib]).status == 0)
        let listed = try await ShiyingBinary.shiying(["library", "list", "--library", lib, "--json"])
        let lines = listed.stdout.split(separator: "\n")
        #expect(lines.count == fixture.expectedAssets)
        var kinds: [String] = []
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            for key in ["id", "kind", "files", "capture_date", "gps", "favorite", "albums", "tags"] {
                #expect(object.keys.contains(key), "missing \(key) in \(line)")
            }
            kinds.append(object["kind"] as? String ?? "")
            for file in object["files"] as? [String] ?? [] { #expect(FileManager.default.fileExists(atPath: file)) }
        }
        #expect(kinds.filter { $0 == "live" }.count == fixture.livePairs.count)
        #expect(kinds.filter { $0 == "photo" }.count == fixture.photos.count)
        // convert --library reports the new asset's id, album and files
        let source = try #require(fixture.photos.first)
        let converted = try await ShiyingBinary.shiying(["convert", source, "--library", lib, "--format", "png", "--json"])
        #expect(converted.status == 0, "\(converted.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(converted.stdout.utf8)) as? [String: Any])
        #expect(report["album"] as? String == LibraryAlbum.conversions && report["id"] is Int)
        #expect((report["files"] as? [String])?.first.map { FileManager.default.fileExists(atPath: $0) } == true)
        // after a crop, the line's size is the current version's (its `files`), not the original's (a sweep found it)
        let before = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        let crop = dir.file("half.json")
        try Data(#"{"crop":{"x":0,"y":0,"width":0.5,"height":1}}"#.utf8).write(to: URL(fileURLWithPath: crop))
        let id = try #require(before["id"] as? Int)
        let edited = try await ShiyingBinary.shiying(["library", "edit", "\(id)", "--recipe", crop, "--library", lib, "--json"])
        #expect(edited.status == 0, "\(edited.stderr)")
        let after = try await ShiyingBinary.shiying(["library", "list", "--library", lib, "--json"])
        let line = try #require(after.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.first { $0["id"] as? Int == id })
        let (w0, w1) = (before["width"] as? Int ?? 0, line["width"] as? Int ?? 0)
        #expect(abs(w1 - w0 / 2) <= 1 && line["height"] as? Int == before["height"] as? Int, "\(w0) -> \(w1)")
        // a delete without --yes and without a terminal is not confirmed: nothing changes
        let refused = try await ShiyingBinary.shiying(["library", "delete", "1", "--library", lib])
        #expect(refused.status == 1 && refused.stderr.contains("--yes"))
        let deleted = try await ShiyingBinary.shiying(["library", "delete", "1", "--yes", "--library", lib, "--json"])
        #expect(deleted.status == 0 && deleted.stdout.contains("\"deleted\":[1]"), "\(deleted.stdout) \(deleted.stderr)")
        #expect(try await ShiyingBinary.shiying(["library", "restore", "1", "--library", lib]).status == 0)
    }

    @Test("convert STILL MOVIE --to motion-photo: -o with --json, and --library into 「拾映转换」 carrying the favourite")
    func motionPhotoFromLive() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let fixture = try await LibraryFixture.make(in: dir, photos: 1, lives: 1)
        let pair = try #require(fixture.livePairs.first)
        let out = dir.file("MP.jpg")
        let direct = try await ShiyingBinary.shiying(["convert", pair.still, pair.movie, "--to", "motion-photo", "-o", out, "--json"])
        #expect(direct.status == 0, "\(direct.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(direct.stdout.utf8)) as? [String: Any])
        #expect(report["container"] as? String == "jpeg" && (report["movie_length"] as? Int ?? 0) > 0, "\(direct.stdout)")
        let size = try FileManager.default.attributesOfItem(atPath: out)[.size] as? Int
        #expect((report["movie_offset"] as? Int ?? 0) + (report["movie_length"] as? Int ?? 0) == size)
        // one operand too many without --to motion-photo
        let extra = try await ShiyingBinary.shiying(["convert", pair.still, pair.movie, "-o", dir.file("x.jpg")])
        #expect(extra.status != 0 && extra.stderr.contains("motion-photo"), "\(extra.stderr)")

        let lib = dir.file("lib")
        #expect(try await ShiyingBinary.shiying(["library", "init", lib]).status == 0)
        #expect(try await ShiyingBinary.shiying(["library", "import", fixture.input, "--library", lib]).status == 0)
        let listed = try await ShiyingBinary.shiying(["library", "list", "--library", lib, "--json"])
        let live = try #require(listed.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.first { $0["kind"] as? String == "live" })
        let liveID = try #require(live["id"] as? Int)
        #expect(try await ShiyingBinary.shiying(["library", "favorite", "\(liveID)", "--library", lib]).status == 0)
        let converted = try await ShiyingBinary.shiying(["convert", pair.still, pair.movie, "--to", "motion-photo",
                                                         "--library", lib, "--json"])
        #expect(converted.status == 0, "\(converted.stderr)")
        let exit = try #require(try JSONSerialization.jsonObject(with: Data(converted.stdout.utf8)) as? [String: Any])
        #expect(exit["album"] as? String == LibraryAlbum.conversions && exit["favorite"] as? Bool == true, "\(converted.stdout)")
        #expect((exit["files"] as? [String])?.first.map { FileManager.default.fileExists(atPath: $0) } == true)
    }

    @Test("organize --db keeps working, and organize scan --library runs on the catalogue's originals")
    func organizeOnLibrary() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let fixture = try await LibraryFixture.make(in: dir, photos: 3, lives: 0)
        let lib = dir.file("lib")
        #expect(try await ShiyingBinary.shiying(["library", "init", lib]).status == 0)
        #expect(try await ShiyingBinary.shiying(["library", "import", fixture.input, "--library", lib]).status == 0)
        let scanned = try await ShiyingBinary.shiying(["organize", "scan", "--library", lib, "--json"])
        #expect(scanned.status == 0, "\(scanned.stderr)")
        // the catalogue's video is an item too since issue 22 (fingerprinted from a few frames)
        let items = 3 + (fixture.video == nil ? 0 : 1)
        #expect(scanned.stdout.contains("\"scanned\":\(items)"), "\(scanned.stdout)")
        // the fingerprints live in the library's catalogue (issue 22), so a
        // rescan through the library decodes nothing that is unchanged
        do {
            let catalogue = OrganizeStore(store: try RecordStore(path: LibraryFolder(lib).catalogue))
            let recorded = try catalogue.assets()
            #expect(recorded.count == items && recorded.allSatisfy { $0.fileSHA256.count == 64 && !$0.pixelSHA256.isEmpty })
        }
        let rescan = try await ShiyingBinary.shiying(["organize", "scan", "--library", lib, "--json"])
        #expect(rescan.status == 0 && rescan.stdout.contains("\"decoded\":0") && rescan.stdout.contains("\"unchanged\":\(items)"),
                "\(rescan.stdout) \(rescan.stderr)")
        let db = try await ShiyingBinary.shiying(["organize", "scan", fixture.input + "/photos", "--db", dir.file("o.sqlite"), "--json"])
        #expect(db.status == 0 && db.stdout.contains("\"scanned\":3"), "\(db.stdout) \(db.stderr)")
    }
}
