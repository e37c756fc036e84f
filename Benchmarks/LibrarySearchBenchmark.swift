// Search suite, catalogue part (issue 21): `PhotoLibrary.searchBatch` over a
// synthetic catalogue (rows inserted directly; the triggers fill the stale
// queue, then one rebuild folds every asset's words), first-batch latency
// (200 results, newest first) for date-only, date + 1-, 2-, 3+-character
// Chinese, date + Latin word, date + place and word-only queries. Ours is the
// gram index in capture order (schema step 6). Two other ways of finding the
// same rows run on the same file, query by query in turn: a plain
// `LIKE '%term%'` scan of the folded words (the baseline), and the same
// unigrams + bigrams as tokens of a contentless FTS5 table (detail=none),
// candidates verified by substring, then ordered — the FTS5 alternative.
//
//   swift run -c release Benchmarks --suite search [--search-assets 100000] [--search-reps 30]
//
// Writes .build/benchmarks/library-search-latest.json.
import Foundation
import ShiyingLibrary

struct LatencySummary: Codable {
    var medianMs: Double
    var p95Ms: Double
    var p99Ms: Double
    var maxMs: Double
}

struct SearchMethodTiming: Codable {
    var method: String   // "gram index (ours)": PhotoLibrary.searchBatch (window, then trigram index)
    var latency: LatencySummary
    var cpuSeconds: Double
}

struct SearchCategoryTiming: Codable {
    var category: String
    var queries: [String]
    var firstBatchSizes: [Int]
    var methods: [SearchMethodTiming]
    /// LIKE median / ours median.
    var likeOverOurs: Double
    var ftsGramsOverOurs: Double
}

struct LibrarySearchBenchReport: Codable {
    var timestamp: String
    var assets: Int
    var loadAverageBefore: Double
    var insertSeconds: Double
    var rebuildSeconds: Double
    var wordsBytesPerAsset: Double
    var trigramIndexBytesPerAsset: Double
    var gramIndexBytesPerAsset: Double
    var ftsGramsBytesPerAsset: Double
    var ftsGramsBuildSeconds: Double
    var repetitions: Int
    var categories: [SearchCategoryTiming]
    var p99TargetMs: Double
    var status: String
}

private let today = Day(iso: "2025-03-12")!

private let categories: [(String, [String])] = [
    ("date only", ["上周六", "上个月", "去年五月一日", "今年初"]),
    ("date + 1-char CJK", ["上周日本", "上个月 猫", "去年 本", "今年 顾"]),
    ("date + 2-char CJK", ["上个月 海边", "去年 日落", "2024年5月1日 海边", "今年 惠顾"]),
    ("date + 3+-char CJK", ["去年 生日聚会", "上个月 谢谢惠顾", "今年 日本旅行", "去年 笔记本"]),
    ("date + Latin word", ["去年 beach", "上个月 Geburtstag", "今年 iphone", "上周 fête", "去年 xylophone"]),
    ("date + place", ["去年 东京", "上个月 Paris", "今年 首尔", "去年 Japan"]),
    ("word only", ["beach", "本", "惠顾", "rechnung", "谢谢惠顾", "a"]),
]

private let vocabulary = [
    "猫", "狗", "海边", "日落", "生日聚会", "笔记本", "日本旅行", "京都", "火锅", "毕业典礼", "貓咪", "夜景",
    "beach", "sunset", "birthday", "hiking", "wedding", "Geburtstag", "Strand", "fête", "plage", "playa", "cumpleaños",
    "パーティー", "花見", "생일", "바다", "receipt", "screenshot", "family",
]
private let albumNames = ["日本旅行", "家人", "Summer 2024", "毕业", "Weekend trips", "美食", "宠物", "Receipts"]
private let cameras = ["Apple iPhone 15 Plus", "Apple iPhone SE (2nd generation)", "samsung SM-G991B", "Google Pixel 8", "HUAWEI P60"]
private let receipts = ["收据 合计 ¥128 谢谢惠顾", "Rechnung Summe 23,40 EUR", "Café de Flore addition 18 €", "レシート 合計 ¥980"]

