// Shared helpers for the Shiying facade and CLI tests: package paths, temp
// folders, subprocesses with a timeout, the CLI binary, cached fixtures and
// ImageMagick as the independent oracle.
//
// Everything that waits on a subprocess is `async` and never blocks a
// cooperative-pool thread (the pool has only 2 threads on a 2-core machine,
// and the async cancellation test needs one to cancel on time).
import Foundation
import Shiying
import ShiyingFixtures
import Testing

// MARK: - Paths

enum Paths {
    /// <package root>, from this file's location (Tests/ShiyingTests/TestSupport.swift).
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// ../shared/corpus relative to the package root.
    static let corpus: URL = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")

    static var corpusAvailable: Bool {
        FileManager.default.fileExists(atPath: corpus.appendingPathComponent("hostile").path)
    }

    /// <root>/.build/test-fixtures — generated fixtures, cached across runs.
    static let fixtures: URL = packageRoot.appendingPathComponent(".build/test-fixtures")
}

/// A fresh, empty folder for one test; removed with `remove()`.
struct TempDir: Sendable {
    let path: String

    init(_ label: String = "t") throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("shiying-tests", isDirectory: true)
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        let url = base.appendingPathComponent("\(label)-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        path = url.path
    }

    func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    func contents() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

// MARK: - Subprocesses

struct ProcessResult: Sendable, CustomStringConvertible {
    /// Exit status, or the signal number when `signaled`.
    var status: Int32
    var signaled: Bool
    var timedOut: Bool
    var stdoutData: Data
    var stderr: String
    var seconds: Double

    var stdout: String { String(decoding: stdoutData, as: UTF8.self) }
    /// Exited normally (no signal, no timeout) with status 0.
    var succeeded: Bool { !signaled && !timedOut && status == 0 }
    /// Exited normally (no signal, no timeout), whatever the status.
    var exitedNormally: Bool { !signaled && !timedOut }
    var lastLine: String? {
        stdout.split(separator: "\n", omittingEmptySubsequences: true).last.map(String.init)
    }

    var description: String {
        let how = timedOut ? "TIMED OUT" : signaled ? "killed by signal \(status)" : "exit \(status)"
        return "\(how) after \(String(format: "%.1f", seconds)) s\n--- stdout:\n\(stdout.suffix(2000))\n--- stderr:\n\(stderr.suffix(3000))"
    }
}

/// Resumes one waiter exactly once, whichever of termination and timeout comes first.
private final class OnceResult: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Bool?
    private var continuation: CheckedContinuation<Bool, Never>?

    func finish(_ exited: Bool) {
        lock.lock()
        guard value == nil else { lock.unlock(); return }
        value = exited
        let c = continuation
        continuation = nil
        lock.unlock()
        c?.resume(returning: exited)
    }

    func wait() async -> Bool {
        await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
            lock.lock()
            if let value {
                lock.unlock()
                c.resume(returning: value)
            } else {
                continuation = c
                lock.unlock()
            }
        }
    }
}

/// Runs `executable` with `arguments`, capturing stdout and stderr (to files, so a
/// chatty child can never block on a full pipe). Kills it after `timeout`.
func runProcess(_ executable: String, _ arguments: [String], timeout: Double = 120,
                currentDirectory: String? = nil) async throws -> ProcessResult {
    let io = try TempDir("proc")
    defer { io.remove() }
    _ = FileManager.default.createFile(atPath: io.file("out"), contents: nil)
    _ = FileManager.default.createFile(atPath: io.file("err"), contents: nil)
    let out = try FileHandle(forWritingTo: URL(fileURLWithPath: io.file("out")))
    let err = try FileHandle(forWritingTo: URL(fileURLWithPath: io.file("err")))
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
    let once = OnceResult()
    process.terminationHandler = { _ in once.finish(true) }
    let start = Date()
    try process.run()
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { once.finish(false) }
    let exited = await once.wait()
    if !exited {
        process.terminate()
        let pid = process.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + 3) { if process.isRunning { kill(pid, SIGKILL) } }
        process.waitUntilExit()
    } else {
        process.waitUntilExit() // returns at once; makes terminationReason final
    }
    try? out.close()
    try? err.close()
    let stdout = (try? Data(contentsOf: URL(fileURLWithPath: io.file("out")))) ?? Data()
    let stderr = (try? Data(contentsOf: URL(fileURLWithPath: io.file("err")))) ?? Data()
    return ProcessResult(status: process.terminationStatus,
                         signaled: process.terminationReason == .uncaughtSignal,
                         timedOut: !exited, stdoutData: stdout,
                         stderr: String(decoding: stderr, as: UTF8.self),
                         seconds: Date().timeIntervalSince(start))
}

