import Shiying

extension ProgressReporter {
    /// The API's one progress value, shown as its current phase's line.
    func report(_ progress: ShiyingProgress) {
        report(progress.phase, progress.phaseDone, progress.phaseTotal)
    }
}
