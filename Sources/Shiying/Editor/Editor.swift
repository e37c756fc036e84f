// The editor's engine calls (issue 5; SPEC E2, E5, E7, S2): preview pixels,
// save to a file, and overwrite a library original behind the full-size
// gate. All three render through `sy_edit` — decode upright, the one
// renderer, the still writer with metadata — so a preview at the save size
// is byte for byte what the save encodes.
import Foundation
internal import CShiying

/// Renders and saves edited stills.
public enum Editor {
    /// Output file type (same names as conversions).
    public typealias Format = Conversion.Format

    /// Rendered pixels: RGB, 8 bits per channel, rows of `width * 3` bytes, top to bottom.
    public struct RenderedImage: Sendable, Equatable {
        /// Width in pixels.
        public var width: Int
        /// Height in pixels.
        public var height: Int
        /// `width * height * 3` bytes.
        public var pixels: [UInt8]
        /// The upright full size the file records.
        public var sourceSize: PixelSize
        /// What the decode produced (smaller than `sourceSize` for a reduced-scale preview decode).
        public var decodedSize: PixelSize
    }

    /// What a save wrote and carried over.
    public struct EditReport: Sendable, Codable, Equatable {
        /// The input file's path.
        public var input: String
        /// The output file's path.
        public var output: String
        /// The output format.
        public var format: Format
        /// Width in pixels.
        public var width: Int
        /// Height in pixels.
        public var height: Int
        /// The input's format ("jpeg", "png", "heic").
        public var sourceFormat: String
        /// Upright full size recorded in the input file.
        public var sourceWidth: Int
        /// Upright full height recorded in the input file.
        public var sourceHeight: Int
        /// Upright size the decode produced.
        public var decodedWidth: Int
        /// Upright height the decode produced.
        public var decodedHeight: Int
        /// EXIF-style orientation applied to the pixels (1 = none).
        public var appliedOrientation: Int
        /// Metadata carried over: any of "exif", "capture-date", "gps", "xmp", "icc"; for a kept
        /// gain map "hdr-gain-map" and its written forms ("apple-gain-map", "ultra-hdr-gain-map",
        /// "iso-21496-gain-map").
        public var kept: [String]
        /// Metadata not carried over, with the reason (a Live identifier, a Motion Photo claim, Exif over 64 KB in JPEG).
        public var dropped: [DroppedMetadata]
        /// The capture date (Exif form, local time), nil when unknown.
        public var captureDate: String?
        /// The recipe that was rendered.
        public var recipe: EditRecipe
        /// The C engine's accounting-allocator peak over the job, in bytes.
        public var enginePeakBytes: UInt64
        /// Wall-clock seconds the job took.
        public var seconds: Double
    }

    /// SPEC E2/E5 preview: the edited pixels at full size, or fitted inside `maxSize`.
    /// - Parameters:
    ///   - input: a JPEG, PNG or HEIC file.
    ///   - recipe: the edit to render.
    ///   - maxSize: target box (never above native resolution); nil = full size.
    /// - Throws: `EditRecipeError` for a bad recipe, `ShiyingError` naming the file and reason.
    public static func render(_ input: String, recipe: EditRecipe, maxSize: (width: Int, height: Int)? = nil) throws -> RenderedImage {
        try recipe.validateForEngine()
        let engine = try EngineContext()
        var options = try engineOptions(format: .png, quality: 90, maxSize: maxSize)
        return try recipe.withEngineRecipe { cRecipe in
            try EditJob(engine, input, cRecipe, &options).render(file: input)
        }
    }