func runLibrarySearchSuite(root: String, assets count: Int, repetitions: Int) {
    let dir = root + "/.build/benchmarks/scratch/search-library"
    try? FileManager.default.removeItem(atPath: dir)
    let loadBefore = loadAverage()
    do {
        let library = try PhotoLibrary.create(at: dir)
        let clock = ContinuousClock()
        progress("search: inserting \(count) catalogue rows")
        let insertStart = clock.now
        try blockingAwait { try await library.withStore { try insertCatalogue($0, count: count, root: dir) } }
        let insertSeconds = seconds(clock.now - insertStart)
        let rebuildStart = clock.now
        let rebuilt = try blockingAwait { try await library.refreshSearchWords() }
        let rebuildSeconds = seconds(clock.now - rebuildStart)
        progress(String(format: "search: rows %.1f s, words of %d assets folded and indexed in %.1f s", insertSeconds, rebuilt, rebuildSeconds))
        let ownStart = clock.now
        try blockingAwait { try await library.withStore { try buildOwnIndex($0) } }
        let ownBuild = seconds(clock.now - ownStart)
        let sizes = try blockingAwait { try await library.withStore { try tableBytes($0) } }
        var results: [SearchCategoryTiming] = []
        for (category, queries) in categories {
            var timings: [String: [Double]] = [:]
            var cpu: [String: Double] = [:]
            var sizesFound: [Int] = []
            for q in queries {
                let ours = try blockingAwait { try await library.searchBatch(q, today: today).ids }
                let like = try blockingAwait { try await library.withStore { try likeScan($0, q) } }
                let own = try blockingAwait { try await library.withStore { try ownIndexSearch($0, q) } }
                guard ours == like, ours == own else {
                    fail("search \(q): gram index \(ours.count), LIKE \(like.count), FTS5 grams \(own.count) results differ")
                }
                sizesFound.append(ours.count)
            }
            // Interleaved: each repetition runs every method once per query.
            for _ in 0..<repetitions {
                for q in queries {
                    for method in ["gram index (ours)", "LIKE scan", "FTS5 gram tokens"] {
                        let cpuBefore = cpuSecondsNow()
                        let start = clock.now
                        _ = try blockingAwait {
                            switch method {
                            case "LIKE scan": return try await library.withStore { try likeScan($0, q) }
                            case "FTS5 gram tokens": return try await library.withStore { try ownIndexSearch($0, q) }
                            default: return try await library.searchBatch(q, today: today).ids
                            }
                        }
                        timings[method, default: []].append(seconds(clock.now - start) * 1000)
                        cpu[method, default: 0] += cpuSecondsNow() - cpuBefore
                    }
                }
            }
            let methods = ["gram index (ours)", "LIKE scan", "FTS5 gram tokens"].map {
                SearchMethodTiming(method: $0, latency: summary(timings[$0]!), cpuSeconds: cpu[$0]!)
            }
            let row = SearchCategoryTiming(category: category, queries: queries, firstBatchSizes: sizesFound, methods: methods,
                                           likeOverOurs: methods[1].latency.medianMs / methods[0].latency.medianMs,
                                           ftsGramsOverOurs: methods[2].latency.medianMs / methods[0].latency.medianMs)
            results.append(row)
            print("\nSearch \(category) over \(count) assets (\(queries.joined(separator: ", ")); first batch sizes \(sizesFound)):")
            for m in methods {
                print(String(format: "  %-20@ median %7.2f ms  p95 %7.2f  p99 %7.2f  max %7.2f  cpu %.2f s",
                             m.method, m.latency.medianMs, m.latency.p95Ms, m.latency.p99Ms, m.latency.maxMs, m.cpuSeconds))
            }
            print(String(format: "  LIKE / ours %.1fx   FTS5 grams / ours %.2fx", row.likeOverOurs, row.ftsGramsOverOurs))
        }
        let worstP99 = results.map { $0.methods[0].latency.p99Ms }.max() ?? 0
        let status = worstP99 <= 50 ? "PASS" : "MISS"
        let perAsset = { (bytes: Int) in Double(bytes) / Double(count) }
        print(String(format: "\nSearch index: words %.0f B/asset, trigram index %.0f B/asset, gram index (ours) %.0f B/asset; FTS5 gram tokens %.0f B/asset (built in %.1f s); rebuild %.1f s",
                     perAsset(sizes.words), perAsset(sizes.trigram), perAsset(sizes.grams), perAsset(sizes.fts), ownBuild, rebuildSeconds))
        print(String(format: "  %@  worst p99 %.1f ms (target 50 ms)", status, worstP99))
        let report = LibrarySearchBenchReport(
            timestamp: timestamp(), assets: count, loadAverageBefore: loadBefore, insertSeconds: insertSeconds,
            rebuildSeconds: rebuildSeconds, wordsBytesPerAsset: perAsset(sizes.words), trigramIndexBytesPerAsset: perAsset(sizes.trigram),
            gramIndexBytesPerAsset: perAsset(sizes.grams), ftsGramsBytesPerAsset: perAsset(sizes.fts), ftsGramsBuildSeconds: ownBuild, repetitions: repetitions,
            categories: results, p99TargetMs: 50, status: status)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let path = root + "/.build/benchmarks/library-search-latest.json"
        try encoder.encode(report).write(to: URL(fileURLWithPath: path))
        progress("wrote \(path)")
    } catch {
        fail("search catalogue benchmark: \(error)")
    }
    try? FileManager.default.removeItem(atPath: dir)
}

