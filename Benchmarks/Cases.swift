// The benchmark cases: one long image (width 1080, JPEG Q90) from the first N
// inputs, each produced by a separate child process (or a pipeline of them).
import Foundation

enum BenchCase: String, CaseIterable {
    case strip = "shiying-strip"
    case naive = "shiying-naive"
    case imagemagick = "imagemagick"
    case imagemagickShrink = "imagemagick-shrink"
    case vipsCLI = "vips-cli"
    case pyvips = "pyvips"
    case pyvipsPipeline = "pyvips-pipeline"

    var isShiying: Bool { self == .strip || self == .naive }
    var isVips: Bool { self == .vipsCLI || self == .pyvips || self == .pyvipsPipeline }
    var isImageMagick: Bool { self == .imagemagick || self == .imagemagickShrink }

    /// What the row runs (recorded in the JSON).
    var method: String {
        switch self {
        case .strip: return "shiying collage --layout long --width 1080 --format jpeg --quality 90 --json -o OUT IN..."
        case .naive: return "shiying collage --layout long --width 1080 --format jpeg --quality 90 --json --naive -o OUT IN..."
        case .imagemagick: return "convert IN... -auto-orient -resize 1080x -append -quality 90 OUT (raised policy.xml limits)"
        case .imagemagickShrink:
            return "convert -define jpeg:size=\(magickShrinkHint) IN... -auto-orient -resize 1080x -append -quality 90 OUT (raised policy.xml limits)"
        case .vipsCLI:
            return "vips thumbnail IN t.tif 1080 --height 10000000 (each); vipsheader -f height; vips arrayjoin --across 1 per equal-height run; vips join vertical tree -> OUT[Q=90]"
        case .pyvips: return "python3 Benchmarks/vips_longimage.py --variant V OUT IN... (Image.thumbnail, arrayjoin runs + join tree, Q=90)"
        case .pyvipsPipeline:
            return "python3 Benchmarks/vips_longimage.py --variant pipeline OUT IN... (new_from_file sequential shrink=2, autorot when tagged, resize lanczos3, join tree, Q=90 subsample on)"
        }
    }
}

/// Everything a case needs to run.
struct BenchContext {
    var shiying: String
    var pyScript: String
    var pyvipsVariant: String
    var outputDirectory: String    // final images, one per case and N
    var scratchDirectory: String   // vips-cli intermediates, captured stdio
    var magickConfigDirectory: String
    var width = 1080
    var quality = 90
}

/// `shiying collage --json` report (last stdout line).
struct ShiyingReport: Codable {
    var width: Int?
    var height: Int?
    var cells: Int?
    var greyCells: Int?
    var peakRSSDeltaBytes: Int?
    var enginePeakBytes: Int?
    var seconds: Double?

    init(jsonLine: String) throws {
        guard let object = try JSONSerialization.jsonObject(with: Data(jsonLine.utf8)) as? [String: Any] else {
            throw SpawnError(description: "last stdout line is not a JSON object: \(jsonLine.prefix(200))")
        }
        func int(_ key: String) -> Int? { (object[key] as? NSNumber)?.intValue }
        width = int("width"); height = int("height"); cells = int("cells")
        greyCells = int("grey_cells")
        peakRSSDeltaBytes = int("peak_rss_delta_bytes")
        enginePeakBytes = int("engine_peak_bytes")
        seconds = (object["seconds"] as? NSNumber)?.doubleValue
    }
}

/// One measured run of one case.
struct RunMeasurement {
    var seconds: Double
    var maxRSSKiB: Int
    var userSeconds: Double = 0
    var steps: Int
    var shiying: ShiyingReport?
}

/// ImageMagick 6 on Debian ships a policy.xml capping height at 16K pixels,
/// memory at 256 MiB and disk at 1 GiB; a 1080-wide strip of 20+ photos fails
/// ("cache resources exhausted") and convert still writes a truncated image.
/// A policy.xml earlier on MAGICK_CONFIGURE_PATH raises those caps.
let magickPolicy = """
    <policymap>
      <policy domain="resource" name="memory" value="16GiB"/>
      <policy domain="resource" name="map" value="16GiB"/>
      <policy domain="resource" name="disk" value="16GiB"/>
      <policy domain="resource" name="area" value="16GP"/>
      <policy domain="resource" name="width" value="256KP"/>
      <policy domain="resource" name="height" value="256KP"/>
    </policymap>

    """

/// libjpeg DCT shrink-on-load hint for 4032x3024 inputs. IM 6.9 truncates
/// min(4032/w, 3024/h) to an integer scale, so the suggested 2160x1620 (ratio
/// 1.87) is a no-op; 2016x1512 is the largest hint that gives the 1/2 scale,
/// still >= 1080 px on the short side, so portraits keep full output quality.
let magickShrinkHint = "2016x1512"