    /// Saves the edited photo as a new file (temp file + rename; an existing
    /// file survives a failure). Capture date, GPS, Exif, XMP and ICC are
    /// carried over; the Exif orientation becomes 1. An HDR gain map is kept
    /// (SPEC E6); when it cannot be (e.g. PNG) this throws
    /// `HDRLossError.noConsentHook` and writes nothing: use `HDREditor.save`
    /// with `onHDRLoss`, or `HDREditor.saveSDR`, to write SDR.
    ///
    /// Runs on its own thread; cancelling the task stops the engine within a
    /// strip of rows (or a HEIF tile) and throws `CancellationError`, leaving
    /// nothing at `output`.
    /// - Parameters:
    ///   - input: a JPEG, PNG or HEIC file URL.
    ///   - recipe: the edit to render.
    ///   - output: the new file's URL (not the input).
    ///   - format: nil = from `output`'s extension.
    ///   - quality: JPEG/HEIC quality 1…100.
    ///   - maxSize: target box; nil = full size.
    ///   - progress: one non-decreasing fraction for the whole save, from the engine's thread.
    /// - Throws: `EditRecipeError`, `CancellationError`, or `ShiyingError`
    ///   (`.usage` for a non-file URL or when `output` is the input: overwriting
    ///   goes through `overwriteOriginal`).
    public static func save(_ input: URL, recipe: EditRecipe, to output: URL, format: Format? = nil,
                            quality: Int = 90, maxSize: PixelSize? = nil,
                            progress: (@Sendable (ShiyingProgress) -> Void)? = nil) async throws -> EditReport {
        let (source, target) = (try input.shiyingPath("input"), try output.shiyingPath("output"))
        let box = maxSize.map { (width: $0.width, height: $0.height) }
        return try await runOffPool { cancel in
            try saveBlocking(source, recipe: recipe, to: target, format: format, quality: quality, maxSize: box,
                             progress: progress, cancel: cancel)
        }
    }

    /// `save`, blocking the calling thread, with file-system paths (the CLI's form).
    /// `progress` gets one non-decreasing fraction on the calling thread; `cancel`
    /// is handed a closure that cancels the job from any thread (it then throws
    /// `CancellationError`).
    /// - Throws: as `save`.
    public static func saveBlocking(_ input: String, recipe: EditRecipe, to output: String, format: Format? = nil,
                                    quality: Int = 90, maxSize: (width: Int, height: Int)? = nil,
                                    progress: ((ShiyingProgress) -> Void)? = nil,
                                    cancel: CancelHook? = nil) throws -> EditReport {
        try recipe.validateForEngine()
        let format = try outputFormat(format, output)
        if sameFile(input, output) {
            throw ShiyingError(code: .usage, message: "\(output): is also an input (\(input)); the output must be another file "
                               + "(overwriteOriginal replaces the original)", file: output)
        }
        return try write(input, recipe: recipe, to: output, format: format, quality: quality, maxSize: maxSize,
                         flags: 0, progress: progress, cancel: cancel, gate: nil)
    }

    /// SPEC E7: renders `source` (default: the original itself) at full size
    /// and writes it over `original` only when the gate proves the pixels are
    /// the full-size original: the evidence is what this decode actually
    /// produced (decoded size, the header's full size, the file's size and
    /// SHA-256, and whether the file read is `original` itself), checked
    /// against the library's `record`. Refusal writes nothing; the write is
    /// temp file + rename. Cancelling the task throws `CancellationError` and
    /// leaves the original as it was.
    /// - Parameters:
    ///   - original: the library original's file URL.
    ///   - recipe: the edit to render.
    ///   - record: what the library recorded for the original (see `originalRecord(of:)`).
    ///   - source: the file to render from; nil = `original`.
    ///   - format: nil = from `original`'s extension.
    ///   - quality: JPEG/HEIC quality 1…100.
    ///   - progress: one non-decreasing fraction for the whole write.
    /// - Throws: `FullSizeGateError` (nothing written), `EditRecipeError`,
    ///   `CancellationError` or `ShiyingError`.
    public static func overwriteOriginal(_ original: URL, recipe: EditRecipe, record: OriginalRecord,
                                         renderingFrom source: URL? = nil, format: Format? = nil,
                                         quality: Int = 92,
                                         progress: (@Sendable (ShiyingProgress) -> Void)? = nil) async throws -> EditReport {
        try await saveVerified(original, recipe: recipe, record: record, renderingFrom: source, to: original,
                               format: format, quality: quality, progress: progress)
    }

