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
final class ProgressMeter: @unchecked Sendable {
    /// The weighted phases of one kind of job, in the order they run.
    struct Plan: Sendable {
        let phases: [(name: String, weight: Double)]

        /// A still decode + render + write (edit, conversion, HDR save).
        static let still = Plan(phases: [("decode", 1), ("rows", 1), ("heif tiles", 2)])
        /// A movie transcode (and a Live save, whose cost is the movie's frames).
        static let movie = Plan(phases: [("frames", 1)])
        /// A movie → GIF: a palette pass then the frames pass.
        static let gif = Plan(phases: [("gif palette", 1), ("gif frames", 1)])
        /// A collage: the naive baseline's decode, then the strips.
        static let collage = Plan(phases: [("decode", 1), ("strips", 3)])
        /// A moving collage: cells prepared, then the movie's frames, then verification.
        static let motion = Plan(phases: [("cells", 1), ("frames", 6), ("verify frames", 1)])
    }

    private let plan: Plan
    private let total: Double
    private let sink: (ShiyingProgress) -> Void
    private let lock = NSLock()
    private var fraction = 0.0

    init(_ plan: Plan, _ sink: @escaping (ShiyingProgress) -> Void) {
        self.plan = plan
        self.total = plan.phases.reduce(0) { $0 + $1.weight }
        self.sink = sink
    }

    /// The engine callback: maps one phase report onto the overall fraction.
    func report(_ phase: String, _ done: UInt64, _ phaseTotal: UInt64) {
        guard let index = plan.phases.firstIndex(where: { $0.name == phase }) else { return }
        let before = plan.phases[..<index].reduce(0) { $0 + $1.weight }
        let share = phaseTotal > 0 ? Double(min(done, phaseTotal)) / Double(phaseTotal) : 0
        // 1 is kept for `finish`: a job is not done until its output is in place.
        let raw = min(0.999, (before + plan.phases[index].weight * share) / total)
        lock.lock()
        fraction = max(fraction, raw)
        let value = ShiyingProgress(fraction: fraction, phase: phase, phaseDone: done, phaseTotal: phaseTotal)
        lock.unlock()
        sink(value)
    }

    /// The last value: fraction 1, phase "done".
    func finish() {
        lock.lock()
        fraction = 1
        lock.unlock()
        sink(ShiyingProgress(fraction: 1, phase: "done", phaseDone: 1, phaseTotal: 1))
    }
}

extension ProgressMeter {
    /// A meter for `sink`, or nil when nobody listens.
    static func make(_ plan: Plan, _ sink: ((ShiyingProgress) -> Void)?) -> ProgressMeter? {
        sink.map { ProgressMeter(plan, $0) }
    }
}

/// Hands the engine's cancel action to a caller (the async forms relay Swift
/// task cancellation through it): `cancel { engineCancel }`.
public typealias CancelHook = @Sendable (_ install: @escaping @Sendable () -> Void) -> Void

extension URL {
    /// The file-system path of a `file:` URL; any other scheme is refused.
    /// - Throws: `ShiyingError` (`.usage`) naming the URL and its role.
    func shiyingPath(_ role: String) throws -> String {
        guard isFileURL else {
            throw ShiyingError(code: .usage, message: "\(absoluteString): the \(role) must be a file URL, not \(scheme ?? "a relative reference")")
        }
        return path
    }
}

extension Optional where Wrapped == URL {
    /// `shiyingPath` of a URL that may be absent.
    func shiyingPath(_ role: String) throws -> String? {
        try map { try $0.shiyingPath(role) }
    }
}