func runCase(_ benchCase: BenchCase, n: Int, inputs: [String], context: BenchContext) throws -> RunMeasurement {
    let output = "\(context.outputDirectory)/\(benchCase.rawValue)-N\(n).jpg"
    var pipeline = Pipeline(captureDirectory: context.scratchDirectory)
    var report: ShiyingReport?

    switch benchCase {
    case .strip, .naive:
        var argv = [context.shiying, "collage", "--layout", "long", "--width", "\(context.width)",
                    "--format", "jpeg", "--quality", "\(context.quality)", "--json"]
        if benchCase == .naive { argv.append("--naive") }
        let result = try pipeline.run(argv + ["-o", output] + inputs)
        guard let line = result.lastStdoutLine else { throw SpawnError(description: "no --json output") }
        report = try ShiyingReport(jsonLine: line)

    case .imagemagick, .imagemagickShrink:
        var argv = ["convert"]
        if benchCase == .imagemagickShrink { argv += ["-define", "jpeg:size=\(magickShrinkHint)"] }
        argv += inputs + ["-auto-orient", "-resize", "\(context.width)x", "-append",
                          "-quality", "\(context.quality)", output]
        let result = try pipeline.run(argv, extraEnvironment: ["MAGICK_CONFIGURE_PATH": context.magickConfigDirectory])
        // convert reports resource exhaustion on stderr yet may exit 0 with a truncated image
        if result.stderr.contains("@ error/") || result.stderr.contains("@ fatal/") {
            throw SpawnError(description: "convert: " + String(result.stderr.prefix(400)))
        }

    case .vipsCLI:
        try runVipsCLI(inputs: inputs, output: output, context: context, pipeline: &pipeline)

    case .pyvips, .pyvipsPipeline:
        let variant = benchCase == .pyvips ? context.pyvipsVariant : "pipeline"
        try pipeline.run(["python3", context.pyScript, "--variant", variant,
                          "--width", "\(context.width)", "--quality", "\(context.quality)", output] + inputs)
    }
    return RunMeasurement(seconds: pipeline.elapsedSeconds, maxRSSKiB: pipeline.maxRSSKiB,
                          userSeconds: pipeline.userSeconds, steps: pipeline.steps, shiying: report)
}

/// vips command-line pipeline:
///  1. `vips thumbnail IN tNNNN.tif 1080 --height 10000000` per input
///     (shrink-on-load + auto-rotate; uncompressed TIFF because
///     `vips arrayjoin` on .v inputs segfaults in vips 8.14.1),
///  2. one `vipsheader -f height` over all thumbnails,
///  3. `vips arrayjoin --across 1` per run of equal-height thumbnails
///     (arrayjoin pads every cell to the tallest image, so mixed heights
///     cannot go through a single arrayjoin),
///  4. a balanced tree of `vips join … vertical` over the runs; the last
///     step (or the single arrayjoin / copy) writes OUT.jpg[Q=90].
func runVipsCLI(inputs: [String], output: String, context: BenchContext, pipeline: inout Pipeline) throws {
    let tmp = context.scratchDirectory + "/vips-cli"
    try? FileManager.default.removeItem(atPath: tmp)
    try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: tmp) }
    let finalTarget = "\(output)[Q=\(context.quality)]"

    var thumbs: [String] = []
    for (index, input) in inputs.enumerated() {
        let number = String(index + 1)
        let thumb = "\(tmp)/t\(String(repeating: "0", count: max(0, 4 - number.count)))\(number).tif"
        try pipeline.run(["vips", "thumbnail", input, thumb, "\(context.width)", "--height", "10000000"])
        thumbs.append(thumb)
    }
    let heights = try pipeline.run(["vipsheader", "-f", "height"] + thumbs).stdout
        .split(whereSeparator: \.isNewline).compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    guard heights.count == thumbs.count else { throw SpawnError(description: "vipsheader: bad output") }

    // runs of equal height
    var runs: [[String]] = []
    var runHeight = -1
    for (thumb, height) in zip(thumbs, heights) {
        if height == runHeight { runs[runs.count - 1].append(thumb) } else { runs.append([thumb]) }
        runHeight = height
    }
    if runs.count == 1 {
        let run = runs[0]
        try pipeline.run(run.count == 1 ? ["vips", "copy", run[0], finalTarget]
                                        : ["vips", "arrayjoin", run.joined(separator: " "), finalTarget, "--across", "1"])
        return
    }
    var blocks: [String] = []
    for (index, run) in runs.enumerated() {
        if run.count == 1 { blocks.append(run[0]); continue }
        let block = "\(tmp)/run\(index).v"
        try pipeline.run(["vips", "arrayjoin", run.joined(separator: " "), block, "--across", "1"])
        blocks.append(block)
    }
    var level = 0
    while blocks.count > 1 {
        level += 1
        var next: [String] = []
        for pair in stride(from: 0, to: blocks.count - 1, by: 2) {
            let target = blocks.count == 2 ? finalTarget : "\(tmp)/join\(level)-\(pair).v"
            try pipeline.run(["vips", "join", blocks[pair], blocks[pair + 1], target, "vertical"])
            next.append(target)
        }
        if blocks.count % 2 == 1 { next.append(blocks[blocks.count - 1]) }
        blocks = next
    }
}

/// Output dimensions via one `vipsheader` (not timed).
func imageSize(_ path: String, scratch: String) -> (width: Int, height: Int)? {
    guard let result = try? runChild(["vipsheader", "-f", "width", path], captureDirectory: scratch),
          let result2 = try? runChild(["vipsheader", "-f", "height", path], captureDirectory: scratch),
          let w = Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)),
          let h = Int(result2.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) else { return nil }
    return (w, h)
}
