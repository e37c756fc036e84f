// The organize tables of the record store: scans in, groups and decisions out.

/// A group as a page shows it: members, default keeper, organized or not.
public struct OrganizeGroupView: Sendable, Codable, Hashable {
    /// The group.
    public var group: OrganizeGroup
    /// SPEC D6/D8 default keeper (user mark, score, first; system burst representative).
    public var keeper: Int64?
    /// True only when its decision was fully recorded (SPEC D4).
    public var organized: Bool
}

/// What a batch decision changes (SPEC D6).
public enum OrganizeBatchAction: String, Sendable, Codable {
    /// Keep one per group (its default keeper), set the rest aside.
    case keepOne = "keep_one"
    /// Set every member aside.
    case setAllAside = "set_all_aside"
}

/// The result of one recorded batch.
public struct OrganizeBatchResult: Sendable, Codable, Hashable {
    /// The batch's identifier.
    public var batchID: Int64
    /// Groups recorded.
    public var groups: Int
    /// Group id → kept asset (keepOne only).
    public var kept: [Int64: Int64]
    /// Assets set aside.
    public var setAside: [Int64]
}

/// Organize records over one `RecordStore` connection. Not Sendable (like the store).
public final class OrganizeStore {
    /// The record store underneath.
    public let store: RecordStore
    /// The photo library folder whose catalogue `store` is (nil: a loose folder's store).
    public let libraryRoot: String?

    /// - Parameters:
    ///   - store: an open store (its migrations include `OrganizeSchema`).
    ///   - libraryRoot: when `store` is a photo library's catalogue, the library
    ///     folder: recorded assets under it are linked to their library assets,
    ///     and their "set aside" is the library's own set-aside list.
    public init(store: RecordStore, libraryRoot: String? = nil) {
        self.store = store
        // symlinks resolved, as the scan resolves the folders it walks: one spelling of each path
        self.libraryRoot = libraryRoot.map { LibraryFolder.resolved(LibraryFolder($0).root) }
    }

    // MARK: - assets

    /// Records scanned assets (insert or replace by path) in one transaction.
    /// - Returns: the assets with their store ids.
    @discardableResult
    public func record(_ assets: [OrganizeAsset], nowMs: Int64) throws -> [OrganizeAsset] {
        try store.transaction { s in
            let recorded = try assets.map { a in
                try s.execute("""
                    INSERT INTO organize_assets(path, media_type, width, height, duration_ms, file_bytes,
                        full_resource_bytes, captured_at_ms, has_camera, screenshot, screen_recording, animated,
                        burst_id, burst_representative, favorite, recognized_text, scanned_at_ms, format,
                        file_modified_ms, content_identifier, paired_path, paired_bytes, paired_modified_ms)
                    VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
                    ON CONFLICT(path) DO UPDATE SET media_type=excluded.media_type, width=excluded.width,
                        height=excluded.height, duration_ms=excluded.duration_ms, file_bytes=excluded.file_bytes,
                        full_resource_bytes=excluded.full_resource_bytes, captured_at_ms=excluded.captured_at_ms,
                        has_camera=excluded.has_camera, screenshot=excluded.screenshot,
                        screen_recording=excluded.screen_recording, animated=excluded.animated,
                        burst_id=excluded.burst_id, burst_representative=excluded.burst_representative,
                        favorite=excluded.favorite,
                        recognized_text=COALESCE(excluded.recognized_text, organize_assets.recognized_text),
                        scanned_at_ms=excluded.scanned_at_ms, format=excluded.format,
                        file_modified_ms=excluded.file_modified_ms,
                        content_identifier=excluded.content_identifier, paired_path=excluded.paired_path,
                        paired_bytes=excluded.paired_bytes, paired_modified_ms=excluded.paired_modified_ms
                    """, [.text(a.path), .text(a.mediaType.rawValue), .int(a.width), .int(a.height),
                          .int(a.durationMs), .integer(a.fileBytes), a.fullResourceBytes.map(SQLValue.integer) ?? .null,
                          a.capturedAtMs.map(SQLValue.integer) ?? .null, .bool(a.hasCamera), .bool(a.isScreenshot),
                          .bool(a.isScreenRecording), .bool(a.isAnimated), a.burstID.map(SQLValue.text) ?? .null,
                          .bool(a.isBurstRepresentative), .bool(a.isFavorite),
                          a.recognizedText.map(SQLValue.text) ?? .null, .integer(nowMs), .text(a.format),
                          a.fileModifiedMs.map(SQLValue.integer) ?? .null,
                          a.contentIdentifier.map(SQLValue.text) ?? .null, a.pairedPath.map(SQLValue.text) ?? .null,
                          a.pairedBytes.map(SQLValue.integer) ?? .null,
                          a.pairedModifiedMs.map(SQLValue.integer) ?? .null])
                let id = try s.query("SELECT id FROM organize_assets WHERE path = ?", [.text(a.path)])[0][0].int64!
                try s.execute("""
                    INSERT OR REPLACE INTO organize_fingerprints(asset_id, file_sha256, pixel_sha256, phash, quality,
                        phash_turned) VALUES (?,?,?,?,?,?)
                    """, [.integer(id), .text(a.fileSHA256), .text(a.pixelSHA256),
                          .integer(Int64(bitPattern: a.phash)), a.quality.map(SQLValue.real) ?? .null,
                          .text(a.phashTurned.map { String($0, radix: 16) }.joined(separator: ","))])
                var stored = a
                stored.id = id
                return stored
            }
            try linkLibraryAssets(in: s)
            return recorded
        }
    }

