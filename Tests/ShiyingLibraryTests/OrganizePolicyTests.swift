// issue 9: deletion, gesture and home policies with an injectable clock —
// SPEC D1, D2, D3, G2, G3, G4, G5, G6, H1, H2, H4.
import ShiyingLibrary
import Testing

@Suite("Organize policies")
struct OrganizePolicyTests {
    @Test("SPEC D1: deleting from set aside needs no group re-check; the system confirms; 30 days recoverable")
    func setAsideDeletion() {
        let r = SetAsideDeletion.request([DeletionItem(id: 1, currentBytes: 10, fullResourceBytes: 20)])
        #expect(!r.requiresGroupCheck && r.systemConfirmation && r.recentlyDeletedDays == 30 && r.items == [1])
    }

    @Test("SPEC D1: set-aside items from a group that no longer verifies are still deletable")
    func setAsideNeedsNoGroup() throws {
        let folder = try TempFolder()
        defer { folder.remove() }
        let org = OrganizeStore(store: try RecordStore(path: folder.file("d1.sqlite")))
        try org.record([organizeAsset("a", pixels: "P"), organizeAsset("b", pixels: "P")], nowMs: 1)
        let dup = try #require(try org.regroup(nowMs: 2).first)
        _ = try org.decide(groupIDs: [dup.id], action: .keepOne, nowMs: 3)
        try org.store.execute("UPDATE organize_fingerprints SET pixel_sha256 = 'changed'")
        #expect(!(try org.verifyDuplicateGroup(id: dup.id).verified))
        let items = try org.setAsideAssets().map { DeletionItem(id: $0.id, currentBytes: $0.fileBytes, fullResourceBytes: $0.fullResourceBytes) }
        let request = SetAsideDeletion.request(items)
        #expect(request.items.count == 1 && !request.requiresGroupCheck)
    }

    @Test("SPEC D2: up to X freed = the larger when both are measured, else the smaller; the system decides")
    func freedSpace() {
        let both = SetAsideDeletion.freed([DeletionItem(id: 1, currentBytes: 1_000_000, fullResourceBytes: 3_000_000),
                                           DeletionItem(id: 2, currentBytes: 2_000_000, fullResourceBytes: 2_500_000)])
        #expect(both.bytes == 5_500_000 && both.measuredBoth)
        #expect(both.text == "最多可释放 5.5 MB。实际数量以系统确认删除的项目为准。")
        let edited = SetAsideDeletion.freed([DeletionItem(id: 1, currentBytes: 4_000_000, fullResourceBytes: 1_000_000)])
        #expect(edited.bytes == 4_000_000)
        let partial = SetAsideDeletion.freed([DeletionItem(id: 1, currentBytes: 1_000_000, fullResourceBytes: 9_000_000),
                                              DeletionItem(id: 2, currentBytes: 1_000_000, fullResourceBytes: nil)])
        #expect(partial.bytes == 2_000_000 && !partial.measuredBoth, "cannot measure: the smaller")
        #expect(SetAsideDeletion.byteText(999) == "999 B" && SetAsideDeletion.byteText(2_000_000_000) == "2 GB")
    }

    @Test("SPEC D3: not visible and refused are two outcomes with two messages")
    func twoFailureKinds() {
        let o = DeletionOutcome([(1, .deleted), (2, .notVisible), (3, .refused), (4, .refused)])
        #expect(o.deleted == [1] && o.notVisible == [2] && o.refused == [3, 4])
        #expect(o.notVisibleMessage == "有 1 项拾映目前看不到，这次已跳过。允许取用全部照片后再删除。")
        #expect(o.refusedMessage == "有 2 项系统不让拾映删除（多半在共享相簿里），仍留在这一页：可以拿回来，或到「照片」App 里删除。")
        let clean = DeletionOutcome([(1, .deleted)])
        #expect(clean.notVisibleMessage == nil && clean.refusedMessage == nil)
    }

    @Test("SPEC G2: double tap = favourite; a single tap waits 0.45 s for a nearby second tap")
    func doubleTap() {
        let clock = ManualClock()
        let taps = TapDisambiguator(clock: clock.clock)
        let p = GesturePoint(x: 100, y: 100)
        #expect(taps.tap(at: p).isEmpty)
        clock.advance(0.3)
        #expect(taps.tap(at: GesturePoint(x: 110, y: 105)) == [.doubleTap(p)])
        // single: nothing until 0.45 s, then exactly once
        #expect(taps.tap(at: p).isEmpty)
        clock.advance(0.44)
        #expect(taps.tick().isEmpty)
        clock.advance(0.01)
        #expect(taps.tick() == [.singleTap(p)])
        #expect(taps.tick().isEmpty)
        // a far second tap: the first is a single tap, the second starts waiting
        #expect(taps.tap(at: p).isEmpty)
        clock.advance(0.1)
        let far = GesturePoint(x: 300, y: 100)
        #expect(taps.tap(at: far) == [.singleTap(p)])
        clock.advance(0.5)
        #expect(taps.tap(at: p) == [.singleTap(far)], "a late second tap is a new first tap")
    }

