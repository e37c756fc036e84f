import Foundation
internal import CShiying

/// Saves edits of HDR (gain-map) photos without ever losing the HDR layer
/// silently (SPEC E6). The gain map goes through the renderer's geometry at
/// its own resolution (crop, straighten, quarter turns, flips), colour
/// adjustments touch the base only, and the output keeps the map in the
/// input's form (Ultra HDR JPEG, Apple HEIC / JPEG). Only when the map cannot
/// be kept is `onHDRLoss` asked, once, with the reason; `false` or no hook
/// throws `HDRLossError` and writes nothing. SDR photos save as `Editor.save`.
public enum HDREditor {
    /// The edit report plus what happened to the HDR layer.
    public struct Report: Sendable, Codable, Equatable {
        public var edit: Editor.EditReport
        /// `kept`, `dropped-with-consent`, or `none` (the source had no gain map).
        public var hdr: String
        public var hdrReason: HDRLossReason?
        public var hookCalls: Int
        public var sourceGainMap: String
        public var gainMapWidth: Int?
        public var gainMapHeight: Int?
    }

    /// - Parameters:
    ///   - format: nil = from `output`'s extension.
    ///   - onHDRLoss: asked only when the gain map cannot be kept; `true` writes SDR.
    /// - Throws: `HDRLossError` (nothing written), `EditRecipeError`, `ShiyingError`.
    public static func save(_ input: String, recipe: EditRecipe, to output: String, format: Editor.Format? = nil,
                            quality: Int = 90, maxSize: (width: Int, height: Int)? = nil,
                            onHDRLoss: ((HDRLossReason) async -> Bool)? = nil) async throws -> Report {
        // The engine asks synchronously: answer "no" first (nothing is written),
        // then await the hook and, with its consent, run again.
        do {
            return try run(input, recipe: recipe, output: output, format: format, quality: quality, maxSize: maxSize,
                           consent: nil, progress: nil)
        } catch HDRLossError.noConsentHook(let reason, let detail) {
            guard let onHDRLoss else { throw HDRLossError.noConsentHook(reason, detail: detail) }
            guard await onHDRLoss(reason) else { throw HDRLossError.declined(reason, detail: detail) }
            var report = try run(input, recipe: recipe, output: output, format: format, quality: quality,
                                 maxSize: maxSize, consent: true, progress: nil)
            report.hookCalls = 1
            return report
        }
    }

    /// The same with a synchronous hook (the CLI's `--allow-sdr`).
    public static func saveBlocking(_ input: String, recipe: EditRecipe, to output: String, format: Editor.Format? = nil,
                                    quality: Int = 90, maxSize: (width: Int, height: Int)? = nil,
                                    onHDRLoss: ((HDRLossReason) -> Bool)? = nil,
                                    progress: ((String, UInt64, UInt64) -> Void)? = nil) throws -> Report {
        do {
            return try run(input, recipe: recipe, output: output, format: format, quality: quality, maxSize: maxSize,
                           consent: nil, progress: progress)
        } catch HDRLossError.noConsentHook(let reason, let detail) {
            guard let onHDRLoss else { throw HDRLossError.noConsentHook(reason, detail: detail) }
            guard onHDRLoss(reason) else { throw HDRLossError.declined(reason, detail: detail) }
            var report = try run(input, recipe: recipe, output: output, format: format, quality: quality,
                                 maxSize: maxSize, consent: true, progress: progress)
            report.hookCalls = 1
            return report
        }
    }

    /// Saves SDR on purpose (the user already chose "save as SDR"): the base
    /// only, without Ultra HDR XMP that would claim a gain map.
    public static func saveSDR(_ input: String, recipe: EditRecipe, to output: String, format: Editor.Format? = nil,
                               quality: Int = 90, maxSize: (width: Int, height: Int)? = nil) throws -> Editor.EditReport {
        try recipe.validateForEngine()
        let format = try Editor.outputFormat(format, output)
        let engine = try EngineContext()
        var options = try Editor.engineOptions(format: format, quality: quality, maxSize: maxSize)
        let start = ContinuousClock.now
        var report = sy_edit_report()
        var error = sy_error()
        let status = recipe.withEngineRecipe { cRecipe in
            sy_gainmap_edit_sdr(engine.raw, input, output, cRecipe, &options, &report, &error)
        }
        try check(status, error, file: input)
        let elapsed = ContinuousClock.now - start
        return Editor.editReport(report, input: input, output: output, format: format, recipe: recipe,
                                 peakBytes: engine.memoryStats.peakBytes,
                                 seconds: elapsed.seconds)
    }

