import Foundation

/// One-line JSON for `--json` reports (snake_case keys, sorted).
enum JSONReport {
    static func line(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

/// Progress on stderr, at most a few updates per second, one rewritten line on a terminal.
final class StderrProgress: @unchecked Sendable {
    private let label: String
    private var last = ContinuousClock.now
    private var shown = false
    private let isTerminal = isatty(2) != 0

    init(label: String) { self.label = label }

    func report(_ phase: String, _ done: UInt64, _ total: UInt64) {
        let now = ContinuousClock.now
        guard done == total || now - last > .milliseconds(250) else { return }
        last = now
        let percent = total > 0 ? Int(done * 100 / total) : 0
        let text = "\(label): \(phase) \(done)/\(total) (\(percent)%)"
        FileHandle.standardError.write(Data((isTerminal ? "\r\(text)\u{1B}[K" : "\(text)\n").utf8))
        shown = true
    }

    func finish() {
        if shown && isTerminal { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}

/// Runs async work from the synchronous CLI (the calling thread waits).
func blocking<T: Sendable>(_ work: sending @escaping () async throws -> T) throws -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        do { box.result = .success(try await work()) } catch { box.result = .failure(error) }
        done.signal()
    }
    done.wait()
    return try box.result!.get()
}

private final class ResultBox<T: Sendable>: @unchecked Sendable {
    var result: Result<T, Error>?
}
