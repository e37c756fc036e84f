// SPEC E3/E4 / issue 5: the filter strip order, the page snapshot, custom
// filters and their store (JSON file, temp file + rename).
import Foundation
import Shiying
import Synchronization
import Testing

/// Three families of six (SPEC E3: the smallest family has 6 filters).
private func catalogue() throws -> FilterCatalogue {
    try FilterCatalogue(families: ["a", "b", "c"].map { family in
        FilterFamily(id: family, name: "Family \(family)", filterIDs: (1...6).map { "\(family)\($0)" })
    })
}

private func custom(_ id: String, _ name: String = "Mine") throws -> CustomFilter {
    try CustomFilter(id: id, name: name, recipe: EditRecipe(adjustments: .init(warmth: 0.3)), createdAtMilliseconds: 1)
}

private func ids(_ items: [FilterStripItem]) -> [String] {
    items.compactMap { item in
        switch item {
        case .filter(let id), .custom(let id): return id
        case .original: return "original"
        case .saveAsFilter: return "save"
        }
    }
}

/// The rules every strip must satisfy, whatever the history.
private func checkInvariants(_ strip: FilterStrip, _ catalogue: FilterCatalogue, customCount: Int,
                             sourceLocation: SourceLocation = #_sourceLocation) {
    let sections = strip.sections
    #expect(sections.first?.kind == .original && sections.first?.items == [.original], sourceLocation: sourceLocation)
    #expect(sections.last?.kind == .custom, sourceLocation: sourceLocation)
    #expect(sections.last?.items.last == .saveAsFilter, sourceLocation: sourceLocation)
    #expect(sections.last?.items.count == customCount + 1, sourceLocation: sourceLocation)
    // Each built-in filter exactly once.
    let builtIns = strip.items.compactMap { item -> String? in
        if case .filter(let id) = item { return id } else { return nil }
    }
    #expect(builtIns.sorted() == catalogue.families.flatMap(\.filterIDs).sorted(), sourceLocation: sourceLocation)
    // No family emptied, families in catalogue order.
    let families = sections.filter { if case .family = $0.kind { return true } else { return false } }
    #expect(families.map(\.kind) == catalogue.families.map { .family(id: $0.id) }, sourceLocation: sourceLocation)
    for section in families { #expect(!section.items.isEmpty, "\(section.kind) emptied", sourceLocation: sourceLocation) }
    // The recent section only when non-empty.
    if let recent = strip.section(.recent) { #expect(!recent.items.isEmpty, sourceLocation: sourceLocation) }
}

/// Deterministic pseudo-random numbers (SplitMix64).
private struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("Editor filter strip")
struct EditorFilterStripTests {
    @Test("SPEC E3: with no history there is no recent section: original, the families, then custom")
    func noHistory() throws {
        let catalogue = try catalogue()
        let strip = FilterStrip(catalogue: catalogue, recentIDs: [], customFilters: [])
        #expect(strip.sections.map(\.kind) == [.original, .family(id: "a"), .family(id: "b"), .family(id: "c"), .custom])
        #expect(strip.section(.family(id: "a"))?.title == "Family a")
        checkInvariants(strip, catalogue, customCount: 0)
    }

    @Test("SPEC E3: recent filters come right after original, most recent first, and leave their families")
    func recentsMove() throws {
        let catalogue = try catalogue()
        let strip = FilterStrip(catalogue: catalogue, recentIDs: ["b3", "a1", "c6"], customFilters: [])
        #expect(strip.sections.map(\.kind).prefix(2) == [.original, .recent])
        #expect(ids(strip.section(.recent)!.items) == ["b3", "a1", "c6"])
        #expect(ids(strip.section(.family(id: "a"))!.items) == ["a2", "a3", "a4", "a5", "a6"])
        #expect(ids(strip.section(.family(id: "b"))!.items) == ["b1", "b2", "b4", "b5", "b6"])
        #expect(ids(strip.section(.family(id: "c"))!.items) == ["c1", "c2", "c3", "c4", "c5"])
        checkInvariants(strip, catalogue, customCount: 0)
    }

    @Test("SPEC E3: no duplicates, even when the history repeats an id")
    func noDuplicates() throws {
        let catalogue = try catalogue()
        let strip = FilterStrip(catalogue: catalogue, recentIDs: ["a2", "a2", "b1", "a2"], customFilters: [])
        #expect(ids(strip.section(.recent)!.items) == ["a2", "b1"])
        #expect(Set(strip.items).count == strip.items.count)
        checkInvariants(strip, catalogue, customCount: 0)
    }

    @Test("SPEC E3: at most defaultRecentLimit (5) recents; older uses stay in their families")
    func recentCap() throws {
        let catalogue = try catalogue()
        #expect(FilterStrip.defaultRecentLimit == 5)
        let strip = FilterStrip(catalogue: catalogue, recentIDs: ["a1", "b1", "c1", "a2", "b2", "c2", "a3"], customFilters: [])
        #expect(ids(strip.section(.recent)!.items) == ["a1", "b1", "c1", "a2", "b2"])
        #expect(ids(strip.section(.family(id: "c"))!.items).contains("c2"))
        #expect(ids(strip.section(.family(id: "a"))!.items).contains("a3"))
        checkInvariants(strip, catalogue, customCount: 0)
    }

    @Test("SPEC E3: unknown ids in the history (removed filters, custom ids) are ignored")
    func unknownIgnored() throws {
        let catalogue = try catalogue()
        let strip = FilterStrip(catalogue: catalogue, recentIDs: ["gone", "b2", "custom-1", "", "c9"], customFilters: [])
        #expect(ids(strip.section(.recent)!.items) == ["b2"])
        checkInvariants(strip, catalogue, customCount: 0)
    }

    @Test("SPEC E3: a family is never emptied — with the default cap, using a whole family leaves one home")
    func neverEmptiedDefault() throws {
        let catalogue = try catalogue()
        let strip = FilterStrip(catalogue: catalogue, recentIDs: ["a6", "a5", "a4", "a3", "a2", "a1"], customFilters: [])
        #expect(ids(strip.section(.recent)!.items) == ["a6", "a5", "a4", "a3", "a2"])
        #expect(ids(strip.section(.family(id: "a"))!.items) == ["a1"])
        checkInvariants(strip, catalogue, customCount: 0)
    }

    @Test("SPEC E3: with a cap above the family size, the family's least recently used filter stays home and leaves recents")
    func neverEmptiedLargeCap() throws {
        let catalogue = try catalogue()
        let strip = FilterStrip(catalogue: catalogue, recentIDs: ["a3", "a1", "b2", "a6", "a2", "a5", "a4"],
                                customFilters: [], recentLimit: 8)
        // Family a is wholly recent; a4 is its least recently used (last in the history).
        #expect(ids(strip.section(.recent)!.items) == ["a3", "a1", "b2", "a6", "a2", "a5"])
        #expect(ids(strip.section(.family(id: "a"))!.items) == ["a4"])
        checkInvariants(strip, catalogue, customCount: 0)
    }

    @Test("SPEC E3/E4: invariants hold for 500 seeded random histories, caps 0…12 and 0…3 custom filters")
    func randomHistories() throws {
        let catalogue = try catalogue()
        let all = catalogue.families.flatMap(\.filterIDs) + ["unknown1", "unknown2"]
        var rng = SeededGenerator(state: 5)
        for _ in 0..<500 {
            let history = (0..<Int.random(in: 0...25, using: &rng)).map { _ in all.randomElement(using: &rng)! }
            let cap = Int.random(in: 0...12, using: &rng)
            let customs = try (0..<Int.random(in: 0...3, using: &rng)).map { try custom("custom-\($0)") }
            let strip = FilterStrip(catalogue: catalogue, recentIDs: history, customFilters: customs, recentLimit: cap)
            checkInvariants(strip, catalogue, customCount: customs.count)
            let recents = ids(strip.section(.recent)?.items ?? [])
            #expect(recents.count <= cap)
            // Recents keep history order (first occurrence, most recent first).
            var firstSeen: [String] = []
            for id in history where !firstSeen.contains(id) { firstSeen.append(id) }
            #expect(recents == firstSeen.filter { recents.contains($0) })
        }
    }

    @Test("SPEC E4: the custom section is present when empty and 「存为滤镜」 is last")
    func customSectionEmpty() throws {
        let strip = FilterStrip(catalogue: try catalogue(), recentIDs: ["a1"], customFilters: [])
        let section = try #require(strip.section(.custom))
        #expect(section.items == [.saveAsFilter])
        #expect(section.title == "自定义滤镜")
        #expect(FilterStrip.saveAsFilterTitle == "存为滤镜")
        #expect(strip.items.last == .saveAsFilter)
    }

    @Test("SPEC E4: custom filters appear in saved order before 「存为滤镜」, each once")
    func customOrder() throws {
        let customs = try [custom("custom-2"), custom("custom-1"), custom("custom-2")]
        let strip = FilterStrip(catalogue: try catalogue(), recentIDs: [], customFilters: customs)
        #expect(strip.section(.custom)?.items == [.custom(id: "custom-2"), .custom(id: "custom-1"), .saveAsFilter])
    }

    @Test("SPEC E3: a tap on the open page records the use but does not re-sort the strip; the next opening does")
    func noReorderOnTap() throws {
        let catalogue = try catalogue()
        var page = FilterPage(catalogue: catalogue, history: FilterUseHistory(uses: [.init(filterID: "a1", usedAtMilliseconds: 100)]),
                              customFilters: [], openedAtMilliseconds: 1_000)
        let before = page.strip
        page.tap(.filter(id: "c4"), at: 1_001)
        page.tap(.filter(id: "b2"), at: 1_002)
        #expect(page.strip == before)
        #expect(page.history.uses.map(\.filterID) == ["b2", "c4", "a1"])
        // The same opening moment gives the same strip even from the updated history…
        let sameMoment = FilterPage(catalogue: catalogue, history: page.history, customFilters: [], openedAtMilliseconds: 1_000)
        #expect(sameMoment.strip == before)
        // …and the next opening shows the new uses first.
        let next = FilterPage(catalogue: catalogue, history: page.history, customFilters: [], openedAtMilliseconds: 2_000)
        #expect(ids(next.strip.section(.recent)!.items) == ["b2", "c4", "a1"])
    }

    @Test("SPEC E3: recents only once used — original, custom and 「存为滤镜」 taps record nothing")
    func onlyFiltersRecorded() throws {
        var page = FilterPage(catalogue: try catalogue(), history: FilterUseHistory(), customFilters: [try custom("custom-1")],
                              openedAtMilliseconds: 10)
        page.tap(.original, at: 11)
        page.tap(.custom(id: "custom-1"), at: 12)
        page.tap(.saveAsFilter, at: 13)
        #expect(page.history.uses.isEmpty)
        let next = FilterPage(catalogue: try catalogue(), history: page.history, customFilters: [], openedAtMilliseconds: 20)
        #expect(next.strip.section(.recent) == nil)
    }

    @Test("SPEC E4: a filter saved while the page is open appears before 「存为滤镜」; nothing else moves")
    func saveWhileOpen() throws {
        var page = FilterPage(catalogue: try catalogue(), history: FilterUseHistory(uses: [.init(filterID: "b5", usedAtMilliseconds: 1)]),
                              customFilters: [try custom("custom-1")], openedAtMilliseconds: 10)
        let before = page.strip.items
        page.didSave(try custom("custom-2"))
        page.didSave(try custom("custom-2"))
        let after = page.strip.items
        #expect(Array(after.prefix(before.count - 1)) == Array(before.dropLast()))
        #expect(after.suffix(2) == [.custom(id: "custom-2"), .saveAsFilter])
        #expect(page.customFilters.map(\.id) == ["custom-1", "custom-2"])
    }

    @Test("SPEC E3: the history keeps one entry per filter, most recent first, capped")
    func historyRule() {
        var history = FilterUseHistory()
        for i in 0..<40 { history.record("f\(i)", at: Int64(i)) }
        history.record("f35", at: 100)
        #expect(history.uses.count == FilterUseHistory.storedLimit)
        #expect(history.uses.first?.filterID == "f35")
        #expect(Set(history.uses.map(\.filterID)).count == history.uses.count)
        #expect(history.recentIDs(asOf: 38).first == "f38")
    }

    @Test("SPEC E3: a catalogue with a family under 6 filters or a repeated id is refused")
    func catalogueRules() {
        #expect(throws: FilterError.self) {
            try FilterCatalogue(families: [FilterFamily(id: "small", name: "S", filterIDs: ["1", "2", "3", "4", "5"])])
        }
        #expect(throws: FilterError.self) {
            try FilterCatalogue(families: [FilterFamily(id: "x", name: "X", filterIDs: ["1", "2", "3", "4", "5", "6"]),
                                           FilterFamily(id: "y", name: "Y", filterIDs: ["6", "7", "8", "9", "10", "11"])])
        }
        do {
            _ = try FilterCatalogue(families: [FilterFamily(id: "small", name: "S", filterIDs: ["1"])])
        } catch let error as FilterError {
            #expect(error.kind == .invalidCatalogue && error.message.contains("small") && error.message.contains("at least 6"))
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test("SPEC E4: a custom filter keeps only the colour part; names are checked; an edit with no colour is refused")
    func customFilterRules() throws {
        let recipe = EditRecipe(crop: .init(x: 0, y: 0, width: 0.5, height: 0.5), quarterTurns: 1,
                                adjustments: .init(exposure: 0.5), filter: .init(id: "a1", intensity: 0.4), border: .init(width: 0.1))
        let saved = try CustomFilter(id: "custom-1", name: "  暖一点  ", recipe: recipe, createdAtMilliseconds: 5)
        #expect(saved.name == "暖一点")
        #expect(saved.look == recipe.colorOnly)
        #expect(!saved.look.hasGeometry && !saved.look.hasBorder)
        let applied = EditRecipe(straighten: 2).applying(saved)
        #expect(applied.straighten == 2 && applied.adjustments == recipe.adjustments && applied.filter == recipe.filter)

        #expect(throws: FilterError.self) { try CustomFilter(id: "x", name: "  ", recipe: recipe, createdAtMilliseconds: 0) }
        #expect(throws: FilterError.self) {
            try CustomFilter(id: "x", name: String(repeating: "滤", count: 41), recipe: recipe, createdAtMilliseconds: 0)
        }
        do {
            _ = try CustomFilter(id: "x", name: "Nothing", recipe: EditRecipe(quarterTurns: 1), createdAtMilliseconds: 0)
            Issue.record("saved a filter with no colour")
        } catch let error as FilterError {
            #expect(error.kind == .nothingToSave)
        }
    }
}

@Suite("Editor filter store")
struct EditorFilterStoreTests {
    /// Clock and ids counting up, for deterministic files.
    final class Counter: Sendable {
        let clock: @Sendable () -> Int64
        let ids: @Sendable () -> String
        init() {
            let time = LockedCounter(1_000)
            let next = LockedCounter(0)
            clock = { time.add(10) }
            ids = { "custom-\(next.add(1))" }
        }
    }

    @Test("SPEC E4: a fresh store opens a page with an empty custom section ending in 「存为滤镜」")
    func freshStore() async throws {
        let dir = try TempDir("filters")
        defer { dir.remove() }
        let store = FilterStore(path: dir.file("filters.json"))
        let page = try await store.openPage(catalogue: try catalogue())
        #expect(page.strip.section(.custom)?.items == [.saveAsFilter])
        #expect(page.strip.section(.recent) == nil)
        #expect(dir.contents().isEmpty)
    }

    @Test("SPEC E3/E4: uses and saved filters persist across store instances; writes leave no temp files")
    func persists() async throws {
        let dir = try TempDir("filters")
        defer { dir.remove() }
        let counter = Counter()
        let path = dir.file("filters.json")
        let store = FilterStore(path: path, clock: counter.clock, makeID: counter.ids)
        try await store.recordUse(.filter(id: "b2"))
        try await store.recordUse(.filter(id: "a5"))
        try await store.recordUse(.original)
        let saved = try await store.saveCustomFilter(name: "Warm", from: EditRecipe(quarterTurns: 2, adjustments: .init(warmth: 0.4)))
        #expect(saved.id == "custom-1")
        #expect(dir.contents() == ["filters.json"])

        let reopened = FilterStore(path: path, clock: counter.clock, makeID: counter.ids)
        let preferences = try await reopened.load()
        #expect(preferences.history.uses.map(\.filterID) == ["a5", "b2"])
        #expect(preferences.customFilters == [saved])
        #expect(preferences.customFilters.first?.look == EditRecipe(adjustments: .init(warmth: 0.4)))
        let page = try await reopened.openPage(catalogue: try catalogue())
        #expect(ids(page.strip.section(.recent)!.items) == ["a5", "b2"])
        #expect(page.strip.section(.custom)?.items == [.custom(id: "custom-1"), .saveAsFilter])

        try await reopened.deleteCustomFilter(id: "custom-1")
        #expect(try await reopened.load().customFilters.isEmpty)
        await #expect(throws: FilterError.self) { try await reopened.deleteCustomFilter(id: "custom-1") }
    }

    @Test("SPEC E4: a corrupt store is reported and never overwritten; a newer version is refused")
    func corruptStore() async throws {
        let dir = try TempDir("filters")
        defer { dir.remove() }
        let path = dir.file("filters.json")
        let garbage = Data("{\"customFilters\": [{\"id\": 3}]".utf8)
        try garbage.write(to: URL(fileURLWithPath: path))
        let store = FilterStore(path: path)
        do {
            _ = try await store.load()
            Issue.record("corrupt store loaded")
        } catch let error as FilterError {
            #expect(error.kind == .corruptStore && error.message.contains(path))
        }
        await #expect(throws: FilterError.self) { try await store.recordUse(.filter(id: "a1")) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage)

        try Data(#"{"version": 2, "customFilters": []}"#.utf8).write(to: URL(fileURLWithPath: path))
        do {
            _ = try await store.load()
            Issue.record("newer store loaded")
        } catch let error as FilterError {
            #expect(error.kind == .unsupportedVersion)
        }
    }

    @Test("SPEC E4: a hand-edited look with geometry is reduced to its colour part on load")
    func lookStaysColourOnly() async throws {
        let dir = try TempDir("filters")
        defer { dir.remove() }
        let path = dir.file("filters.json")
        try Data(#"{"customFilters": [{"id": "c", "name": "N", "createdAtMilliseconds": 1, "look": {"quarterTurns": 1, "adjustments": {"tint": 0.2}}}]}"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        let preferences = try await FilterStore(path: path).load()
        #expect(preferences.customFilters.first?.look == EditRecipe(adjustments: .init(tint: 0.2)))
    }

    @Test("issue 5: a failed write (missing folder) leaves nothing behind")
    func failedWrite() async throws {
        let dir = try TempDir("filters")
        defer { dir.remove() }
        let store = FilterStore(path: dir.file("missing/filters.json"))
        await #expect(throws: ShiyingError.self) { try await store.recordUse(.filter(id: "a1")) }
        #expect(dir.contents().isEmpty)
    }
}

/// A locked counter usable from @Sendable closures.
final class LockedCounter: Sendable {
    private let value: Mutex<Int64>
    init(_ start: Int64) { value = Mutex(start) }
    func add(_ step: Int64) -> Int64 { value.withLock { $0 += step; return $0 } }
}
