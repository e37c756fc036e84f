// issue 9/14: the organize scan pipeline as a library API (OrganizeScanner),
// on a generated folder: a byte copy and a resized copy of one photo, an
// unreadable file; results in folder order; cancellation stops the workers.
import Foundation
import Shiying
import ShiyingFixtures
import ShiyingLibrary
import ShiyingOrganize
import Testing

/// Four sample photos, a byte copy and a half-size copy of the first, and a file that is no photo.
private func makeFolder(_ folder: TempFolder) throws -> String {
    let lib = folder.file("lib")
    let samples = try SamplePhotos.write(count: 4, seed: 9, width: 800, height: 600, to: lib)
    try FileManager.default.copyItem(atPath: samples[0], toPath: lib + "/sample-0001-copy.jpg")
    _ = try Editor.saveBlocking(samples[0], recipe: .identity, to: lib + "/sample-0001-small.jpg", maxSize: (400, 300))
    _ = FileManager.default.createFile(atPath: lib + "/zz-broken.jpg", contents: Data("not a photo".utf8))
    return lib
}

/// Counts progress reports and cancels a task at the first one.
private final class CancelAtFirstPhoto: @unchecked Sendable {
    private let lock = NSLock()
    private var task: Task<OrganizeScanReport, Error>?
    private var reports = 0

    var seen: Int { lock.withLock { reports } }

    func arm(_ task: Task<OrganizeScanReport, Error>) {
        let fire = lock.withLock { () -> Bool in
            self.task = task
            return reports > 0
        }
        if fire { task.cancel() }
    }

    func report(_ value: ShiyingProgress) {
        let task = lock.withLock { () -> Task<OrganizeScanReport, Error>? in
            reports += 1
            return self.task
        }
        task?.cancel()
    }
}

@Suite("Organize scan (library API)", .serialized)
struct OrganizeScanTests {
    @Test("scan groups the byte copy and the resized copy, records photos in folder order, names the bad file")
    func groupsInFolderOrder() async throws {
        let folder = try TempFolder()
        defer { folder.remove() }
        let lib = try makeFolder(folder)
        let store = OrganizeStore(store: try RecordStore(path: folder.file("organize.sqlite")))
        let report = try await OrganizeScanner.scan(folder: lib, store: store)

        #expect(report.scanned == 6 && !report.ocr)
        #expect(report.skipped.map { ($0.path as NSString).lastPathComponent } == ["zz-broken.jpg"])
        #expect(report.skipped.first?.error.contains("not a JPEG, PNG or HEIF image") == true, "\(report.skipped)")
        #expect(report.duplicateGroups == 1 && report.similarGroups == 1 && report.burstGroups == 0, "\(report)")
        #expect(report.enginePeakBytes > 0 && report.seconds > 0)

        // one worker per core, results still recorded in the folder's (sorted) order
        let photos = try OrganizeScanner.stills(in: lib).filter { !$0.hasSuffix("zz-broken.jpg") }
        let assets = try store.assets()
        #expect(assets.map(\.path) == photos.map { URL(fileURLWithPath: $0).standardizedFileURL.path })
        #expect(assets.map(\.id) == assets.map(\.id).sorted())

        let name = { (id: Int64) in assets.first { $0.id == id }.map { ($0.path as NSString).lastPathComponent } ?? "?" }
        let groups = try store.groups()
        let dup = try #require(groups.first { $0.kind == .duplicate })
        #expect(Set(dup.members.map(name)) == ["sample-0001.jpg", "sample-0001-copy.jpg"])
        let similar = try #require(groups.first { $0.kind == .similar })
        #expect(Set(similar.members.map(name)) == [name(dup.members[0]), "sample-0001-small.jpg"])
    }