    /// `overwriteOriginal`, blocking the calling thread, with file-system paths.
    /// - Throws: as `overwriteOriginal`.
    public static func overwriteOriginalBlocking(_ original: String, recipe: EditRecipe, record: OriginalRecord,
                                                 renderingFrom source: String? = nil, format: Format? = nil,
                                                 quality: Int = 92, progress: ((ShiyingProgress) -> Void)? = nil,
                                                 cancel: CancelHook? = nil) throws -> EditReport {
        try saveVerifiedBlocking(original, recipe: recipe, record: record, renderingFrom: source, to: original,
                                 format: format, quality: quality, progress: progress, cancel: cancel)
    }

    /// SPEC E7 for a library that keeps its originals and writes the edit as
    /// a new current version: the same gate as `overwriteOriginal` (the pixels
    /// must provably come from the full-size `original`, checked against the
    /// library's `record`), but the result goes to `output`. Refusal writes nothing.
    /// - Parameters:
    ///   - original: the library original's file URL.
    ///   - recipe: the edit to render.
    ///   - record: what the library recorded for the original.
    ///   - source: the file to render from; nil = `original`.
    ///   - output: where the new version goes.
    ///   - format: nil = from `output`'s extension.
    ///   - quality: JPEG/HEIC quality 1…100.
    ///   - progress: one non-decreasing fraction for the whole write.
    /// - Throws: `FullSizeGateError` (nothing written), `EditRecipeError`,
    ///   `CancellationError` or `ShiyingError`.
    public static func saveVerified(_ original: URL, recipe: EditRecipe, record: OriginalRecord,
                                    renderingFrom source: URL? = nil, to output: URL, format: Format? = nil,
                                    quality: Int = 92,
                                    progress: (@Sendable (ShiyingProgress) -> Void)? = nil) async throws -> EditReport {
        let original = try original.shiyingPath("original"), target = try output.shiyingPath("output")
        let source = try source.shiyingPath("source")
        return try await runOffPool { cancel in
            try saveVerifiedBlocking(original, recipe: recipe, record: record, renderingFrom: source, to: target,
                                     format: format, quality: quality, progress: progress, cancel: cancel)
        }
    }

    /// `saveVerified`, blocking the calling thread, with file-system paths.
    /// - Throws: as `saveVerified`.
    public static func saveVerifiedBlocking(_ original: String, recipe: EditRecipe, record: OriginalRecord,
                                            renderingFrom source: String? = nil, to output: String,
                                            format: Format? = nil, quality: Int = 92,
                                            progress: ((ShiyingProgress) -> Void)? = nil,
                                            cancel: CancelHook? = nil) throws -> EditReport {
        try recipe.validateForEngine()
        let input = source ?? original
        let format = try outputFormat(format, output)
        let origin: SourceEvidence.Origin = sameFile(input, original) ? .originalFile : .proxy
        let flags = UInt32(SY_EDIT_FULL_DECODE) | UInt32(SY_EDIT_IDENTIFY_SOURCE)
        return try write(input, recipe: recipe, to: output, format: format, quality: quality, maxSize: nil,
                         flags: flags, progress: progress, cancel: cancel) { job in
            let evidence = SourceEvidence(decodedSize: job.decodedSize, origin: origin, headerFullSize: job.sourceSize,
                                          fileIdentity: job.fileIdentity)
            try FullSizeGate.check(source: evidence, original: record)
        }
    }

    /// What a library records about an original when it is imported: its
    /// upright full size (header) and identity (size + SHA-256).
    /// - Throws: `ShiyingError` naming the file.
    public static func originalRecord(of path: String) throws -> OriginalRecord {
        let info = try ImageInfo.probe(path)
        return OriginalRecord(fullSize: PixelSize(width: info.width, height: info.height),
                              fileIdentity: try fileIdentity(path))
    }

