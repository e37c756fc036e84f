import Foundation
internal import CShiying

/// A long image or grid collage request (SPEC C12, C13).
public struct CollageRequest: Sendable, Codable, Equatable {
    /// How the photos are arranged.
    public enum Layout: String, Sendable, Codable {
        /// One column: every photo at the full width, stacked top to bottom.
        case long
        /// Rows of cells shaped to their photos, or N equal columns.
        case grid
    }
    /// The collage file's encoding.
    public enum Format: String, Sendable, Codable {
        /// JPEG.
        case jpeg
        /// PNG.
        case png
        /// HEIC (x265 grid tiles; an HDR collage keeps its gain map as iPhones store it).
        case heic

        /// The file name extension a collage of this format gets.
        public var fileExtension: String {
            switch self {
            case .jpeg: "jpg"
            case .png: "png"
            case .heic: "heic"
            }
        }
    }

    /// Long image or grid.
    public var layout: Layout
    /// The photos' paths, in cell order.
    public var inputs: [String]
    /// The collage file's path.
    public var output: String
    /// Output width in pixels.
    public var width: Int = 1080
    /// Grid columns; nil picks the template for the photo count (rows of
    /// different lengths, cells shaped to their photos); N = rows of N equal
    /// cells, a short last row widened to fill the width.
    public var columns: Int? = nil
    /// Pixels between cells; nil = 0 for long, 8 for grid.
    public var spacing: Int? = nil
    /// Outer margin; nil = 0 for long, 8 for grid.
    public var margin: Int? = nil
    /// Background (spacing and margins) as RGB.
    public var background: [UInt8] = [255, 255, 255]
    /// The collage file's encoding.
    public var format: Format = .jpeg
    /// JPEG / HEIC quality 1...100.
    public var quality: Int = 90
    /// Decode every input fully into one canvas (benchmark baseline only).
    public var naive: Bool = false
    /// Decode threads; 0 = one per core (at most 4).
    public var threads: Int = 0
    /// Fail instead of shrinking the canvas when a JPEG would exceed 65,500 px (a HEIC 32,768: libheif's limit).
    public var failWhenTooTall: Bool = false
    /// SPEC E6 consent: a photo's HDR gain map that the collage cannot keep
    /// (a PNG collage, a map that cannot be read or interpreted) is dropped
    /// instead of the job being refused. A JPEG or HEIC collage keeps every
    /// readable map in one gain map for the canvas either way.
    public var allowSDR: Bool = false
    /// Measure the process's peak resident set over the job (`peakRSSDeltaBytes`).
    /// Off by default: it restarts the kernel's peak counter (`/proc/self/clear_refs`)
    /// for the whole process, which a host app may be reading.
    public var measureProcessPeak: Bool = false

    /// A request with file-system paths and the defaults above.
    public init(layout: Layout, inputs: [String], output: String) {
        self.layout = layout
        self.inputs = inputs
        self.output = output
    }

    /// A request with file URLs.
    /// - Throws: `ShiyingError` (`.usage`) naming a URL that is not a file URL.
    public init(layout: Layout, inputs: [URL], output: URL) throws {
        self.init(layout: layout, inputs: try inputs.map { try $0.shiyingPath("input") },
                  output: try output.shiyingPath("output"))
    }

    /// Refuses values the engine would otherwise clamp or ignore.
    /// - Throws: `ShiyingError` (`.usage`) naming the field.
    public func validate() throws {
        try validateBackground(background)
        try validateRange("width", width, 1...65_500)
        try validateRange("quality", quality, 1...100)
        try validateRange("threads", threads, 0...64)
        if let columns { try validateRange("columns", columns, 1...1_000) }
        if let spacing { try validateRange("spacing", spacing, 0...10_000) }
        if let margin { try validateRange("margin", margin, 0...10_000) }
    }
}

/// A background must be exactly three bytes (R, G, B).
func validateBackground(_ background: [UInt8]) throws {
    guard background.count == 3 else {
        throw ShiyingError(code: .usage, message: "background has \(background.count) values; give 3 (R, G, B)")
    }
}

/// A numeric option inside its range.
func validateRange(_ name: String, _ value: Int, _ range: ClosedRange<Int>) throws {
    guard range.contains(value) else {
        throw ShiyingError(code: .usage, message: "\(name) \(value) is outside \(range.lowerBound)...\(range.upperBound)")
    }
}

