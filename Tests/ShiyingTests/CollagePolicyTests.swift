// The collage export's policies (issue 17), each on a manual clock: SPEC C8
// waits and stops, C10 background-finish notice, C12 fetch policy and C15
// suggestion rule. Fakes sleep on the clock; no result depends on wall time.
import Foundation
import Shiying
import Synchronization
import Testing

private typealias Instant = LiveTestClock.Instant

// MARK: - SPEC C8

@Suite("Collage export: SPEC C8 waits and stops")
struct LiveWaitTests {
    @Test("SPEC C8: the collage waits up to 45 s, a share poster 8 s")
    func deadlines() async throws {
        #expect(LiveWait.collage.deadline == .seconds(45) && LiveWait.sharePoster.deadline == .seconds(8))
        #expect(LiveWait.collage.deadline == LiveVerifier<ContinuousClock>.collageDeadline)
        for wait in LiveWait.allCases {
            let clock = LiveTestClock()
            let checker = StalledChecker(honoursCancellation: true)
            let verifier = LiveVerifier(for: wait, clock: clock, checker: checker)
            let done = Flag()
            let task = Task { defer { done.set() }; return try await verifier.verify(still: "s", movie: "m", stop: ExportStop()) }
            try await liveEventually("the check started and the deadline is armed") { checker.started && clock.sleeperCount == 1 }
            clock.advance(by: wait.deadline - .milliseconds(1))
            try await Task.sleep(for: .milliseconds(50))
            #expect(!done.isSet, "\(wait): gave up before \(wait.deadline)")
            clock.advance(by: .milliseconds(1))
            try await liveEventually("\(wait): timed out at \(wait.deadline)") { done.isSet }
            let end = try await task.value
            #expect(end == .verified(.timeout) && end.failure == .timeout, "\(wait): \(end)")
            #expect(end.failure?.title == "这次没能生成实况" && end.failure?.message == "实况准备超时了，稍后再试。")
            try await liveEventually("the stalled check was told to stop") { checker.sawCancel }
        }
    }

    @Test("SPEC C8: closing the panel or running out of background time stops at once, with no failure message",
          arguments: [ExportStop.Reason.panelClosed, .backgroundTimeOver])
    func stopAtOnce(reason: ExportStop.Reason) async throws {
        let clock = LiveTestClock()
        let checker = StalledChecker(honoursCancellation: false)
        defer { checker.unblock() }
        let verifier = LiveVerifier(for: .collage, clock: clock, checker: checker)
        let stop = ExportStop()
        let task = Task { try await verifier.verify(still: "s", movie: "m", stop: stop) }
        try await liveEventually("the check started") { checker.started }
        stop.stop(reason)
        stop.stop(.panelClosed) // a second stop changes nothing
        let end = try await task.value
        #expect(end == .stopped(reason) && end.failure == nil && stop.reason == reason)
        #expect(clock.now.offset == .zero && !checker.finished, "waited for the clock or the stalled check")
        // Already stopped: returns without waiting at all.
        #expect(try await verifier.verify(still: "s", movie: "m", stop: stop) == .stopped(reason))
    }

    @Test("SPEC C8: a mismatch shows the mismatch title and message, not the timeout's")
    func mismatchMessage() async throws {
        let verifier = LiveVerifier(for: .collage, clock: LiveTestClock(),
                                    checker: ScriptedChecker(answer: .mismatch(reason: "identifiers differ")))
        let end = try await verifier.verify(still: "s", movie: "m", stop: ExportStop())
        #expect(end.failure == .mismatch && end.failure?.title == "无法生成这张实况")
        #expect(end.failure?.message == "这件作品的实况对子已经损坏，只能当静态图片用了。")
    }
}

// MARK: - SPEC C10

@Suite("Collage export: SPEC C10 background-finish notice")
struct BackgroundFinishNoticeTests {
    private typealias Notice = BackgroundFinishNotice<LiveTestClock>

