import Foundation
import Shiying

/// `shiying collage ... --motion MODE --export TIER -o DIR IN...` — a moving
/// collage (issue 17). Reached from `collage` when --motion, --export or
/// --live is given; the still collage's behaviour is untouched otherwise.
enum MotionCollageCommand {
    static let usage = """
        shiying collage --layout grid|long [--columns N] [--width 1080] [--spacing PX] [--margin PX]
                        --motion together|relay|focus [--hero N] --export live|video|still
                        [--format jpeg|heic] [--quality Q] [--fps F] [--bitrate BPS] [--preset P] [--name NAME]
                        [--json] -o DIR [--live STILL MOVIE]... IN...
          A still is a Live cell when a same-stem .MOV beside it shares its content identifier;
          --live names a pair explicitly (in place among the inputs). Writes DIR/NAME.jpg|heic and
          DIR/NAME.mov (live) or DIR/NAME.mp4 (video).
        """

    static func wanted(_ args: [String]) -> Bool {
        args.contains { ["--motion", "--export", "--live"].contains($0.split(separator: "=").first.map(String.init) ?? $0) }
    }

    /// `--live STILL MOVIE` pairs become placeholders among the positionals, so the order is kept.
    private static func extractPairs(_ args: [String]) throws -> ([String], [MovingCollageRequest.Input]) {
        var rest: [String] = [], pairs: [MovingCollageRequest.Input] = []
        var i = 0
        while i < args.count {
            if args[i] == "--" { rest += args[i...]; break }
            if args[i] == "--live" {
                guard i + 2 < args.count else { throw UsageError("--live needs STILL MOVIE") }
                rest.append("\u{1}live:\(pairs.count)")
                pairs.append(.init(still: args[i + 1], movie: args[i + 2]))
                i += 3
                continue
            }
            rest.append(args[i])
            i += 1
        }
        return (rest, pairs)
    }

    static func run(_ args: [String]) throws -> Int32 {
        let (rest, pairs) = try extractPairs(args)
        let parsed = try Arguments(rest, booleans: ["json"])
        try parsed.rejectUnknown(["layout", "columns", "width", "spacing", "margin", "motion", "hero", "export", "format",
                                  "quality", "fps", "bitrate", "preset", "name", "threads", "o", "output"])
        guard let layoutName = parsed.options["layout"] ?? Optional("grid"),
              let layout = CollageRequest.Layout(rawValue: layoutName) else { throw UsageError("--layout long|grid") }
        guard let modeName = parsed.options["motion"] ?? Optional("together"),
              let mode = MovingCollageRequest.Mode(rawValue: modeName) else {
            throw UsageError("--motion together|relay|focus")
        }
        guard let tierName = parsed.options["export"] ?? Optional("live"),
              let tier = MovingCollageRequest.Tier(rawValue: tierName) else { throw UsageError("--export live|video|still") }
        let formatName = parsed.options["format"] ?? "jpeg"
        guard let format = MovingCollageRequest.StillFormat(rawValue: formatName == "jpg" ? "jpeg" : formatName) else {
            throw UsageError("--format jpeg|heic")
        }
        guard let directory = parsed.options["o"] ?? parsed.options["output"] else { throw UsageError("-o DIR is required") }
        let inputs: [MovingCollageRequest.Input] = parsed.positionals.map { arg in
            if arg.hasPrefix("\u{1}live:"), let n = Int(arg.dropFirst(6)) { return pairs[n] }
            return .init(still: arg)
        }
        guard !inputs.isEmpty else { throw UsageError("no input photos\n\(usage)") }
        guard inputs.count <= 30 else { throw UsageError("a moving collage takes at most 30 photos") }

        var request = MovingCollageRequest(inputs: inputs, directory: directory)
        request.layout = layout
        request.mode = mode
        request.tier = tier
        request.format = format
        if let width = try parsed.int("width", in: 64...8192) { request.width = width }
        request.columns = try parsed.int("columns", in: 1...30)
        request.spacing = try parsed.int("spacing", in: 0...1024)
        request.margin = try parsed.int("margin", in: 0...1024)
        request.hero = try parsed.int("hero", in: 0...(inputs.count - 1))
        if let quality = try parsed.int("quality", in: 1...100) { request.quality = quality }
        if let fps = try parsed.int("fps", in: 1...60) { request.fps = fps }
        request.bitrate = try parsed.int("bitrate", in: 100_000...200_000_000)
        request.preset = parsed.options["preset"]
        if let threads = try parsed.int("threads", in: 0...64) { request.threads = threads }
        if let name = parsed.options["name"] {
            guard !name.isEmpty, !name.contains("/") else { throw UsageError("--name is a file name without /") }
            request.name = name
        }
        request.measureProcessPeak = true

        let progress = StderrProgress(label: "collage --motion")
        let wanted = request
        let report = try blocking { try await MovingCollage.export(wanted, progress: progress.report) }
        progress.finish()
        for cell in report.cells where !cell.live {
            if let reason = cell.reason {
                FileHandle.standardError.write(Data("shiying: input \(cell.index) \(cell.grey ? "painted grey" : "static"): \(reason)\n".utf8))
            }
        }
        if let reason = report.fallbackReason {
            FileHandle.standardError.write(Data("shiying: delivered as \(report.delivered.rawValue): \(reason)\n".utf8))
        }
        if parsed.has("json") {
            print(try JSONReport.line(MotionCollageJSON(report)))
        } else {
            print("\(([report.still] + (report.movie.map { [$0] } ?? [])).joined(separator: " ")): "
                  + "\(report.delivered.rawValue) \(report.width)x\(report.height), \(report.frames) frames, "
                  + String(format: "%.2f s of movie in %.2f s", report.durationSeconds, report.seconds)
                  + (report.caption.isEmpty ? "" : " — \(report.caption)"))
        }
        return 0
    }
}

