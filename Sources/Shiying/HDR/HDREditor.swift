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
        /// The edit's report.
        public var edit: Editor.EditReport
        /// `kept`, `dropped-with-consent`, or `none` (the source had no gain map).
        public var hdr: String
        /// Why the gain map was not kept, when it was not.
        public var hdrReason: HDRLossReason?
        /// How many times `onHDRLoss` was asked (0 or 1).
        public var hookCalls: Int
        /// The input's gain-map form ("ultra-hdr", "apple", "none", …).
        public var sourceGainMap: String
        /// The kept gain map's width in pixels; nil when not kept.
        public var gainMapWidth: Int?
        /// The kept gain map's height in pixels; nil when not kept.
        public var gainMapHeight: Int?
    }

    /// Saves the edit keeping the gain map, asking `onHDRLoss` only when it cannot be kept.
    /// Runs on its own thread; cancelling the task throws `CancellationError`
    /// and writes nothing.
    /// - Parameters:
    ///   - input: the photo's file URL.
    ///   - recipe: the edit to render.
    ///   - output: the new file's URL.
    ///   - format: nil = from `output`'s extension.
    ///   - quality: JPEG/HEIC quality 1…100.
    ///   - maxSize: target box; nil = full size.
    ///   - onHDRLoss: asked only when the gain map cannot be kept; `true` writes SDR.
    ///   - progress: one non-decreasing fraction for the whole save.
    /// - Throws: `HDRLossError` (nothing written), `EditRecipeError`, `CancellationError`, `ShiyingError`.
    public static func save(_ input: URL, recipe: EditRecipe, to output: URL, format: Editor.Format? = nil,
                            quality: Int = 90, maxSize: PixelSize? = nil,
                            onHDRLoss: (@Sendable (HDRLossReason) async -> Bool)? = nil,
                            progress: (@Sendable (ShiyingProgress) -> Void)? = nil) async throws -> Report {
        let (source, target) = (try input.shiyingPath("input"), try output.shiyingPath("output"))
        let box = maxSize.map { (width: $0.width, height: $0.height) }
        // The engine asks synchronously: answer "no" first (nothing is written),
        // then await the hook and, with its consent, run again.
        do {
            return try await runOffPool { cancel in
                try run(source, recipe: recipe, output: target, format: format, quality: quality, maxSize: box,
                        consent: nil, progress: progress, cancel: cancel)
            }
        } catch HDRLossError.noConsentHook(let reason, let detail) {
            guard let onHDRLoss else { throw HDRLossError.noConsentHook(reason, detail: detail) }
            guard await onHDRLoss(reason) else { throw HDRLossError.declined(reason, detail: detail) }
            var report = try await runOffPool { cancel in
                try run(source, recipe: recipe, output: target, format: format, quality: quality, maxSize: box,
                        consent: true, progress: progress, cancel: cancel)
            }
            report.hookCalls = 1
            return report
        }
    }

    /// `save` with a synchronous hook, blocking the calling thread, with
    /// file-system paths (the CLI's `--allow-sdr`).
    /// `progress` gets one non-decreasing fraction on the calling thread; `cancel`
    /// is handed a closure that cancels the job from any thread (it then throws
    /// `CancellationError`).
    /// - Throws: as `save`.
    public static func saveBlocking(_ input: String, recipe: EditRecipe, to output: String, format: Editor.Format? = nil,
                                    quality: Int = 90, maxSize: (width: Int, height: Int)? = nil,
                                    onHDRLoss: ((HDRLossReason) -> Bool)? = nil,
                                    progress: ((ShiyingProgress) -> Void)? = nil,
                                    cancel: CancelHook? = nil) throws -> Report {
        do {
            return try run(input, recipe: recipe, output: output, format: format, quality: quality, maxSize: maxSize,
                           consent: nil, progress: progress, cancel: cancel)
        } catch HDRLossError.noConsentHook(let reason, let detail) {
            guard let onHDRLoss else { throw HDRLossError.noConsentHook(reason, detail: detail) }
            guard onHDRLoss(reason) else { throw HDRLossError.declined(reason, detail: detail) }
            var report = try run(input, recipe: recipe, output: output, format: format, quality: quality,
                                 maxSize: maxSize, consent: true, progress: progress, cancel: cancel)
            report.hookCalls = 1
            return report
        }
    }

    /// Saves SDR on purpose (the user already chose "save as SDR"): the base
    /// only, without Ultra HDR XMP that would claim a gain map. Runs on its
    /// own thread; cancelling the task throws `CancellationError` and writes nothing.
    /// - Parameters:
    ///   - input: the photo's file URL.
    ///   - recipe: the edit to render.
    ///   - output: the new file's URL.
    ///   - format: nil = from `output`'s extension.
    ///   - quality: JPEG/HEIC quality 1…100.
    ///   - maxSize: target box; nil = full size.
    ///   - progress: one non-decreasing fraction for the whole save.
    /// - Throws: `EditRecipeError`, `CancellationError`, `ShiyingError`.
    public static func saveSDR(_ input: URL, recipe: EditRecipe, to output: URL, format: Editor.Format? = nil,
                               quality: Int = 90, maxSize: PixelSize? = nil,
                               progress: (@Sendable (ShiyingProgress) -> Void)? = nil) async throws -> Editor.EditReport {
        let (source, target) = (try input.shiyingPath("input"), try output.shiyingPath("output"))
        let box = maxSize.map { (width: $0.width, height: $0.height) }
        return try await runOffPool { cancel in
            try saveSDRBlocking(source, recipe: recipe, to: target, format: format, quality: quality, maxSize: box,
                                progress: progress, cancel: cancel)
        }
    }

    /// `saveSDR`, blocking the calling thread, with file-system paths. `progress`
    /// gets one non-decreasing fraction on the calling thread; `cancel` is handed
    /// a closure that cancels the job from any thread.
    /// - Throws: as `saveSDR`.
    public static func saveSDRBlocking(_ input: String, recipe: EditRecipe, to output: String,
                                       format: Editor.Format? = nil, quality: Int = 90,
                                       maxSize: (width: Int, height: Int)? = nil,
                                       progress: ((ShiyingProgress) -> Void)? = nil,
                                       cancel: CancelHook? = nil) throws -> Editor.EditReport {
        try recipe.validateForEngine()
        let format = try Editor.outputFormat(format, output)
        let meter = ProgressMeter.make(.still, progress)
        let engine = try EngineContext(progress: meter?.report)
        cancel?({ [engine] in engine.cancel() })
        var options = try Editor.engineOptions(format: format, quality: quality, maxSize: maxSize)
        let start = ContinuousClock.now
        var report = sy_edit_report()
        var error = sy_error()
        let status = recipe.withEngineRecipe { cRecipe in
            sy_gainmap_edit_sdr(engine.raw, input, output, cRecipe, &options, &report, &error)
        }
        try check(status, error, file: input)
        let elapsed = ContinuousClock.now - start
        meter?.finish()
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
                            progress: ((ShiyingProgress) -> Void)?, cancel: CancelHook?) throws -> Report {
        try recipe.validateForEngine()
        let format = try Editor.outputFormat(format, output)
        if Editor.sameFile(input, output) {
            throw ShiyingError(code: .usage, message: "\(output): is also an input (\(input)); the output must be another file",
                               file: output)
        }
        let meter = ProgressMeter.make(.still, progress)
        let engine = try EngineContext(progress: meter?.report)
        cancel?({ [engine] in engine.cancel() })
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
        meter?.finish()
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
