// Issue 18: the photo library end to end on generated files, through the
// Swift API: import (Live pairs, duplicates, incremental), the one exit path
// (SPEC S3, C9), deletion (D1–D4) on a manual clock, versions (E1, E7).
import Foundation
import Shiying
import ShiyingFixtures
import ShiyingLibrary
import ShiyingOrganize
import Synchronization
import Testing

/// A wall clock tests move by hand (Unix ms).
final class ManualWallClock: Sendable {
    private let now: Mutex<Int64>
    init(_ start: Int64 = 1_767_225_600_000) { now = Mutex(start) }  // 2026-01-01
    func advance(days: Double) { now.withLock { $0 += Int64(days * 86_400_000) } }
    var clock: LibraryClock { { self.now.withLock { $0 } } }
}

@Suite("Photo library")
struct PhotoLibraryTests {
    let reader = EngineMediaReader()

    @Test("Import: photos, Live pairs as one asset, the video, the duplicate once, a burst, screenshots; a re-run reads nothing and adds nothing")
    func importFolder() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let fixture = try await LibraryFixture.make(in: dir, burst: 4, screenshots: 2)
        let library = try PhotoLibrary.create(at: dir.file("lib"))
        let first = try await library.importFiles([fixture.input], reader: reader, batchSize: 3)
        #expect(first.skipped.isEmpty, "\(first.skipped)")
        #expect(first.imported.count == fixture.expectedAssets)
        #expect(first.photos == fixture.photos.count + fixture.burst.count + fixture.screenshots.count)
        #expect(first.lives == fixture.livePairs.count)
        #expect(first.duplicates == 1, "the copy of the first photo is the same content")
        let assets = try await library.list()
        #expect(assets.count == fixture.expectedAssets)
        for pair in fixture.livePairs {
            let id = try #require(try await library.assetID(forFile: pair.still, reader: reader))
            let live = try await library.asset(id)
            #expect(live.kind == .live && live.allFiles.map(\.role) == [.original, .originalMovie])
            #expect(try await library.assetID(forFile: pair.movie, reader: reader) == id, "still and movie are one asset")
            #expect(live.durationMs > 0 && live.contentIdentifier != nil)
        }
        if let clip = fixture.video {
            let id = try #require(try await library.assetID(forFile: clip, reader: reader))
            #expect(try await library.asset(id).kind == .video)
        }
        let photo = try await library.asset(try #require(try await library.assetID(forFile: fixture.photos[0], reader: reader)))
        #expect(photo.captureDate != nil && photo.width == 320 && photo.height == 240)
        #expect(try await library.assetID(forFile: fixture.duplicate, reader: reader) == photo.id)
        if let gps = fixture.gpsPhoto {
            let located = try await library.asset(try #require(try await library.assetID(forFile: gps, reader: reader)))
            #expect(abs((located.location?.latitude ?? 0) - LibraryFixture.latitude) < 1e-6)
            #expect(abs((located.location?.longitude ?? 0) - LibraryFixture.longitude) < 1e-6)
        }
        // a burst is one photo per frame, all in its capture second; organize groups them (SPEC D8)
        var burstIDs: [Int64] = []
        for frame in fixture.burst {
            let a = try await library.asset(try #require(try await library.assetID(forFile: frame, reader: reader)))
            #expect(a.kind == .photo && a.captureDate == LibraryFixture.burstSecond && a.width == 320)
            burstIDs.append(a.id)
        }
        #expect(Set(burstIDs).count == fixture.burst.count, "no frame taken for a duplicate of another")
        // a screenshot is a photo at the screen's size, with no camera, date or place
        var shotIDs: [Int64] = []
        for shot in fixture.screenshots {
            let a = try await library.asset(try #require(try await library.assetID(forFile: shot, reader: reader)))
            #expect(a.kind == .photo && a.width == LibraryFixture.screenSize.width && a.height == LibraryFixture.screenSize.height)
            #expect(a.location == nil && a.captureDate == nil)
            let camera = try await library.withStore { s in
                try s.query("SELECT camera FROM library_assets WHERE id = ?", [.integer(a.id)]).first?.first?.string
            }
            #expect(camera == nil, "no camera Exif")
            shotIDs.append(a.id)
        }
        if !fixture.burst.isEmpty {
            let org = try LibraryWorkflows.organizeStore(for: library)
            let scan = try await LibraryWorkflows.organizeScan(library, into: org)
            #expect(scan.burstGroups == 1, "\(scan)")
            let links = try org.libraryAssetIDs()
            let burst = try #require(try org.groups().first { $0.kind == .burst })
            #expect(Set(burst.members.compactMap { links[$0] }) == Set(burstIDs))
            let screenshots = try org.lifeDecisions().filter { $0.decision.reason?.code == "screenshot" }
            #expect(Set(screenshots.compactMap { links[$0.asset.id] }) == Set(shotIDs), "screenshots are not in Life (SPEC D9)")
        }
        // every catalogued file is there, byte for byte the source
        for a in assets {
            for f in a.allFiles { #expect(try sha256(library.folder.absolute(f.path)) == f.sha256) }
        }
        let again = try await library.importFiles([fixture.input], reader: reader)
        #expect(again.imported.isEmpty && again.duplicates == 0 && again.skipped.isEmpty)
        #expect(again.unchanged == fixture.expectedAssets + fixture.livePairs.count + 1, "every file skipped without a read")
        #expect(try await library.list().count == fixture.expectedAssets)
        let check = try catalogueConsistent(library.folder.catalogue)
        #expect(check.integrity == "ok" && check.foreignKeyProblems == 0)
    }

    // Found by a metadata sweep (2026-12-06): import read only Exif DateTimeOriginal, then ModifyDate. An XMP-only
    // date came in undated, a scan's CreateDate lost to the last edit's ModifyDate, a placeholder
    // DateTimeOriginal was stored as the date.
    @Test("Import: capture date from DateTimeOriginal, DateTimeDigitized, XMP dates, then ModifyDate; placeholders skipped",
          .enabled(if: ExternalTool.find("exiftool") != nil, "exiftool missing"))
    func captureDateSources() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let base = try SamplePhotos.write(count: 1, seed: 61, width: 320, height: 240, to: dir.file("base"))[0]
        let exiftool = try #require(ExternalTool.find("exiftool"))
        let input = dir.file("in")
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let cases: [(String, [String], String?)] = [
            ("xmp-exif.jpg", ["-EXIF:all=", "-XMP-exif:DateTimeOriginal=2019:05:04 10:20:30+02:00"], "2019:05:04 10:20:30"),
            ("xmp-create.jpg", ["-EXIF:all=", "-XMP-xmp:CreateDate=2018:03:02 01:02:03"], "2018:03:02 01:02:03"),
            ("xmp-photoshop.jpg", ["-EXIF:all=", "-XMP-photoshop:DateCreated=2017:01:02"], "2017:01:02 00:00:00"),
            ("digitized.jpg", ["-DateTimeOriginal=", "-CreateDate=2010:05:05 05:05:05", "-ModifyDate=2024:12:24 18:00:00"],
             "2010:05:05 05:05:05"),
            ("placeholder.jpg", ["-DateTimeOriginal#=0000:00:00 00:00:00", "-CreateDate=2011:06:07 08:09:10",
                                 "-ModifyDate=2024:12:24 18:00:00"], "2011:06:07 08:09:10"),
            ("blank.jpg", ["-n", "-DateTimeOriginal=                   ", "-CreateDate=", "-ModifyDate=",
                           "-XMP-xmp:CreateDate=2012:02:03 04:05:06"], "2012:02:03 04:05:06"),
            ("modified.jpg", ["-DateTimeOriginal=", "-CreateDate=", "-ModifyDate=2024:12:24 18:00:00"],
             "2024:12:24 18:00:00"),
            ("undated.jpg", ["-all="], nil),
        ]
        for (name, args, _) in cases {
            let file = input + "/" + name
            try FileManager.default.copyItem(atPath: base, toPath: file)
            let r = try await ShiyingBinary.run(exiftool, ["-q", "-overwrite_original"] + args + [file])
            #expect(r.status == 0, "\(name): \(r)")
        }
        let library = try PhotoLibrary.create(at: dir.file("lib"))
        let result = try await library.importFiles([input], reader: reader)
        #expect(result.skipped.isEmpty && result.imported.count == cases.count, "\(result)")
        for (name, _, date) in cases {
            let id = try #require(try await library.assetID(forFile: input + "/" + name, reader: reader), "\(name)")
            #expect(try await library.asset(id).captureDate == date, "\(name)")
        }
    }

    @Test("Import: a movie arriving after its still completes the Live photo (one asset, not two)")
    func liveCompletedLater() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let fixture = try await LibraryFixture.make(in: dir, photos: 1, lives: 1)
        guard let pair = fixture.livePairs.first else { return }  // no ffmpeg
        let library = try PhotoLibrary.create(at: dir.file("lib"))
        let still = try await library.importFiles([pair.still], reader: reader)
        #expect(still.photos == 1)
        let movie = try await library.importFiles([pair.movie], reader: reader)
        #expect(movie.imported.isEmpty && movie.completedLive == 1)
        let live = try await library.asset(still.imported[0])
        #expect(live.kind == .live && live.file(.originalMovie) != nil)
    }

    @Test("Recovery: a dead process's staging file and an uncommitted file in originals/ are removed; catalogued files stay")
    func recovery() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let fixture = try await LibraryFixture.make(in: dir, photos: 2, lives: 0)
        let library = try PhotoLibrary.create(at: dir.file("lib"))
        _ = try await library.importFiles([fixture.input + "/photos"], reader: reader)
        let root = library.folder.root
        // pid 2^22+1 is above Linux's pid_max limit: no such process
        _ = FileManager.default.createFile(atPath: root + "/.staging/4194305-dead.jpg", contents: Data([1, 2, 3]))
        _ = FileManager.default.createFile(atPath: root + "/.staging/\(getpid())-mine.jpg", contents: Data([1]))
        try FileManager.default.createDirectory(atPath: root + "/originals/2020/01", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: root + "/originals/2020/01/never-committed.jpg", contents: Data([4]))
        let report = try await library.recoverNow()
        #expect(report.stagingRemoved == 1 && report.orphansRemoved == 1)
        #expect(FileManager.default.fileExists(atPath: root + "/.staging/\(getpid())-mine.jpg"), "a live writer's file stays")
        #expect(filesUnder(root + "/originals").count == 2)
    }

    @Test("Recovery from the journal: only the paths an interrupted change journaled are looked at; a sweep finds the rest")
    func journaledRecovery() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let fixture = try await LibraryFixture.make(in: dir, photos: 3, lives: 0)
        let library = try PhotoLibrary.create(at: dir.file("lib"))
        let ids = try await library.importFiles([fixture.input + "/photos"], reader: reader).imported
        let root = library.folder.root
        let store = try RecordStore(path: library.folder.catalogue)
        #expect(try store.query("SELECT COUNT(*) FROM library_pending")[0][0].int64 == 0, "committed changes leave no journal")
        // what a killed import and a killed delete leave: a journaled file no row names, and a
        // catalogued file moved to trash/ whose catalogue update never committed
        try FileManager.default.createDirectory(atPath: root + "/originals/2020/01", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: root + "/originals/2020/01/killed-import.jpg", contents: Data([4]))
        _ = FileManager.default.createFile(atPath: root + "/originals/2020/01/not-journaled.jpg", contents: Data([5]))
        let moved = try #require(try await library.asset(ids[0]).file(.original)).path
        try FileManager.default.createDirectory(atPath: root + "/trash/" + (moved as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        #expect(rename(root + "/" + moved, root + "/trash/" + moved) == 0)
        for path in ["originals/2020/01/killed-import.jpg", moved, "trash/" + moved] {
            try store.execute("INSERT INTO library_pending(path, since_ms) VALUES (?, 0)", [.text(path)])
        }
        let report = try await library.recoverNow(sweep: false)
        #expect(report.orphansRemoved == 1 && report.filesPutBack == 1)
        #expect(FileManager.default.fileExists(atPath: root + "/" + moved), "the catalogued file is back")
        #expect(!FileManager.default.fileExists(atPath: root + "/originals/2020/01/killed-import.jpg"))
        #expect(FileManager.default.fileExists(atPath: root + "/originals/2020/01/not-journaled.jpg"), "not looked at")
        #expect(try store.query("SELECT COUNT(*) FROM library_pending")[0][0].int64 == 0)
        // an import's own pass is the journal's; the explicit recovery sweeps
        _ = try await library.importFiles([fixture.input + "/photos"], reader: reader)
        #expect(FileManager.default.fileExists(atPath: root + "/originals/2020/01/not-journaled.jpg"))
        #expect(try await library.recoverNow().orphansRemoved == 1)
        #expect(filesUnder(root + "/originals").count == 3)
        let check = try catalogueConsistent(library.folder.catalogue)
        #expect(check.integrity == "ok" && check.foreignKeyProblems == 0)
    }

    @Test("Originals removed by hand: a sweep names them (CLI exit 1); importing their sources again puts them back, byte-identical")
    func missingOriginals() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let fixture = try await LibraryFixture.make(in: dir, photos: 2, lives: 1)
        let library = try PhotoLibrary.create(at: dir.file("lib"))
        _ = try await library.importFiles([fixture.input], reader: reader)
        let root = library.folder.root
        let photoID = try #require(try await library.assetID(forFile: fixture.photos[0], reader: reader))
        let photo = try #require(try await library.asset(photoID).file(.original))
        var gone = [(photoID, photo)]
        if let pair = fixture.livePairs.first {  // with ffmpeg: a Live photo's movie too
            let liveID = try #require(try await library.assetID(forFile: pair.still, reader: reader))
            gone.append((liveID, try #require(try await library.asset(liveID).file(.originalMovie))))
        }
        for (_, file) in gone { #expect(unlink(root + "/" + file.path) == 0) }

        let found = try await library.recoverNow()
        #expect(Set(found.missing.map(\.path)) == Set(gone.map(\.1.path)), "\(found.missing)")
        #expect(Set(found.missing.map(\.assetID)) == Set(gone.map(\.0)) && found.orphansRemoved == 0)
        let cli = try await ShiyingBinary.shiying(["library", "recover", "--library", root])
        #expect(cli.status == 1 && cli.stderr.contains("missing " + root + "/" + photo.path), "\(cli.status) \(cli.stderr)")
        let assets = try await library.list(.all).count

        // the sources are unchanged since their import, yet they are read again and fill the gaps
        let again = try await library.importFiles([fixture.input], reader: reader)
        #expect(again.restored == gone.count && again.imported.isEmpty, "restored \(again.restored), imported \(again.imported)")
        let candidates = try library.candidates([fixture.input]).count  // each lost file's source (and a copy of it) read again
        #expect(again.unchanged <= candidates - gone.count && again.unchanged >= candidates - 2 * gone.count, "\(again.unchanged) of \(candidates)")
        for (_, file) in gone { #expect(try sha256(root + "/" + file.path) == file.sha256, "\(file.path) restored byte-identical") }
        #expect(try await library.list(.all).count == assets, "no new asset")
        #expect(try await library.recoverNow().missing.isEmpty)
        #expect(try await ShiyingBinary.shiying(["library", "recover", "--library", root]).status == 0)
        let third = try await library.importFiles([fixture.input], reader: reader)
        #expect(third.restored == 0 && third.imported.isEmpty && third.unchanged > 0, "nothing read again once whole")
        let check = try catalogueConsistent(library.folder.catalogue)
        #expect(check.integrity == "ok" && check.foreignKeyProblems == 0)
    }

    // Found by a rules sweep (2026-12-06): importing again a photo that sits in Recently Deleted counted it as a
    // duplicate and left it there, to be purged.
    @Test("Importing a copy of a photo in Recently Deleted brings that asset back (its files out of trash/); an unchanged source does not")
    func reimportUndeletes() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let fixture = try await LibraryFixture.make(in: dir, photos: 2, lives: 0)
        let library = try PhotoLibrary.create(at: dir.file("lib"))
        _ = try await library.importFiles([fixture.input + "/photos"], reader: reader)
        let id = try #require(try await library.assetID(forFile: fixture.photos[0], reader: reader))
        let report = try await library.delete([id]) { _ in true }
        #expect(report.deleted == [id])
        #expect(try await library.asset(id).deletedAtMs != nil)
        // the same source, unchanged, is not read again: an incremental import does not undo a deletion
        let rerun = try await library.importFiles([fixture.input + "/photos"], reader: reader)
        #expect(rerun.undeleted.isEmpty && rerun.unchanged == 2)
        #expect(try await library.asset(id).deletedAtMs != nil)
        // a file with its content imported on purpose (another copy) is the user asking for the photo
        let copy = dir.file("copy.jpg")
        try FileManager.default.copyItem(atPath: fixture.photos[0], toPath: copy)
        let again = try await library.importFiles([copy], reader: reader)
        #expect(again.undeleted == [id] && again.imported.isEmpty && again.duplicates == 0, "\(again)")
        let back = try await library.asset(id)
        #expect(back.deletedAtMs == nil && !(back.file(.original)?.path.hasPrefix("trash/") ?? true))
        let path = library.folder.absolute(try #require(back.file(.original)).path)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(try await library.list(.library).map(\.id).contains(id))
    }

    @Test("SPEC S3: a conversion's copy in 「拾映转换」 carries capture date, GPS, favourite, albums, tags; the original is untouched")
    func conversionCarries() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let fixture = try await LibraryFixture.make(in: dir, photos: 2, lives: 0)
        let library = try PhotoLibrary.create(at: dir.file("lib"))
        _ = try await library.importFiles([fixture.input], reader: reader)
        let sourcePath = fixture.gpsPhoto ?? fixture.photos[1]
        let id = try #require(try await library.assetID(forFile: sourcePath, reader: reader))
        try await library.setFavorite(true, [id])
        try await library.addTags(["海边", "trip"], to: [id])
        try await library.addToAlbum("Holiday", [id])
        let before = try await library.asset(id)
        let originalPath = library.folder.absolute(try #require(before.file(.original)).path)
        let originalDigest = try sha256(originalPath)

        let result = try await LibraryWorkflows.convert(originalPath, into: library, format: .heic)
        let copy = result.library
        #expect(copy.album == LibraryAlbum.conversions && copy.sourceAssetID == id)
        #expect(copy.captureDate == before.captureDate && copy.location == before.location)
        #expect(copy.favorite && copy.tags == ["trip", "海边"] && copy.albums == ["Holiday", LibraryAlbum.conversions])
        let listed = try await library.asset(copy.id)
        #expect(listed.origin == .conversion && listed.captureDate == before.captureDate && listed.location == before.location)
        #expect(listed.favorite && listed.albums == copy.albums && listed.tags == copy.tags)
        #expect(copy.files == [library.folder.absolute(listed.allFiles[0].path)] && copy.files[0].hasSuffix(".heic"))
        #expect(try sha256(originalPath) == originalDigest, "the original is byte-identical")
        #expect(try await library.asset(id) == before, "the source asset is unchanged")
        if let exiftool = ExternalTool.find("exiftool") {
            let r = try await ShiyingBinary.run(exiftool, ["-n", "-s3", "-DateTimeOriginal", "-GPSLatitude", "-GPSLongitude", copy.files[0]])
            let lines = r.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first == listed.captureDate)
            if let location = listed.location, lines.count == 3 {
                #expect(abs((Double(lines[1]) ?? 0) - location.latitude) < 1e-4)
                #expect(abs((Double(lines[2]) ?? 0) - location.longitude) < 1e-4)
            } else {
                #expect(listed.location == nil)
            }
        }
    }

    @Test("SPEC C9: a collage lands in 「拾映创作」 only, with no location and no source album")
    func collageCreation() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let fixture = try await LibraryFixture.make(in: dir, photos: 3, lives: 0)
        let library = try PhotoLibrary.create(at: dir.file("lib"))
        let imported = try await library.importFiles([fixture.input + "/photos"], reader: reader)
        try await library.addToAlbum("Holiday", imported.imported)
        try await library.addTags(["trip"], to: imported.imported)
        try await library.setFavorite(true, imported.imported)
        let inputs = try await library.assets(imported.imported).map { library.folder.absolute($0.allFiles[0].path) }
        let digests = try inputs.map(sha256)
        let result = try await LibraryWorkflows.collage(CollageRequest(layout: .grid, inputs: inputs, output: "unused.jpg"),
                                                        into: library)
        let made = try await library.asset(result.library.id)
        #expect(result.library.album == LibraryAlbum.creations && made.albums == [LibraryAlbum.creations])
        #expect(made.location == nil && made.tags.isEmpty && !made.favorite && made.origin == .creation)
        #expect(try await library.list(album: "Holiday").count == 3, "the source album did not gain the collage")
        #expect(try inputs.map(sha256) == digests)
        if let exiftool = ExternalTool.find("exiftool") {
            let r = try await ShiyingBinary.run(exiftool, ["-n", "-s3", "-GPSLatitude", result.library.files[0]])
            #expect(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "no GPS in the collage file")
        }
    }

    // Found by a rules sweep (2026-12-06): `collage --motion --library` did not exist; C9 covers every collage.
    @Test("SPEC C9: a moving collage lands in 「拾映创作」 as one Live photo (still + movie, one identifier); the video tier as its movie")
    func movingCollageCreation() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let fixture = try await LibraryFixture.make(in: dir, photos: 1, lives: 2)
        guard fixture.livePairs.count == 2 else { return } // no ffmpeg
        let lib = dir.file("lib")
        #expect(try await ShiyingBinary.shiying(["library", "init", lib]).status == 0)
        let stills = fixture.livePairs.map(\.still) + [fixture.photos[0]]
        let live = try await ShiyingBinary.shiying(["collage", "--motion", "together", "--library", lib, "--json"] + stills)
        #expect(live.status == 0, "\(live.stderr)")
        let line = try #require(try JSONSerialization.jsonObject(with: Data((live.stdout.split(separator: "\n").last ?? "").utf8))
                                as? [String: Any], "\(live.stdout)")
        let files = line["files"] as? [String] ?? []
        #expect(line["kind"] as? String == "live" && line["album"] as? String == LibraryAlbum.creations && files.count == 2,
                "\(live.stdout)")
        if files.count == 2 {
            let check = try await ShiyingBinary.shiying(["live", "validate", files[0], files[1]])
            #expect(check.status == 0, "the deposited pair: \(check.stdout) \(check.stderr)")
        }
        let video = try await ShiyingBinary.shiying(["collage", "--motion", "relay", "--export", "video", "--library", lib,
                                                     "--json"] + stills)
        let v = try #require(try JSONSerialization.jsonObject(with: Data((video.stdout.split(separator: "\n").last ?? "").utf8))
                             as? [String: Any], "\(video.stdout) \(video.stderr)")
        #expect(v["kind"] as? String == "video" && (v["files"] as? [String])?.first?.hasSuffix(".mp4") == true, "\(video.stdout)")
        let staging = try FileManager.default.contentsOfDirectory(atPath: lib + "/.staging")
        #expect(staging.isEmpty, "left in staging: \(staging)")
    }

    @Test("SPEC D1/D2/D3: set aside → confirm → Recently Deleted → restore / purge after 30 days; freed bytes = files removed")
    func deletion() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let fixture = try await LibraryFixture.make(in: dir, photos: 5, lives: 0)
        let time = ManualWallClock()
        let library = try PhotoLibrary.create(at: dir.file("lib"), clock: time.clock)
        let ids = try await library.importFiles([fixture.input + "/photos"], reader: reader).imported
        // ids[0] gets an edit: its full resources (original + rendition) exceed its current version
        _ = try await LibraryWorkflows.edit(ids[0], recipe: EditRecipe(adjustments: .init(exposure: 0.4)), in: library)
        try await library.setAside(Array(ids[0..<5]))
        #expect(try await library.list(.setAside).count == 5)

        // D1: the confirmation is asked, and "no" changes nothing
        let asked = Mutex<[SetAsideDeletionRequest]>([])
        let declined = try await library.delete([ids[0]]) { r in asked.withLock { $0.append(r) }; return false }
        #expect(!declined.confirmed && asked.withLock { $0.count } == 1)
        #expect(try await library.list(.recentlyDeleted).isEmpty)
        let request = asked.withLock { $0[0] }
        #expect(request.systemConfirmation && !request.requiresGroupCheck && request.recentlyDeletedDays == 30)

        // D3: a read-only file is refused, a vanished one is not visible
        let readOnly = try await library.asset(ids[3]), vanished = try await library.asset(ids[4])
        chmod(library.folder.absolute(readOnly.allFiles[0].path), 0o444)
        unlink(library.folder.absolute(vanished.allFiles[0].path))
        let wanted = Array(ids[0..<5])
        let expectedFreed = try await library.assets(Array(ids[0..<3])).flatMap(\.allFiles).reduce(Int64(0)) { total, f in
            total + Int64(try Data(contentsOf: URL(fileURLWithPath: library.folder.absolute(f.path))).count)
        }
        let report = try await library.delete(wanted) { _ in true }
        #expect(report.deleted == Array(ids[0..<3]) && report.refused == [ids[3]] && report.notVisible == [ids[4]])
        #expect(report.refusedMessage == DeletionOutcome([(ids[3], .refused)]).refusedMessage && report.refusedMessage != nil)
        #expect(report.notVisibleMessage == DeletionOutcome([(ids[4], .notVisible)]).notVisibleMessage && report.notVisibleMessage != nil)
        // D2: one file cannot be measured, so the smaller measure (current versions) was promised
        #expect(report.freedText.contains("实际数量以系统确认删除的项目为准"))
        let deleted = try await library.list(.recentlyDeleted)
        #expect(Set(deleted.map(\.id)) == Set(ids[0..<3]) && deleted.allSatisfy { $0.allFiles.allSatisfy { $0.path.hasPrefix("trash/") } })
        #expect(Set(try await library.list(.setAside).map(\.id)) == [ids[3], ids[4]], "refused and skipped items stay on the page")
        // D2 over measurable items: the larger of current versions and full resources
        let measured = try await library.deletionRequest(Array(ids[0..<3]))
        #expect(measured.freed.measuredBoth && measured.freed.bytes == expectedFreed)

        // restore one, purge the rest after 30 days
        #expect(try await library.restore([ids[2]]) == [ids[2]])
        let back = try await library.asset(ids[2])
        #expect(back.deletedAtMs == nil && FileManager.default.fileExists(atPath: library.folder.absolute(back.allFiles[0].path)))
        time.advance(days: 29.9)
        #expect(try await library.purge().purged.isEmpty, "still inside the 30 days")
        time.advance(days: 0.2)
        let kept = try await library.deletionRequest(Array(ids[0..<2]))
        let purge = try await library.purge()
        #expect(Set(purge.purged) == Set(ids[0..<2]))
        #expect(purge.freedBytes == kept.freed.bytes, "freed bytes equal the files removed")
        let gone = try await library.assets(Array(ids[0..<2]))
        #expect(filesUnder(library.folder.trash).isEmpty && gone.isEmpty)
        let check = try catalogueConsistent(library.folder.catalogue)
        #expect(check.integrity == "ok" && check.foreignKeyProblems == 0)
    }

    @Test("SPEC D4: when the catalogue refuses the write, 「无法完成这次整理」 and nothing is shown as deleted; files stay put")
    func refusedWrite() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let fixture = try await LibraryFixture.make(in: dir, photos: 2, lives: 0)
        let library = try PhotoLibrary.create(at: dir.file("lib"))
        let ids = try await library.importFiles([fixture.input + "/photos"], reader: reader).imported
        let before = try await library.assets(ids)
        // another writer's rule: the catalogue refuses to record deletions and favourites
        let other = try RecordStore(path: library.folder.catalogue)
        try other.execute("""
            CREATE TRIGGER refuse BEFORE UPDATE ON library_assets
            WHEN NEW.deleted_at_ms IS NOT NULL OR NEW.favorite = 1 BEGIN SELECT RAISE(ABORT, 'refused by policy'); END
            """)
        await #expect { try await library.delete(ids) { _ in true } } throws: { error in
            (error as? LibraryError)?.kind == .couldNotRecord && (error as? LibraryError)?.message == "无法完成这次整理"
        }
        await #expect { try await library.setFavorite(true, ids) } throws: { error in
            (error as? LibraryError)?.message == "无法完成这次整理"
        }
        #expect(try await library.assets(ids) == before, "not shown as deleted; files at their catalogued paths")
        for a in before { #expect(FileManager.default.fileExists(atPath: library.folder.absolute(a.allFiles[0].path))) }
        #expect(filesUnder(library.folder.trash).isEmpty)
    }

    @Test("SPEC E7: an edit is written only when rendered from the full-size original the catalogue recorded")
    func fullSizeGate() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let fixture = try await LibraryFixture.make(in: dir, photos: 2, lives: 0)
        let library = try PhotoLibrary.create(at: dir.file("lib"))
        let ids = try await library.importFiles([fixture.input + "/photos"], reader: reader).imported
        let id = ids[0]
        let original = try await library.original(of: id)
        let digest = try sha256(original.path)
        let edited = try await LibraryWorkflows.edit(id, recipe: EditRecipe(adjustments: .init(exposure: 0.5)), in: library)
        #expect(edited.edited && edited.currentFiles.map(\.role) == [.rendition])
        let rendition = try #require(edited.file(.rendition))
        #expect(rendition.width == original.width && rendition.height == original.height)
        // a half-size proxy: refused, nothing written
        let proxy = dir.file("proxy.jpg")
        _ = try Editor.saveBlocking(original.path, recipe: .identity, to: proxy, maxSize: (160, 160))
        #expect(throws: FullSizeGateError.self) {
            _ = try Editor.saveVerifiedBlocking(original.path, recipe: .identity, record: OriginalRecord(), to: dir.file("x.jpg"))
        }
        await #expect(throws: FullSizeGateError.self) {
            _ = try await LibraryWorkflows.edit(id, recipe: EditRecipe(adjustments: .init(exposure: -0.5)), in: library,
                                                renderingFrom: proxy)
        }
        // the original on disk is no longer what the catalogue recorded: unsure → refused
        let other = try await library.original(of: ids[1])
        let saved = try Data(contentsOf: URL(fileURLWithPath: original.path))
        try FileManager.default.removeItem(atPath: original.path)
        try FileManager.default.copyItem(atPath: other.path, toPath: original.path)
        await #expect(throws: FullSizeGateError.self) {
            _ = try await LibraryWorkflows.edit(id, recipe: EditRecipe(adjustments: .init(exposure: -0.5)), in: library)
        }
        try saved.write(to: URL(fileURLWithPath: original.path))
        #expect(try await library.asset(id).file(.rendition) == rendition, "the refused edits changed nothing")
        #expect(try sha256(original.path) == digest)
        #expect(!FileManager.default.fileExists(atPath: dir.file("x.jpg")))
    }

    /// A library holding one generated Live photo, and its id; nil without ffmpeg.
    func oneLivePhoto(in dir: TempFolder) async throws -> (PhotoLibrary, Int64)? {
        let fixture = try await LibraryFixture.make(in: dir, photos: 1, lives: 1)
        guard !fixture.livePairs.isEmpty else { return nil }
        let library = try PhotoLibrary.create(at: dir.file("lib"))
        _ = try await library.importFiles([fixture.input + "/live"], reader: reader)
        let id = try #require(try await library.list().first?.id, "the Live photo was not imported")
        return (library, id)
    }

    @Test("SPEC E1: a Live photo edited with a border is a still; the original pair stays; revert brings the Live photo back")
    func liveBorderRevert() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        guard let (library, id) = try await oneLivePhoto(in: dir) else { return }  // no ffmpeg
        let live = try await library.asset(id)
        let digests = try live.allFiles.map { try sha256(library.folder.absolute($0.path)) }
        var recipe = EditRecipe()
        recipe.border = .init(width: 0.04)
        let edited = try await LibraryWorkflows.edit(id, recipe: recipe, in: library)
        #expect(edited.kind == .photo && edited.originalKind == .live && edited.currentFiles.map(\.role) == [.rendition])
        #expect(try live.allFiles.map { try sha256(library.folder.absolute($0.path)) } == digests, "the pair is untouched")
        let reverted = try await library.revert(id)
        #expect(reverted.kind == .live && reverted.currentFiles.map(\.role) == [.original, .originalMovie])
        #expect(filesUnder(library.folder.renditions).isEmpty)
    }

    @Test("SPEC E7 for Live photos: a turned and cropped Live edit passes the gate (the movie's decoded frames, not the ones written)")
    func liveTurnAndCrop() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        guard let (library, id) = try await oneLivePhoto(in: dir) else { return }  // no ffmpeg
        let original = try await library.original(of: id)
        let movie = try #require(original.movie)
        var recipe = EditRecipe()
        recipe.quarterTurns = 1
        recipe.crop = .init(x: 0, y: 0, width: 0.5, height: 1)
        let edited = try await LibraryWorkflows.edit(id, recipe: recipe, in: library)
        #expect(edited.kind == .live && edited.currentFiles.map(\.role) == [.rendition, .renditionMovie])
        let still = try #require(edited.file(.rendition)), cut = try #require(edited.file(.renditionMovie))
        // the left half of the upright source kept, then turned a quarter
        #expect(still.width == original.height && abs(still.height - original.width / 2) <= 1, "\(still.width)x\(still.height)")
        #expect(abs(cut.width - movie.height) <= 1 && abs(cut.height - movie.width / 2) <= 2, "\(cut.width)x\(cut.height)")
    }

    @Test("SPEC E7 for Live photos: the edit is kept only when both still and movie are the catalogued full-size originals")
    func liveFullSizeGate() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let fixture = try await LibraryFixture.make(in: dir, photos: 1, lives: 2)
        guard fixture.livePairs.count == 2 else { return }  // no ffmpeg
        let library = try PhotoLibrary.create(at: dir.file("lib"))
        _ = try await library.importFiles([fixture.input + "/live"], reader: reader)
        let id = try #require(try await library.assetID(forFile: fixture.livePairs[0].still, reader: reader))
        let other = try await library.original(of: try #require(try await library.assetID(forFile: fixture.livePairs[1].still, reader: reader)))
        let original = try await library.original(of: id)
        let moviePath = try #require(original.moviePath), otherMovie = try #require(other.moviePath)
        let digests = [try sha256(original.path), try sha256(moviePath)]
        let recipe = EditRecipe(adjustments: .init(exposure: 0.4))

        let edited = try await LibraryWorkflows.edit(id, recipe: recipe, in: library)
        #expect(edited.kind == .live && edited.currentFiles.map(\.role) == [.rendition, .renditionMovie])
        let rendition = try #require(edited.file(.rendition)), renditionMovie = try #require(edited.file(.renditionMovie))
        #expect(rendition.width == original.width && rendition.height == original.height)
        #expect(renditionMovie.width == original.movie?.width && renditionMovie.height == original.movie?.height)

        // a half-size proxy still, another movie, a swapped original movie: each refused, nothing kept
        let proxy = dir.file("proxy.jpg")
        _ = try Editor.saveBlocking(original.path, recipe: .identity, to: proxy, maxSize: (original.width / 2, original.height / 2))
        await #expect(throws: FullSizeGateError.self) {
            _ = try await LibraryWorkflows.edit(id, recipe: recipe, in: library, renderingFrom: proxy)
        }
        await #expect(throws: FullSizeGateError.self) {
            _ = try await LibraryWorkflows.edit(id, recipe: recipe, in: library, renderingMovieFrom: otherMovie)
        }
        var border = EditRecipe()
        border.border = .init(width: 0.04)
        await #expect(throws: FullSizeGateError.self, "a border reads the still only, and the still is still gated") {
            _ = try await LibraryWorkflows.edit(id, recipe: border, in: library, renderingFrom: proxy)
        }
        let savedMovie = try Data(contentsOf: URL(fileURLWithPath: moviePath))
        try FileManager.default.removeItem(atPath: moviePath)
        try FileManager.default.copyItem(atPath: otherMovie, toPath: moviePath)
        await #expect(throws: FullSizeGateError.self, "the movie on disk is not the catalogued one") {
            _ = try await LibraryWorkflows.edit(id, recipe: recipe, in: library)
        }
        try savedMovie.write(to: URL(fileURLWithPath: moviePath))
        #expect(try await library.asset(id).currentFiles == edited.currentFiles, "the refused edits changed nothing")
        #expect(filesUnder(library.folder.staging).isEmpty, "refused outputs are removed")

        // E1 through the gate: the border makes a still, the original pair stays and revert restores it
        let still = try await LibraryWorkflows.edit(id, recipe: border, in: library)
        #expect(still.kind == .photo && still.currentFiles.map(\.role) == [.rendition])
        #expect([try sha256(original.path), try sha256(moviePath)] == digests, "the original pair is untouched")
        let reverted = try await library.revert(id)
        #expect(reverted.kind == .live && reverted.currentFiles.map(\.role) == [.original, .originalMovie])
        #expect(filesUnder(library.folder.renditions).isEmpty)
    }

    @Test("Timeline: by capture date from the covering index; catalogue-only edits need no file lock")
    func timeline() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let fixture = try await LibraryFixture.make(in: dir, photos: 4, lives: 0)
        let library = try PhotoLibrary.create(at: dir.file("lib"))
        _ = try await library.importFiles([fixture.input + "/photos"], reader: reader)
        let line = try await library.timeline()
        let full = try await library.list()
        #expect(line.map(\.id) == full.map(\.id) && line.count == 4)
        #expect(zip(line, line.dropFirst()).allSatisfy { ($0.capturedAtMs ?? 0) <= ($1.capturedAtMs ?? 0) })
        let plan = try await library.withStore { s in
            try s.query("EXPLAIN QUERY PLAN SELECT id, kind, captured_at_ms, favorite, hidden FROM library_assets WHERE deleted_at_ms IS NULL ORDER BY captured_at_ms, id")
                .map { $0.last?.string ?? "" }.joined(separator: " | ")
        }
        #expect(plan.contains("COVERING INDEX library_timeline"), "\(plan)")
    }
}
