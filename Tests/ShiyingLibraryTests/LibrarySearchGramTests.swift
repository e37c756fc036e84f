// Issue 21: the one- and two-character gram index gives exactly what a plain
// substring scan gives — one- and two-character CJK and Latin terms, longer
// ones, two terms, with dates, full/half width, case and diacritics folded
// (SPEC Q1), hidden and Recently Deleted excluded, batches through the cursor.
import Foundation
import ShiyingLibrary
import Testing

@Suite("Library search: gram index against a brute-force scan")
struct LibrarySearchGramTests {
    static let today = Day(iso: "2025-03-12")!

    /// One generated asset: what the brute force filters on.
    struct Row: Sendable {
        var id: Int64
        var at: Int64?
        var hidden: Bool
        var deleted: Bool
        var fields: [String]   // tags and the file name, as written (not folded)
    }

    /// Deterministic rows: 1,500 assets over 2025-01-01 … 2025-03-12 (4% undated),
    /// 0–3 tags of 1–4 characters from a small mixed alphabet (so one- and
    /// two-character terms are common and rare alike), 3% hidden, 3% deleted.
    static func rows() -> [Row] {
        var state: UInt64 = 21
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        let alphabet = ["本", "日", "海", "边", "猫", "京", "a", "b", "A", "Ｂ", "ａ", "é", "e", "É", "ｶ", "カ", "ガ", "x", "Z", "ｚ"]
        let first = Int64(Day(iso: "2025-01-01")!.daysSinceEpoch) * 86_400_000
        let span = Int64(today.daysSinceEpoch + 1) * 86_400_000 - first
        return (0..<1500).map { n in
            var fields: [String] = []
            for _ in 0..<next(4) { fields.append((0...next(4)).map { _ in alphabet[next(alphabet.count)] }.joined()) }
            fields.append(String(format: "IMG_%04d.HEIC", n + 1))
            // a few share a capture time, so the id breaks ties
            let at = next(25) == 0 ? nil : first + Int64(next(Int(span / 60_000))) * 60_000
            return Row(id: Int64(n + 1), at: at, hidden: next(33) == 0, deleted: next(33) == 0, fields: fields)
        }
    }

    static func make(in dir: TempFolder, _ rows: [Row]) async throws -> PhotoLibrary {
        let library = try PhotoLibrary.create(at: dir.file("lib"))
        try await library.withStore { s in
            try s.transaction { s in
                for r in rows {
                    try s.execute("""
                        INSERT INTO library_assets(id, kind, captured_at_ms, width, height, origin, added_at_ms, hidden, deleted_at_ms)
                        VALUES (?, 'photo', ?, 4032, 3024, 'import', 0, ?, ?)
                        """, [.integer(r.id), r.at.map(SQLValue.integer) ?? .null, .integer(r.hidden ? 1 : 0),
                              r.deleted ? .integer(1) : .null])
                    try s.execute("INSERT INTO library_files(asset_id, role, path, bytes, sha256) VALUES (?, 'original', ?, 1, ?)",
                                  [.integer(r.id), .text("originals/2025/01/" + r.fields.last!), .text("\(r.id)")])
                    for tag in Set(r.fields.dropLast()) {
                        try s.execute("INSERT INTO library_tags(asset_id, tag) VALUES (?, ?)", [.integer(r.id), .text(tag)])
                    }
                }
            }
        }
        return library
    }

    /// Whether `needle`'s scalars occur contiguously in `haystack`'s.
    static func contains(_ haystack: String, _ needle: String) -> Bool {
        let h = Array(haystack.unicodeScalars), n = Array(needle.unicodeScalars)
        guard !n.isEmpty, n.count <= h.count else { return n.isEmpty }
        return (0...(h.count - n.count)).contains { i in h[i..<(i + n.count)].elementsEqual(n) }
    }

    /// The scan the index replaces: every visible asset, each term a substring of one folded field, dates, newest first.
    static func bruteForce(_ text: String, _ rows: [Row]) -> [Int64] {
        let query = LibrarySearchQuery(text, today: today)
        let bounds = query.capturedAtBounds
        return rows.filter { r in
            guard !r.hidden, !r.deleted else { return false }
            if !bounds.isEmpty { guard let at = r.at, bounds.contains(where: { $0.contains(at) }) else { return false } }
            let folded = r.fields.map(SearchFolding.fold)
            return query.terms.allSatisfy { t in folded.contains { contains($0, t) } }
        }
        .sorted { ($0.at ?? .min, $0.id) > ($1.at ?? .min, $1.id) }
        .map(\.id)
    }

