// Search suite (SPEC Q2): date-phrase parse throughput on a mixed corpus,
// in-process, against the 100k queries/s target; Python dateparser on the same
// corpus (child process, when installed) for a ratio.
//
//   swift run -c release Benchmarks --suite search [--search-seconds 2]
//
// Writes .build/benchmarks/search-latest.json.
import Foundation
import ShiyingLibrary

struct SearchBenchmarkReport: Codable {
    var timestamp: String
    var corpusQueries: Int
    var corpusWithDates: Int
    var seconds: Double
    var queriesParsed: Int
    var queriesPerSecond: Double
    var targetQueriesPerSecond: Double
    var status: String
    var dateparser: DateparserTiming?
}

struct DateparserTiming: Codable {
    var version: String
    var queries: Int
    var seconds: Double
    var queriesPerSecond: Double
    var oursOverDateparser: Double?
    var note: String?
}

/// A deterministic mixed corpus: relative words, written dates in eight
/// languages, plain search terms, and near misses (日本, 1. FC Köln, May alone).
func searchCorpus(count: Int = 1200) -> [String] {
    let dated = [
        "昨天", "前天", "今天", "上周", "本周", "这周", "上周六", "上周日", "上星期天", "上礼拜三", "上周末", "本月", "上个月",
        "月初", "月底", "月末", "今年", "去年", "今年初", "年初", "年底", "年末", "上个月底", "五月一日", "5月1日",
        "去年五月一日", "2025年5月1日", "十二月二十五日", "5月1號", "May 1", "1 May", "May 1st", "May 1, 2025", "Dec 25",
        "5월 1일", "2024년 12월 25일", "1. Mai", "24. Dezember", "1er mai", "14 juillet", "1 de mayo", "25 de diciembre",
    ]
    let terms = [
        "猫", "海边", "生日", "日本", "三星", "拍的照片", "beach", "sunset", "dog", "Theresa May", "1. FC Köln", "mayo",
        "京都", "바다", "Strand", "plage", "playa", "聚会", "截图", "receipt", "May", "2025", "上海", "本田",
    ]
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func next(_ n: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(n))
    }
    var corpus: [String] = []
    corpus.reserveCapacity(count)
    while corpus.count < count {
        switch next(4) {
        case 0: corpus.append(dated[next(dated.count)])
        case 1: corpus.append(terms[next(terms.count)])
        case 2: corpus.append(dated[next(dated.count)] + " " + terms[next(terms.count)])
        default: corpus.append(terms[next(terms.count)] + dated[next(dated.count)])
        }
    }
    return corpus
}

func runSearchSuite(root: String, seconds budget: Double) {
    let target = 100_000.0
    let corpus = searchCorpus()
    let today = Day(iso: "2025-03-12")!
    let parser = DatePhraseParser()
    let withDates = corpus.filter { !parser.parse($0, today: today).matches.isEmpty }.count
    // Warm up, then whole passes over the corpus until the budget is spent.
    var sink = 0
    for q in corpus { sink &+= parser.parse(q, today: today).matches.count }
    let clock = ContinuousClock()
    let start = clock.now
    var parsed = 0
    var elapsed = 0.0
    repeat {
        for q in corpus { sink &+= parser.parse(q, today: today).rest.utf8.count }
        parsed += corpus.count
        elapsed = seconds(clock.now - start)
    } while elapsed < budget
    let rate = Double(parsed) / elapsed
    let status = rate >= target ? "PASS" : "MISS"
    print("\nSearch: date-phrase parse, mixed corpus of \(corpus.count) queries (\(withDates) with a date), \(parsed) parses in "
          + String(format: "%.2f s", elapsed))
    print(String(format: "  %@  %.0f queries/s (target %.0f/s)  [checksum %d]", status, rate, target, sink % 1000))

    let timing = dateparserTiming(corpus: corpus, root: root)
    if var t = timing {
        t.oursOverDateparser = t.queriesPerSecond > 0 ? rate / t.queriesPerSecond : nil
        print(String(format: "  dateparser %@ (search_dates, same corpus, %d queries): %.0f queries/s; ours is %.0fx faster",
                     t.version, t.queries, t.queriesPerSecond, t.oursOverDateparser ?? 0))
        writeSearchReport(root: root, SearchBenchmarkReport(
            timestamp: timestamp(), corpusQueries: corpus.count, corpusWithDates: withDates, seconds: elapsed,
            queriesParsed: parsed, queriesPerSecond: rate, targetQueriesPerSecond: target, status: status, dateparser: t))
    } else {
        print("  dateparser: not installed (python3 -m pip install dateparser); no ratio")
        writeSearchReport(root: root, SearchBenchmarkReport(
            timestamp: timestamp(), corpusQueries: corpus.count, corpusWithDates: withDates, seconds: elapsed,
            queriesParsed: parsed, queriesPerSecond: rate, targetQueriesPerSecond: target, status: status, dateparser: nil))
    }
}

/// Times dateparser.search.search_dates over the corpus (at most ~10 s) in a python3 child.
private func dateparserTiming(corpus: [String], root: String) -> DateparserTiming? {
    let dir = root + "/.build/benchmarks"
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    let corpusPath = dir + "/search-corpus.json"
    guard let data = try? JSONSerialization.data(withJSONObject: corpus),
          (try? data.write(to: URL(fileURLWithPath: corpusPath))) != nil else { return nil }
    let script = """
        import json, sys, time, datetime
        try:
            import dateparser
            from dateparser.search import search_dates
        except ImportError:
            print(json.dumps({"missing": True})); sys.exit(0)
        corpus = json.load(open(sys.argv[1], encoding="utf-8"))
        settings = {"RELATIVE_BASE": datetime.datetime(2025, 3, 12), "PREFER_DATES_FROM": "past"}
        langs = ["zh", "en", "ja", "ko", "de", "fr", "es"]
        search_dates(corpus[0], languages=langs, settings=settings)  # warm-up (loads language data)
        start = time.perf_counter(); n = 0
        for q in corpus:
            search_dates(q, languages=langs, settings=settings); n += 1
            if time.perf_counter() - start > 10: break
        elapsed = time.perf_counter() - start
        print(json.dumps({"version": dateparser.__version__, "queries": n, "seconds": elapsed}))
        """
    guard let result = try? runChild(["python3", "-c", script, corpusPath], captureDirectory: dir),
          result.succeeded, let line = result.lastStdoutLine,
          let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
          object["missing"] == nil,
          let queries = (object["queries"] as? NSNumber)?.intValue,
          let secs = (object["seconds"] as? NSNumber)?.doubleValue, secs > 0 else { return nil }
    return DateparserTiming(version: object["version"] as? String ?? "?", queries: queries, seconds: secs,
                            queriesPerSecond: Double(queries) / secs, oursOverDateparser: nil,
                            note: "dateparser.search.search_dates, languages zh en ja ko de fr es, PREFER_DATES_FROM past")
}

private func writeSearchReport(root: String, _ report: SearchBenchmarkReport) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    encoder.keyEncodingStrategy = .convertToSnakeCase
    let path = root + "/.build/benchmarks/search-latest.json"
    do {
        try encoder.encode(report).write(to: URL(fileURLWithPath: path))
        progress("wrote \(path)")
    } catch {
        progress("warning: cannot write \(path): \(error)")
    }
}