    @Test("SPEC G3: swipe up sets aside; not from the note row, not sideways or diagonal; ring and commit agree")
    func swipeUp() {
        let note = 700.0...760.0
        let start = GesturePoint(x: 200, y: 500)
        #expect(SwipeUpRule.progress(start: start, current: GesturePoint(x: 200, y: 440), noteRow: note) == 0.5)
        #expect(!SwipeUpRule.commits(start: start, end: GesturePoint(x: 200, y: 440), noteRow: note))
        #expect(SwipeUpRule.commits(start: start, end: GesturePoint(x: 210, y: 360), noteRow: note))
        #expect(!SwipeUpRule.commits(start: GesturePoint(x: 200, y: 730), end: GesturePoint(x: 200, y: 400), noteRow: note))
        #expect(!SwipeUpRule.commits(start: start, end: GesturePoint(x: 400, y: 480), noteRow: note), "sideways")
        #expect(!SwipeUpRule.commits(start: start, end: GesturePoint(x: 330, y: 330), noteRow: note), "diagonal")
        #expect(!SwipeUpRule.commits(start: start, end: GesturePoint(x: 200, y: 700), noteRow: note), "down")
        for y in stride(from: 500.0, through: 300, by: -10) { // one rule: full ring ⇔ commit
            let end = GesturePoint(x: 205, y: y)
            #expect((SwipeUpRule.progress(start: start, current: end, noteRow: note) >= 1) ==
                    SwipeUpRule.commits(start: start, end: end, noteRow: note))
        }
    }

    @Test("SPEC G4: set aside always answers — queued off screen, one page advance after 0.6 s, deleted only on leave")
    func setAsideQueue() {
        let clock = ManualClock()
        let q = SetAsideQueue(clock: clock.clock)
        #expect(q.request(1, pageOnScreen: true) == [.setAside(1)])
        #expect(q.request(2, pageOnScreen: false) == [.queued(2)])
        clock.advance(0.59)
        #expect(q.tick().isEmpty)
        clock.advance(0.01)
        #expect(q.tick() == [.advancePage])
        #expect(q.tick().isEmpty, "one advance per queued request")
        #expect(q.pageShown(2) == [.setAside(2)])
        #expect(q.setAside == [1, 2])
        #expect(q.leave() == [1, 2])
        #expect(q.leave().isEmpty)
    }

    @Test("SPEC G5: counts are written once, on leaving")
    func countsOnLeave() throws {
        let folder = try TempFolder()
        defer { folder.remove() }
        let org = OrganizeStore(store: try RecordStore(path: folder.file("g5.sqlite")))
        let counter = CleanupCounter()
        let before = org.store.committedWrites
        for _ in 0..<25 { counter.count("screenshots_viewed") }
        counter.count("screenshots_set_aside", by: 3)
        #expect(org.store.committedWrites == before, "no write while browsing")
        try counter.leave(store: org)
        #expect(org.store.committedWrites == before + 1)
        #expect(try org.stat("screenshots_viewed") == 25 && org.stat("screenshots_set_aside") == 3)
        try counter.leave(store: org)
        #expect(org.store.committedWrites == before + 1, "nothing new, nothing written")
    }

    @Test("SPEC G6: after leaving, 「有 N 项没删掉，仍在照片图库里」 for ~3.5 s; nothing when all succeeded")
    func failedDeletionToast() {
        #expect(FailedDeletionToast.after(failed: 0) == nil)
        let t = FailedDeletionToast.after(failed: 2)
        #expect(t?.text == "有 2 项没删掉，仍在照片图库里" && t?.seconds == 3.5)
    }

    @Test("SPEC H1: a review opens when its first item is prepared, or after at most 0.35 s")
    func reviewOpening() {
        let clock = ManualClock()
        let fast = ReviewOpening(clock: clock.clock)
        clock.advance(0.1)
        #expect(fast.firstItemPrepared())
        #expect(!fast.tick() && !fast.firstItemPrepared(), "opens once")
        let slow = ReviewOpening(clock: clock.clock)
        clock.advance(0.34)
        #expect(!slow.tick())
        clock.advance(0.01)
        #expect(slow.tick())
        #expect(!slow.firstItemPrepared(), "late preparation does not open it twice")
    }

    @Test("SPEC H2: never swap an image for a blurrier one")
    func neverBlurrier() {
        let shown = ImageSwapRule.Version(width: 600, height: 400)
        #expect(ImageSwapRule.shouldSwap(showing: nil, candidate: shown))
        #expect(ImageSwapRule.shouldSwap(showing: shown, candidate: .init(width: 1200, height: 800)))
        #expect(!ImageSwapRule.shouldSwap(showing: shown, candidate: .init(width: 300, height: 200)))
        #expect(!ImageSwapRule.shouldSwap(showing: shown, candidate: shown))
        let placeholder = ImageSwapRule.Version(width: 600, height: 400, degraded: true)
        let sharperThanPlaceholder = ImageSwapRule.shouldSwap(showing: placeholder, candidate: shown)
        #expect(sharperThanPlaceholder)
        #expect(!ImageSwapRule.shouldSwap(showing: shown, candidate: .init(width: 600, height: 400, degraded: true)))
    }

    @Test("SPEC H4: offline drops cloud-only videos; VPN is not online; start online")
    func offlineVideos() {
        let f = OfflineVideoFilter()
        let videos = [OfflineVideoFilter.Video(id: 1, cloudOnly: true), .init(id: 2, cloudOnly: false)]
        #expect(f.isOnline && f.queueable(videos).count == 2, "start assuming online")
        f.update([.init(kind: .vpn, up: true), .init(kind: .wifi, up: false), .init(kind: .loopback, up: true)])
        #expect(!f.isOnline && f.queueable(videos).map(\.id) == [2])
        f.update([.init(kind: .cellular, up: true)])
        #expect(f.isOnline)
        f.update([.init(kind: .wired, up: true), .init(kind: .vpn, up: true)])
        #expect(f.queueable(videos).count == 2)
    }
}
