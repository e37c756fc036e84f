import Foundation
internal import CShiying

/// Photo format conversion (SPEC S3): a new upright copy carrying capture
/// date, GPS, Exif, XMP and the ICC profile (`sy_convert`).
public enum Conversion {
    /// A still file type.
    public enum Format: String, Sendable, Codable, CaseIterable {
        /// JPEG (`.jpg`, `.jpeg`).
        case jpeg
        /// PNG (`.png`).
        case png
        /// HEIC (`.heic`, `.heif`).
        case heic

        /// From a file name's extension (`.jpg`/`.jpeg`, `.png`, `.heic`/`.heif`).
        public init?(pathExtension: String) {
            switch pathExtension.lowercased() {
            case "jpg", "jpeg": self = .jpeg
            case "png": self = .png
            case "heic", "heif": self = .heic
            default: return nil
            }
        }

        /// The engine's one output-format enum (`sy_still_format`).
        var engineFormat: sy_still_format {
            switch self {
            case .jpeg: SY_STILL_JPEG
            case .png: SY_STILL_PNG
            case .heic: SY_STILL_HEIC
            }
        }
    }

    /// What a conversion wrote and carried over.
    public struct Report: Sendable, Codable, Equatable {
        /// The input file's path.
        public var input: String
        /// The output file's path.
        public var output: String
        /// The input's format ("jpeg", "png", "heic").
        public var sourceFormat: String
        /// The output format.
        public var format: Format
        /// Width in pixels.
        public var width: Int
        /// Height in pixels.
        public var height: Int
        /// The EXIF-style orientation that was applied to the pixels (1 = none).
        public var appliedOrientation: Int
        /// Metadata carried over: any of "exif", "capture-date", "gps", "xmp", "icc".
        public var kept: [String]
        /// Metadata not carried over, with the reason (e.g. a MakerNote over JPEG's 64 KB Exif limit).
        public var dropped: [DroppedMetadata]
        /// The capture date (Exif form, local time), nil when unknown.
        public var captureDate: String?
        /// The C engine's accounting-allocator peak over the job, in bytes.
        public var enginePeakBytes: UInt64
        /// Wall-clock seconds the job took.
        public var seconds: Double
    }

    /// Converts `input` into `output` (temp file + rename; an existing file
    /// survives a failed write). Memory: the upright image at 3 bytes/pixel.
    /// An HDR gain map is kept ("hdr-gain-map" in `kept`, with the forms it is
    /// written in: "apple-gain-map", "ultra-hdr-gain-map", "iso-21496-gain-map";
    /// the HEIC preset is then the writer's default) or the conversion is refused (SPEC E6).
    /// Runs on its own thread; cancelling the task stops the engine within a
    /// strip of rows or a HEIF tile, throws `CancellationError` and leaves
    /// nothing at `output`.
    /// - Parameters:
    ///   - input: the photo's file URL.
    ///   - output: the new file's URL.
    ///   - format: nil = from `output`'s extension.
    ///   - quality: JPEG/HEIC quality 1…100.
    ///   - heicPreset: x265 speed preset for HEIC output ("ultrafast" … "veryslow");
    ///     nil = the measured default, "ultrafast" with a 32×32 smallest coding unit
    ///     (docs/heic-quality.md); a named preset is x265's own.
    ///   - onHDRLoss: asked (SPEC E6) when the target cannot carry the gain map
    ///     (PNG, an unreadable map); return true to write SDR. nil refuses (HDRLossError).
    ///   - progress: one non-decreasing fraction for the whole conversion.
    /// - Throws: `ShiyingError` naming the file and the reason; `HDRLossError`
    ///   when the target cannot carry the source's gain map (nothing written);
    ///   `CancellationError`.
    public static func convert(_ input: URL, to output: URL, format: Format? = nil,
                               quality: Int = 90, heicPreset: String? = nil,
                               onHDRLoss: (@Sendable (HDRLossReason) -> Bool)? = nil,
                               progress: (@Sendable (ShiyingProgress) -> Void)? = nil) async throws -> Report {
        let (source, target) = (try input.shiyingPath("input"), try output.shiyingPath("output"))
        return try await runOffPool { cancel in
            try convertBlocking(source, to: target, format: format, quality: quality, heicPreset: heicPreset,
                                onHDRLoss: onHDRLoss, progress: progress, cancel: cancel)
        }
    }