/// Whether `/usr/bin/env arguments...` exits 0 (a probe for optional tools and Python modules).
func commandSucceeds(_ arguments: [String]) -> Bool {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = arguments
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    guard (try? p.run()) != nil else { return false }
    p.waitUntilExit()
    return p.terminationStatus == 0
}

/// Runs a tool found on PATH (ImageMagick, vips, exiftool).
func runTool(_ name: String, _ arguments: [String], timeout: Double = 120) async throws -> ProcessResult {
    for dir in ["/usr/bin", "/usr/local/bin", "/bin"] {
        let candidate = (dir as NSString).appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: candidate) {
            return try await runProcess(candidate, arguments, timeout: timeout)
        }
    }
    throw TestFailure("\(name) is not installed (make deps installs it)")
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

// MARK: - The CLI

enum CLI {
    /// The `shiying` binary: $SHIYING_BIN, else <root>/.build/debug/shiying, else
    /// .build/release/shiying, else built once with `swift build --product shiying`.
    static func binary() async throws -> String { try await locator.value }

    private static let locator = Task<String, Error> {
        let fm = FileManager.default
        if let env = ProcessInfo.processInfo.environment["SHIYING_BIN"], fm.isExecutableFile(atPath: env) {
            return env
        }
        for config in ["debug", "release"] {
            let path = Paths.packageRoot.appendingPathComponent(".build/\(config)/shiying").path
            if fm.isExecutableFile(atPath: path) { return path }
        }
        let swift = ["/opt/swift/usr/bin/swift", "/usr/bin/swift"].first { fm.isExecutableFile(atPath: $0) } ?? "swift"
        let build = try await runProcess(swift, ["build", "--product", "shiying"], timeout: 1200,
                                         currentDirectory: Paths.packageRoot.path)
        let path = Paths.packageRoot.appendingPathComponent(".build/debug/shiying").path
        guard build.succeeded, fm.isExecutableFile(atPath: path) else {
            throw TestFailure("could not build the shiying CLI: \(build)")
        }
        return path
    }

    static func run(_ arguments: [String], timeout: Double = 120) async throws -> ProcessResult {
        try await runProcess(try await binary(), arguments, timeout: timeout)
    }

    /// `shiying collage … --json`; returns the process result and the parsed last line (if it parsed).
    static func collage(_ arguments: [String], timeout: Double = 120) async throws -> (ProcessResult, CollageJSON?) {
        let result = try await run(["collage"] + arguments + ["--json"], timeout: timeout)
        let json = result.lastLine.flatMap { try? CollageJSON.parse($0) }
        return (result, json)
    }
}

/// The `collage --json` report (the CLI's contract: snake_case keys).
struct CollageJSON: Decodable, Sendable {
    var width: Int
    var height: Int
    var cells: Int
    var greyCells: [Int]
    var greyReasons: [String]
    var overBudgetCells: [Int]
    var scaledToFit: Bool
    var scaleFactor: Double
    var peakRssDeltaBytes: UInt64
    var enginePeakBytes: UInt64
    var cellPeakBytes: UInt64
    var gainMap: String?
    var gainMapCells: [String]?
    var seconds: Double

    static func parse(_ line: String) throws -> CollageJSON {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(CollageJSON.self, from: Data(line.utf8))
    }
}

/// The `probe --json` report.
struct ProbeJSON: Decodable, Sendable {
    var format: String
    var width: Int
    var height: Int
    var storedWidth: Int
    var storedHeight: Int
    var orientation: Int
    var progressive: Bool

    static func parse(_ line: String) throws -> ProbeJSON {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(ProbeJSON.self, from: Data(line.utf8))
    }
}

// MARK: - Cached fixtures

