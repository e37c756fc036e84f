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
        FileHandle.standardError.write(Data("\(Help.overview())\n".utf8))
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
        FileHandle.standardError.write(Data("shiying: \(error.description)\n".utf8))
        if wantsJSON(args), let line = try? JSONReport.line(["error": error.description, "code": "usage"]) {
            print(line) // --json's last line is JSON whatever went wrong
        }
        return 2
    } catch let error as ShiyingError {
        FileHandle.standardError.write(Data("shiying: \(error.message)\n".utf8))
        if wantsJSON(args) {
            let payload = ["error": error.message, "code": error.code.description]
            if let line = try? JSONReport.line(payload) { print(line) }
        }
        return error.code == .usage ? 2 : 1 // a bad value the engine caught (a preset, a time, the output an input)
    } catch let error as LibraryError {
        // SPEC D4 and the library's other failures: the sentence, then the cause
        FileHandle.standardError.write(Data("shiying: \(error.description)\n".utf8))
        if wantsJSON(args), let line = try? JSONReport.line(["error": error.message, "kind": error.kind.rawValue,
                                                             "detail": error.detail]) {
            print(line)
        }
        return 1
    } catch {
        if Interruption.happened { return 130 } // "interrupted; stopping" said it
        FileHandle.standardError.write(Data("shiying: \(error)\n".utf8))
        if wantsJSON(args), let line = try? JSONReport.line(["error": "\(error)"]) { print(line) }
        return 1
    }
}

/// `--json` before `--`: failures are reported as a JSON line too.
private func wantsJSON(_ args: [String]) -> Bool {
    args[..<(args.firstIndex(of: "--") ?? args.endIndex)].contains("--json")
}

Interruption.install()
let status = runMain()
exit(Interruption.happened ? 130 : status)