    /// `Editor.save`'s write: the engine decides (SPEC E6) — an SDR photo is
    /// saved as is, a gain map is kept, or the save is refused (no hook).
    static func writeKeepingGainMap(_ engine: EngineContext, _ input: String, _ output: String,
                                    _ recipe: UnsafePointer<sy_recipe>, _ options: inout sy_edit_options) throws -> sy_edit_report {
        var report = sy_gainmap_edit_report()
        var error = sy_error()
        let status = sy_gainmap_edit(engine.raw, input, output, recipe, &options, nil, nil, &report, &error)
        return try keptOrRefused(status, error, report, input: input, output: output)
    }

    /// The same for a job already open (the overwrite checks its decode first).
    static func writeKeepingGainMap(_ job: EditJob, _ input: String, _ output: String) throws -> sy_edit_report {
        var report = sy_gainmap_edit_report()
        var error = sy_error()
        let status = sy_gainmap_edit_job_write(job.raw, output, nil, nil, &report, &error)
        return try keptOrRefused(status, error, report, input: input, output: output)
    }

    private static func keptOrRefused(_ status: sy_status, _ error: sy_error, _ report: sy_gainmap_edit_report,
                                      input: String, output: String) throws -> sy_edit_report {
        if report.outcome == SY_HDR_REFUSED, let reason = HDRLossReason(report.reason) {
            throw HDRLossError.noConsentHook(reason, detail: "\(input): \(cString(report.reason_detail))")
        }
        // Nothing decoded (the report is still empty): the input is at fault, else the write.
        try check(status, error, file: report.edit.source_width == 0 ? input : output)
        return report.edit
    }

    /// One engine call; `consent` nil = no hook (refuse), true = agree to SDR.
    private static func run(_ input: String, recipe: EditRecipe, output: String, format: Editor.Format?, quality: Int,
                            maxSize: (width: Int, height: Int)?, consent: Bool?,
                            progress: ((String, UInt64, UInt64) -> Void)?) throws -> Report {
        try recipe.validateForEngine()
        let format = try Editor.outputFormat(format, output)
        if Editor.sameFile(input, output) {
            throw ShiyingError(code: .usage, message: "\(output): saving writes a new file", file: output)
        }
        let engine = try EngineContext(progress: progress)
        var options = try Editor.engineOptions(format: format, quality: quality, maxSize: maxSize)
        let clock = ContinuousClock()
        let start = clock.now
        var report = sy_gainmap_edit_report()
        var error = sy_error()
        let hook: sy_hdr_loss_hook? = consent == true ? { _, _, _ in 1 } : nil
        let status = recipe.withEngineRecipe { cRecipe in
            sy_gainmap_edit(engine.raw, input, output, cRecipe, &options, hook, nil, &report, &error)
        }
        if report.outcome == SY_HDR_REFUSED, let reason = HDRLossReason(report.reason) {
            throw HDRLossError.noConsentHook(reason, detail: "\(input): \(cString(report.reason_detail))")
        }
        try check(status, error, file: input)
        let elapsed = clock.now - start
        let edit = Editor.editReport(report.edit, input: input, output: output, format: format, recipe: recipe,
                                     peakBytes: max(engine.memoryStats.peakBytes, report.map_peak_bytes),
                                     seconds: elapsed.seconds)
        let kept = report.outcome == SY_HDR_KEPT
        return Report(edit: edit,
                      hdr: kept ? "kept" : report.outcome == SY_HDR_DROPPED_WITH_CONSENT ? "dropped-with-consent" : "none",
                      hdrReason: HDRLossReason(report.reason), hookCalls: Int(report.hook_calls),
                      sourceGainMap: GainMapInfo.kindName(report.source_kind),
                      gainMapWidth: kept ? Int(report.map_width) : nil, gainMapHeight: kept ? Int(report.map_height) : nil)
    }
}
