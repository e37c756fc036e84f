// The one progress value of every long job (issue 24), below both the engine
// facade (Shiying) and the library (ShiyingLibrary), so both report it.
import Foundation

/// One progress value for a whole job: an overall fraction that only grows
/// and the phase now running.
///
/// A job runs several engine phases (a still save decodes, renders rows, then
/// encodes HEIF tiles; a Live save encodes the movie's frames). Each phase has
/// a weight; ``fraction`` is the weighted share done so far, never decreases
/// from one value to the next, and is exactly 1 only in the last value a
/// successful job reports (``phase`` is then `"done"`). Drive one progress bar
/// with ``fraction`` and show ``phase`` as its label.
public struct ShiyingProgress: Sendable, Equatable, CustomStringConvertible {
    /// The share of the whole job done, 0…1, non-decreasing over a job.
    public var fraction: Double
    /// The engine phase running: `"decode"`, `"rows"`, `"heif tiles"`,
    /// `"strips"`, `"cells"`, `"frames"`, `"gif palette"`, `"gif frames"`,
    /// … and `"done"` for the final value.
    public var phase: String
    /// Units of `phase` done (rows, tiles, frames, strips).
    public var phaseDone: UInt64
    /// Units of `phase` in all; 0 when not known.
    public var phaseTotal: UInt64

    /// A progress value; `fraction` is clamped into 0…1.
    public init(fraction: Double, phase: String, phaseDone: UInt64 = 0, phaseTotal: UInt64 = 0) {
        self.fraction = min(1, max(0, fraction.isNaN ? 0 : fraction))
        self.phase = phase
        self.phaseDone = phaseDone
        self.phaseTotal = phaseTotal
    }

    /// `"rows 120/3024 (37%)"`: the phase's units and the overall percentage.
    public var description: String {
        "\(phase) \(phaseDone)/\(phaseTotal) (\(Int(fraction * 100))%)"
    }
}

/// Turns the engine's per-phase reports `(phase, done, total)` — each phase
/// restarting at zero — into one non-decreasing `ShiyingProgress`.
/// Phases not in the table (a helper thread's, say) are not reported: they
/// would make the label flicker without moving the bar.
package final class ProgressMeter: @unchecked Sendable {
    /// The weighted phases of one kind of job, in the order they run.
    package struct Plan: Sendable {
        package let phases: [(name: String, weight: Double)]
        /// The phases run at the same time (a Live edit writes its still on a
        /// helper thread while the movie's frames encode): the fraction is
        /// then the weighted sum of every phase's own share, not "the phases
        /// before this one, plus this one's share".
        package let concurrent: Bool

        /// A plan of `phases` in the order they run (or side by side, `concurrent`), each with its weight.
        package init(phases: [(name: String, weight: Double)], concurrent: Bool = false) {
            self.phases = phases
            self.concurrent = concurrent
        }

        /// A Live save: the movie's frames and, for a Live edit (`editsStill`),
        /// the still's decode, rows and (HEIC) tiles written alongside them on
        /// the engine's helper thread. A key photo taken from the movie costs
        /// one frame, so without a source still the movie is the whole job.
        package static func live(editsStill: Bool, heicStill: Bool) -> Plan {
            guard editsStill else { return movie }
            let still: [(name: String, weight: Double)] = [("decode", 1), ("rows", 1)] + (heicStill ? [("heif tiles", 2)] : [])
            return Plan(phases: still + [("frames", 6)], concurrent: true)
        }

        /// A still decode + render + write (edit, conversion, HDR save).
        package static let still = Plan(phases: [("decode", 1), ("rows", 1), ("heif tiles", 2)])
        /// A movie transcode.
        package static let movie = Plan(phases: [("frames", 1)])
        /// A library import: files hashed, read and staged on the workers, then
        /// the catalogue batches committed.
        package static let libraryImport = Plan(phases: [("read", 4), ("import", 1)])
        /// An organize scan: stills fingerprinted, unpaired movies sampled, then
        /// the full-resolution pixel digests where a duplicate is possible.
        package static let organizeScan = Plan(phases: [("photos", 6), ("movies", 2), ("pixels", 1)])
        /// A movie → GIF: a palette pass then the frames pass.
        package static let gif = Plan(phases: [("gif palette", 1), ("gif frames", 1)])
        /// A collage: the naive baseline's decode, then the strips.
        package static let collage = Plan(phases: [("decode", 1), ("strips", 3)])
        /// A moving collage: cells prepared, then the movie's frames, then verification.
        package static let motion = Plan(phases: [("cells", 1), ("frames", 6), ("verify frames", 1)])
    }

    private let plan: Plan
    private let total: Double
    private let sink: (ShiyingProgress) -> Void
    private let lock = NSLock()
    private var fraction = 0.0
    private var shares: [Double]  // each phase's own share done (concurrent plans)

    package init(_ plan: Plan, _ sink: @escaping (ShiyingProgress) -> Void) {
        self.plan = plan
        self.total = plan.phases.reduce(0) { $0 + $1.weight }
        self.sink = sink
        self.shares = Array(repeating: 0, count: plan.phases.count)
    }

    /// The engine callback: maps one phase report onto the overall fraction.
    package func report(_ phase: String, _ done: UInt64, _ phaseTotal: UInt64) {
        guard let index = plan.phases.firstIndex(where: { $0.name == phase }) else { return }
        let share = phaseTotal > 0 ? Double(min(done, phaseTotal)) / Double(phaseTotal) : 0
        // Delivered under the lock: reports from several worker threads then
        // reach the sink in the order their fractions were taken (never down).
        lock.lock()
        defer { lock.unlock() }
        shares[index] = max(shares[index], share)
        let weighted = plan.concurrent
            ? zip(plan.phases, shares).reduce(0) { $0 + $1.0.weight * $1.1 }
            : plan.phases[..<index].reduce(0) { $0 + $1.weight } + plan.phases[index].weight * share
        // 1 is kept for `finish`: a job is not done until its output is in place.
        fraction = max(fraction, min(0.999, weighted / total))
        sink(ShiyingProgress(fraction: fraction, phase: phase, phaseDone: done, phaseTotal: phaseTotal))
    }

    /// The last value: fraction 1, phase "done".
    package func finish() {
        lock.lock()
        defer { lock.unlock() }
        fraction = 1
        sink(ShiyingProgress(fraction: 1, phase: "done", phaseDone: 1, phaseTotal: 1))
    }
}

extension ProgressMeter {
    /// A meter for `sink`, or nil when nobody listens.
    package static func make(_ plan: Plan, _ sink: ((ShiyingProgress) -> Void)?) -> ProgressMeter? {
        sink.map { ProgressMeter(plan, $0) }
    }
}

/// Hands the engine's cancel action to a caller (the async forms relay Swift
/// task cancellation through it): `cancel { engineCancel }`.
public typealias CancelHook = @Sendable (_ install: @escaping @Sendable () -> Void) -> Void