    /// A file's byte size and SHA-256 (lowercase hex).
    /// - Throws: `ShiyingError` naming the file.
    public static func fileIdentity(_ path: String) throws -> FileIdentity {
        let engine = try EngineContext()
        var bytes: UInt64 = 0
        var hex = [CChar](repeating: 0, count: 65)
        var error = sy_error()
        try check(sy_file_identity(engine.raw, path, &bytes, &hex, &error), error, file: path)
        let digest = String(decoding: hex.prefix(64).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return FileIdentity(byteSize: Int64(bytes), contentDigest: digest)
    }

    // MARK: - Internals

    private static func write(_ input: String, recipe: EditRecipe, to output: String, format: Format, quality: Int,
                              maxSize: (width: Int, height: Int)?, flags: UInt32,
                              progress: ((ShiyingProgress) -> Void)?, cancel: CancelHook?,
                              gate: ((EditJob) throws -> Void)?) throws -> EditReport {
        let meter = ProgressMeter.make(.still, progress)
        let engine = try EngineContext(progress: meter?.report)
        cancel?({ [engine] in engine.cancel() })
        var options = try engineOptions(format: format, quality: quality, maxSize: maxSize)
        options.flags = flags
        let clock = ContinuousClock()
        let start = clock.now
        // SPEC E6: a gain-map photo keeps its gain map or is refused (HDRLossError); never silent SDR.
        // The engine decides (one probe); a gated write decodes the source once, for the gate and the save.
        let report = try recipe.withEngineRecipe { cRecipe in
            guard let gate else { return try HDREditor.writeKeepingGainMap(engine, input, output, cRecipe, &options) }
            let job = try EditJob(engine, input, cRecipe, &options)
            try gate(job)
            return try HDREditor.writeKeepingGainMap(job, input, output)
        }
        let elapsed = clock.now - start
        meter?.finish()
        return editReport(report, input: input, output: output, format: format, recipe: recipe,
                          peakBytes: engine.memoryStats.peakBytes,
                          seconds: elapsed.seconds)
    }

    /// The Swift report of a C edit report (shared with the HDR save).
    static func editReport(_ report: sy_edit_report, input: String, output: String, format: Format, recipe: EditRecipe,
                           peakBytes: UInt64, seconds: Double) -> EditReport {
        let kept = keptMetadata(exif: report.kept_exif, captureDate: report.kept_capture_date, gps: report.kept_gps,
                                xmp: report.kept_xmp, icc: report.kept_icc, heicThumbnail: report.kept_heic_thumbnail,
                                gainMapForms: report.kept_gain_map_forms)
        return EditReport(
            input: input, output: output, format: format, width: Int(report.width), height: Int(report.height),
            sourceFormat: String(cString: sy_image_format_name(report.source_format)),
            sourceWidth: Int(report.source_width), sourceHeight: Int(report.source_height),
            decodedWidth: Int(report.decoded_width), decodedHeight: Int(report.decoded_height),
            appliedOrientation: Int(report.source_orientation), kept: kept, dropped: DroppedMetadata.list(report.dropped),
            captureDate: report.kept_capture_date != 0 ? cString(report.capture_date) : nil, recipe: recipe,
            enginePeakBytes: peakBytes, seconds: seconds)
    }

    static func engineOptions(format: Format, quality: Int, maxSize: (width: Int, height: Int)?) throws -> sy_edit_options {
        var options = sy_edit_options()
        sy_edit_options_init(&options)
        guard (1...100).contains(quality) else {
            throw ShiyingError(code: .usage, message: "quality \(quality) is outside 1...100")
        }
        options.quality = Int32(quality)
        options.format = format.engineFormat
        if let maxSize {
            guard maxSize.width >= 0, maxSize.height >= 0, maxSize.width <= 65535, maxSize.height <= 65535 else {
                throw ShiyingError(code: .usage, message: "size \(maxSize.width)x\(maxSize.height) is outside 0...65535")
            }
            options.max_width = UInt32(maxSize.width)
            options.max_height = UInt32(maxSize.height)
        }
        return options
    }

    static func outputFormat(_ format: Format?, _ output: String) throws -> Format {
        guard let format = format ?? Format(pathExtension: (output as NSString).pathExtension) else {
            throw ShiyingError(code: .usage, message: "\(output): unknown output type; use .jpg, .png or .heic", file: output)
        }
        return format
    }

    /// Same file on disk (device and inode), not just the same spelling.
    static func sameFile(_ a: String, _ b: String) -> Bool {
        var sa = stat(), sb = stat()
        guard stat(a, &sa) == 0, stat(b, &sb) == 0 else { return a == b }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }
}

/// SPEC E5 slider previews: one decode, many renders. A session keeps the
/// decoded photo and re-renders it for each new recipe; it decodes again
/// only when a recipe needs a different decode (another crop, straighten or
/// box), so every preview is byte for byte what `Editor.render` gives for
/// the same arguments. One render at a time (not `Sendable`); pair it with
/// `PreviewCoalescer` to drop the values that arrive meanwhile.
public final class EditSession {
    /// The photo being edited.
    public let input: String
    /// The target box of every render (nil = full size).
    public let maxSize: (width: Int, height: Int)?
    private let job: EditJob