/// An optional that is written as `null` instead of being left out: the line's keys are its contract.
struct Nullable<Value: Encodable>: Encodable {
    let value: Value?
    func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        if let value { try container.encode(value) } else { try container.encodeNil() }
    }
}

/// The `--json` line (snake_case keys; absent values are null).
struct MotionCollageJSON: Encodable {
    let delivered: String
    let fallbackReason: Nullable<String>
    let caption: String
    let mode: String
    let staticCells: [Int]
    let greyCells: [Int]
    let liveCells: [Int]
    let cellReasons: [String: String]
    /// Each cell on the canvas as [x, y, width, height], in input order.
    let cellRects: [[Int]]
    let still: String
    let movie: Nullable<String>
    let contentIdentifier: Nullable<String>
    let width: Int
    let height: Int
    let hero: Nullable<Int>
    let frames: Int
    let durationSeconds: Double
    let stillTime: Double
    let stillFrame: Int
    let audioTracks: Int
    let bitrate: UInt64
    let enginePeakBytes: UInt64
    let peakRssDeltaBytes: UInt64
    let seconds: Double

    init(_ r: MovingCollageReport) {
        delivered = r.delivered.rawValue
        fallbackReason = Nullable(value: r.fallbackReason)
        caption = r.caption
        mode = r.mode.rawValue
        staticCells = r.staticCells
        greyCells = r.greyCells
        liveCells = r.cells.filter(\.live).map(\.index)
        cellRects = r.cells.map { [$0.x, $0.y, $0.width, $0.height] }
        cellReasons = Dictionary(uniqueKeysWithValues: r.cells.compactMap { c in c.reason.map { (String(c.index), $0) } })
        still = r.still
        movie = Nullable(value: r.movie)
        contentIdentifier = Nullable(value: r.contentIdentifier)
        width = r.width
        height = r.height
        hero = Nullable(value: r.hero)
        frames = r.frames
        durationSeconds = r.durationSeconds
        stillTime = r.stillTime
        stillFrame = r.stillFrame
        audioTracks = r.audioTracks
        bitrate = r.bitrate
        enginePeakBytes = r.enginePeakBytes
        peakRssDeltaBytes = r.peakRSSDeltaBytes ?? 0
        seconds = r.seconds
    }
}