/// Fixture folders under <root>/.build/test-fixtures/<name>, created once.
/// Within this process an actor makes concurrent tests share one build; across
/// processes the folder is built under a unique temporary name and renamed into
/// place (a loser of the race discards its copy), with a `.complete` marker.
actor FixtureCache {
    static let shared = FixtureCache()
    private var building: [String: Task<String, Error>] = [:]

    func dir(_ name: String, make: @escaping @Sendable (String) async throws -> Void) async throws -> String {
        if let task = building[name] { return try await task.value }
        let task = Task<String, Error> {
            let fm = FileManager.default
            let final = Paths.fixtures.appendingPathComponent(name).path
            let marker = (final as NSString).appendingPathComponent(".complete")
            if fm.fileExists(atPath: marker) { return final }
            try fm.createDirectory(at: Paths.fixtures, withIntermediateDirectories: true)
            let scratch = Paths.fixtures.appendingPathComponent(".\(name).build-\(getpid())-\(UUID().uuidString.prefix(6))").path
            try? fm.removeItem(atPath: scratch)
            try fm.createDirectory(atPath: scratch, withIntermediateDirectories: true)
            do {
                try await make(scratch)
                _ = fm.createFile(atPath: (scratch as NSString).appendingPathComponent(".complete"), contents: Data())
            } catch {
                try? fm.removeItem(atPath: scratch)
                throw error
            }
            if fm.fileExists(atPath: final) && !fm.fileExists(atPath: marker) { try? fm.removeItem(atPath: final) }
            if rename(scratch, final) != 0 { try? fm.removeItem(atPath: scratch) } // another process won
            guard fm.fileExists(atPath: marker) else { throw TestFailure("fixture \(name) was not created") }
            return final
        }
        building[name] = task
        return try await task.value
    }

    /// Sample photos (`SamplePhotos.write`) cached as a fixture; returns their paths in order.
    func samples(_ name: String, count: Int, seed: UInt64, width: Int, height: Int,
                 progressive: Bool = false) async throws -> [String] {
        let dir = try await dir(name) { scratch in
            _ = try SamplePhotos.write(count: count, seed: seed, width: width, height: height,
                                       progressive: progressive, to: scratch)
        }
        return (1...count).map { (dir as NSString).appendingPathComponent(String(format: "sample-%04d.jpg", $0)) }
    }
}

/// Standard small photo sets (640x480 stored; index % 3 == 1 is a portrait with orientation 6).
enum Photos {
    /// 6 photos, 640x480 stored, seed 7.
    static func small() async throws -> [String] {
        try await FixtureCache.shared.samples("small6", count: 6, seed: 7, width: 640, height: 480)
    }
}

// MARK: - Layout arithmetic (mirrors CSources/pipelines/collage/layout.c and grid.c)

struct Rect: Sendable, Equatable, CustomStringConvertible {
    var x, y, width, height: Int
    var description: String { "\(width)x\(height)+\(x)+\(y)" }
}

enum ExpectedLayout {
    /// Long layout, margin 0, spacing 0: each cell is `width` wide and
    /// lround(width * h / w) tall (at least 2), rounded up to even when `even`
    /// (JPEG output, 4:2:0); an unreadable input (nil) gets a 4:3 slot.
    static func long(_ sizes: [(w: Int, h: Int)?], width: Int, even: Bool) -> [Rect] {
        let inner = even ? width & ~1 : width
        var y = 0
        return sizes.map { size in
            let aspect = size.map { Double($0.h) / Double($0.w) } ?? 0.75
            var h = max(Int((Double(inner) * aspect).rounded(.toNearestOrAwayFromZero)), 2)
            if even { h = (h + 1) & ~1 }
            defer { y += h }
            return Rect(x: 0, y: y, width: inner, height: h)
        }
    }
}

// MARK: - ImageMagick oracle

struct RGB: Sendable, CustomStringConvertible {
    var r, g, b: Double
    var description: String { String(format: "(%.1f, %.1f, %.1f)", r, g, b) }
    func maxDifference(_ o: RGB) -> Double { max(abs(r - o.r), abs(g - o.g), abs(b - o.b)) }
}

enum Magick {
    private static let meanFormat = "%[fx:mean.r*255] %[fx:mean.g*255] %[fx:mean.b*255]\\n"

    private static func parseMeans(_ text: String) throws -> [RGB] {
        try text.split(separator: "\n").map { line in
            let v = line.split(separator: " ").compactMap { Double($0) }
            guard v.count == 3 else { throw TestFailure("unexpected ImageMagick output: \(line)") }
            return RGB(r: v[0], g: v[1], b: v[2])
        }
    }

    private static func convert(_ args: [String]) async throws -> ProcessResult {
        let result = try await runTool("convert", args)
        guard result.succeeded else { throw TestFailure("convert \(args.joined(separator: " ")) failed: \(result)") }
        return result
    }