private func summary(_ ms: [Double]) -> LatencySummary {
    let s = ms.sorted()
    func at(_ q: Double) -> Double { s[min(s.count - 1, Int((Double(s.count) * q).rounded(.up)) - 1)] }
    return LatencySummary(medianMs: median(s), p95Ms: at(0.95), p99Ms: at(0.99), maxMs: s.last ?? 0)
}

private func cpuSecondsNow() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

/// `waitFor` (LibraryBenchmark.swift), throwing.
private func blockingAwait<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
    try waitFor(work).get()
}

/// Deterministic rows: capture dates over 2024-01-01 … 2025-03-12 (1% undated),
/// 1–3 tags, 30% in an album, a camera on 90%, GPS near a listed city on 40%,
/// recognized text on 5% (an organize row keyed by the original's absolute path).
private func insertCatalogue(_ s: RecordStore, count: Int, root: String) throws {
    var state: UInt64 = 0x2545_F491_4F6C_DD1D
    func next(_ n: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(n))
    }
    let first = Int64(Day(iso: "2024-01-01")!.daysSinceEpoch) * 86_400_000
    let span = Int64(today.daysSinceEpoch + 1) * 86_400_000 - first
    let cities = PlaceNames.majorCities
    try s.transaction { s in
        for (n, name) in albumNames.enumerated() {
            try s.execute("INSERT INTO library_albums(id, name, created_at_ms) VALUES (?, ?, 0)", [.integer(Int64(n + 1)), .text(name)])
        }
        for n in 0..<count {
            let id = Int64(n + 1)
            let undated = next(100) == 0
            let at = first + Int64(next(Int(span / 1000))) * 1000
            let city = next(10) < 4 ? cities[next(cities.count)] : nil
            try s.execute("""
                INSERT INTO library_assets(id, kind, captured_at_ms, latitude, longitude, width, height, camera, origin, added_at_ms)
                VALUES (?, 'photo', ?, ?, ?, 4032, 3024, ?, 'import', 0)
                """, [.integer(id), undated ? .null : .integer(at),
                      city.map { .real($0.latitude + Double(next(100)) / 1000) } ?? .null,
                      city.map { .real($0.longitude + Double(next(100)) / 1000) } ?? .null,
                      next(10) == 0 ? .null : .text(cameras[next(cameras.count)])])
            let path = String(format: "originals/%@/IMG_%05d.HEIC", undated ? "undated" : "2024/01", n + 1)
            try s.execute("INSERT INTO library_files(asset_id, role, path, bytes, sha256) VALUES (?, 'original', ?, 2000000, ?)",
                          [.integer(id), .text(path), .text(String(n))])
            var tags = Set<String>()
            for _ in 0...next(3) { tags.insert(vocabulary[next(vocabulary.count)]) }
            for tag in tags { try s.execute("INSERT INTO library_tags(asset_id, tag) VALUES (?, ?)", [.integer(id), .text(tag)]) }
            if next(10) < 3 {
                try s.execute("INSERT INTO library_album_members(album_id, asset_id, added_at_ms) VALUES (?, ?, 0)",
                              [.integer(Int64(next(albumNames.count) + 1)), .integer(id)])
            }
            if next(20) == 0 {
                try s.execute("""
                    INSERT INTO organize_assets(path, media_type, width, height, file_bytes, recognized_text, scanned_at_ms)
                    VALUES (?, 'photo', 4032, 3024, 2000000, ?, 0)
                    """, [.text(root + "/" + path), .text(receipts[next(receipts.count)])])
            }
        }
    }
}

/// The same first batch as `searchBatch`, found by a plain LIKE scan of the folded words.
private func likeScan(_ s: RecordStore, _ text: String) throws -> [Int64] {
    let query = LibrarySearchQuery(text, today: today)
    var values: [SQLValue] = []
    var sql = candidatesSelect(query, &values)
    for term in query.terms {
        values.append(.text("%" + term.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
                              .replacingOccurrences(of: "_", with: "\\_") + "%"))
        sql += " AND w.words LIKE ?\(values.count) ESCAPE '\\'"
    }
    sql += " ORDER BY a.captured_at_ms DESC, a.id DESC LIMIT 200"
    return try s.query(sql, values).compactMap { $0[0].int64 }
}