    /// `convert`, blocking the calling thread, with file-system paths (the CLI's form).
    /// `progress` gets one non-decreasing fraction on the calling thread; `cancel`
    /// is handed a closure that cancels the job from any thread (it then throws
    /// `CancellationError`).
    /// - Throws: as `convert`.
    public static func convertBlocking(_ input: String, to output: String, format: Format? = nil,
                                       quality: Int = 90, heicPreset: String? = nil,
                                       onHDRLoss: ((HDRLossReason) -> Bool)? = nil,
                                       progress: ((ShiyingProgress) -> Void)? = nil,
                                       cancel: CancelHook? = nil) throws -> Report {
        guard let format = format ?? Format(pathExtension: (output as NSString).pathExtension) else {
            throw ShiyingError(code: .usage, message: "\(output): unknown output type; use .jpg, .png or .heic",
                               file: output)
        }
        // SPEC E6: a gain-map photo converts through the gain-map edit (identity
        // recipe): the map is kept, or HDRLossError is thrown and nothing written.
        if (try? GainMapInfo.probe(input))?.hasGainMap == true {
            let hdr = try HDREditor.saveBlocking(input, recipe: .identity, to: output, format: format, quality: quality,
                                                 onHDRLoss: onHDRLoss, progress: progress, cancel: cancel)
            let e = hdr.edit
            let kept = e.kept /* with "hdr-gain-map" and its forms when kept */
            let lost = hdr.hdr == "kept" ? [] : [DroppedMetadata(
                name: "hdr-gain-map", reason: "SDR allowed: " + (hdr.hdrReason?.rawValue ?? "the target has no gain map"))]
            return Report(input: input, output: output, sourceFormat: e.sourceFormat, format: format, width: e.width,
                          height: e.height, appliedOrientation: e.appliedOrientation, kept: kept,
                          dropped: e.dropped + lost, captureDate: e.captureDate, enginePeakBytes: e.enginePeakBytes,
                          seconds: e.seconds)
        }
        let meter = ProgressMeter.make(.still, progress)
        let engine = try EngineContext(progress: meter?.report)
        cancel?({ [engine] in engine.cancel() })
        var options = sy_convert_options()
        sy_convert_options_init(&options)
        options.quality = Int32(clamping: quality)
        options.format = format.engineFormat
        var report = sy_convert_report()
        var error = sy_error()
        let clock = ContinuousClock()
        let start = clock.now
        let status = withOptionalCString(heicPreset) { preset in
            options.heic_preset = preset
            return sy_convert(engine.raw, input, output, &options, &report, &error)
        }
        try check(status, error, file: input)
        let elapsed = clock.now - start
        meter?.finish()
        let kept = keptMetadata(exif: report.kept_exif, captureDate: report.kept_capture_date, gps: report.kept_gps,
                                xmp: report.kept_xmp, icc: report.kept_icc)
        return Report(
            input: input, output: output, sourceFormat: String(cString: sy_image_format_name(report.source_format)),
            format: format, width: Int(report.width), height: Int(report.height),
            appliedOrientation: Int(report.source_orientation), kept: kept,
            dropped: DroppedMetadata.list(report.dropped),
            captureDate: report.kept_capture_date != 0 ? cString(report.capture_date) : nil,
            enginePeakBytes: engine.memoryStats.peakBytes,
            seconds: elapsed.seconds)
    }
}

func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
}