    @Test("1- and 2-character CJK and Latin terms, longer terms, two terms and dates: exactly the scan's results")
    func sameAsScan() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let rows = Self.rows()
        let library = try await Self.make(in: dir, rows)
        var queries = ["本", "日", "海边", "日本", "猫", "京", "a", "b", "e", "z", "ｶ", "カ", "ガ", "x", "img", "0042", ".heic",
                       "本日", "海边猫", "ab", "ea", "zz", "本 a", "海 边", "日本 e", "ガ 本", "本本", "q", "本q", "猫猫猫猫猫"]
        queries += ["上周 本", "上周日本", "本月 a", "上个月 海边", "今年 ab", "1月1日 e", "上周 x z", "去年 本", "上周末 img"]
        var nonEmpty = 0
        for q in queries {
            let expected = Self.bruteForce(q, rows)
            let found = try await library.search(q, today: Self.today).ids
            #expect(found == expected, "\(q): \(found.count) found, \(expected.count) by the scan")
            if !expected.isEmpty { nonEmpty += 1 }
        }
        #expect(nonEmpty >= queries.count - 5, "the queries find something")
        #expect(Self.bruteForce("本", rows).count > PhotoLibrary.searchBatchSize, "more than one batch: the cursor is exercised")
        #expect(Self.bruteForce("本", rows).suffix(5).allSatisfy { id in rows[Int(id) - 1].at == nil }, "undated last")
    }

    @Test("full/half width, case and diacritics fold as SPEC Q1: ａ = A = a, Ｂ = b, É = é = e, ｶ = カ ≠ ガ")
    func folding() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let rows = Self.rows()
        let library = try await Self.make(in: dir, rows)
        func ids(_ q: String) async throws -> [Int64] { try await library.search(q, today: Self.today).ids }
        let a = try await ids("a")
        #expect(!a.isEmpty)
        let wide = try await ids("ａ"), upper = try await ids("A")
        #expect(wide == a && upper == a)
        // every row written with Ａ/A/ａ only is found by "a"
        let onlyWide = rows.filter { r in !r.hidden && !r.deleted && r.fields.contains { $0.contains("ａ") } }.map(\.id)
        #expect(!onlyWide.isEmpty && onlyWide.allSatisfy(a.contains))
        let wideB = try await ids("Ｂ"), b = try await ids("b")
        #expect(wideB == b)
        let e = try await ids("e"), accentUpper = try await ids("É"), accent = try await ids("é")
        #expect(accentUpper == e && accent == e)
        let halfKa = try await ids("ｶ"), ka = try await ids("カ"), ga = try await ids("ガ")
        #expect(halfKa == ka)
        #expect(ga != ka, "voicing marks are kept")
        let wideAB = try await ids("ＡＢ"), ab = try await ids("ab")
        #expect(wideAB == ab && !ab.isEmpty)
    }

    @Test("the gram index follows tag changes and capture-date changes")
    func follows() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        var rows = Self.rows()
        let library = try await Self.make(in: dir, rows)
        _ = try await library.search("本", today: Self.today)
        let target = rows.first { !$0.hidden && !$0.deleted && $0.at != nil }!
        try await library.addTags(["鯨"], to: [target.id])
        rows[Int(target.id) - 1].fields.insert("鯨", at: 0)
        #expect(try await library.search("鯨", today: Self.today).ids == [target.id])
        let moved = Int64(Self.today.daysSinceEpoch - 8) * 86_400_000 + 3_600_000   // last week
        try await library.withStore { s in
            try s.execute("UPDATE library_assets SET captured_at_ms = ? WHERE id = ?", [.integer(moved), .integer(target.id)])
        }
        rows[Int(target.id) - 1].at = moved
        for q in ["上周 鯨", "上周 本", "本", "上周", "e"] {
            #expect(try await library.search(q, today: Self.today).ids == Self.bruteForce(q, rows), "\(q)")
        }
        try await library.removeTags(["鯨"], from: [target.id])
        #expect(try await library.search("鯨", today: Self.today).ids == [])
        let orphans = try await library.withStore { s in
            try s.query("SELECT count(*) FROM library_search_grams g WHERE NOT EXISTS (SELECT 1 FROM library_search_words w WHERE w.asset_id = g.asset_id)")[0][0].int64
        }
        #expect(orphans == 0)
    }
}