    /// Links organize records to the library assets whose original they are
    /// (a Live photo by its still), by path under `libraryRoot`.
    private func linkLibraryAssets(in s: RecordStore) throws {
        guard let libraryRoot else { return }
        try s.execute("""
            UPDATE organize_assets SET library_asset_id = (
                SELECT f.asset_id FROM library_files f WHERE f.role = 'original' AND f.path = substr(organize_assets.path, length(?1) + 1))
            WHERE library_asset_id IS NULL AND substr(path, 1, length(?1)) = ?1
            """, [.text(libraryRoot + "/")])
    }

    /// Organize asset id → library asset id, for the records linked to a library asset.
    public func libraryAssetIDs() throws -> [Int64: Int64] {
        Dictionary(uniqueKeysWithValues: try store.query(
            "SELECT id, library_asset_id FROM organize_assets WHERE library_asset_id IS NOT NULL").map { ($0[0].int64!, $0[1].int64!) })
    }

    /// Every recorded asset, by id.
    public func assets() throws -> [OrganizeAsset] {
        try store.query("""
            SELECT a.id, a.path, a.media_type, a.width, a.height, a.duration_ms, a.file_bytes, a.full_resource_bytes,
                   a.captured_at_ms, a.has_camera, a.screenshot, a.screen_recording, a.animated, a.burst_id,
                   a.burst_representative, a.favorite, a.recognized_text,
                   f.file_sha256, f.pixel_sha256, f.phash, f.quality,
                   a.format, a.file_modified_ms, a.paired_path, a.paired_bytes, a.paired_modified_ms,
                   a.content_identifier, f.phash_turned
            FROM organize_assets a JOIN organize_fingerprints f ON f.asset_id = a.id ORDER BY a.id
            """).map { r in
            var a = OrganizeAsset(id: r[0].int64!, path: r[1].string!, mediaType: OrganizeMediaType(rawValue: r[2].string!) ?? .photo,
                          width: Int(r[3].int64!), height: Int(r[4].int64!), durationMs: Int(r[5].int64!),
                          fileBytes: r[6].int64!, fullResourceBytes: r[7].int64, fileSHA256: r[17].string!,
                          pixelSHA256: r[18].string!, phash: UInt64(bitPattern: r[19].int64!), quality: r[20].double,
                          capturedAtMs: r[8].int64, hasCamera: r[9].int64 == 1, isScreenshot: r[10].int64 == 1,
                          isScreenRecording: r[11].int64 == 1, isAnimated: r[12].int64 == 1, burstID: r[13].string,
                          isBurstRepresentative: r[14].int64 == 1, isFavorite: r[15].int64 == 1,
                          recognizedText: r[16].string)
            a.format = r[21].string ?? ""
            a.fileModifiedMs = r[22].int64
            a.pairedPath = r[23].string
            a.pairedBytes = r[24].int64
            a.pairedModifiedMs = r[25].int64
            a.contentIdentifier = r[26].string
            a.phashTurned = (r[27].string ?? "").split(separator: ",").compactMap { UInt64($0, radix: 16) }
            return a
        }
    }