/// What a collage job did, with its measured memory.
public struct CollageReport: Sendable, Codable, Equatable {
    /// An input painted grey because it could not be read.
    public struct GreyCell: Sendable, Codable, Equatable {
        /// Position of the input in the request.
        public var index: Int
        /// Why it could not be read (the engine's message).
        public var reason: String
    }
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// Cells on the canvas (one per input).
    public var cells: Int
    /// Inputs painted neutral grey (128,128,128), with why.
    public var greyCells: [GreyCell]
    /// Inputs whose decoder needed more than the cell-memory cap
    /// (progressive JPEG coefficient buffers, full HEIF decodes).
    public var overBudgetCells: [Int]
    /// True when the canvas was shrunk to stay within JPEG's 65,500 px.
    public var scaledToFit: Bool
    /// The factor the canvas was scaled by (1 unless `scaledToFit`).
    public var scaleFactor: Double
    /// The C engine's accounting-allocator peak (plus charged codec estimates).
    public var enginePeakBytes: UInt64
    /// Peak bytes of prepared cells held at once.
    public var cellPeakBytes: UInt64
    /// Peak resident set during the job minus the resident set before it;
    /// nil unless the request asked for `measureProcessPeak`.
    public var peakRSSDeltaBytes: UInt64?
    /// "Display P3" (tagged with its profile: an input was wider than sRGB) or "sRGB" (untagged).
    public var colorSpace: String
    /// The collage's HDR gain map: "kept" (one map for the canvas), "dropped"
    /// (photos had maps, none could be kept, with consent) or "none" (no photo had one).
    public var gainMap: String
    /// Per cell, in input order: "kept", "dropped" or "sdr" (the photo has no gain map).
    public var cellGainMaps: [String]
    /// The written gain map's size in pixels (0 when none).
    public var gainMapWidth: Int
    /// The written gain map's height in pixels (0 when none).
    public var gainMapHeight: Int
    /// The gain map's headroom, linear (the largest of the cells'); 0 when none.
    public var gainMapHeadroom: Double
    /// The forms the map is written in ("apple-gain-map", "ultra-hdr-gain-map", "iso-21496-gain-map").
    public var gainMapForms: [String]
    /// Why a photo's gain map was dropped (the first one), or nil.
    public var gainMapDropReason: String?
    /// Wall-clock seconds the job took.
    public var seconds: Double
}

