// Deleting as behaviour (SPEC D1–D4): set aside (放一边), delete after the
// system's confirmation into Recently Deleted (files moved to trash/), restore,
// and purge after 30 days; "up to X freed" from the real file sizes.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The outcome of one deletion.
public struct LibraryDeletionReport: Sendable, Codable, Hashable {
    /// false: the confirmation hook said no; nothing changed.
    public var confirmed: Bool
    /// Moved to Recently Deleted.
    public var deleted: [Int64]
    /// SPEC D3: files that cannot be seen (vanished or unreadable): skipped.
    public var notVisible: [Int64]
    /// SPEC D3: files the system refuses to remove (read-only): stay on the page.
    public var refused: [Int64]
    /// SPEC D3: the message for the skipped files, nil when none.
    public var notVisibleMessage: String?
    /// SPEC D3: the message for the refused files, nil when none.
    public var refusedMessage: String?
    /// SPEC D2, as the confirmation showed it.
    public var freedBytes: Int64
    /// `freedBytes` as the confirmation showed it.
    public var freedText: String
}

/// What a purge removed.
public struct LibraryPurgeReport: Sendable, Codable, Hashable {
    /// Assets purged.
    public var purged: [Int64]
    /// Bytes of the files actually removed.
    public var freedBytes: Int64
}

extension PhotoLibrary {
    /// SPEC D1: deleted items stay this long in Recently Deleted.
    public static let recentlyDeletedDays = 30

    /// Adds assets to the set-aside list (放一边).
    public func setAside(_ ids: [Int64]) throws {
        try requireCatalogued(ids)
        let now = clock()
        try write { s in
            for id in ids {
                try s.execute("INSERT OR IGNORE INTO library_set_aside(asset_id, set_aside_at_ms) VALUES (?, ?)", [.integer(id), .integer(now)])
            }
        }
    }

    /// Takes assets off the set-aside list.
    public func keep(_ ids: [Int64]) throws {
        try write { s in
            for id in ids { try s.execute("DELETE FROM library_set_aside WHERE asset_id = ?", [.integer(id)]) }
        }
    }

    /// SPEC D1/D2: what the confirmation asks, with "up to X freed" measured
    /// on disk: current versions vs every file (pre-edit originals included);
    /// a file that cannot be measured leaves its measure unknown.
    public func deletionRequest(_ ids: [Int64]) throws -> SetAsideDeletionRequest {
        let items = try assets(ids).map { a -> DeletionItem in
            func measure(_ files: [LibraryFile]) -> Int64? {
                var total: Int64 = 0
                for f in files {
                    guard let st = LibraryFolder.status(folder.absolute(f.path)) else { return nil }
                    total += st.bytes
                }
                return total
            }
            return DeletionItem(id: a.id, currentBytes: measure(a.currentFiles), fullResourceBytes: measure(a.allFiles))
        }
        return SetAsideDeletion.request(items)
    }

    /// SPEC D1–D4: deletes assets (normally the set-aside list) after
    /// `confirm` — the system's confirmation — agrees to the request. Each
    /// asset's files move to trash/ and it enters Recently Deleted for 30 days
    /// (no group is re-checked). An asset with a file that cannot be seen is
    /// skipped (D3 "not visible"); one with a file that is read-only, or that
    /// the system will not move, stays where it is (D3 "refused"). If the
    /// catalogue refuses the write, every file is moved back and
    /// `LibraryError.couldNotRecord` (D4) is thrown.
    public func delete(_ ids: [Int64], confirm: @Sendable (SetAsideDeletionRequest) async -> Bool) async throws
        -> LibraryDeletionReport {
        let request = try deletionRequest(ids)
        guard await confirm(request) else {
            return LibraryDeletionReport(confirmed: false, deleted: [], notVisible: [], refused: [], freedBytes: request.freed.bytes,
                                         freedText: request.freed.text)
        }
        return try deleteConfirmed(ids, request: request)
    }

