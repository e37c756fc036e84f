import Foundation
import Shiying

/// shiying — Shiying Core's command-line tool.
let usage = """
    usage:
      \(CollageCommand.usage)
      \(SampleCommand.usage)
      \(ProbeCommand.usage)
      \(ConvertCommand.usage)
      \(CompressCommand.usage)
      \(EditCommand.usage)
      \(HDRCommand.usage)
      \(FiltersCommand.usage)
      \(DatePhraseCommand.usage)
      \(RecentCommand.usage)
      \(VideoCommand.usage)
      \(OrganizeCommand.usage)
      \(LiveCommand.usage)
      \(LibraryCommand.usage)
      \(SearchCommand.usage)
    """

/// The tool's version (this source tree's release line).
let shiyingVersion = "0.3.0"

/// Each command's own usage, printed by `shiying COMMAND --help`.
let commandUsage: [String: String] = [
    "collage": CollageCommand.usage, "sample-photos": SampleCommand.usage, "probe": ProbeCommand.usage,
    "convert": ConvertCommand.usage, "edit": EditCommand.usage, "hdr": HDRCommand.usage,
    "filters": FiltersCommand.usage, "date-phrase": DatePhraseCommand.usage, "recent": RecentCommand.usage,
    "video": VideoCommand.usage, "organize": OrganizeCommand.usage, "live": LiveCommand.usage,
    "library": LibraryCommand.usage, "search": SearchCommand.usage, "compress": CompressCommand.usage,
]

func runMain() -> Int32 {
    var args = Array(CommandLine.arguments.dropFirst())
    guard !args.isEmpty else {
        FileHandle.standardError.write(Data("\(usage)\n".utf8))
        return 2
    }
    let command = args.removeFirst()
    if command == "--version" || command == "version" {
        print("shiying \(shiyingVersion)")
        return 0
    }
    if let first = args.first, first == "-h" || first == "--help", let own = commandUsage[command] {
        print("usage:\n\(own)")  // `live --help`: before the subcommand is looked at
        return 0
    }
    do {
        switch command {
        case "collage": return try CollageCommand.run(args)
        case "sample-photos": return try SampleCommand.run(args)
        case "probe": return try ProbeCommand.run(args)
        case "convert": return try ConvertCommand.run(args)
        case "compress": return try CompressCommand.run(args)
        case "edit": return try EditCommand.run(args)
        case "hdr": return try HDRCommand.run(args)
        case "filters": return try FiltersCommand.run(args)
        case "date-phrase": return try DatePhraseCommand.run(args)
        case "recent": return try RecentCommand.run(args)
        case "video": return try VideoCommand.run(args)
        case "organize": return try OrganizeCommand.run(args)
        case "live": return try LiveCommand.run(args)
        case "library": return try LibraryCommand.run(args)
        case "search": return try SearchCommand.run(args)
        case "-h", "--help", "help":
            print(usage)
            return 0
        default:
            throw UsageError("unknown command \(command)\n\(usage)")
        }
    } catch is HelpRequest {
        print(commandUsage[command].map { "usage:\n\($0)" } ?? usage)
        return 0
    } catch let error as UsageError {
        FileHandle.standardError.write(Data("shiying: \(error.description)\n".utf8))
        return 2
    } catch let error as ShiyingError {
        FileHandle.standardError.write(Data("shiying: \(error.message)\n".utf8))
        if args.contains("--json") {
            let payload = ["error": error.message, "code": error.code.description]
            if let line = try? JSONReport.line(payload) { print(line) }
        }
        return 1
    } catch {
        FileHandle.standardError.write(Data("shiying: \(error)\n".utf8))
        return 1
    }
}

exit(runMain())
