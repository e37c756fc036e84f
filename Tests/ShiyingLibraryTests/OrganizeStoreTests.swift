// issue 9: the organize record store and grouping — SPEC D4, D6, D7, D8.
import Foundation
import ShiyingLibrary
import Testing

/// A synthetic scanned asset (store tests need no pixels).
func organizeAsset(_ name: String, pixels: String? = nil, phash: UInt64 = 0, quality: Double? = nil,
                   at seconds: Int64? = nil, width: Int = 4032, height: Int = 3024) -> OrganizeAsset {
    OrganizeAsset(path: "/photos/\(name).jpg", width: width, height: height, fileBytes: 2_000_000,
                  fileSHA256: "file-\(name)", pixelSHA256: pixels ?? "pixels-\(name)", phash: phash, quality: quality,
                  capturedAtMs: seconds.map { 1_700_000_000_000 + $0 * 1000 }, hasCamera: true)
}

/// `n` similar groups of three (same scene hash, seconds apart), scenes far apart.
func similarLibrary(groups n: Int) -> [OrganizeAsset] {
    (0..<n).flatMap { g -> [OrganizeAsset] in
        let scene = UInt64(0x0F0F_0F0F_0F0F_0F0F) &* UInt64(g + 1) // distinct hashes per scene
        let base = Int64(g) * 3600
        return [organizeAsset("g\(g)-a", phash: scene, quality: 0.4, at: base),
                organizeAsset("g\(g)-b", phash: scene ^ 0b111, quality: 0.8, at: base + 20),
                organizeAsset("g\(g)-c", phash: scene ^ 0b1, quality: 0.6, at: base + 40)]
    }
}

func openOrganize(_ folder: TempFolder) throws -> OrganizeStore {
    OrganizeStore(store: try RecordStore(path: folder.file("library.sqlite")))
}