    /// Decodes `input` for `recipe` in the box `maxSize`.
    /// - Throws: `EditRecipeError` or `ShiyingError` naming the file.
    public init(_ input: String, recipe: EditRecipe = .identity, maxSize: (width: Int, height: Int)? = nil) throws {
        try recipe.validateForEngine()
        self.input = input
        self.maxSize = maxSize
        let engine = try EngineContext()
        var options = try Editor.engineOptions(format: .png, quality: 90, maxSize: maxSize)
        job = try recipe.withEngineRecipe { try EditJob(engine, input, $0, &options) }
    }

    /// How many times the photo was decoded so far (1 after `init`).
    public var decodeCount: Int { Int(job.report.decodes) }

    /// The preview for `recipe`.
    /// - Throws: `EditRecipeError` or `ShiyingError`.
    public func render(_ recipe: EditRecipe) throws -> Editor.RenderedImage {
        try recipe.validateForEngine()
        try recipe.withEngineRecipe { cRecipe in
            var report = sy_edit_report()
            var error = sy_error()
            try check(sy_edit_job_retarget(job.raw, cRecipe, UInt32(maxSize?.width ?? 0), UInt32(maxSize?.height ?? 0),
                                           &report, &error), error, file: input)
            job.report = report
        }
        return try job.render(file: input)
    }
}

/// An open `sy_edit_job`: the decoded source and its prepared renderer.
final class EditJob {
    let raw: OpaquePointer
    var report: sy_edit_report
    /// Kept alive as long as the job: the job allocates from its context.
    private let engine: EngineContext

    init(_ engine: EngineContext, _ input: String, _ recipe: UnsafePointer<sy_recipe>, _ options: inout sy_edit_options) throws {
        var report = sy_edit_report()
        var error = sy_error()
        var job: OpaquePointer?
        try check(sy_edit_open(engine.raw, input, recipe, &options, &job, &report, &error), error, file: input)
        raw = job!
        self.report = report
        self.engine = engine
    }

    deinit { sy_edit_close(raw) }

    /// The whole target as a Swift array.
    func render(file: String) throws -> Editor.RenderedImage {
        var image = sy_edit_image()
        var error = sy_error()
        try check(sy_edit_job_render(raw, &image, &error), error, file: file)
        defer { sy_edit_image_free(engine.raw, &image) }
        let count = Int(image.stride) * Int(image.height)
        let pixels = [UInt8](UnsafeBufferPointer(start: image.pixels, count: count))
        return Editor.RenderedImage(width: Int(image.width), height: Int(image.height), pixels: pixels,
                                    sourceSize: sourceSize, decodedSize: decodedSize)
    }

    var sourceSize: PixelSize { PixelSize(width: Int(report.source_width), height: Int(report.source_height)) }
    var decodedSize: PixelSize { PixelSize(width: Int(report.decoded_width), height: Int(report.decoded_height)) }
    /// nil unless the job was opened with SY_EDIT_IDENTIFY_SOURCE.
    var fileIdentity: FileIdentity? {
        let digest = cString(report.source_sha256)
        return digest.isEmpty ? nil : FileIdentity(byteSize: Int64(report.source_bytes), contentDigest: digest)
    }
}
