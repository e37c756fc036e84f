// Issue 20 item 7: many processes opening one new record store at once all
// succeed (the schema version is read inside BEGIN IMMEDIATE), and another
// program's SQLite file is refused before anything in it changes.
import Foundation
import ShiyingLibrary
import Testing

@Suite("Record store: concurrent creation and foreign databases (issue 20)")
struct RecordStoreConcurrencyTests {
    @Test("16 processes opening one new database at once: all succeed, integrity ok, each step applied once")
    func sixteenProcessesCreateOneStore() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let db = dir.file("shared.sqlite")
        let results = try await withThrowingTaskGroup(of: (Int, Int32, String).self) { group in
            for i in 0..<16 {
                group.addTask {
                    let r = try await ShiyingBinary.shiying(["recent", "add", "query \(i)", "--db", db])
                    return (i, r.status, r.stderr)
                }
            }
            var all: [(Int, Int32, String)] = []
            for try await r in group { all.append(r) }
            return all
        }
        let failed = results.filter { $0.1 != 0 }
        #expect(failed.isEmpty, "\(failed.count) of 16 failed: \(failed.prefix(3).map { "\($0.0): \($0.2)" })")
        let store = try RecordStore(path: db)
        #expect(try store.query("PRAGMA integrity_check") == [[.text("ok")]])
        #expect(try store.schemaVersion == RecordSchema.currentVersion)
        let versions = try store.query("SELECT version FROM schema_version ORDER BY version").compactMap { $0.first?.int64 }
        #expect(versions == RecordSchema.migrations.map { Int64($0.version) }, "each step recorded once: \(versions)")
        // Every process added one query; the list keeps the newest (SPEC Q1 limit).
        #expect(try RecentSearches(store: store).list().count == min(16, RecentSearchList.defaultLimit))
    }

    @Test("another program's SQLite file is refused, named, and left byte-identical (no WAL, no new table)")
    func foreignDatabaseUntouched() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let db = dir.file("photos-of-another-app.db")
        let made = try await ShiyingBinary.run("/usr/bin/python3", ["-c", """
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1]); c.execute("CREATE TABLE albums (id INTEGER PRIMARY KEY, name TEXT)")
            c.execute("INSERT INTO albums(name) VALUES ('summer')"); c.commit(); c.close()
            """, db])
        try #require(made.status == 0, "python3 sqlite3: \(made.stderr)")
        let before = FileManager.default.contents(atPath: db)
        do {
            _ = try RecordStore(path: db)
            Issue.record("a foreign database was opened as a record store")
        } catch let error as RecordStoreError {
            #expect(error.code == .foreignDatabase)
            #expect(error.message.contains(db), "\(error.message)")
        }
        #expect(FileManager.default.contents(atPath: db) == before)
        #expect(!FileManager.default.fileExists(atPath: db + "-wal"))
    }

    @Test("a file that is not a database: the error names the file")
    func corruptDatabaseIsNamed() throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let db = dir.file("garbage.sqlite")
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: db))
        do {
            _ = try RecordStore(path: db)
            Issue.record("garbage opened")
        } catch let error as RecordStoreError {
            #expect(error.message.contains(db), "\(error.message)")
        }
    }
}
