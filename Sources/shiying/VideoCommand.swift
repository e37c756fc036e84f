import Foundation
import Shiying

/// `shiying video info IN [--json]`
enum VideoCommand {
    static let usage = "shiying video info IN [--json]"

    static func run(_ args: [String]) throws -> Int32 {
        guard let sub = args.first, sub == "info" else { throw UsageError("video: unknown subcommand\n\(usage)") }
        let parsed = try Arguments(args.dropFirst(), booleans: ["json"])
        try parsed.rejectUnknown([])
        guard parsed.positionals.count == 1, let input = parsed.positionals.first else {
            throw UsageError("one input movie\n\(usage)")
        }
        let info = try VideoInfo.read(input)
        if parsed.has("json") {
            print(try JSONReport.line(info))
            return 0
        }
        let brand = info.brand.trimmingCharacters(in: .whitespaces)
        print("\(input): \(brand.isEmpty ? "no ftyp" : brand), \(String(format: "%.3f", info.durationSeconds)) s, \(info.tracks.count) tracks")
        for t in info.tracks {
            var line = "  track \(t.id) \(t.handler) \(t.codec.isEmpty ? "-" : t.codec)"
            if t.handler == "vide" {
                line += " \(t.width)x\(t.height)"
                if t.rotation != 0 { line += " rotated \(t.rotation)" }
                if let rate = t.frameRate { line += String(format: " %.3f fps", rate) }
            }
            if let channels = t.channels, let rate = t.sampleRate { line += " \(channels) ch \(Int(rate)) Hz" }
            line += " \(t.sampleCount) samples"
            if !t.enabled { line += " (disabled)" }
            if t.id == info.mainVideoTrackId { line += " (main)" }
            if !t.mebxKeys.isEmpty { line += " keys: \(t.mebxKeys.joined(separator: ", "))" }
            print(line)
        }
        for item in info.metadata {
            print("  \(item.key) = \(item.value ?? "<\(item.byteCount) bytes, type \(item.dataType)>")")
        }
        return 0
    }
}