    /// Forgets the assets recorded under `paths` (a movie that is now part of
    /// a Live photo, say), with their fingerprints and group memberships.
    public func forget(paths: [String]) throws {
        guard !paths.isEmpty else { return }
        try store.transaction { s in
            for path in paths { try s.execute("DELETE FROM organize_assets WHERE path = ?", [.text(path)]) }
        }
    }

    /// Stores recognized text for an asset (what `scan --ocr` found; SPEC D9).
    public func setRecognizedText(_ text: String?, assetID: Int64) throws {
        try store.execute("UPDATE organize_assets SET recognized_text = ? WHERE id = ?",
                          [text.map(SQLValue.text) ?? .null, .integer(assetID)])
    }

    // MARK: - groups

    /// Re-forms groups from the stored assets in one transaction: undecided
    /// groups are replaced; groups with a recorded decision stay as they are
    /// (a new group with the same kind and members is not added again).
    @discardableResult
    public func regroup(rule: GroupingRule = GroupingRule(), nowMs: Int64) throws -> [OrganizeGroup] {
        let all = try assets()
        let byID = Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0) })
        let formed = OrganizeGrouping.groups(all, rule: rule)
        try store.transaction { s in
            try s.execute("DELETE FROM organize_groups WHERE id NOT IN (SELECT group_id FROM organize_decisions)")
            let kept = Set(try groups().map { "\($0.kind.rawValue):\($0.members.sorted())" })
            for g in formed where !kept.contains("\(g.kind.rawValue):\(g.members.sorted())") {
                try s.execute("INSERT INTO organize_groups(kind, evidence, system_representative, created_at_ms) VALUES (?,?,?,?)",
                              [.text(g.kind.rawValue), g.evidence.map(SQLValue.text) ?? .null,
                               g.systemRepresentative.map(SQLValue.integer) ?? .null, .integer(nowMs)])
                let gid = try s.query("SELECT last_insert_rowid()")[0][0].int64!
                for (position, id) in g.members.enumerated() {
                    let a = byID[id]!
                    try s.execute("""
                        INSERT INTO organize_group_members(group_id, asset_id, position, q_media_type, q_width,
                            q_height, q_duration_ms, q_file_bytes, q_pixel_sha256) VALUES (?,?,?,?,?,?,?,?,?)
                        """, [.integer(gid), .integer(id), .int(position), .text(a.mediaType.rawValue), .int(a.width),
                              .int(a.height), .int(a.durationMs), .integer(a.fileBytes), .text(a.pixelSHA256)])
                }
            }
        }
        return try groups()
    }

    /// Every stored group, by id.
    public func groups() throws -> [OrganizeGroup] {
        let rows = try store.query("""
            SELECT g.id, g.kind, g.evidence, g.system_representative, m.asset_id
            FROM organize_groups g JOIN organize_group_members m ON m.group_id = g.id ORDER BY g.id, m.position
            """)
        var result: [OrganizeGroup] = []
        for r in rows {
            let id = r[0].int64!
            if result.last?.id != id {
                result.append(OrganizeGroup(id: id, kind: OrganizeGroupKind(rawValue: r[1].string!) ?? .similar,
                                            members: [], evidence: r[2].string, systemRepresentative: r[3].int64))
            }
            result[result.count - 1].members.append(r[4].int64!)
        }
        return result
    }

    /// Groups with their default keepers and organized state.
    public func groupViews() throws -> [OrganizeGroupView] {
        let byID = Dictionary(uniqueKeysWithValues: try assets().map { ($0.id, $0) })
        let marked = try userKeepers()
        let done = Set(try store.query("SELECT group_id FROM organize_decisions WHERE state = 'done'").map { $0[0].int64! })
        return try groups().map { g in
            let scores = KeeperScore.scores(g.members.compactMap { byID[$0] })
            return OrganizeGroupView(group: g, keeper: keeper(of: g, quality: scores, marked: marked),
                                     organized: done.contains(g.id))
        }
    }

    /// The user marks `assetID` as the one to keep (SPEC D6: a user mark wins).
    /// With `replacingIn`, the other members' marks in those groups are taken
    /// away first: the new choice replaces an earlier one.
    public func markKeeper(assetID: Int64, replacingIn groups: [OrganizeGroup] = []) throws {
        try store.transaction { s in
            for other in Set(groups.flatMap(\.members)) where other != assetID {
                try s.execute("UPDATE organize_marks SET keeper = 0 WHERE asset_id = ?", [.integer(other)])
            }
            try s.execute("""
                INSERT INTO organize_marks(asset_id, keeper) VALUES (?, 1)
                ON CONFLICT(asset_id) DO UPDATE SET keeper = 1
                """, [.integer(assetID)])
        }
    }

    /// `quality`: the members' keeper scores (`KeeperScore`).
    func keeper(of g: OrganizeGroup, quality: [Int64: Double?], marked: Set<Int64>) -> Int64? {
        let candidates = g.members.map { KeeperCandidate(id: $0, quality: quality[$0] ?? nil, userMarked: marked.contains($0)) }
        return g.kind == .burst ? KeeperRule.burstKeeper(candidates, systemRepresentative: g.systemRepresentative)
                                : KeeperRule.similarKeeper(candidates)
    }

    private func userKeepers() throws -> Set<Int64> {
        Set(try store.query("SELECT asset_id FROM organize_marks WHERE keeper = 1").map { $0[0].int64! })
    }

    // MARK: - SPEC D6 / D4: batch decisions

    /// Records one decision over any number of groups as exactly two write
    /// transactions (SPEC D6): (1) the decisions, marked pending; (2) the
    /// set-aside list, the counters, and the decisions marked done. A group
    /// shows as organized only after (2); if either write fails, nothing is
    /// shown as organized and `OrganizeError.couldNotRecord` carries
    /// 「无法完成这次整理」 (SPEC D4).
    ///
    /// `isPresent` says whether a member's file is still there (the CLI asks
    /// the file system): a member gone since the scan is never the keeper —
    /// keeping it would leave the only real copy on the set-aside list.
    public func decide(groupIDs: [Int64], action: OrganizeBatchAction, nowMs: Int64,
                       isPresent: (OrganizeAsset) -> Bool = { _ in true }) throws -> OrganizeBatchResult {
        // reads first: no write transaction yet
        let wanted = Set(groupIDs)
        let chosen = try groupViews().filter { wanted.contains($0.group.id) }
        guard chosen.count == wanted.count else {
            throw OrganizeError(kind: .unknownGroup, message: OrganizeError.couldNotRecordMessage,
                                detail: "unknown group id among \(groupIDs.sorted())")
        }
        let batch = (try store.query("SELECT COALESCE(MAX(batch_id), 0) + 1 FROM organize_decisions")[0][0].int64)!
        let byID = Dictionary(uniqueKeysWithValues: try assets().map { ($0.id, $0) })
        let marked = try userKeepers()
        var kept: [Int64: Int64] = [:]
        var aside: [(asset: Int64, group: Int64)] = []
        for view in chosen {
            var present = view.group
            present.members = view.group.members.filter { id in byID[id].map(isPresent) ?? false }
            if present.members.isEmpty { present = view.group } // none there: the rule as it stands
            let scores = KeeperScore.scores(present.members.compactMap { byID[$0] })
            let keeper = action != .keepOne ? nil
                : present.members.contains(view.keeper ?? -1) ? view.keeper
                : keeper(of: present, quality: scores, marked: marked)
            if let keeper { kept[view.group.id] = keeper }
            aside += view.group.members.filter { $0 != keeper }.map { ($0, view.group.id) }
        }
        // A photo in two of the groups (a duplicate pair inside a burst) that one
        // group keeps is kept: another group's "the rest" never sets it aside, so
        // every group keeps its keeper. Each photo is set aside once.
        let keepers = Set(kept.values)
        var seen = Set<Int64>()
        aside = aside.filter { !keepers.contains($0.asset) && seen.insert($0.asset).inserted }
        do {
            try store.transaction { s in // write 1: the decisions
                for view in chosen {
                    try s.execute("""
                        INSERT OR REPLACE INTO organize_decisions(group_id, action, keeper_asset_id, batch_id, state, decided_at_ms)
                        VALUES (?, ?, ?, ?, 'pending', ?)
                        """, [.integer(view.group.id), .text(action.rawValue),
                              kept[view.group.id].map(SQLValue.integer) ?? .null, .integer(batch), .integer(nowMs)])
                }
            }
            try store.transaction { s in // write 2: consequences, then done
                try linkLibraryAssets(in: s)
                // a keeper set aside by an earlier decision of its group comes back (a re-decision)
                for keeper in kept.values {
                    let library = try s.query("SELECT library_asset_id FROM organize_assets WHERE id = ?", [.integer(keeper)])
                    if let id = library.first?.first?.int64 {
                        try s.execute("DELETE FROM library_set_aside WHERE asset_id = ?", [.integer(id)])
                    }
                    try s.execute("DELETE FROM organize_set_aside WHERE asset_id = ?", [.integer(keeper)])
                }
                for item in aside {
                    // a library asset is set aside on the library's list, the one D1's delete reads
                    let library = try s.query("SELECT library_asset_id FROM organize_assets WHERE id = ?", [.integer(item.asset)])
                    if let id = library.first?.first?.int64 {
                        try s.execute("""
                            INSERT OR IGNORE INTO library_set_aside(asset_id, set_aside_at_ms)
                            SELECT id, ? FROM library_assets WHERE id = ? AND deleted_at_ms IS NULL
                            """, [.integer(nowMs), .integer(id)])
                        try s.execute("DELETE FROM organize_set_aside WHERE asset_id = ?", [.integer(item.asset)])
                    } else {
                        try s.execute("INSERT OR REPLACE INTO organize_set_aside(asset_id, group_id, set_aside_at_ms) VALUES (?,?,?)",
                                      [.integer(item.asset), .integer(item.group), .integer(nowMs)])
                    }
                }
                try Self.add(["organized_groups": chosen.count, "set_aside_total": aside.count], in: s)
                try s.execute("UPDATE organize_decisions SET state = 'done' WHERE batch_id = ?", [.integer(batch)])
            }
        } catch {
            throw OrganizeError.couldNotRecord(error)
        }
        return OrganizeBatchResult(batchID: batch, groups: chosen.count, kept: kept, setAside: aside.map(\.asset))
    }

    // MARK: - SPEC D7

    /// Re-checks an exact-duplicate group from stored data only (reads no original).
    public func verifyDuplicateGroup(id: Int64) throws -> DuplicateVerification {
        let head = try store.query("SELECT kind, evidence FROM organize_groups WHERE id = ?", [.integer(id)])
        guard let g = head.first else {
            throw OrganizeError(kind: .unknownGroup, message: "no such group", detail: "group \(id) (see organize groups)")
        }
        guard g[0].string == OrganizeGroupKind.duplicate.rawValue else {
            throw OrganizeError(kind: .unknownGroup, message: "not an exact-duplicate group", detail: "group \(id)")
        }
        let rows = try store.query("""
            SELECT m.asset_id, m.q_media_type, m.q_width, m.q_height, m.q_duration_ms, m.q_file_bytes, m.q_pixel_sha256,
                   a.media_type, a.width, a.height, a.duration_ms, a.file_bytes, f.pixel_sha256
            FROM organize_group_members m
            LEFT JOIN organize_assets a ON a.id = m.asset_id
            LEFT JOIN organize_fingerprints f ON f.asset_id = m.asset_id
            WHERE m.group_id = ? ORDER BY m.position
            """, [.integer(id)])
        let members = rows.map { r in
            DuplicateMemberRecord(
                assetID: r[0].int64!,
                qualified: DuplicateQualification(mediaType: OrganizeMediaType(rawValue: r[1].string!) ?? .photo,
                                                  width: Int(r[2].int64!), height: Int(r[3].int64!),
                                                  durationMs: Int(r[4].int64!), fileBytes: r[5].int64!,
                                                  pixelSHA256: r[6].string!),
                current: r[7].string.map { media in
                    DuplicateQualification(mediaType: OrganizeMediaType(rawValue: media) ?? .photo,
                                           width: Int(r[8].int64 ?? -1), height: Int(r[9].int64 ?? -1),
                                           durationMs: Int(r[10].int64 ?? -1), fileBytes: r[11].int64 ?? -1,
                                           pixelSHA256: r[12].string ?? "")
                })
        }
        return DuplicateCheck.verify(evidence: g[1].string, members: members)
    }

    // MARK: - set aside, stats

    /// The set-aside list (SPEC D1: deleting from here needs no group re-check):
    /// loose files from `organize_set_aside`, library assets from the library's
    /// own list (`library_set_aside`, Recently Deleted left out).
    public func setAsideAssets() throws -> [OrganizeAsset] {
        let ids = Set(try store.query("""
            SELECT asset_id FROM organize_set_aside
            UNION SELECT o.id FROM organize_assets o JOIN library_set_aside s ON s.asset_id = o.library_asset_id
                JOIN library_assets l ON l.id = s.asset_id WHERE l.deleted_at_ms IS NULL
            """).map { $0[0].int64! })
        return try assets().filter { ids.contains($0.id) }
    }

    /// Removes assets from the set-aside list (restored, or deleted by the
    /// system); a library asset leaves the library's list.
    public func removeFromSetAside(_ ids: [Int64]) throws {
        try store.transaction { s in
            for id in ids {
                try s.execute("DELETE FROM organize_set_aside WHERE asset_id = ?", [.integer(id)])
                try s.execute("DELETE FROM library_set_aside WHERE asset_id = (SELECT library_asset_id FROM organize_assets WHERE id = ?)",
                              [.integer(id)])
            }
        }
    }

    /// Adds counters in one write transaction (SPEC G5: once, on leaving).
    public func addToStats(_ counts: [String: Int]) throws {
        try store.transaction { try Self.add(counts, in: $0) }
    }

    /// A counter's value (0 when never written).
    public func stat(_ key: String) throws -> Int {
        Int(try store.query("SELECT value FROM organize_stats WHERE key = ?", [.text(key)]).first?.first?.int64 ?? 0)
    }

    private static func add(_ counts: [String: Int], in s: RecordStore) throws {
        for (key, value) in counts.sorted(by: { $0.key < $1.key }) {
            try s.execute("""
                INSERT INTO organize_stats(key, value) VALUES (?, ?)
                ON CONFLICT(key) DO UPDATE SET value = value + excluded.value
                """, [.text(key), .int(value)])
        }
    }

    // MARK: - Life overrides (SPEC D9)

    /// Sets or clears the user's Life decision for an asset.
    public func setLifeOverride(_ value: LifeOverride?, assetID: Int64) throws {
        try store.execute("""
            INSERT INTO organize_marks(asset_id, life_override) VALUES (?, ?)
            ON CONFLICT(asset_id) DO UPDATE SET life_override = excluded.life_override
            """, [.integer(assetID), value.map { SQLValue.text($0.rawValue) } ?? .null])
    }

    /// Every asset's Life decision with its reason line (SPEC D9, D10).
    public func lifeDecisions() throws -> [(asset: OrganizeAsset, decision: LifeDecision)] {
        let overrides = Dictionary(uniqueKeysWithValues: try store.query(
            "SELECT asset_id, life_override FROM organize_marks WHERE life_override IS NOT NULL").map {
            ($0[0].int64!, LifeOverride(rawValue: $0[1].string!))
        })
        return try assets().map { a in
            (a, LifeClassifier.decide(LifeFacts(a), override: overrides[a.id] ?? nil))
        }
    }
}

extension SQLValue {
    static func int(_ v: Int) -> SQLValue { .integer(Int64(v)) }
    static func bool(_ v: Bool) -> SQLValue { .integer(v ? 1 : 0) }
    /// The real (or integer) as a Double, nil otherwise.
    var double: Double? {
        switch self {
        case .real(let v): return v
        case .integer(let v): return Double(v)
        default: return nil
        }
    }
}