    /// The part after the confirmation: no suspension point, under the file lock.
    private func deleteConfirmed(_ ids: [Int64], request: SetAsideDeletionRequest) throws -> LibraryDeletionReport {
        let lock = try LibraryFileLock(folder)
        defer { lock.release() }
        var results: [(id: Int64, result: DeletionItemResult)] = []
        var moved: [(asset: Int64, from: String, to: String)] = []
        let targets = try assets(ids).filter { $0.deletedAtMs == nil }
        let journaled = targets.flatMap { a in a.allFiles.flatMap { [$0.path, LibraryFolder.trashPath(of: $0.path)] } }
        try journal(journaled)
        for a in targets {
            let paths = a.allFiles.map(\.path)
            if paths.contains(where: { access(folder.absolute($0), R_OK) != 0 }) {
                results.append((a.id, .notVisible))
                continue
            }
            if paths.contains(where: { !Self.removable(folder.absolute($0)) }) {
                results.append((a.id, .refused))
                continue
            }
            var mine: [(asset: Int64, from: String, to: String)] = []
            do {
                for p in paths {
                    let to = LibraryFolder.trashPath(of: p)
                    try LibraryFolder.move(folder.absolute(p), to: folder.absolute(to))
                    mine.append((a.id, p, to))
                }
                moved += mine
                rmdir(folder.absolute("renditions/\(a.id)")) // its edit's folder, emptied into trash/
                results.append((a.id, .deleted))
            } catch {
                Self.moveBack(mine, in: folder)
                results.append((a.id, .refused))
            }
        }
        let outcome = DeletionOutcome(results)
        let now = clock()
        do {
            try write { s in
                try Self.clearJournal(journaled, in: s)
                for m in moved {
                    try s.execute("UPDATE library_files SET path = ? WHERE path = ?", [.text(m.to), .text(m.from)])
                }
                for id in outcome.deleted {
                    try s.execute("UPDATE library_assets SET deleted_at_ms = ? WHERE id = ?", [.integer(now), .integer(id)])
                    try s.execute("DELETE FROM library_set_aside WHERE asset_id = ?", [.integer(id)])
                }
            }
        } catch {
            Self.moveBack(moved, in: folder)
            clearJournal(journaled)
            throw error
        }
        return LibraryDeletionReport(confirmed: true, deleted: outcome.deleted, notVisible: outcome.notVisible,
                                     refused: outcome.refused, notVisibleMessage: outcome.notVisibleMessage,
                                     refusedMessage: outcome.refusedMessage, freedBytes: request.freed.bytes,
                                     freedText: request.freed.text)
    }

    /// Brings assets back from Recently Deleted (files back from trash/).
    /// - Returns: the ids restored.
    public func restore(_ ids: [Int64]) throws -> [Int64] {
        let lock = try LibraryFileLock(folder)
        defer { lock.release() }
        var moved: [(asset: Int64, from: String, to: String)] = []
        var restored: [Int64] = []
        let targets = try assets(ids).filter { $0.deletedAtMs != nil }
        let journaled = targets.flatMap { a in
            a.allFiles.flatMap { f in [f.path] + (LibraryFolder.untrashedPath(of: f.path).map { [$0] } ?? []) }
        }
        try journal(journaled)
        for a in targets {
            var mine: [(asset: Int64, from: String, to: String)] = []
            do {
                for f in a.allFiles {
                    guard let back = LibraryFolder.untrashedPath(of: f.path) else { continue }
                    try LibraryFolder.move(folder.absolute(f.path), to: folder.absolute(back))
                    mine.append((a.id, f.path, back))
                }
                moved += mine
                restored.append(a.id)
            } catch {
                Self.moveBack(mine, in: folder)
            }
        }
        do {
            try write { s in
                try Self.clearJournal(journaled, in: s)
                for m in moved { try s.execute("UPDATE library_files SET path = ? WHERE path = ?", [.text(m.to), .text(m.from)]) }
                for id in restored { try s.execute("UPDATE library_assets SET deleted_at_ms = NULL WHERE id = ?", [.integer(id)]) }
            }
        } catch {
            Self.moveBack(moved, in: folder)
            clearJournal(journaled)
            throw error
        }
        return restored
    }

    /// Removes for good what has been in Recently Deleted for 30 days or more
    /// (`everything`: all of Recently Deleted, as "Delete All" does). The rows
    /// go first (one transaction), then the files; a kill in between leaves
    /// orphans in the journal, which the recovery pass removes.
    public func purge(everything: Bool = false) throws -> LibraryPurgeReport {
        let lock = try LibraryFileLock(folder)
        defer { lock.release() }
        let cutoff = clock() - Int64(Self.recentlyDeletedDays) * 86_400_000
        let due = try list(.recentlyDeleted).filter { everything || ($0.deletedAtMs ?? .max) <= cutoff }
        guard !due.isEmpty else { return LibraryPurgeReport(purged: [], freedBytes: 0) }
        let journaled = due.flatMap { $0.allFiles.map(\.path) }
        try write { s in  // the rows go with the journal of their files: a kill before the unlinks leaves them to recovery
            try Self.journal(journaled, nowMs: clock(), in: s)
            for a in due { try s.execute("DELETE FROM library_assets WHERE id = ?", [.integer(a.id)]) }
        }
        var freed: Int64 = 0
        for a in due {
            for f in a.allFiles {
                let path = folder.absolute(f.path)
                if let st = LibraryFolder.status(path), unlink(path) == 0 { freed += st.bytes }
            }
            rmdir(folder.absolute("trash/renditions/\(a.id)"))
        }
        clearJournal(journaled)
        return LibraryPurgeReport(purged: due.map(\.id), freedBytes: freed)
    }

    /// A file the system lets us remove: it has a write permission bit (a
    /// read-only file is the owner's or the system's "keep this", also for
    /// root, whom `access` would let through) and its folder is writable.
    static func removable(_ path: String) -> Bool {
        var st = stat()
        guard stat(path, &st) == 0 else { return false }
        return st.st_mode & 0o222 != 0 && access((path as NSString).deletingLastPathComponent, W_OK) == 0
    }

    static func moveBack(_ moves: [(asset: Int64, from: String, to: String)], in folder: LibraryFolder) {
        for m in moves.reversed() { rename(folder.absolute(m.to), folder.absolute(m.from)) }
    }
}
