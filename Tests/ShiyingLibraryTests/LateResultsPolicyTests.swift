// SPEC Q3: late result batches.
import ShiyingLibrary
import Testing

private let base = SearchContext(query: "猫", access: .full, libraryChangeCount: 7, versionToken: "t1")

private func with(_ change: (inout SearchContext) -> Void) -> SearchContext {
    var c = base
    change(&c)
    return c
}

@Test("SPEC Q3 decisions", arguments: [
    (base, LateBatchDecision.merge),
    (with { $0.versionToken = "t2" }, .merge),                       // the token alone moves: tolerated
    (with { $0.query = " 猫 " }, .merge),                              // same query after normalization
    (with { $0.access = .limited }, .reject(.permissionRevoked)),
    (with { $0.access = .none }, .reject(.permissionRevoked)),
    (with { $0.query = "狗" }, .reject(.queryChanged)),
    (with { $0.libraryChangeCount = 8 }, .reject(.libraryChanged)),
    (with { $0.libraryChangeCount = 8; $0.versionToken = "t9" }, .reject(.libraryChanged)),
    (with { $0.query = "狗"; $0.access = .none }, .reject(.permissionRevoked)),
])
func lateDecisions(_ c: (SearchContext, LateBatchDecision)) {
    #expect(LateResultsPolicy.decide(requested: base, current: c.0) == c.1)
}

@Test("SPEC Q3 wider access never rejects")
func widerAccess() {
    let requested = with { $0.access = .limited }
    #expect(LateResultsPolicy.decide(requested: requested, current: base) == .merge)
}

@Test("SPEC Q3 merging appends new items in order, without duplicates")
func lateMerge() {
    #expect(LateResultsPolicy.merged([1, 2, 3], [3, 4, 2, 5, 4]) == [1, 2, 3, 4, 5])
    let applied = LateResultsPolicy.apply(batch: ["c"], to: ["a", "b"], requested: base, current: with { $0.versionToken = "x" })
    #expect(applied.list == ["a", "b", "c"])
    let rejected = LateResultsPolicy.apply(batch: ["c"], to: ["a"], requested: base, current: with { $0.query = "x" })
    #expect(rejected.list == ["a"] && rejected.decision == .reject(.queryChanged))
}
