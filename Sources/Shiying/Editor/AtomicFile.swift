// Whole-file writes that never leave a half-written file (issue 5: writes are
// temp file + rename): write a temp file beside the target, flush it to disk,
// then rename it over the target. A failure removes the temp file and leaves
// any existing file untouched.
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

enum AtomicFile {
    /// Replaces the file at `path` with `data`.
    /// - Throws: `ShiyingError` (`.io`) naming the path and the system error.
    static func replace(_ path: String, with data: Data) throws {
        let directory = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let temp = (directory.isEmpty ? "." : directory) + "/.\(name).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ioError("\(temp): cannot create temp file") }
        var ok = false
        defer {
            if !ok { unlink(temp) }
        }
        do {
            defer { close(fd) }
            try data.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                    if n < 0 {
                        if errno == EINTR { continue }
                        throw ioError("\(temp): write failed after \(offset) of \(raw.count) bytes")
                    }
                    offset += n
                }
            }
            // Why fsync: rename must not publish a file whose bytes are not on disk yet.
            guard fsync(fd) == 0 else { throw ioError("\(temp): fsync failed") }
        }
        guard rename(temp, path) == 0 else { throw ioError("\(path): rename from temp file failed") }
        ok = true
    }

    private static func ioError(_ what: String) -> ShiyingError {
        ShiyingError(code: .io, message: "\(what): \(String(cString: strerror(errno)))")
    }
}