    @Test("SPEC C10: notify only after ≥ 30 s away and with notifications already allowed")
    func rule() {
        let at = { (s: Double) in Instant(offset: .milliseconds(Int(s * 1000))) }
        #expect(Notice.decide(leftAt: at(0), finishedAt: at(30), authorization: .authorized) == .notify)
        #expect(Notice.decide(leftAt: at(0), finishedAt: at(29.999), authorization: .authorized)
                == .quietAwayTooShort(.milliseconds(29999)))
        #expect(Notice.decide(leftAt: nil, finishedAt: at(100), authorization: .authorized) == .quietUserInApp)
        #expect(Notice.decide(leftAt: at(0), finishedAt: at(60), authorization: .provisional) == .notify)
        for never in [Notice.Authorization.denied, .notDetermined] { // never asks: not asked yet = no notice
            #expect(Notice.decide(leftAt: at(0), finishedAt: at(60), authorization: never) == .quietNotAllowed)
        }
    }

    @Test("SPEC C10: the 30 s count from the moment the user left, not from the tap on save")
    func countsFromLeaving() {
        let clock = LiveTestClock()
        var notice = Notice(clock: clock)
        clock.advance(by: .seconds(20)) // tapped save, waited 20 s in the app
        notice.userLeft()
        clock.advance(by: .seconds(25)) // 45 s after the tap, 25 s away
        #expect(notice.decisionAtFinish(authorization: .authorized) == .quietAwayTooShort(.seconds(25)))
        clock.advance(by: .seconds(5))
        #expect(notice.decisionAtFinish(authorization: .authorized) == .notify)
        notice.userLeft() // leaving again while away keeps the first moment
        #expect(notice.leftAt == Instant(offset: .seconds(20)))
        notice.userReturned()
        clock.advance(by: .seconds(60))
        #expect(notice.decisionAtFinish(authorization: .authorized) == .quietUserInApp)
        notice.userLeft()
        clock.advance(by: .seconds(29))
        #expect(notice.decisionAtFinish(authorization: .authorized) == .quietAwayTooShort(.seconds(29)))
    }
}

// MARK: - SPEC C12

/// A fetcher that follows a script per reach, sleeping on the manual clock.
private final class ScriptedFetcher: CollagePhotoFetching, Sendable {
    enum Step: Sendable {
        case wait(Duration)
        case progress
        case fail(String)
        case deliver(String)
        case stall // sleeps until cancelled
    }

    struct Call: Sendable, Equatable {
        var photo: String, size: PixelSize, reach: FetchReach
    }

    let clock: LiveTestClock
    let script: @Sendable (String, FetchReach) -> [Step]
    private let log = Mutex((calls: [Call](), cancelled: [String]()))

    init(clock: LiveTestClock, script: @escaping @Sendable (String, FetchReach) -> [Step]) {
        self.clock = clock
        self.script = script
    }

    var calls: [Call] { log.withLock { $0.calls } }
    var cancelled: [String] { log.withLock { $0.cancelled } }

    func fetch(_ photo: String, size: PixelSize, reach: FetchReach,
               progress: @escaping @Sendable (Double) -> Void) async throws -> String {
        log.withLock { $0.calls.append(Call(photo: photo, size: size, reach: reach)) }
        do {
            for step in script(photo, reach) {
                switch step {
                case let .wait(d): try await clock.sleep(for: d)
                case .progress: progress(0.5)
                case let .fail(why): throw TestFailure(why)
                case let .deliver(file): return file
                case .stall: try await clock.sleep(for: .seconds(1_000_000))
                }
            }
        } catch is CancellationError {
            log.withLock { $0.cancelled.append(photo) }
            throw CancellationError()
        }
        throw TestFailure("script ended")
    }
}

@Suite("Collage export: SPEC C12 fetch policy")
struct CollageFetchPolicyTests {
    private let size = PixelSize(width: 528, height: 704)

