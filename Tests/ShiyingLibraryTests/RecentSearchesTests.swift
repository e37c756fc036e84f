// SPEC Q1: recent searches — the pure rule and the SQLite-backed store.
import Foundation
import ShiyingLibrary
import Synchronization
import Testing

/// A fresh temporary folder, removed by `remove()`.
struct TempFolder {
    let path: String
    init() throws {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("shiying-library-tests-\(getpid())-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    func file(_ name: String) -> String { path + "/" + name }
    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// A test clock: starts at `start`, advances 1 s per reading.
final class StepClock: Sendable {
    private let now: Mutex<Int64>
    init(start: Int64 = 1_741_737_600_000) { now = Mutex(start) }
    var read: @Sendable () -> Int64 { { self.now.withLock { $0 += 1000; return $0 } } }
}

@Test("SPEC Q1 normalization: case, width, diacritics, surrounding spaces", arguments: [
    ("ＡＢＣ", "abc"), ("Café", "cafe"), ("  x ", "x"), ("CAFÉ", "café"), ("\u{3000}猫\u{3000}", "猫"),
    ("ｶﾞｲﾄﾞ", "ガイド"), ("Ｍａｙ　１", "may 1"), ("e\u{301}te\u{301}", "ete"), ("Straße", "straße"),
])
func normalization(_ c: (String, String)) {
    #expect(RecentSearchKey.normalize(c.0) == RecentSearchKey.normalize(c.1))
}

@Test("SPEC Q1 normalization keeps different searches apart", arguments: [
    ("ガ", "カ"), ("a b", "ab"), ("猫", "狗"), ("1", "l"),
])
func normalizationKeepsApart(_ c: (String, String)) {
    #expect(RecentSearchKey.normalize(c.0) != RecentSearchKey.normalize(c.1))
}

@Test("SPEC Q1 pure rule: newest first, repeat moves to front, cap 10")
func pureRule() {
    var list = RecentSearchList()
    for n in 1...12 { list.add("q\(n)", now: Int64(n)) }
    #expect(list.entries.map(\.query) == (3...12).reversed().map { "q\($0)" })
    list.add("  Q5 ", now: 13)
    #expect(list.entries.first?.query == "Q5")
    #expect(list.entries.count == 10)
    #expect(list.entries.filter { $0.key == "q5" }.count == 1)
    let removed = list.remove("q5")
    let removedNothing = list.remove("nothing")
    #expect(removed && !removedNothing)
    list.add("   ", now: 14)
    #expect(list.entries.count == 9)
    list.clear()
    #expect(list.entries.isEmpty)
}

@Test("SPEC Q1 the store persists across reopen, in WAL, with a schema version")
func storePersists() throws {
    let dir = try TempFolder()
    defer { dir.remove() }
    let clock = StepClock()
    do {
        let store = try RecordStore(path: dir.file("records.sqlite"))
        #expect(try store.journalMode == "wal")
        #expect(try store.schemaVersion == RecordSchema.currentVersion)
        let recent = RecentSearches(store: store, clock: clock.read)
        try recent.add("猫")
        try recent.add("May 1")
        try recent.add("上周六")
    }
    let reopened = try RecordStore(path: dir.file("records.sqlite"))
    #expect(try reopened.schemaVersion == RecordSchema.currentVersion)
    let recent = RecentSearches(store: reopened, clock: clock.read)
    let entries = try recent.list()
    #expect(entries.map(\.query) == ["上周六", "May 1", "猫"])
    #expect(entries[0].usedAtMilliseconds > entries[1].usedAtMilliseconds)
}

@Test("SPEC Q1 the store keeps 10 entries, newest first")
func storeCap() throws {
    let dir = try TempFolder()
    defer { dir.remove() }
    let recent = RecentSearches(store: try RecordStore(path: dir.file("r.sqlite")), clock: StepClock().read)
    for n in 1...15 { try recent.add("query \(n)") }
    let list = try recent.list()
    #expect(list.count == 10)
    #expect(list.map(\.query) == (6...15).reversed().map { "query \($0)" })
    let rows = try RecordStore(path: dir.file("r.sqlite")).query("SELECT COUNT(*) FROM recent_searches")
    #expect(rows.first?.first == .integer(10))
}

@Test("SPEC Q1 the store de-duplicates by normalized query and moves repeats to the front")
func storeDedup() throws {
    let dir = try TempFolder()
    defer { dir.remove() }
    let recent = RecentSearches(store: try RecordStore(path: dir.file("r.sqlite")), clock: StepClock().read)
    try recent.add("abc")
    try recent.add("cafe")
    try recent.add("x")
    try recent.add("other")
    try recent.add("ＡＢＣ")
    try recent.add("Café")
    try recent.add("  x ")
    #expect(try recent.list().map(\.query) == ["x", "Café", "ＡＢＣ", "other"])
    #expect(try recent.remove("X"))
    #expect(try !recent.remove("not there"))
    #expect(try recent.list().map(\.query) == ["Café", "ＡＢＣ", "other"])
    try recent.clear()
    #expect(try recent.list().isEmpty)
}

@Test("SPEC Q1 transactions roll back on error")
func storeRollback() throws {
    let dir = try TempFolder()
    defer { dir.remove() }
    let store = try RecordStore(path: dir.file("r.sqlite"))
    struct Boom: Error {}
    #expect(throws: Boom.self) {
        try store.transaction { db in
            try db.execute("INSERT INTO recent_searches(key, query, used_at_ms, seq) VALUES ('k', 'k', 1, 1)")
            throw Boom()
        }
    }
    #expect(try store.query("SELECT COUNT(*) FROM recent_searches").first?.first == .integer(0))
    let n: Int = try store.transaction { db in
        try db.transaction { try $0.execute("INSERT INTO recent_searches(key, query, used_at_ms, seq) VALUES ('a', 'a', 1, 1)") }
        return Int(try db.query("SELECT COUNT(*) FROM recent_searches").first?.first?.int64 ?? -1)
    }
    #expect(n == 1)
}

@Test("SPEC Q1 migrations run once and a newer file is refused")
func storeMigrations() throws {
    let dir = try TempFolder()
    defer { dir.remove() }
    let next = RecordSchema.currentVersion + 1 // later schema steps (organize, …) come before it
    let extra = RecordSchema.migrations + [RecordStoreMigration(version: next, name: "test table", statements: [
        "CREATE TABLE test_records (id INTEGER PRIMARY KEY, value TEXT)",
    ])]
    do {
        let store = try RecordStore(path: dir.file("r.sqlite"), migrations: extra)
        #expect(try store.schemaVersion == next)
        try store.execute("INSERT INTO test_records(value) VALUES (?)", [.text("kept")])
    }
    do {
        let again = try RecordStore(path: dir.file("r.sqlite"), migrations: extra)   // no re-run
        #expect(try again.query("SELECT value FROM test_records") == [[.text("kept")]])
    }
    #expect(throws: RecordStoreError.self) { _ = try RecordStore(path: dir.file("r.sqlite")) }
    do {
        _ = try RecordStore(path: dir.file("r.sqlite"))
    } catch let error as RecordStoreError {
        #expect(error.code == .schemaTooNew)
    }
}

@Test("SPEC Q1 a file that is not a database is an error, not a crash")
func storeNotADatabase() throws {
    let dir = try TempFolder()
    defer { dir.remove() }
    try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: dir.file("bad.sqlite")))
    #expect(throws: RecordStoreError.self) { _ = try RecordStore(path: dir.file("bad.sqlite")) }
    #expect(throws: RecordStoreError.self) { _ = try RecordStore(path: dir.file("missing-dir/x.sqlite")) }
}

@Test("SPEC Q1 blobs, reals and nulls round-trip through prepared statements")
func storeValues() throws {
    let store = try RecordStore(path: ":memory:", migrations: [
        RecordStoreMigration(version: 1, name: "values", statements: ["CREATE TABLE v (a, b, c, d)"]),
    ])
    try store.execute("INSERT INTO v VALUES (?, ?, ?, ?)", [.blob([0, 1, 255]), .real(1.5), .null, .text("日本")])
    #expect(try store.query("SELECT a, b, c, d FROM v") == [[.blob([0, 1, 255]), .real(1.5), .null, .text("日本")]])
}
