import Foundation
import Shiying
import ShiyingLibrary
import ShiyingOrganize

/// `shiying collage ... --motion MODE --export TIER -o DIR IN...` — a moving
/// collage (issue 17). Reached from `collage` when --motion, --export or
/// --live is given; the still collage's behaviour is untouched otherwise.
enum MotionCollageCommand {
    static let spec = CommandSpec(
        path: ["collage"], summary: "a moving collage exported as a Live photo, an MP4 or a still (issue 17)",
        operands: [OperandSpec("IN", .oneOrMore, "the photos, in order; at most 30", missing: "no input photos")],
        options: [
            .choice("motion", ["together", "relay", "focus"], "how the Live cells move", default: "together"),
            .choice("export", ["live", "video", "still"], "what is written", default: "live"),
            .pair("live", "STILL", "MOVIE", "a Live pair named explicitly, in place among the inputs"),
            .output("DIR", "the folder written into"),
            .path("library", "LIB", "deposit the collage into this library's 「拾映创作」 instead (SPEC C9): a Live photo, the movie or the still"),
            .choice("layout", ["grid", "long"], "grid or long image", default: "grid"),
            .int("columns", "N", 1...30, "grid columns (default: chosen for the count)"),
            .int("width", "PX", 64...8192, "canvas width", default: 1080),
            .int("spacing", "PX", 0...1024, "space between cells"),
            .int("margin", "PX", 0...1024, "space around the canvas"),
            .int("hero", "N", 0...29, "the input (0-based) that leads in focus mode"),
            .choice("format", ["jpeg", "heic"], "the still's format", aliases: ["jpg": "jpeg"], default: "jpeg"),
            .int("quality", "Q", 1...100, "still quality", default: 92),
            .int("fps", "F", 1...60, "movie frame rate", default: 30),
            .int("bitrate", "BPS", 100_000...200_000_000, "movie bitrate in bits per second (default: SPEC C14)"),
            .text("preset", "P", "x265 preset"),
            .text("name", "NAME", "the files' stem (no /)"),
            .int("threads", "N", 0...64, "decode threads (0 = one per core)"),
            .flag("allow-sdr", "consent to dropping a key photo's HDR gain map the still cannot keep, or an HDR Live movie's HDR (the movie is SDR; SPEC E6)"),
            .json,
        ],
        oneOf: ["output", "library"],
        notes: ["A still is a Live cell when a same-stem .MOV beside it shares its content identifier.",
                "Writes DIR/NAME.jpg|heic and DIR/NAME.mov (live) or DIR/NAME.mp4 (video).",
                "Sound: relay plays each Live cell's in its turn, focus the hero's, together none; the MP4 has it as one AAC-LC track."],
        formTitle: "moving collage", selectors: ["motion", "export", "live"], run: { try run($0) })

    static func run(_ parsed: ParsedArguments) throws -> Int32 {
        guard let layout = parsed.string("layout").flatMap(CollageRequest.Layout.init(rawValue:)),
              let mode = parsed.string("motion").flatMap(MovingCollageRequest.Mode.init(rawValue:)),
              let tier = parsed.string("export").flatMap(MovingCollageRequest.Tier.init(rawValue:)),
              let format = parsed.string("format").flatMap(MovingCollageRequest.StillFormat.init(rawValue:)) else {
            preconditionFailure("the table's choices and defaults match the request's cases")
        }
        let library = parsed.string("library")
        guard let directory = parsed.string("output") ?? library else {
            throw UsageError("collage --motion: -o DIR (or --library LIB) is required")
        }
        let inputs: [MovingCollageRequest.Input] = parsed.items.map { item in
            switch item {
            case let .operand(still): return .init(still: still)
            case let .pair(_, still, movie): return .init(still: still, movie: movie)
            }
        }
        guard inputs.count <= 30 else { throw UsageError("a moving collage takes at most 30 photos") }

        var request = MovingCollageRequest(inputs: inputs, directory: directory)
        request.layout = layout
        request.mode = mode
        request.tier = tier
        request.format = format
        if let width = parsed.int("width") { request.width = width }
        request.columns = parsed.int("columns")
        request.spacing = parsed.int("spacing")
        request.margin = parsed.int("margin")
        if let hero = parsed.int("hero") {
            guard hero < inputs.count else {
                throw UsageError("--hero expects a whole number in 0...\(inputs.count - 1), got \(hero)")
            }
            request.hero = hero
        }
        if let quality = parsed.int("quality") { request.quality = quality }
        if let fps = parsed.int("fps") { request.fps = fps }
        request.bitrate = parsed.int("bitrate")
        request.preset = parsed.string("preset")
        if let threads = parsed.int("threads") { request.threads = threads }
        if let name = parsed.string("name") {
            guard !name.isEmpty, !name.contains("/") else { throw UsageError("--name is a file name without /") }
            request.name = name
        }
        request.allowSDR = parsed.has("allow-sdr")
        request.measureProcessPeak = true

        let progress = ProgressReporter(label: "collage --motion")
        let wanted = request
        let report: MovingCollageReport
        var deposited: LibraryOutputReport?
        do {
            if let library {
                let opened = try PhotoLibrary(at: library)
                let result = try blocking {
                    try await LibraryWorkflows.movingCollage(wanted, into: opened, progress: progress.report)
                }
                (report, deposited) = (result.collage, result.library)
            } else {
                report = try blocking { try await MovingCollage.export(wanted, progress: progress.report) }
            }
        } catch let error as ShiyingError where error.code == .unsupported && error.message.contains("allow_sdr") {
            progress.finish()
            throw consentInCLITerms(error)
        } catch {
            progress.finish()
            throw error
        }
        progress.finish()
        for cell in report.cells where !cell.live {
            if let reason = cell.reason {
                writeStderr(Data("shiying: input \(cell.index) \(cell.grey ? "painted grey" : "static"): \(reason)\n".utf8))
            }
        }
        if let reason = report.fallbackReason {
            writeStderr(Data("shiying: delivered as \(report.delivered.rawValue): \(reason)\n".utf8))
        }
        if let asked = request.hero, let hero = report.hero, asked != hero {
            writeStderr(Data("shiying: --hero \(asked) is not a Live photo that plays; input \(hero), the first that does, leads\n".utf8))
        }
        if let deposited {
            // the files now live in the library: its report (id, album, files) is the line
            if parsed.json { print(try JSONReport.line(LibraryExitJSON(deposited, conversion: MotionCollageJSON(report)))) }
            else { print("\(deposited.files.joined(separator: " ")): asset \(deposited.id) in 「\(deposited.album)」 (\(report.delivered.rawValue))") }
        } else if parsed.json {
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
    /// When each cell's clip starts on the movie's timeline, in input order (null: the cell does not move).
    let cellStarts: [Nullable<Double>]
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
    let audioCodec: Nullable<String>
    let audioBitrate: Int
    let bitrate: UInt64
    let colorSpace: String
    let gainMap: String
    let movieHdr: String
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
        cellStarts = r.cells.map { Nullable(value: $0.startSeconds) }
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
        audioCodec = Nullable(value: r.audioCodec)
        audioBitrate = r.audioBitrate
        bitrate = r.bitrate
        colorSpace = r.colorSpace
        gainMap = r.gainMap
        movieHdr = r.movieHDR
        enginePeakBytes = r.enginePeakBytes
        peakRssDeltaBytes = r.peakRSSDeltaBytes ?? 0
        seconds = r.seconds
    }
}