/// Assets in the library, not hidden, in the query's date ranges, joined to their words.
private func candidatesSelect(_ query: LibrarySearchQuery, _ values: inout [SQLValue]) -> String {
    "SELECT a.id FROM library_assets a JOIN library_search_words w ON w.asset_id = a.id WHERE a.deleted_at_ms IS NULL AND a.hidden = 0"
        + dateCondition(query, &values)
}

private func dateCondition(_ query: LibrarySearchQuery, _ values: inout [SQLValue]) -> String {
    let bounds = query.capturedAtBounds
    guard !bounds.isEmpty else { return "" }
    return " AND (" + bounds.map { b in
        values.append(.integer(b.lowerBound))
        values.append(.integer(b.upperBound))
        return "(a.captured_at_ms >= ?\(values.count - 1) AND a.captured_at_ms < ?\(values.count))"
    }.joined(separator: " OR ") + ")"
}

/// The FTS5 alternative: the same unigrams and bigrams as the gram index, each
/// a token ("g" + base-36 key) of a contentless FTS5 table (detail=none: the
/// rowid list only), rowid = asset id.
private func buildOwnIndex(_ s: RecordStore) throws {
    try s.transaction { s in
        try s.execute("CREATE VIRTUAL TABLE bench_gram_fts USING fts5(grams, content='', detail='none', tokenize='ascii')")
        try s.forEachRow("SELECT asset_id, words FROM library_search_words") { c in
            let tokens = grams(c.text(1) ?? "").map { "g" + String($0, radix: 36) }.joined(separator: " ")
            try s.execute("INSERT INTO bench_gram_fts(rowid, grams) VALUES (?, ?)", [.integer(c.int64(0)), .text(tokens)])
        }
    }
}

/// `LibrarySearchGrams.key` of each unigram and bigram (none across whitespace).
private func grams(_ text: String) -> Set<Int64> {
    var out = Set<Int64>()
    var previous: Int64?
    for scalar in text.unicodeScalars {
        if scalar.properties.isWhitespace {
            previous = nil
            continue
        }
        let v = Int64(scalar.value)
        out.insert(v)
        if let p = previous { out.insert(0x110000 + p * 0x110000 + v) }
        previous = v
    }
    return out
}

/// Candidates from FTS5 (every gram of every term), the substring check on their words, then ordered.
private func ownIndexSearch(_ s: RecordStore, _ text: String) throws -> [Int64] {
    let query = LibrarySearchQuery(text, today: today)
    var values: [SQLValue] = []
    var sql = candidatesSelect(query, &values)
    var tokens: [String] = []
    for term in query.terms {
        let v = term.unicodeScalars.map { Int64($0.value) }
        var keys: [Int64] = v.count == 1 ? [v[0]] : []
        for i in 0..<max(0, v.count - 1) {
            let pair: Int64 = 0x110000 + v[i] * 0x110000 + v[i + 1]
            keys.append(pair)
        }
        tokens += keys.map { "g" + String($0, radix: 36) }
        values.append(.text(term))
        sql += " AND instr(w.words, ?\(values.count)) > 0"
    }
    if !tokens.isEmpty {   // a date-only query: the timeline alone
        values.append(.text(tokens.joined(separator: " AND ")))
        sql += " AND a.id IN (SELECT rowid FROM bench_gram_fts WHERE bench_gram_fts MATCH ?\(values.count))"
    }
    sql += " ORDER BY a.captured_at_ms DESC, a.id DESC LIMIT 200"
    return try s.query(sql, values).compactMap { $0[0].int64 }
}

/// Bytes on disk (dbstat) of the words, the FTS5 trigram shadow tables, the gram index (table and its
/// asset index), and the FTS5 gram-token alternative.
private func tableBytes(_ s: RecordStore) throws -> (words: Int, trigram: Int, grams: Int, fts: Int) {
    func bytes(_ condition: String) throws -> Int {
        Int(try s.query("SELECT COALESCE(SUM(pgsize), 0) FROM dbstat WHERE \(condition)")[0][0].int64 ?? 0)
    }
    return (try bytes("name = 'library_search_words'"), try bytes("name LIKE 'library_search_fts%'"),
            try bytes("name LIKE 'library_search_grams%'"), try bytes("name LIKE 'bench_gram_fts%'"))
}
