import Foundation
import Shiying
import ShiyingLibrary

/// shiying — Shiying Core's command-line tool.

/// The tool's version (this source tree's release line).
let shiyingVersion = "0.3.0"

/// Every command, in the order `shiying --help` lists them; each table is beside its command.
let commandTable: [CommandSpec] = [
    CollageCommand.spec, SampleCommand.spec, ProbeCommand.spec, ConvertCommand.spec, CompressCommand.spec,
    EditCommand.spec, HDRCommand.spec, FiltersCommand.spec, DatePhraseCommand.spec, RecentCommand.spec,
    VideoCommand.spec, OrganizeCommand.spec, LiveCommand.spec, LibraryCommand.spec, SearchCommand.spec,
    HelpCommand.spec,
]

func runMain() -> Int32 {
    let args = Array(CommandLine.arguments.dropFirst())
    guard let command = args.first else {
        writeStderr(Data("\(Help.overview())\n".utf8))
        return 2
    }
    switch command {
    case "--version", "version":
        print("shiying \(shiyingVersion)")
        return 0
    case "-h", "--help":
        print(Help.overview())
        return 0
    default:
        break
    }
    do {
        let (spec, rest) = try CommandResolver.resolve(args, in: commandTable)
        let parsed = try ParsedArguments(rest, spec: spec)
        guard let run = spec.run else { preconditionFailure("\(spec.name) has no run") }
        return try run(parsed)
    } catch let help as HelpRequest {
        print(HelpCommand.text(for: help.path))
        return 0
    } catch let error as UsageError {
        return fail(args, error.description, json: ["error": error.description, "code": "usage"], status: 2)
    } catch let error as ShiyingError {
        // a bad value the engine caught (a preset, a time, the output an input) is a usage error too
        return fail(args, error.message, json: ["error": error.message, "code": error.code.description],
                    status: error.code == .usage ? 2 : 1)
    } catch let error as LibraryError {
        // SPEC D4 and the library's other failures: the sentence, then the cause
        return fail(args, error.description,
                    json: ["error": error.message, "code": error.kind.rawValue, "kind": error.kind.rawValue,
                           "detail": error.detail], status: 1)
    } catch {
        if Interruption.happened || error is CancellationError { // "interrupted; stopping" said why
            return fail(args, "stopped; nothing more was written", json: ["error": "interrupted", "code": "cancelled"],
                        status: 130)
        }
        return fail(args, "\(error)", json: ["error": "\(error)"], status: 1)
    }
}

/// A failure: its sentence on stderr and, with `--json`, a JSON line as the last line of stdout.
private func fail(_ args: [String], _ message: String, json: [String: String], status: Int32) -> Int32 {
    writeStderr(Data("shiying: \(message)\n".utf8))
    if wantsJSON(args), let line = try? JSONReport.line(json) { print(line) }
    return status
}

/// `--json` before `--`: failures are reported as a JSON line too.
private func wantsJSON(_ args: [String]) -> Bool {
    args[..<(args.firstIndex(of: "--") ?? args.endIndex)].contains("--json")
}

Interruption.install()
let status = runMain()
// A job that finished before the interruption reached it wrote its output whole: its status stands.
var exitStatus = status
if Interruption.happened {
    if status == 0 {
        writeStderr(Data("shiying: the job had finished; its output is complete\n".utf8))
    } else {
        exitStatus = 130
    }
}
// What stdout could not take (a full disk, a closed pipe) is a failure, not a silent loss.
if fflush(nil) != 0 {
    writeStderr(Data("shiying: standard output could not be written: \(String(cString: strerror(errno)))\n".utf8))
    if exitStatus == 0 { exitStatus = 1 }
}
exit(exitStatus)