    /// `identify` width and height of the first frame.
    static func size(_ path: String) async throws -> (width: Int, height: Int) {
        let r = try await runTool("identify", ["-ping", "-format", "%w %h\\n", path])
        guard r.succeeded, let line = r.stdout.split(separator: "\n").first else {
            throw TestFailure("identify rejected \(path): \(r)")
        }
        let v = line.split(separator: " ").compactMap { Int($0) }
        guard v.count == 2 else { throw TestFailure("identify output \(line)") }
        return (v[0], v[1])
    }

    /// `vipsheader` width and height.
    static func vipsSize(_ path: String) async throws -> (width: Int, height: Int) {
        let w = try await runTool("vipsheader", ["-f", "width", path])
        let h = try await runTool("vipsheader", ["-f", "height", path])
        guard w.succeeded, h.succeeded, let width = Int(w.stdout.trimmingCharacters(in: .whitespacesAndNewlines)),
              let height = Int(h.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        else { throw TestFailure("vipsheader rejected \(path): \(w) \(h)") }
        return (width, height)
    }

    /// Copies region `r` of `path` to a PNG with vips (Debian's ImageMagick policy
    /// refuses images taller than 16K px, vips has no such limit).
    static func vipsCrop(_ path: String, _ r: Rect, to output: String) async throws {
        let run = try await runTool("vips", ["crop", path, output, "\(r.x)", "\(r.y)", "\(r.width)", "\(r.height)"])
        guard run.succeeded else { throw TestFailure("vips crop \(path) \(r): \(run)") }
    }

    /// Mean RGB (0...255) of a region.
    static func mean(_ path: String, _ r: Rect) async throws -> RGB {
        let out = try await convert([path, "-crop", r.description, "+repage", "-format", meanFormat, "info:"])
        guard let first = try parseMeans(out.stdout).first else { throw TestFailure("no mean for \(path)") }
        return first
    }

    /// Mean RGB of each block of an n x n split (row-major) of region `r` of `path`.
    static func blockMeans(_ path: String, region r: Rect, grid n: Int = 4) async throws -> [RGB] {
        let out = try await convert([path, "-crop", r.description, "+repage", "-crop", "\(n)x\(n)@", "+repage",
                                     "-format", meanFormat, "info:"])
        let means = try parseMeans(out.stdout)
        guard means.count == n * n else { throw TestFailure("expected \(n * n) blocks, got \(means.count)") }
        return means
    }

    /// Block means of `src` after ImageMagick operations (e.g. -auto-orient -resize WxH!).
    static func referenceBlockMeans(_ src: String, operations: [String], grid n: Int = 4) async throws -> [RGB] {
        // +gravity: a -gravity set by the operations would otherwise shift the tiles.
        let out = try await convert([src] + operations + ["+gravity", "-crop", "\(n)x\(n)@", "+repage",
                                                          "-format", meanFormat, "info:"])
        let means = try parseMeans(out.stdout)
        guard means.count == n * n else { throw TestFailure("expected \(n * n) blocks, got \(means.count)") }
        return means
    }

    /// Raw 8-bit RGB pixels of a region, row-major.
    static func pixels(_ path: String, _ r: Rect) async throws -> [UInt8] {
        let out = try await convert([path, "-crop", r.description, "+repage", "-depth", "8", "rgb:-"])
        let bytes = [UInt8](out.stdoutData)
        guard bytes.count == r.width * r.height * 3 else {
            throw TestFailure("expected \(r.width * r.height * 3) bytes of \(r), got \(bytes.count)")
        }
        return bytes
    }
}

/// Largest per-channel difference over corresponding blocks, with a description for failures.
func blockDifference(_ got: [RGB], _ want: [RGB]) -> (max: Double, report: String) {
    var worst = 0.0
    var lines: [String] = []
    for (i, (g, w)) in zip(got, want).enumerated() {
        let d = g.maxDifference(w)
        worst = max(worst, d)
        lines.append("block \(i): got \(g) want \(w) diff \(String(format: "%.1f", d))")
    }
    return (worst, lines.joined(separator: "\n"))
}

/// Compares each cell of `output` with ImageMagick's rendering of its source.
/// `operations(rect)` gives the reference pipeline for a cell of that size.
func expectCellsMatch(output: String, cells: [(index: Int, source: String, rect: Rect)], tolerance: Double,
                      operations: (Rect) -> [String],
                      sourceLocation: SourceLocation = #_sourceLocation) async throws {
    for cell in cells {
        let got = try await Magick.blockMeans(output, region: cell.rect)
        let want = try await Magick.referenceBlockMeans(cell.source, operations: operations(cell.rect))
        let (worst, report) = blockDifference(got, want)
        print("cell \(cell.index) \(cell.rect) of \((output as NSString).lastPathComponent): worst block difference \(String(format: "%.2f", worst)) (tolerance \(tolerance))")
        #expect(worst <= tolerance,
                "cell \(cell.index) (\(cell.source)) at \(cell.rect) differs from ImageMagick by \(worst) levels:\n\(report)",
                sourceLocation: sourceLocation)
    }
}

