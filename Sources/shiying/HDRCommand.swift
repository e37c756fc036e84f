import Foundation
import Shiying

/// `shiying hdr info IN... [--json]` (issue 7): the gain map of each photo —
/// its form, size, headroom, min/max/gamma and base rendition.
enum HDRCommand {
    static let spec = CommandSpec(
        path: ["hdr"], summary: "HDR gain maps (issue 7)",
        subcommands: [
            CommandSpec(path: ["hdr", "info"], summary: "each photo's gain map: form, size, headroom, min/max/gamma, base rendition; exit 1 if one cannot be read",
                        operands: [OperandSpec("IN", .oneOrMore, "the photos", missing: "at least one photo")],
                        options: [.json], run: { try run($0) }),
        ])

    static func run(_ parsed: ParsedArguments) throws -> Int32 {
        var failed = false
        for path in parsed.positionals {
            do {
                let info = try GainMapInfo.probe(path)
                if parsed.json {
                    struct Line: Encodable { let file: String; let gainMap: GainMapInfo }
                    print(try JSONReport.line(Line(file: path, gainMap: info)))
                } else {
                    print(describe(path, info))
                }
            } catch let error as ShiyingError {
                failed = true
                writeStderr(Data("shiying: \(error.message)\n".utf8))
                if parsed.json { print(try JSONReport.line(["file": path, "error": error.message])) }
            }
        }
        return failed ? 1 : 0
    }

    static func describe(_ path: String, _ info: GainMapInfo) -> String {
        var text = "\(path): \(info.format) \(info.baseWidth)x\(info.baseHeight), gain map: \(info.kind) (\(info.detail))"
        if let w = info.gainMapWidth, let h = info.gainMapHeight { text += ", map \(w)x\(h)" }
        if let headroom = info.headroom { text += String(format: ", headroom %.3g", headroom) }
        if let min = info.gainMapMin, let max = info.gainMapMax, let gamma = info.gamma {
            text += ", log2 boost \(min)…\(max), gamma \(gamma)"
        }
        if let base = info.baseRendition { text += ", base \(base)" }
        return text
    }
}
