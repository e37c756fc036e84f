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

    /// An empty report.
    public init() {}
}

extension PhotoLibrary {
    /// Runs the recovery pass under the file lock.
    public func recoverNow() throws -> LibraryRecoveryReport {
        let lock = try LibraryFileLock(folder)
        defer { lock.release() }
        return try recover()
    }

    /// The pass itself; the caller holds the file lock. In order:
    /// 1. staging files whose writer process is gone are removed;
    /// 2. a catalogued file missing at its path but present on the other side
    ///    of trash/ (a move to or from Recently Deleted that did not commit) is
    ///    moved back to its catalogued path;
    /// 3. files no row names are removed (their import or export never committed;
    ///    the source is still where it was, so a re-run imports it).
    func recover() throws -> LibraryRecoveryReport {
        var report = LibraryRecoveryReport()
        let fm = FileManager.default
        for name in (try? fm.contentsOfDirectory(atPath: folder.staging)) ?? [] {
            if let owner = LibraryFolder.stagingOwner(name), owner > 0, kill(owner, 0) == 0 || errno == EPERM { continue }
            if unlink(folder.staging + "/" + name) == 0 { report.stagingRemoved += 1 }
        }
        var named = Set<String>()
        try store.forEachRow("SELECT path FROM library_files") { c in named.insert(c.text(0) ?? "") }
        for path in named where access(folder.absolute(path), F_OK) != 0 {
            let other = LibraryFolder.untrashedPath(of: path) ?? LibraryFolder.trashPath(of: path)
            if access(folder.absolute(other), F_OK) == 0, !named.contains(other) {
                try LibraryFolder.move(folder.absolute(other), to: folder.absolute(path))
                report.filesPutBack += 1
            }
        }
        for top in ["originals", "renditions", "trash"] {
            let walker = fm.enumerator(atPath: folder.absolute(top))
            while let rel = walker?.nextObject() as? String {
                let path = top + "/" + rel
                var isDir: ObjCBool = false
                guard fm.fileExists(atPath: folder.absolute(path), isDirectory: &isDir), !isDir.boolValue else { continue }
                if !named.contains(path), unlink(folder.absolute(path)) == 0 { report.orphansRemoved += 1 }
            }
        }
        return report
    }
}