@Suite("Organize store")
struct OrganizeStoreTests {
    @Test("Schema: migration 2 adds the organize tables, also on top of an existing v1 store")
    func migration() throws {
        let folder = try TempFolder()
        defer { folder.remove() }
        let path = folder.file("old.sqlite")
        _ = try RecordStore(path: path, migrations: [RecordSchema.migrations[0]])
        let store = try RecordStore(path: path)
        #expect(try store.schemaVersion == RecordSchema.currentVersion)  // 2 and every later step (3: library)
        #expect(try store.journalMode == "wal")
        let tables = Set(try store.query("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap { $0[0].string })
        for t in ["organize_assets", "organize_fingerprints", "organize_groups", "organize_group_members",
                  "organize_decisions", "organize_set_aside", "organize_marks", "organize_stats", "recent_searches"] {
            #expect(tables.contains(t), "missing \(t)")
        }
    }

    @Test("SPEC D6: a batch over 1, 7 or 40 similar groups is exactly two write transactions", arguments: [1, 7, 40])
    func batchIsTwoWrites(groups n: Int) throws {
        let folder = try TempFolder()
        defer { folder.remove() }
        let org = try openOrganize(folder)
        try org.record(similarLibrary(groups: n), nowMs: 1)
        let groups = try org.regroup(nowMs: 2)
        #expect(groups.count == n && groups.allSatisfy { $0.kind == .similar && $0.members.count == 3 })
        let before = org.store.committedWrites
        let result = try org.decide(groupIDs: groups.map(\.id), action: .keepOne, nowMs: 3)
        #expect(org.store.committedWrites - before == 2)
        #expect(result.groups == n && result.setAside.count == 2 * n)
        // default keeper: the highest score (b, 0.8)
        let byID = Dictionary(uniqueKeysWithValues: try org.assets().map { ($0.id, $0.path) })
        #expect(result.kept.values.allSatisfy { byID[$0]!.hasSuffix("-b.jpg") })
        #expect(try org.groupViews().allSatisfy(\.organized))
        #expect(try org.setAsideAssets().count == 2 * n)
        #expect(try org.stat("organized_groups") == n)
    }

    @Test("SPEC D6: set all aside; a user mark wins over the score")
    func setAllAsideAndUserMark() throws {
        let folder = try TempFolder()
        defer { folder.remove() }
        let org = try openOrganize(folder)
        let stored = try org.record(similarLibrary(groups: 2), nowMs: 1)
        let groups = try org.regroup(nowMs: 2)
        let lowScore = stored.first { $0.path.hasSuffix("g0-a.jpg") }!.id
        try org.markKeeper(assetID: lowScore)
        let g0 = groups.first { $0.members.contains(lowScore) }!
        let g1 = groups.first { $0.id != g0.id }!
        #expect(try org.groupViews().first { $0.group.id == g0.id }?.keeper == lowScore)
        let kept = try org.decide(groupIDs: [g0.id], action: .keepOne, nowMs: 3)
        #expect(kept.kept[g0.id] == lowScore)
        let all = try org.decide(groupIDs: [g1.id], action: .setAllAside, nowMs: 4)
        #expect(all.kept.isEmpty && all.setAside.count == 3)
    }

    @Test("SPEC D6 keeper rule: user mark, then highest score, no score → first")
    func keeperRule() {
        #expect(KeeperRule.similarKeeper([.init(id: 1, quality: nil), .init(id: 2, quality: nil)]) == 1)
        #expect(KeeperRule.similarKeeper([.init(id: 1, quality: 0.2), .init(id: 2, quality: 0.9), .init(id: 3, quality: 0.9)]) == 2)
        #expect(KeeperRule.similarKeeper([.init(id: 1, quality: nil), .init(id: 2, quality: 0.1)]) == 2)
        #expect(KeeperRule.similarKeeper([.init(id: 1, quality: 0.9), .init(id: 2, quality: 0.1, userMarked: true)]) == 2)
        #expect(KeeperRule.similarKeeper([]) == nil)
    }

    @Test("SPEC D4: a failed second write shows 「无法完成这次整理」 and nothing as organized")
    func failedWriteNothingOrganized() throws {
        for table in ["organize_set_aside", "organize_decisions"] {
            let folder = try TempFolder()
            defer { folder.remove() }
            let org = try openOrganize(folder)
            try org.record(similarLibrary(groups: 3), nowMs: 1)
            let groups = try org.regroup(nowMs: 2)
            // injected failure: the store refuses rows of `table` as a full disk would
            try org.store.execute("""
                CREATE TRIGGER inject_failure BEFORE INSERT ON \(table)
                BEGIN SELECT RAISE(ABORT, 'database or disk is full (injected)'); END
                """)
            do {
                _ = try org.decide(groupIDs: groups.map(\.id), action: .keepOne, nowMs: 3)
                Issue.record("the batch must fail when \(table) cannot be written")
            } catch let error as OrganizeError {
                #expect(error.kind == .couldNotRecord)
                #expect(error.message == "无法完成这次整理")
                #expect(error.detail.contains("injected"))
            }
            #expect(try org.groupViews().allSatisfy { !$0.organized }, "\(table): shown as organized")
            #expect(try org.setAsideAssets().isEmpty)
            #expect(try org.stat("organized_groups") == 0)
            // once the store accepts writes again, the same batch records
            try org.store.execute("DROP TRIGGER inject_failure")
            _ = try org.decide(groupIDs: groups.map(\.id), action: .keepOne, nowMs: 4)
            #expect(try org.groupViews().allSatisfy(\.organized))
        }
    }

    @Test("SPEC D7: the duplicate check uses stored data; a changed record, bucket or evidence fails it")
    func duplicateCheck() throws {
        let folder = try TempFolder()
        defer { folder.remove() }
        let org = try openOrganize(folder)
        try org.record([organizeAsset("a", pixels: "P"), organizeAsset("b", pixels: "P"), organizeAsset("c", pixels: "P"),
                        organizeAsset("x", pixels: "Q")], nowMs: 1)
        let dup = try #require(try org.regroup(nowMs: 2).first { $0.kind == .duplicate })
        #expect(dup.members.count == 3 && dup.evidence == "P")
        #expect(try org.verifyDuplicateGroup(id: dup.id).verified)
        // a rescan recorded different content for one member
        try org.store.execute("UPDATE organize_fingerprints SET pixel_sha256 = 'R' WHERE asset_id = ?", [.integer(dup.members[1])])
        let broken = try org.verifyDuplicateGroup(id: dup.id)
        #expect(!broken.verified && broken.problems.contains { $0.contains("asset \(dup.members[1])") })

        let q = DuplicateQualification(mediaType: .photo, width: 10, height: 10, durationMs: 0, fileBytes: 5, pixelSHA256: "E")
        var other = q
        other.width = 11
        let ok = DuplicateCheck.verify(evidence: "E", members: [.init(assetID: 1, qualified: q, current: q),
                                                                 .init(assetID: 2, qualified: q, current: q)])
        #expect(ok.verified)
        let twoBuckets = DuplicateCheck.verify(evidence: "E", members: [.init(assetID: 1, qualified: q, current: q),
                                                                         .init(assetID: 2, qualified: other, current: other)])
        #expect(!twoBuckets.verified && twoBuckets.problems.contains { $0.contains("candidate buckets") })
        #expect(!DuplicateCheck.verify(evidence: "F", members: [.init(assetID: 1, qualified: q, current: q),
                                                                 .init(assetID: 2, qualified: q, current: q)]).verified)
        #expect(!DuplicateCheck.verify(evidence: "E", members: [.init(assetID: 1, qualified: q, current: q),
                                                                 .init(assetID: 2, qualified: q, current: nil)]).verified)
    }

    @Test("SPEC D8: system bursts keep the representative; own bursts the best score else the first; screenshots are not bursts")
    func bursts() throws {
        var sys = (0..<4).map { organizeAsset("sys\($0)", phash: 0xFFFF, quality: 0.9, at: 1000 + Int64($0)) }
        for i in sys.indices { sys[i].burstID = "BURST-1" }
        sys[2].isBurstRepresentative = true
        var shots = (0..<3).map { organizeAsset("shot\($0)", phash: 0xF0F0 << 20, at: 5000 + Int64($0)) }
        for i in shots.indices { shots[i].isScreenshot = true; shots[i].burstID = "BURST-2" }
        let own = [organizeAsset("own0", phash: 1 << 40, quality: 0.3, at: 9000),
                   organizeAsset("own1", phash: 1 << 40, quality: 0.7, at: 9000),
                   organizeAsset("own2", phash: 1 << 40, quality: 0.5, at: 9001)]
        let unscored = [organizeAsset("n0", phash: 1 << 50, at: 20000), organizeAsset("n1", phash: 1 << 50, at: 20001),
                        organizeAsset("n2", phash: 1 << 50, at: 20001)]
        let folder = try TempFolder()
        defer { folder.remove() }
        let org = try openOrganize(folder)
        let stored = try org.record(sys + shots + own + unscored, nowMs: 1)
        let id = { (name: String) in stored.first { $0.path.hasSuffix("/\(name).jpg") }!.id }
        try org.regroup(nowMs: 2)
        let views = try org.groupViews()
        let bursts = views.filter { $0.group.kind == .burst }
        #expect(bursts.count == 3)
        #expect(bursts.first { $0.group.evidence == "BURST-1" }?.keeper == id("sys2"))
        #expect(bursts.first { $0.group.members.contains(id("own0")) }?.keeper == id("own1"))
        #expect(bursts.first { $0.group.members.contains(id("n0")) }?.keeper == id("n0"))
        let shotIDs = Set(shots.map { id($0.path.components(separatedBy: "/").last!.replacingOccurrences(of: ".jpg", with: "")) })
        #expect(!views.contains { $0.group.kind == .burst && !shotIDs.isDisjoint(with: $0.group.members) })
        #expect(KeeperRule.burstKeeper([.init(id: 1, quality: 0.1), .init(id: 2, quality: 0.9)], systemRepresentative: 1) == 1)
        #expect(KeeperRule.burstKeeper([.init(id: 1, quality: 0.1), .init(id: 2, quality: 0.2, userMarked: true)],
                                       systemRepresentative: 1) == 2)
    }

    @Test("Similar = close pHash and close capture time; exact duplicates are grouped by decoded pixels and bucket")
    func grouping() {
        var a = [organizeAsset("a", phash: 0xAAAA, at: 0), organizeAsset("b", phash: 0xAAAB, at: 60),
                 organizeAsset("far-in-time", phash: 0xAAAA, at: 86_400),
                 organizeAsset("other-scene", phash: ~UInt64(0xAAAA), at: 30),
                 organizeAsset("d1", pixels: "SAME", phash: 0x5555 << 30, at: 899_990),
                 organizeAsset("d2", pixels: "SAME", phash: 0x5555 << 30, at: 900_000),
                 organizeAsset("d3-resized", pixels: "SAME", phash: 0x5555 << 30, at: 900_000, width: 2016, height: 1512)]
        for i in a.indices { a[i].id = Int64(i + 1) }
        let groups = OrganizeGrouping.groups(a)
        let dup = groups.filter { $0.kind == .duplicate }
        #expect(dup.count == 1 && Set(dup[0].members) == [5, 6])
        let similar = groups.filter { $0.kind == .similar }.map { Set($0.members) }
        #expect(similar.contains([1, 2]))
        #expect(!similar.contains { $0.contains(3) || $0.contains(4) })
        #expect(similar.contains([5, 7]), "the resized copy is similar to the duplicate group's first")
    }

    @Test("Exif capture time parses to Unix milliseconds")
    func captureTime() {
        #expect(ExifCaptureTime.milliseconds("1970:01:01 00:00:01") == 1000)
        #expect(ExifCaptureTime.milliseconds("2024:02:29 12:00:00") == 1_709_208_000_000)
        #expect(ExifCaptureTime.milliseconds("2024:13:01 00:00:00") == nil)
        // midnight written as 24:00:00 (a rules sweep found such photos undated): the next day's start
        #expect(ExifCaptureTime.milliseconds("2024:12:31 24:00:00") == ExifCaptureTime.milliseconds("2025:01:01 00:00:00"))
        #expect(ExifCaptureTime.milliseconds("2024:12:31 24:00:01") == nil)
        #expect(ExifCaptureTime.milliseconds("    :  :     :  :  ") == nil)
    }
}
