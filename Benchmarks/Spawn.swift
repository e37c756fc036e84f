// Child-process spawning with posix_spawn + wait4, so that the kernel's
// rusage of the exact child (ru_maxrss, KiB on Linux) is available.
// Foundation.Process reaps its children itself and hides that rusage.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The outcome of one child process.
struct ChildResult {
    var exitCode: Int32          // exit status, or 128 + signal number
    var seconds: Double          // wall time spawn → reaped (ContinuousClock)
    var maxRSSKiB: Int           // ru_maxrss of the child (includes its reaped children)
    var userSeconds: Double      // ru_utime of the child (CPU on every core, load-independent)
    var cpuSeconds: Double = 0   // ru_utime + ru_stime of the child
    var stdout: String
    var stderr: String

    var succeeded: Bool { exitCode == 0 }
    /// Last non-empty stdout line (the `--json` report of `shiying collage`).
    var lastStdoutLine: String? {
        stdout.split(separator: "\n", omittingEmptySubsequences: true).last.map(String.init)
    }
}

struct SpawnError: Error, CustomStringConvertible {
    var description: String
}

/// Runs `argv` (argv[0] looked up in PATH unless it contains a slash),
/// with stdout/stderr captured through temporary files and stdin from /dev/null.
func runChild(_ argv: [String], extraEnvironment: [String: String] = [:],
              captureDirectory: String = NSTemporaryDirectory()) throws -> ChildResult {
    precondition(!argv.isEmpty)
    let token = "\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
    let outPath = captureDirectory + "/child-\(token).out"
    let errPath = captureDirectory + "/child-\(token).err"
    defer { unlink(outPath); unlink(errPath) }

    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)

    var environment = ProcessInfo.processInfo.environment
    environment.merge(extraEnvironment) { _, new in new }
    let cArgv = argv.map { strdup($0) } + [nil]
    let cEnv = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { (cArgv + cEnv).forEach { free($0) } }

    var pid = pid_t()
    let clock = ContinuousClock()
    let start = clock.now
    let rc = cArgv.withUnsafeBufferPointer { argvBuf in
        cEnv.withUnsafeBufferPointer { envBuf in
            posix_spawnp(&pid, argv[0], &actions, nil,
                         UnsafeMutablePointer(mutating: argvBuf.baseAddress!),
                         UnsafeMutablePointer(mutating: envBuf.baseAddress!))
        }
    }
    guard rc == 0 else {
        throw SpawnError(description: "posix_spawnp(\(argv[0])) failed: \(String(cString: strerror(rc)))")
    }

    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) == -1 {
        guard errno == EINTR else { throw SpawnError(description: "wait4 failed: errno \(errno)") }
    }
    let elapsed = clock.now - start

    let termSignal = status & 0x7f
    let exitCode = termSignal == 0 ? (status >> 8) & 0xff : 128 + termSignal
    return ChildResult(
        exitCode: exitCode, seconds: seconds(elapsed), maxRSSKiB: Int(usage.ru_maxrss),
        userSeconds: Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) * 1e-6,
        cpuSeconds: Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6,
        stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
        stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
}

/// Several children run one after the other as one measured pipeline:
/// wall time is taken around the whole pipeline (including the glue between
/// steps), peak RSS is the max over the steps. Throws at the first failing step.
struct Pipeline {
    let captureDirectory: String
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private(set) var maxRSSKiB = 0
    private(set) var userSeconds = 0.0
    private(set) var steps = 0

    init(captureDirectory: String) {
        self.captureDirectory = captureDirectory
        start = clock.now
    }

    @discardableResult
    mutating func run(_ argv: [String], extraEnvironment: [String: String] = [:]) throws -> ChildResult {
        let result = try runChild(argv, extraEnvironment: extraEnvironment,
                                  captureDirectory: captureDirectory)
        maxRSSKiB = max(maxRSSKiB, result.maxRSSKiB)
        userSeconds += result.userSeconds
        steps += 1
        guard result.succeeded else {
            throw SpawnError(description: "`\(argv.prefix(4).joined(separator: " ")) …` exited \(result.exitCode): "
                             + String(result.stderr.suffix(600)))
        }
        return result
    }

    var elapsedSeconds: Double { seconds(clock.now - start) }
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
}

/// Prints a progress line to stderr.
func progress(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
