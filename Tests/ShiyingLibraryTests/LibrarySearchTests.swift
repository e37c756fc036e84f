// Issue 21: searching a generated library by date phrases (SPEC Q2), words
// (folded as SPEC Q1 folds), camera, file names, recognized text; batches
// and SPEC Q3's late-batch rule; recent searches per library; the CLI.
import Foundation
import ShiyingLibrary
import ShiyingOrganize
import Testing

@Suite("Library search")
struct LibrarySearchTests {
    /// The names of `ids`, in order.
    private func names(_ ids: [Int64], _ f: LibrarySearchFixture) -> [String] {
        let byID = Dictionary(uniqueKeysWithValues: f.ids.map { ($0.value, $0.key) })
        return ids.map { byID[$0] ?? "?\($0)" }
    }

    private func found(_ text: String, _ f: LibrarySearchFixture) async throws -> [String] {
        names(try await f.library.search(text, today: LibrarySearchFixture.today).ids, f)
    }

    @Test("every date phrase finds exactly the photos captured in its range, newest first")
    func datePhrases() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        guard let f = try await LibrarySearchFixture.make(in: dir) else { return }   // needs exiftool
        let today = LibrarySearchFixture.today
        let dated = LibrarySearchFixture.photos.compactMap { p in
            p.date.map { (name: p.name, day: Day(iso: $0.prefix(10).replacingOccurrences(of: ":", with: "-"))!, at: $0) }
        }
        let phrases = ["昨天", "前天", "今天", "本周", "上周", "上周六", "上周日", "上星期天", "上周末", "本月", "上个月", "上个月底",
                       "月初", "今年", "今年初", "去年", "去年底", "去年五月一日", "五月一日", "5月1日", "2024年5月1日", "May 1",
                       "1 May 2024", "5월 1일", "1. Mai", "1er mai", "1 de mayo", "14 juillet", "Dec 24", "2024年12月24日"]
        let parser = DatePhraseParser()
        for phrase in phrases {
            let ranges = parser.parse(phrase, today: today).ranges
            #expect(ranges.count == 1, "\(phrase) is a date phrase")
            let expected = dated.filter { p in ranges.contains { $0.contains(p.day) } }
                .sorted { $0.at > $1.at }.map(\.name)
            let result = try await f.library.search(phrase, today: today)
            #expect(result.query.terms.isEmpty, "\(phrase): nothing left to match as words")
            #expect(names(result.ids, f) == expected, "\(phrase) → \(ranges)")
        }
        // A few spelled out, so an empty expectation cannot pass silently.
        #expect(try await found("上周六", f) == ["last-saturday"])
        #expect(try await found("上周末", f) == ["last-sunday", "last-saturday"])
        #expect(try await found("上周", f) == ["last-sunday", "last-saturday", "last-wednesday"])
        #expect(try await found("去年五月一日", f) == ["may-day"])
        #expect(try await found("上个月底", f) == ["receipt"])
        #expect(try await found("去年", f) == ["christmas-eve", "海边日落", "bastille", "may-day"])
    }

    @Test("「上周日本」 is last week ∩ 「本」; words in eight languages, folded; camera, file name, recognized text")
    func words() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        guard let f = try await LibrarySearchFixture.make(in: dir) else { return }
        let query = try await f.library.search("上周日本", today: LibrarySearchFixture.today).query
        #expect(query.terms == ["本"] && query.ranges.count == 1)
        // last week: saturday (album 日本旅行) and sunday (tag 笔记本) hold 本; wednesday does not;
        // monday's 日本旅行 is this week.
        #expect(try await found("上周日本", f) == ["last-sunday", "last-saturday"])
        #expect(try await found("日本", f) == ["monday", "last-saturday"])
        #expect(try await found("本", f) == ["monday", "last-sunday", "last-saturday"])
        // eight languages
        #expect(try await found("猫", f) == ["yesterday"])                 // simplified Chinese
        #expect(try await found("貓咪", f) == ["february"])               // traditional Chinese
        #expect(try await found("パーティー", f) == ["christmas-eve"])    // Japanese
        #expect(try await found("생일", f) == ["bastille"])               // Korean
        #expect(try await found("beach", f) == ["last-wednesday", "undated"])   // English; undated last
        #expect(try await found("geburtstag", f) == ["january"])          // German, any case
        #expect(try await found("fete", f) == ["bastille"])               // French, without its accent
        #expect(try await found("PLAYA", f) == ["may-day"])               // Spanish
        // full width, diacritics and case the way SPEC Q1 folds them
        #expect(try await found("ＦＥＴＥ", f) == ["bastille"])
        #expect(try await found("FÊTE", f) == ["bastille"])
        #expect(try await found("ｂｅａｃｈ", f) == ["last-wednesday", "undated"])
        // camera, file name, recognized text (substring, across no field)
        #expect(try await found("iphone", f) == ["yesterday"])
        #expect(try await found("iPhone 15", f) == ["yesterday"])        // two terms, both in "apple iphone 15 plus"
        #expect(try await found("Samsung", f) == ["last-wednesday"])
        #expect(try await found("日落", f) == ["海边日落"])
        #expect(try await found("合计", f) == ["receipt"])
        #expect(try await found("zurich", f) == ["receipt"])
        #expect(try await found("cafe zurich", f) == ["receipt"])
        // a word and a date together; a date that leaves the word nothing
        #expect(try await found("beach 上周", f) == ["last-wednesday"])
        #expect(try await found("上周三 beach", f) == ["last-wednesday"])
        #expect(try await found("beach 昨天", f) == [])
        // "last weekend": SPEC Q2 has relative words in simplified Chinese only, so these are words
        let lastWeekend = try await f.library.search("last weekend", today: LibrarySearchFixture.today)
        #expect(lastWeekend.query.ranges.isEmpty && lastWeekend.query.terms == ["last", "weekend"])
        #expect(names(lastWeekend.ids, f) == ["last-wednesday"])
        #expect(try await found("nothing-like-this", f) == [])
        #expect(try await found("   ", f) == [])
    }

    @Test("the words follow tags, albums (renamed too), recognized text, hiding and deletion")
    func indexFollowsChanges() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        guard let f = try await LibrarySearchFixture.make(in: dir) else { return }
        let lib = f.library
        #expect(try await found("海边", f) == ["海边日落"])
        try await lib.addTags(["海边"], to: [f.id("may-day")])
        #expect(try await found("海边", f) == ["海边日落", "may-day"])
        try await lib.removeTags(["海边"], from: [f.id("may-day")])
        #expect(try await found("海边", f) == ["海边日落"])
        try await lib.renameAlbum("日本旅行", to: "京都之旅")
        #expect(try await found("日本", f) == [])
        #expect(try await found("京都", f) == ["monday", "last-saturday"])
        try await lib.removeFromAlbum("京都之旅", [f.id("monday")])
        #expect(try await found("京都", f) == ["last-saturday"])
        try await lib.withStore { store in
            try store.execute("UPDATE organize_assets SET recognized_text = 'Rechnung Summe'")
        }
        #expect(try await found("合计", f) == [])
        #expect(try await found("rechnung", f) == ["receipt"])
        try await lib.setHidden(true, [f.id("yesterday")])
        #expect(try await found("猫", f) == [])
        try await lib.setHidden(false, [f.id("yesterday")])
        #expect(try await found("猫", f) == ["yesterday"])
        _ = try await lib.delete([f.id("yesterday")], confirm: { _ in true })
        #expect(try await found("猫", f) == [], "Recently Deleted is not searched")
        #expect(try await lib.refreshSearchWords() == 0, "nothing stale after a search")
        let check = await lib.withStore { store in
            Result { try store.execute("INSERT INTO library_search_fts(library_search_fts) VALUES ('integrity-check')") }
        }
        #expect((try? check.get()) != nil, "the trigram index agrees with the words")
    }

    @Test("batches newest first; SPEC Q3: the token alone merges, a library change, a new query or revoked access rejects")
    func batchesAndLateResults() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        guard let f = try await LibrarySearchFixture.make(in: dir) else { return }
        let lib = f.library, today = LibrarySearchFixture.today
        let all = try await lib.search("今年", today: today).ids
        #expect(names(all, f) == ["yesterday", "monday", "last-sunday", "last-saturday", "last-wednesday", "receipt", "february", "january"])
        // three batches of three; the keyset continues where the last one stopped
        let first = try await lib.searchBatch("今年", today: today, limit: 3)
        #expect(first.ids == Array(all[0..<3]) && first.next != nil)
        let requested = first.context
        // recording the search moves the version token, not the change count: the late batch merges
        try await lib.recordRecentSearch("今年")
        let second = try await lib.searchBatch("今年", today: today, after: first.next, limit: 3)
        #expect(second.ids == Array(all[3..<6]))
        let now = try await lib.searchContext(query: "今年")
        #expect(now.versionToken != requested.versionToken && now.libraryChangeCount == requested.libraryChangeCount)
        let merged = LateResultsPolicy.apply(batch: second.ids, to: first.ids, requested: requested, current: now)
        #expect(merged.decision == .merge && merged.list == Array(all[0..<6]))
        // a changed query, revoked access, a library change: rejected
        #expect(LateResultsPolicy.decide(requested: requested, current: try await lib.searchContext(query: "去年")) == .reject(.queryChanged))
        #expect(LateResultsPolicy.decide(requested: requested, current: try await lib.searchContext(query: "今年", access: .none))
                == .reject(.permissionRevoked))
        try await lib.addTags(["新"], to: [f.id("january")])
        let third = try await lib.searchBatch("今年", today: today, after: second.next, limit: 3)
        #expect(third.ids == Array(all[6...]) && third.next == nil)
        let changed = LateResultsPolicy.apply(batch: third.ids, to: merged.list, requested: requested,
                                              current: try await lib.searchContext(query: " 今年 "))
        #expect(changed.decision == .reject(.libraryChanged) && changed.list == merged.list)
        // no access: nothing is found
        #expect(try await lib.search("今年", today: today, access: .none).ids.isEmpty)
    }

    @Test("a real iPhone HEIC is found by its camera and, from its GPS, by Tokyo / 东京 / 日本 (skipped without the corpus)")
    func realPhoto() async throws {
        // shared/corpus beside the package, as the engine tests find it
        let heic = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/corpus/real/iphone15plus_IMG_3853.HEIC").path
        guard FileManager.default.fileExists(atPath: heic) else { return }
        let dir = try TempFolder()
        defer { dir.remove() }
        try FileManager.default.createDirectory(atPath: dir.file("in"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: heic, toPath: dir.file("in/IMG_3853.HEIC"))
        let lib = try PhotoLibrary.create(at: dir.file("lib"))
        _ = try await lib.importFiles([dir.file("in")], reader: EngineMediaReader())
        let id = try #require(try await lib.list().first?.id)
        let today = LibrarySearchFixture.today
        for q in ["iphone 15 plus", "Tokyo", "东京", "東京", "日本", "japan", "img_3853"] {
            #expect(try await lib.search(q, today: today).ids == [id], "\(q)")
        }
        #expect(try await lib.search("Osaka", today: today).ids.isEmpty)
    }

    private static let day: Int64 = 86_400_000
    /// Tags of synthetic asset n: half beach, half Straße; rare Xylophon and 惠顾; 笔记本 on a third.
    @Sendable private static func tags(_ n: Int) -> [String] {
        [n % 2 == 0 ? "beach" : "Straße", n % 600 == 7 ? "Xylophon" : "", n % 1000 == 3 ? "惠顾" : "", n % 3 == 0 ? "笔记本" : ""]
            .filter { !$0.isEmpty }
    }
    /// Capture time of synthetic asset n over 430 days from 2024-01-01; 1 in 97 undated.
    @Sendable private static func capturedAt(_ n: Int) -> Int64? {
        n % 97 == 0 ? nil : Int64(Day(iso: "2024-01-01")!.daysSinceEpoch) * day + Int64((n * 7919) % 430) * day + Int64(n % 24) * 3_600_000
    }

    @Test("6,000 assets: common and rare terms through the gram index in capture order, the same as a brute-force scan")
    func commonAndRareTerms() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let lib = try PhotoLibrary.create(at: dir.file("lib"))
        let day = Self.day, tagsOf = Self.tags, at = Self.capturedAt
        try await lib.withStore { s in
            try s.transaction { s in
                for n in 0..<6000 {
                    try s.execute("INSERT INTO library_assets(id, kind, captured_at_ms, width, height, origin, added_at_ms) VALUES (?, 'photo', ?, 1, 1, 'import', 0)",
                                  [.integer(Int64(n + 1)), at(n).map(SQLValue.integer) ?? .null])
                    for tag in tagsOf(n) { try s.execute("INSERT INTO library_tags(asset_id, tag) VALUES (?, ?)", [.integer(Int64(n + 1)), .text(tag)]) }
                }
            }
        }
        func expected(_ term: String, in range: Range<Int64>? = nil) -> [Int64] {
            (0..<6000).filter { n in
                tagsOf(n).contains { SearchFolding.fold($0).contains(term) } && (range == nil || at(n).map { range!.contains($0) } == true)
            }.sorted { a, b in (at(a) ?? .min, a) > (at(b) ?? .min, b) }.map { Int64($0 + 1) }
        }
        let today = Day(iso: "2025-03-12")!
        for (q, term) in [("beach", "beach"), ("STRAßE", "straße"), ("xylophon", "xylophon"), ("惠顾", "惠顾"), ("记本", "记本"), ("本", "本")] {
            let all = expected(term)
            #expect(!all.isEmpty, "\(q)")
            let batch = try await lib.searchBatch(q, today: today)
            #expect(batch.ids == Array(all.prefix(PhotoLibrary.searchBatchSize)), "\(q): first batch")
            #expect(try await lib.search(q, today: today).ids == all, "\(q): every batch")
        }
        // a date with a common and with a rare term (today 2024-03-12: 今年 = 2024)
        let year2024 = Int64(Day(iso: "2024-01-01")!.daysSinceEpoch) * day..<Int64(Day(iso: "2025-01-01")!.daysSinceEpoch) * day
        for term in ["beach", "xylophon"] {
            let inYear = expected(term, in: year2024)
            #expect(!inYear.isEmpty && inYear.count < expected(term).count, "\(term): the date leaves some out")
            #expect(try await lib.search("今年 " + term, today: Day(iso: "2024-03-12")!).ids == inYear, "今年 \(term)")
        }
    }

    @Test("recent searches belong to the library (SPEC Q1)")
    func recentSearches() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let a = try PhotoLibrary.create(at: dir.file("a")), b = try PhotoLibrary.create(at: dir.file("b"))
        for q in ["上周六", "Café", "  cafe ", "猫"] { try await a.recordRecentSearch(q) }
        #expect(try await a.recentSearches().map(\.query) == ["猫", "cafe", "上周六"])
        #expect(try await b.recentSearches().isEmpty)
        #expect(try await a.removeRecentSearch("CAFÉ"))
        #expect(try await a.recentSearches().map(\.query) == ["猫", "上周六"])
        try await a.clearRecentSearches()
        #expect(try await a.recentSearches().isEmpty)
    }

    @Test("`shiying search --json`: ranges, terms, ids in order; the search is recorded")
    func cli() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        guard let f = try await LibrarySearchFixture.make(in: dir) else { return }
        let root = f.library.folder.root
        let r = try await ShiyingBinary.shiying(["search", "上周日本", "--library", root, "--today", "2025-03-12", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        struct Report: Decodable {
            struct Range: Decodable { var start: String; var end: String }
            var ranges: [Range]
            var terms: [String]
            var ids: [Int64]
        }
        let report = try JSONDecoder().decode(Report.self, from: Data(r.stdout.utf8))
        #expect(report.ranges.map { "\($0.start)/\($0.end)" } == ["2025-03-03/2025-03-09"])
        #expect(report.terms == ["本"])
        #expect(report.ids == [f.id("last-sunday"), f.id("last-saturday")])
        let again = try PhotoLibrary(at: root)
        #expect(try await again.recentSearches().map(\.query) == ["上周日本"])
        let bad = try await ShiyingBinary.shiying(["search", "x", "--library", dir.file("nowhere"), "--json"])
        #expect(bad.status == 1 && bad.stdout.contains("\"error\""))
    }
}