    @Test("SPEC C12: first at the layout's size from anywhere; on failure local-only; both fail → grey cell")
    func attempts() async throws {
        let clock = LiveTestClock()
        let fetcher = ScriptedFetcher(clock: clock) { photo, reach in
            switch (photo, reach) {
            case ("here", .network): [.deliver("/tmp/here.heic")]
            case ("local", .network): [.fail("iCloud unreachable")]
            case ("local", .localOnly): [.progress, .deliver("/tmp/local-small.jpg")]
            default: [.fail("not on this device")]
            }
        }
        let policy = CollageFetchPolicy(clock: clock, fetcher: fetcher)
        #expect(try await policy.source(for: "here", size: size) == .photo("/tmp/here.heic", reach: .network))
        #expect(try await policy.source(for: "local", size: size) == .photo("/tmp/local-small.jpg", reach: .localOnly))
        let gone = try await policy.source(for: "gone", size: size)
        #expect(gone.isGrey)
        if case let .grey(reason) = gone { #expect(reason.contains("gone") && reason.contains("not on this device"), "\(reason)") }
        #expect(fetcher.calls == [.init(photo: "here", size: size, reach: .network),
                                  .init(photo: "local", size: size, reach: .network),
                                  .init(photo: "local", size: size, reach: .localOnly),
                                  .init(photo: "gone", size: size, reach: .network),
                                  .init(photo: "gone", size: size, reach: .localOnly)])
        #expect(clock.now.offset == .zero)
    }

    @Test("SPEC C12: the local-only retry gives up after 3 s without progress — counted from the last progress")
    func stallLimit() async throws {
        let clock = LiveTestClock()
        let fetcher = ScriptedFetcher(clock: clock) { _, reach in
            reach == .network ? [.fail("offline")] : [.wait(.seconds(2)), .progress, .stall]
        }
        let policy = CollageFetchPolicy(clock: clock, fetcher: fetcher)
        let done = Flag()
        let task = Task { defer { done.set() }; return try await policy.source(for: "slow", size: size) }
        try await liveEventually("the fetch and its watchdog wait") { clock.sleeperCount == 2 }
        clock.advance(by: .seconds(2)) // progress at 2 s
        try await liveEventually("the fetch stalls after its progress") { fetcher.calls.count == 2 && clock.sleeperCount == 2 }
        clock.advance(by: .seconds(1)) // 3 s after the start, 1 s after the progress
        try await liveEventually("the watchdog re-armed") { clock.sleeperCount == 2 }
        clock.advance(by: .milliseconds(1999))
        try await Task.sleep(for: .milliseconds(50))
        #expect(!done.isSet, "gave up less than 3 s after the last progress")
        clock.advance(by: .milliseconds(1)) // 5 s: 3 s since the progress at 2 s
        try await liveEventually("gave up 3 s after the last progress") { done.isSet }
        let source = try await task.value
        #expect(source.isGrey)
        if case let .grey(reason) = source { #expect(reason.contains("no progress for 3 s"), "\(reason)") }
        try await liveEventually("the stalled fetch was told to stop") { fetcher.cancelled == ["slow"] }
    }

    @Test("SPEC C12: a slow local fetch that keeps making progress is not given up")
    func progressKeepsItAlive() async throws {
        let clock = LiveTestClock()
        let fetcher = ScriptedFetcher(clock: clock) { _, reach in
            reach == .network ? [.fail("offline")]
                : [.wait(.seconds(2)), .progress, .wait(.seconds(2)), .progress, .wait(.seconds(2)), .deliver("/tmp/slow.jpg")]
        }
        let policy = CollageFetchPolicy(clock: clock, fetcher: fetcher)
        let task = Task { try await policy.source(for: "slow", size: size) }
        for _ in 0..<3 {
            try await liveEventually("the fetch and its watchdog wait") { clock.sleeperCount == 2 }
            clock.advance(by: .seconds(2))
        }
        #expect(try await task.value == .photo("/tmp/slow.jpg", reach: .localOnly))
        #expect(clock.now.offset == .seconds(6))
    }

    @Test("SPEC C12: a missing photo is one grey cell and the rest exports; none readable → the export fails")
    func cells() async throws {
        let clock = LiveTestClock()
        let fetcher = ScriptedFetcher(clock: clock) { photo, _ in photo == "missing" ? [.fail("deleted")] : [.deliver(photo + ".jpg")] }
        let policy = CollageFetchPolicy(clock: clock, fetcher: fetcher)
        let sources = try await policy.sources(for: ["a", "missing", "c"].map { ($0, size) })
        #expect(sources.map(\.isGrey) == [false, true, false])
        #expect(sources[0] == .photo("a.jpg", reach: .network) && sources[2] == .photo("c.jpg", reach: .network))
        do {
            _ = try await policy.sources(for: ["missing", "missing"].map { ($0, size) })
            Issue.record("an export with no photo did not fail")
        } catch let error as ShiyingError {
            #expect(error.code == .invalidInput && error.message.contains("none of the 2 photos"), "\(error)")
        }
    }
}

