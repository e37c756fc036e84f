// The library folder on disk: its layout, the lock that serializes file
// changes across processes, staging names, and crash-safe file moves.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The folders of a library (docs/library.md "Layout"):
///
///     DIR/catalogue.sqlite   the catalogue (WAL: -wal, -shm beside it)
///     DIR/originals/YYYY/MM/ imported and exported originals, never rewritten
///     DIR/renditions/ID/     the current edit of asset ID (SPEC E1)
///     DIR/trash/…            Recently Deleted files, same relative path as before
///     DIR/.staging/          files being written (PID-named), moved into place
///     DIR/.files.lock        flock: one process changes files at a time
public struct LibraryFolder: Sendable {
    /// The library folder.
    public let root: String

    /// The layout of the library at `root`.
    public init(_ root: String) { self.root = URL(fileURLWithPath: root).standardizedFileURL.path }

    /// The SQLite catalogue's path.
    public var catalogue: String { root + "/catalogue.sqlite" }
    /// Where originals are kept (originals/YYYY/MM/).
    public var originals: String { root + "/originals" }
    /// Where edited versions are kept.
    public var renditions: String { root + "/renditions" }
    /// Where Recently Deleted files are kept.
    public var trash: String { root + "/trash" }
    /// Where files are written before they are recorded.
    public var staging: String { root + "/.staging" }
    var lockFile: String { root + "/.files.lock" }

    /// `path` with its symlinks resolved (realpath(3)); as given when it
    /// cannot be: one spelling of a file, whatever name it was reached by.
    public static func resolved(_ path: String) -> String {
        guard let real = realpath(path, nil) else { return path }
        defer { free(real) }
        return String(cString: real)
    }

    /// The absolute path of a catalogued relative path.
    public func absolute(_ relative: String) -> String { root + "/" + relative }

    /// Where a file in Recently Deleted lives, and back.
    static func trashPath(of relative: String) -> String { "trash/" + relative }
    static func untrashedPath(of relative: String) -> String? {
        relative.hasPrefix("trash/") ? String(relative.dropFirst("trash/".count)) : nil
    }

    /// Creates the folders (idempotent).
    /// - Throws: `LibraryError` (`.io`) naming the folder and the system's reason.
    func create() throws {
        for dir in [root, originals, renditions, trash, staging] { try Self.makeFolder(dir) }
    }

    /// `mkdir -p` with mkdir(2), so a failure says why in the system's words
    /// (not Foundation's error dump): a file in the way, permission denied, …
    static func makeFolder(_ path: String) throws {
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDir) {
            guard isDir.boolValue else { throw LibraryError.io("\(path): a file is in the way of a folder", ENOTDIR) }
            return
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path { try makeFolder(parent) }
        if mkdir(path, 0o755) != 0, errno != EEXIST { throw LibraryError.io("\(path): cannot create the folder", errno) }
    }

    /// A fresh staging path carrying this process's id, so recovery can tell a
    /// live writer's file from a dead one's.
    public func stagingPath(extension ext: String) -> String {
        let random = UInt64.random(in: 0...UInt64.max)
        return staging + "/\(getpid())-\(String(random, radix: 16))" + (ext.isEmpty ? "" : "." + ext)
    }