/// Every pixel of `rect` in `path` equals `rgb` exactly; returns the number of mismatches (and records one issue).
@discardableResult
func expectExactColour(_ path: String, _ rect: Rect, _ rgb: (UInt8, UInt8, UInt8), _ what: String,
                       sourceLocation: SourceLocation = #_sourceLocation) async throws -> Int {
    let px = try await Magick.pixels(path, rect)
    var bad = 0
    var first: String?
    for i in stride(from: 0, to: px.count, by: 3) where px[i] != rgb.0 || px[i + 1] != rgb.1 || px[i + 2] != rgb.2 {
        bad += 1
        if first == nil {
            let p = i / 3
            first = "(\(rect.x + p % rect.width), \(rect.y + p / rect.width)) is (\(px[i]), \(px[i + 1]), \(px[i + 2]))"
        }
    }
    #expect(bad == 0, "\(what) \(rect): \(bad) pixels are not \(rgb); first: \(first ?? "-")",
            sourceLocation: sourceLocation)
    return bad
}

extension ExpectedLayout {
    /// Grid layout without 4:2:0 rounding (PNG output), the template for the
    /// photo count (mirrors grid.c's rows; not its three-photo portrait-first
    /// template). Rows: base columns 2/3/4/5/6 up to 4/9/16/25/30 photos, the photos
    /// spread evenly over ceil(n / columns) rows, shorter rows on top. Each row is
    /// as tall as its width over the sum of its photos' aspects (width/height in
    /// 1/4096 units, clamped to 3:4 … 4:3); cell edges are rounded cumulative
    /// fractions of the row, so the row fills the inner width exactly.
    static func grid(sizes: [(w: Int, h: Int)], width: Int, spacing: Int, margin: Int) -> (rects: [Rect], height: Int) {
        let n = sizes.count
        let base = n <= 4 ? 2 : n <= 9 ? 3 : n <= 16 ? 4 : n <= 25 ? 5 : 6
        let rows = (n + base - 1) / base
        let perRow = (0..<rows).map { n / rows + ($0 >= rows - n % rows ? 1 : 0) }
        func rounded(_ p: Int, _ q: Int) -> Int { (2 * p + q) / (2 * q) }
        let aspects = sizes.map { min(max(rounded($0.w * 4096, $0.h), 3072), 5461) }
        let inner = width - 2 * margin
        var rects: [Rect] = []
        var y = margin
        for k in perRow {
            let row = aspects[rects.count..<(rects.count + k)]
            let avail = inner - (k - 1) * spacing, total = row.reduce(0, +)
            let height = rounded(avail * 4096, total)
            var cum = 0, left = 0
            for (j, a) in row.enumerated() {
                cum += a
                let right = j + 1 == k ? avail : rounded(avail * cum, total)
                rects.append(Rect(x: margin + j * spacing + left, y: y, width: right - left, height: height))
                left = right
            }
            y += height + spacing
        }
        return (rects, y - spacing + margin)
    }
}

/// A list a CLI JSON report holds under `key` ("kept", "dropped", "movie_kept", ...), as names: string items
/// as they are, object items by their "name". Looked up in the report itself or in its "video" / "save" part
/// (compress, Live saves).
func reportNames(_ run: ProcessResult, _ key: String) throws -> [String] {
    let json = try JSONSerialization.jsonObject(with: Data((run.lastLine ?? "").utf8)) as? [String: Any]
    let report = (json?["video"] as? [String: Any]) ?? (json?["save"] as? [String: Any]) ?? json
    return (report?[key] as? [String]) ?? (report?[key] as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []
}