    @Test("a folder that is not a directory is refused before any work")
    func notADirectory() async throws {
        let folder = try TempFolder()
        defer { folder.remove() }
        let store = OrganizeStore(store: try RecordStore(path: folder.file("organize.sqlite")))
        await #expect(throws: OrganizeScanError.notADirectory(folder.file("missing"))) {
            try await OrganizeScanner.scan(folder: folder.file("missing"), store: store)
        }
    }

    @Test("cancelling the task stops the workers, throws CancellationError and records nothing")
    func cancelled() async throws {
        let folder = try TempFolder()
        defer { folder.remove() }
        let lib = try makeFolder(folder)
        let db = folder.file("organize.sqlite")
        let total = try OrganizeScanner.stills(in: lib).count

        // cancelled at the first finished photo
        let relay = CancelAtFirstPhoto()
        let task = Task {
            try await OrganizeScanner.scan(folder: lib, store: OrganizeStore(store: try RecordStore(path: db)),
                                           progress: relay.report)
        }
        relay.arm(task)
        await #expect { try await task.value } throws: { $0 is CancellationError }
        #expect(relay.seen < total, "workers stopped early: \(relay.seen) of \(total)")
        #expect(try OrganizeStore(store: try RecordStore(path: db)).assets().isEmpty)

        // cancelled before it starts
        let early = Task {
            try await OrganizeScanner.scan(folder: lib, store: OrganizeStore(store: try RecordStore(path: db)))
        }
        early.cancel()
        await #expect { try await early.value } throws: { $0 is CancellationError }
        #expect(try OrganizeStore(store: try RecordStore(path: db)).assets().isEmpty)
    }

    @Test("schema step 8: JPEG and HEIF stills recorded before gain maps joined the evidence are fingerprinted again")
    func gainMapEvidenceMigration() async throws {
        let folder = try TempFolder()
        defer { folder.remove() }
        let lib = folder.file("lib")
        _ = try HDRSamplePhotos.write(count: 1, seed: 3, width: 320, height: 240, to: lib)  // .jpg + .heic
        let sdr = try SamplePhotos.write(count: 1, seed: 3, width: 320, height: 240, to: folder.file("sdr"))
        _ = try Editor.saveBlocking(sdr[0], recipe: .identity, to: lib + "/plain.png")
        let path = folder.file("organize.sqlite")
        do {  // a store of schema step 7 and its scan, with evidence the step-8 rule would not give
            let old = try RecordStore(path: path, migrations: RecordSchema.migrations.filter { $0.version < 8 })
            let report = try await OrganizeScanner.scan(folder: lib, store: OrganizeStore(store: old))
            #expect(report.decoded == 3)
            try old.execute("UPDATE organize_fingerprints SET pixel_sha256 = 'stale'")
        }
        let store = try RecordStore(path: path)
        #expect(try store.schemaVersion >= 8)
        let report = try await OrganizeScanner.scan(folder: lib, store: OrganizeStore(store: store))
        #expect(report.decoded == 2 && report.unchanged == 1, "\(report)")
        let evidence = Dictionary(uniqueKeysWithValues: try OrganizeStore(store: store).assets().map {
            (($0.path as NSString).pathExtension, $0.pixelSHA256)
        })
        #expect(evidence["png"] == "stale" && evidence["jpg"] != "stale" && evidence["heic"] != "stale", "\(evidence)")
    }

    @Test("schema step 9: movies recorded before they were read as players show them are read again; stills are not",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")))
    func movieReadingMigration() async throws {
        let folder = try TempFolder()
        defer { folder.remove() }
        let lib = folder.file("lib")
        _ = try SamplePhotos.write(count: 1, seed: 4, width: 320, height: 240, to: lib)
        let made = try await ShiyingBinary.run("/usr/bin/ffmpeg", [
            "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10:duration=1",
            "-c:v", "libx265", "-x265-params", "log-level=error", "-tag:v", "hvc1", "-pix_fmt", "yuv420p",
            lib + "/clip.mov"])
        try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        let path = folder.file("organize.sqlite")
        do {  // a store of schema step 8 and its scan; then the movie's record as an older reading left it
            let old = try RecordStore(path: path, migrations: RecordSchema.migrations.filter { $0.version < 9 })
            let report = try await OrganizeScanner.scan(folder: lib, store: OrganizeStore(store: old))
            #expect(report.decoded == 2)
            try old.execute("UPDATE organize_assets SET duration_ms = 3000 WHERE format = 'movie'")
            try old.execute("UPDATE organize_fingerprints SET phash = 7")
        }
        let store = try RecordStore(path: path)
        #expect(try store.schemaVersion >= 9)
        let report = try await OrganizeScanner.scan(folder: lib, store: OrganizeStore(store: store))
        #expect(report.decoded == 1 && report.unchanged == 1, "\(report)")
        let assets = try OrganizeStore(store: store).assets()
        let movie = try #require(assets.first { $0.format == "movie" })
        let still = try #require(assets.first { $0.format == "jpeg" })
        #expect(movie.durationMs == 1000 && movie.phash != 7, "\(movie)")
        #expect(still.phash == 7)  // an unchanged still keeps its record
    }

    // Found by a user-level sweep (2026-12-06): a copy deleted after a scan stayed in its group, was chosen as
    // the keeper, and the only real copy went to the set-aside list; a second decision with another keeper left
    // both photos set aside.
    @Test("a vanished file is never the keeper and is forgotten by the next scan; a re-decision's keeper comes off the set-aside list")
    func vanishedAndRedecided() async throws {
        let folder = try TempFolder()
        defer { folder.remove() }
        let lib = folder.file("lib")
        let photo = try SamplePhotos.write(count: 1, seed: 12, width: 320, height: 240, to: lib)[0]
        let copy = lib + "/copy.jpg"
        try FileManager.default.copyItem(atPath: photo, toPath: copy)
        let store = OrganizeStore(store: try RecordStore(path: folder.file("organize.sqlite")))
        _ = try await OrganizeScanner.scan(folder: lib, store: store)
        let group = try #require(try store.groups().first { $0.kind == .duplicate })
        let ids = Dictionary(uniqueKeysWithValues: try store.assets().map { (($0.path as NSString).lastPathComponent, $0.id) })
        let (copyID, photoID) = (try #require(ids["copy.jpg"]), try #require(ids["sample-0001.jpg"]))

        try store.markKeeper(assetID: copyID, replacingIn: [group])
        let first = try store.decide(groupIDs: [group.id], action: .keepOne, nowMs: 1)
        #expect(first.kept[group.id] == copyID && first.setAside == [photoID])
        try store.markKeeper(assetID: photoID, replacingIn: [group])
        let second = try store.decide(groupIDs: [group.id], action: .keepOne, nowMs: 2)
        #expect(second.kept[group.id] == photoID && second.setAside == [copyID])
        #expect(try store.setAsideAssets().map(\.id) == [copyID], "the new keeper came off the list")

        try store.markKeeper(assetID: copyID, replacingIn: [group])
        unlink(copy) // gone after the scan: marked, but never the keeper
        let third = try store.decide(groupIDs: [group.id], action: .keepOne, nowMs: 3,
                                     isPresent: { FileManager.default.fileExists(atPath: $0.path) })
        #expect(third.kept[group.id] == photoID && third.setAside == [copyID], "\(third)")
        _ = try await OrganizeScanner.scan(folder: lib, store: store)
        let left = try store.assets().map(\.id), groups = try store.groups()
        #expect(left == [photoID] && groups.allSatisfy { !$0.members.contains(copyID) }, "the next scan forgot it: \(left) \(groups)")
        #expect(try store.setAsideAssets().isEmpty)
    }
}
