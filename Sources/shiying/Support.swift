import Foundation
import Shiying

/// One-line JSON for `--json` reports (snake_case keys, sorted).
enum JSONReport {
    static func line(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

/// The one check of `-o` for commands that write one file: not `-` (outputs
/// are written to a temporary file and renamed into place, which a pipe cannot
/// be), and an extension that names the format written. Returns that format.
/// - Parameters:
///   - formats: extension (lowercased, no dot) → the format it names.
///   - chosen: the `--format` given, if any; it must agree with the extension.
func outputFormat(_ path: String, command: String, formats: KeyValuePairs<String, String>,
                  chosen: String? = nil) throws -> String {
    let names = formats.map { "." + $0.key }.joined(separator: ", ")
    guard path != "-" else {
        throw UsageError("\(command): -o - (standard output) is not supported; outputs are written to a temporary file "
                         + "and renamed into place. Name a file (\(names))")
    }
    let ext = (path as NSString).pathExtension.lowercased()
    guard let implied = formats.first(where: { $0.key == ext })?.value else {
        if ext.isEmpty {
            throw UsageError("\(path): the name has no extension to say the format; \(command) writes \(names)")
        }
        throw UsageError("\(path): \(command) writes \(names); .\(ext) names none of them")
    }
    if let chosen, chosen != implied {
        throw UsageError("\(path): --format \(chosen) disagrees with the extension .\(ext) (\(implied))")
    }
    return implied
}

/// The still formats `convert` and `edit` write, by extension.
let stillFormats: KeyValuePairs<String, String> = ["jpg": "jpeg", "jpeg": "jpeg", "png": "png", "heic": "heic", "heif": "heic"]

/// Runs async work from the synchronous CLI (the calling thread waits).
/// Ctrl-C cancels the task (`Interruption`), so Swift work that checks for
/// cancellation (a library import between batches) stops too.
func blocking<T: Sendable>(_ work: sending @escaping () async throws -> T) throws -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    let task = Task {
        do { box.result = .success(try await work()) } catch { box.result = .failure(error) }
        done.signal()
    }
    let registration = Interruption.onInterrupt { task.cancel() }
    done.wait()
    Interruption.remove(registration)
    // A Live check a deadline abandoned was told to stop; let it leave the
    // engine before this process exits (issue 20: no crash at exit).
    _ = LiveVerifier<ContinuousClock>.waitForRunningChecks()
    return try box.result!.get()
}

private final class ResultBox<T: Sendable>: @unchecked Sendable {
    var result: Result<T, Error>?
}

/// Writes `data` to standard error with write(2), ignoring failures: a reader
/// that went away (EPIPE, `| head`) or a full disk must not stop the job
/// (FileHandle's write traps on them).
func writeStderr(_ data: Data) {
    data.withUnsafeBytes { raw in
        var at = 0
        while at < raw.count {
            let n = write(2, raw.baseAddress! + at, raw.count - at)
            if n > 0 { at += n } else if n < 0 && errno == EINTR { continue } else { return }
        }
    }
}