    /// Whether process `pid` still runs: it exists (or is not ours to signal)
    /// and is not a zombie — a killed writer its parent has not reaped yet
    /// writes nothing more, so its staging files may go.
    static func isRunning(_ pid: pid_t) -> Bool {
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return true }
        // "pid (comm) S ...": the state follows the command's closing parenthesis
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first != "Z"
    }

    /// The process id a staging file name starts with.
    static func stagingOwner(_ name: String) -> pid_t? { pid_t(name.prefix { $0 != "-" }) }

    // MARK: - file operations

    /// Copies `source` to `target` (which must not exist) in the kernel
    /// (`sendfile`), without syncing: callers sync a batch at once.
    static func copy(_ source: String, to target: String) throws {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw LibraryError.io("\(source): cannot open", errno) }
        defer { close(input) }
        let output = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard output >= 0 else { throw LibraryError.io("\(target): cannot create", errno) }
        var ok = false
        defer {
            close(output)
            if !ok { unlink(target) }
        }
        while true {
            let n = sendfile(output, input, nil, 1 << 30)
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == ENOSYS || errno == EINVAL { try copyByReading(input, output, target); break }
                throw LibraryError.io("\(target): copy failed", errno)
            }
        }
        ok = true
    }

    private static func copyByReading(_ input: Int32, _ output: Int32, _ target: String) throws {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if n == 0 { return }
            if n < 0 { if errno == EINTR { continue }; throw LibraryError.io("\(target): read failed", errno) }
            var done = 0
            while done < n {
                let w = buffer.withUnsafeBytes { write(output, $0.baseAddress! + done, n - done) }
                if w < 0 { if errno == EINTR { continue }; throw LibraryError.io("\(target): write failed", errno) }
                done += w
            }
        }
    }

    /// Flushes every file and directory entry of the filesystem holding the
    /// library (`syncfs`): one call makes a whole batch of copies and renames
    /// durable before the catalogue commits them.
    /// Without `syncfs` (not a Linux libc), every file of `fallback` and its
    /// folder is fsynced instead.
    func sync(fallback paths: [String]) throws {
        let fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw LibraryError.io("\(root): cannot open", errno) }
        defer { close(fd) }
        if let syncfs = Self.syncfs {
            guard syncfs(fd) == 0 else { throw LibraryError.io("\(root): syncfs failed", errno) }
            return
        }
        for path in Set(paths + paths.map { ($0 as NSString).deletingLastPathComponent }) {
            let f = open(path, O_RDONLY | O_CLOEXEC)
            guard f >= 0 else { throw LibraryError.io("\(path): cannot open", errno) }
            defer { close(f) }
            guard fsync(f) == 0 else { throw LibraryError.io("\(path): fsync failed", errno) }
        }
    }

    /// glibc's `syncfs`, looked up at run time: Swift's Glibc module leaves out
    /// the GNU extensions, and one syncfs per batch costs what one fsync does
    /// per file (measured 5 ms per fsync here).
    private static let syncfs: (@convention(c) (Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "syncfs") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Int32).self)
    }()

    /// Renames `source` to `target`, creating the target's folder; refuses to
    /// replace an existing file (callers hold the file lock, so the check and
    /// the rename are not raced by another library writer).
    static func move(_ source: String, to target: String) throws {
        let folder = (target as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        guard access(target, F_OK) != 0 else { throw LibraryError.io("\(target): already exists", EEXIST) }
        guard rename(source, target) == 0 else { throw LibraryError.io("\(source) -> \(target): rename failed", errno) }
    }

    /// A free relative path "originals/YYYY/MM/NAME" (NAME-2, NAME-3, … when taken).
    func freeOriginalPath(name: String, capturedAtMs: Int64?, taken: (String) -> Bool) -> String {
        let (year, month) = Self.yearMonth(capturedAtMs)
        let folder = "originals/" + (year.map { String(format: "%04d/%02d", $0, month) } ?? "undated")
        let stem = (name as NSString).deletingPathExtension, ext = (name as NSString).pathExtension
        var candidate = folder + "/" + name
        var n = 2
        while taken(candidate) || access(absolute(candidate), F_OK) == 0 {
            candidate = folder + "/" + stem + "-\(n)" + (ext.isEmpty ? "" : "." + ext)
            n += 1
        }
        return candidate
    }

    /// Year and month of a UTC-read capture time.
    static func yearMonth(_ ms: Int64?) -> (Int?, Int) {
        guard let ms else { return (nil, 0) }
        let days = Int(floor(Double(ms) / 86_400_000))
        // civil from days (Howard Hinnant's algorithm)
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month)
    }

    /// Size in bytes and modification time (ns) of `path`, nil when it cannot be seen.
    static func status(_ path: String) -> (bytes: Int64, mtimeNs: Int64)? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return (Int64(st.st_size), Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec))
    }
}

/// The library's file lock (exclusive `flock` on DIR/.files.lock), held from
/// `init` (which waits for another process to finish) until `release()`.
/// Every change to the library's files — import, the exit path, edits,
/// deletion, recovery — happens under it; catalogue-only writes (favourite,
/// tags, albums) do not take it. The kernel drops it when the process dies.
final class LibraryFileLock {
    private var fd: Int32

    init(_ folder: LibraryFolder) throws {
        fd = open(folder.lockFile, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw LibraryError.io("\(folder.lockFile): cannot open the lock file", errno) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let code = errno
                close(fd)
                throw LibraryError.io("\(folder.lockFile): flock failed", code)
            }
        }
    }

    func release() {
        guard fd >= 0 else { return }
        flock(fd, LOCK_UN)
        close(fd)
        fd = -1
    }

    deinit { release() }
}
