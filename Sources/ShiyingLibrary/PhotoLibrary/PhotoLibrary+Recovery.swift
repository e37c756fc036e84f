// The recovery pass: what a killed process left in the library folder is
// brought back in line with the catalogue, which is the truth.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What one recovery pass did.
public struct LibraryRecoveryReport: Sendable, Codable, Hashable {
    /// Staging files of processes no longer running (interrupted copies or renders).
    public var stagingRemoved = 0
    /// Files under originals/, renditions/ or trash/ that no catalogue row names
    /// (renamed into place, then killed before the commit).
    public var orphansRemoved = 0
    /// Files found on the other side of an interrupted move to or from trash/,
    /// moved back to where the catalogue says they are.
    public var filesPutBack = 0
    /// Catalogued files in neither their place nor trash/ (removed by hand):
    /// found by a sweep, left catalogued. Importing an original's source again
    /// restores it (`LibraryImportReport.restored`).
    public var missing: [LibraryMissingFile] = []

    /// An empty report.
    public init() {}
}

/// A catalogued file that is not on disk.
public struct LibraryMissingFile: Sendable, Codable, Hashable {
    /// The asset it belongs to.
    public var assetID: Int64
    /// What it is to the asset (original, original movie, rendition, rendition movie).
    public var role: FileRole
    /// Its path relative to the library folder.
    public var path: String
}

extension PhotoLibrary {
    /// Runs the recovery pass under the file lock. `sweep` (the default for
    /// an explicit recovery) also walks originals/, renditions/ and trash/ and
    /// checks every catalogued file, for what no journal names (an older
    /// build's leftovers, files put there by hand); without it only the
    /// journal's paths are looked at, as before every import.
    public func recoverNow(sweep: Bool = true) throws -> LibraryRecoveryReport {
        let lock = try LibraryFileLock(folder)
        defer { lock.release() }
        return try recover(sweep: sweep)
    }

    /// The pass itself; the caller holds the file lock, so every journal entry
    /// belongs to a process that died in the middle of a file change. In order:
    /// 1. staging files whose writer process is gone are removed;
    /// 2. for each journaled path (`library_pending`) — what an interrupted
    ///    import, export, edit, delete, restore or purge was touching: a
    ///    catalogued file missing at its path but present on the other side of
    ///    trash/ (a move to or from Recently Deleted that did not commit) is
    ///    moved back; a file no row names is removed (its import or export never
    ///    committed; the source is still where it was, so a re-run imports it);
    /// 3. with `sweep`, the same over every catalogued file and every file in the folder.
    func recover(sweep: Bool = false) throws -> LibraryRecoveryReport {
        var report = LibraryRecoveryReport()
        let fm = FileManager.default
        for name in (try? fm.contentsOfDirectory(atPath: folder.staging)) ?? [] {
            if let owner = LibraryFolder.stagingOwner(name), owner > 0, LibraryFolder.isRunning(owner) { continue }
            let path = folder.staging + "/" + name // a file, or a moving collage's staging folder
            if unlink(path) == 0 || (errno == EISDIR && (try? fm.removeItem(atPath: path)) != nil) { report.stagingRemoved += 1 }
        }
        var pending: [String] = []
        try store.forEachRow("SELECT path FROM library_pending") { c in pending.append(c.text(0) ?? "") }
        if !pending.isEmpty {
            var named = Set<String>()
            for path in Set(pending.flatMap { [$0, Self.otherSide(of: $0)] })
            where !(try store.query("SELECT 1 FROM library_files WHERE path = ?", [.text(path)])).isEmpty {
                named.insert(path)
            }
            try settle(pending, named: named, report: &report)
        }
        if sweep {
            var named = Set<String>()
            try store.forEachRow("SELECT path FROM library_files") { c in named.insert(c.text(0) ?? "") }
            var onDisk: [String] = []
            for top in ["originals", "renditions", "trash"] {
                let walker = fm.enumerator(atPath: folder.absolute(top))
                while let rel = walker?.nextObject() as? String {
                    let path = top + "/" + rel
                    var isDir: ObjCBool = false
                    if fm.fileExists(atPath: folder.absolute(path), isDirectory: &isDir), !isDir.boolValue { onDisk.append(path) }
                }
            }
            try settle(Array(named) + onDisk, named: named, report: &report)
            report.missing = try missingFiles()
        }
        if !pending.isEmpty {
            try write { s in try Self.clearJournal(pending, in: s) }
        }
        return report
    }

    /// Puts catalogued `paths` back from the other side of trash/, then removes
    /// the files at `paths` that no row names.
    private func settle(_ paths: [String], named: Set<String>, report: inout LibraryRecoveryReport) throws {
        for path in paths where named.contains(path) && access(folder.absolute(path), F_OK) != 0 {
            let other = Self.otherSide(of: path)
            if access(folder.absolute(other), F_OK) == 0, !named.contains(other) {
                try LibraryFolder.move(folder.absolute(other), to: folder.absolute(path))
                report.filesPutBack += 1
            }
        }
        for path in paths where !named.contains(path) {
            if unlink(folder.absolute(path)) == 0 { report.orphansRemoved += 1 }
        }
    }

    /// Catalogued files of `roles` found neither at their path nor on the other side of trash/.
    func missingFiles(roles: [FileRole] = FileRole.allCases) throws -> [LibraryMissingFile] {
        var missing: [LibraryMissingFile] = []
        let wanted = Set(roles)
        try store.forEachRow("SELECT asset_id, role, path FROM library_files ORDER BY asset_id, role") { c in
            guard let role = FileRole(rawValue: c.text(1) ?? ""), wanted.contains(role), let path = c.text(2) else { return }
            if access(folder.absolute(path), F_OK) != 0 && access(folder.absolute(Self.otherSide(of: path)), F_OK) != 0 {
                missing.append(LibraryMissingFile(assetID: c.int64(0), role: role, path: path))
            }
        }
        return missing
    }

    static func otherSide(of path: String) -> String {
        LibraryFolder.untrashedPath(of: path) ?? LibraryFolder.trashPath(of: path)
    }

    // MARK: - the journal

    /// Journals relative paths a file change is about to touch, in a commit of
    /// its own before anything is renamed; the commit that names the result
    /// clears them (`clearJournal(_:in:)`).
    func journal(_ paths: [String]) throws {
        guard !paths.isEmpty else { return }
        let now = clock()
        try write { s in try Self.journal(paths, nowMs: now, in: s) }
    }

    static func journal(_ paths: [String], nowMs: Int64, in s: RecordStore) throws {
        for path in paths {
            try s.execute("INSERT OR IGNORE INTO library_pending(path, since_ms) VALUES (?, ?)", [.text(path), .integer(nowMs)])
        }
    }

    static func clearJournal(_ paths: [String], in s: RecordStore) throws {
        for path in paths { try s.execute("DELETE FROM library_pending WHERE path = ?", [.text(path)]) }
    }

    /// After a change was undone (or finished outside a transaction): its
    /// entries go; if the catalogue refuses, the next recovery settles them.
    func clearJournal(_ paths: [String]) {
        guard !paths.isEmpty else { return }
        _ = try? write { s in try Self.clearJournal(paths, in: s) }
    }
}