/// Long images and grid collages rendered strip by strip (SPEC C12, C13).
public enum Collage {
    /// Renders a collage, blocking the calling thread (`sy_collage_render`);
    /// prefer the async `render` in Swift concurrency code.
    /// Memory: one 16-row strip, the cells open at that strip and the cells
    /// prepared ahead (≤ 6 MiB, one per decode thread), independent of the number of photos.
    /// - Parameters:
    ///   - request: layout, inputs, output path and encoding.
    ///   - progress: one non-decreasing fraction, on the calling thread.
    ///   - cancel: handed a closure that cancels the job from any thread.
    /// - Throws: `CancellationError` when cancelled; `ShiyingError` —
    ///   `.invalidInput` when no input is readable, `.usage` for impossible
    ///   options, `.budget` for a too-tall JPEG when `failWhenTooTall`,
    ///   `.io`/`.codec` when writing fails.
    ///   Nothing is left at `request.output` on failure.
    public static func renderBlocking(_ request: CollageRequest,
                                      progress: ((ShiyingProgress) -> Void)? = nil,
                                      cancel: CancelHook? = nil) throws -> CollageReport {
        try request.validate()
        let meter = ProgressMeter.make(.collage, progress)
        let engine = try EngineContext(progress: meter?.report)
        cancel?({ [engine] in engine.cancel() })
        var options = sy_collage_options()
        sy_collage_options_init(&options, request.layout == .grid ? SY_LAYOUT_GRID : SY_LAYOUT_LONG)
        options.width = UInt32(clamping: request.width)
        if let columns = request.columns { options.columns = UInt32(clamping: columns) }
        if let spacing = request.spacing { options.spacing = UInt32(clamping: spacing) }
        if let margin = request.margin { options.margin = UInt32(clamping: margin) }
        options.background = (request.background[0], request.background[1], request.background[2])
        options.format = switch request.format {
        case .jpeg: SY_STILL_JPEG
        case .png: SY_STILL_PNG
        case .heic: SY_STILL_HEIC
        }
        options.quality = Int32(clamping: request.quality)
        options.naive = request.naive ? 1 : 0
        options.threads = Int32(clamping: request.threads)
        options.too_tall = request.failWhenTooTall ? 1 : 0
        options.allow_sdr = request.allowSDR ? 1 : 0

        var report = sy_collage_report()
        var error = sy_error()
        let clock = ContinuousClock()
        let start = clock.now
        let job = {
            withCStrings(request.inputs) { paths in
                sy_collage_render(engine.raw, paths, UInt32(request.inputs.count), &options, request.output, &report, &error)
            }
        }
        var rssDelta: UInt64? = nil
        let status: sy_status
        if request.measureProcessPeak {
            let measured = ProcessMemory.measure(job)
            (status, rssDelta) = (measured.0, measured.peakDeltaBytes)
        } else {
            status = job()
        }
        let elapsed = clock.now - start
        defer { sy_collage_report_free(&report) }
        try check(status, error, file: request.output)
        meter?.finish()

        let grey = (0..<Int(report.grey_count)).map { i in
            let failure = report.grey[i]
            return CollageReport.GreyCell(index: Int(failure.index), reason: cString(failure.reason))
        }
        let over = (0..<Int(report.over_budget_count)).map { Int(report.over_budget[$0]) }
        let cellStates = ["sdr", "kept", "dropped"]
        let cellHDR = report.cell_hdr.map { states in
            (0..<Int(report.cells)).map { cellStates[min(Int(states[$0]), 2)] }
        } ?? Array(repeating: "sdr", count: Int(report.cells))
        let dropReason = cString(report.hdr_detail)
        return CollageReport(
            width: Int(report.width), height: Int(report.height), cells: Int(report.cells),
            greyCells: grey, overBudgetCells: over, scaledToFit: report.scaled_to_fit != 0,
            scaleFactor: report.scale_factor, enginePeakBytes: report.engine_peak_bytes,
            cellPeakBytes: report.cell_peak_bytes, peakRSSDeltaBytes: rssDelta,
            colorSpace: report.display_p3 != 0 ? "Display P3" : "sRGB",
            gainMap: report.hdr == SY_HDR_KEPT ? "kept" : report.hdr == SY_HDR_DROPPED_WITH_CONSENT ? "dropped" : "none",
            cellGainMaps: cellHDR, gainMapWidth: Int(report.gain_map_width), gainMapHeight: Int(report.gain_map_height),
            gainMapHeadroom: report.gain_map_headroom,
            gainMapForms: Array(keptMetadata(exif: 0, captureDate: 0, gps: 0, xmp: 0, icc: 0,
                                             gainMapForms: report.gain_map_forms).dropFirst()),
            gainMapDropReason: dropReason.isEmpty ? nil : dropReason,
            seconds: elapsed.seconds)
    }

    /// Renders a collage on its own thread (never a cooperative-pool thread).
    /// Memory as `renderBlocking`. Cancelling the task sets the engine's
    /// cancellation flag, polled once per strip: the job throws
    /// `CancellationError` and nothing is left at `request.output`.
    /// - Parameters:
    ///   - request: layout, inputs, output path and encoding.
    ///   - progress: one non-decreasing fraction for the whole job, from the engine's thread.
    /// - Throws: as `renderBlocking`.
    public static func render(_ request: CollageRequest,
                              progress: (@Sendable (ShiyingProgress) -> Void)? = nil) async throws -> CollageReport {
        try await runOffPool { cancel in try renderBlocking(request, progress: progress, cancel: cancel) }
    }
}

/// Holds the engine's cancel action until it exists; cancels at once if asked earlier.
final class CancelRelay: @unchecked Sendable {
    private let lock = NSLock()
    private var action: (@Sendable () -> Void)?
    private var fired = false

    func install(_ action: @escaping @Sendable () -> Void) {
        lock.lock()
        self.action = action
        let already = fired
        lock.unlock()
        if already { action() }
    }

    func fire() {
        lock.lock()
        fired = true
        let action = self.action
        lock.unlock()
        action?()
    }
}

/// Runs a blocking engine call on its own thread (never a cooperative-pool
/// thread) and relays Swift task cancellation to the engine's cancel action,
/// which the call installs through the closure it is given.
func runOffPool<T: Sendable>(_ body: @escaping @Sendable (_ cancel: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) throws -> T)
    async throws -> T {
    let canceller = CancelRelay()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try body({ canceller.install($0) }) })
            }
        }
    } onCancel: {
        canceller.fire()
    }
}

extension Duration {
    /// The duration in seconds, for reports.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}

/// Calls `body` with a C array of C strings valid for its duration.
func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let duplicates = strings.map { strdup($0) }
    defer { duplicates.forEach { free($0) } }
    let pointers = duplicates.map { UnsafePointer($0) }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