// MARK: - SPEC C15

/// A local-movie check that answers per photo after a delay on the manual clock.
private struct ScriptedMovieChecker: LocalMovieChecking {
    enum Answer: Sendable { case local, notLocal, cannotTell, never }
    let clock: LiveTestClock
    let answers: [String: (Duration, Answer)]

    func isMovieLocal(_ photo: String) async throws -> Bool {
        let (delay, answer) = answers[photo] ?? (.zero, .cannotTell)
        try await clock.sleep(for: answer == .never ? .seconds(1_000_000) : delay)
        switch answer {
        case .local: return true
        case .notLocal: return false
        case .cannotTell, .never: throw TestFailure("cannot tell")
        }
    }
}

@Suite("Collage export: SPEC C15 suggestion rule")
struct CollageSuggestionRuleTests {
    private typealias Rule = CollageSuggestionRule<LiveTestClock>

    @Test("SPEC C15: stills join; a Live photo only with its movie on the device; unknown within 10 s → not local")
    func rule() async throws {
        let clock = LiveTestClock()
        let checker = ScriptedMovieChecker(clock: clock, answers: [
            "live-local": (.zero, .local), "live-late-local": (.seconds(9), .local),
            "live-icloud": (.zero, .notLocal), "live-error": (.zero, .cannotTell), "live-silent": (.zero, .never),
        ])
        let rule = Rule(clock: clock, checker: checker)
        let candidates = [Rule.Candidate(photo: "still", isLive: false)]
            + ["live-local", "live-late-local", "live-icloud", "live-error", "live-silent"].map { Rule.Candidate(photo: $0, isLive: true) }
        let done = Flag()
        let task = Task { defer { done.set() }; return try await rule.eligible(candidates) }
        // the 10 s limit, the late answer at 9 s and the silent check are asleep
        try await liveEventually("the checks are out") { clock.sleeperCount == 3 }
        clock.advance(by: .seconds(9))
        try await liveEventually("the late answer came in") { clock.sleeperCount == 2 }
        clock.advance(by: .milliseconds(999))
        try await Task.sleep(for: .milliseconds(50))
        #expect(!done.isSet, "decided before 10 s although a check was still out")
        clock.advance(by: .milliseconds(1))
        try await liveEventually("decided at 10 s") { done.isSet }
        let (joining, verdicts) = try await task.value
        #expect(joining.map(\.photo) == ["still", "live-local", "live-late-local"])
        #expect(verdicts == [.joins, .joins, .joins, .movieNotLocal, .undetermined, .undetermined])
        try await liveEventually("the silent check was told to stop") { clock.sleeperCount == 0 }
    }

    @Test("SPEC C15: when every answer is in, the rule does not wait for the 10 s")
    func answersEarly() async throws {
        let clock = LiveTestClock()
        let checker = ScriptedMovieChecker(clock: clock, answers: ["a": (.zero, .local), "b": (.zero, .notLocal)])
        let rule = Rule(clock: clock, checker: checker)
        let (joining, _) = try await rule.eligible([.init(photo: "a", isLive: true), .init(photo: "b", isLive: true)])
        #expect(joining.map(\.photo) == ["a"] && clock.now.offset == .zero)
        #expect(try await rule.eligible([]).joining.isEmpty)
    }
}
