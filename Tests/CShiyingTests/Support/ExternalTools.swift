// Shared by the C API suites: running outside validators (ffprobe, exiftool,
// heif-info, ...) and whole-file reads/writes without Foundation helpers that
// LeakSanitizer flags (make sanitize runs this target).
import CShiying
import Foundation

enum ExternalTools {
    /// Absolute path of an installed tool, or nil: the first on PATH (so
    /// `python3` is the one `make deps` installed pillow-heif into, e.g. a
    /// pyenv interpreter), else the system folders.
    static func path(_ name: String) -> String? {
        let searched = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
            + ["/usr/bin", "/usr/local/bin", "/bin"]
        return searched.filter { !$0.isEmpty }.map { $0 + "/" + name }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static func installed(_ names: String...) -> Bool { names.allSatisfy { path($0) != nil } }

    /// Runs a tool; returns exit status, stdout and stderr. Uses posix_spawn
    /// with the output going to temporary files, not Foundation.Process, whose
    /// run() leaks a weak-reference side table that fails LeakSanitizer runs.
    static func run(_ name: String, _ args: [String]) throws -> (status: Int32, out: String, err: String) {
        guard let path = path(name) else { throw CTestFailure("\(name) is not installed (make deps)") }
        let base = FileManager.default.temporaryDirectory
            .appendingPathComponent("shiying-run-\(getpid())-\(UUID().uuidString.prefix(8))").path
        let outPath = base + ".out", errPath = base + ".err"
        defer {
            unlink(outPath)
            unlink(errPath)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([path] + args).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = (argv + [nil]).withUnsafeBufferPointer { buffer in
            posix_spawn(&pid, path, &actions, nil, UnsafeMutablePointer(mutating: buffer.baseAddress!), environ)
        }
        guard spawned == 0 else { throw CTestFailure("posix_spawn \(name): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exitCode = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return (exitCode, String(decoding: readFile(outPath), as: UTF8.self),
                String(decoding: readFile(errPath), as: UTF8.self))
    }

    /// Runs a tool that must succeed; returns its stdout.
    @discardableResult
    static func check(_ name: String, _ args: [String]) throws -> String {
        let r = try run(name, args)
        guard r.status == 0 else {
            throw CTestFailure("\(name) \(args.joined(separator: " ")) exited \(r.status): \(r.err.suffix(400))")
        }
        return r.out
    }

    /// A whole file with read(2) (FoundationEssentials' Data(contentsOf:)
    /// leaks a 4 KiB buffer for empty files, which LeakSanitizer reports).
    static func readFile(_ path: String) -> [UInt8] {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return bytes }
            bytes += chunk[0..<n]
        }
    }

    static func writeFile(_ path: String, _ bytes: [UInt8]) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw CTestFailure("cannot create \(path)") }
        defer { close(fd) }
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard n == bytes.count else { throw CTestFailure("short write to \(path)") }
    }
}

/// A four-character code as the engine's big-endian UInt32.
func fourcc(_ s: String) -> UInt32 {
    precondition(s.utf8.count == 4)
    return s.utf8.reduce(0) { $0 << 8 | UInt32($1) }
}
