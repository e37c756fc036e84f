import Shiying

extension StderrProgress {
    /// The API's one progress value, shown as the phase line it always was.
    func report(_ progress: ShiyingProgress) {
        report(progress.phase, progress.phaseDone, progress.phaseTotal)
    }
}

extension LateProgress {
    /// The API's one progress value, shown as the phase line it always was.
    func report(_ progress: ShiyingProgress) {
        report(progress.phase, progress.phaseDone, progress.phaseTotal)
    }
}
