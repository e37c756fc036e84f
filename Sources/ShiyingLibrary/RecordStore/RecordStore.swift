// The app's record store: one SQLite file (system libsqlite3) holding small
// tables of user records — recent searches, organizing decisions, and a
// photo library's catalogue.
internal import CSQLite
import Foundation

/// A connection to the record store's SQLite file.
///
/// Opening creates the file if needed, refuses another program's database
/// before changing anything in it, switches it to WAL, turns on foreign keys,
/// and applies every pending `RecordStoreMigration` (each in its own
/// `BEGIN IMMEDIATE` transaction that reads the version inside it, retried
/// while busy, so any number of processes may open a new file at once).
/// Statements are prepared
/// once and cached per SQL text.
///
/// Not Sendable: one connection belongs to one thread or actor at a time
/// (the connection is opened with SQLITE_OPEN_NOMUTEX). Open a second
/// `RecordStore` on the same file for another thread; WAL lets readers and a
/// writer proceed together, and a 5 s busy timeout absorbs short write locks.
///
/// Memory: SQLite's page cache (its default, ~2 MB) plus the cached statements.
public final class RecordStore {
    let db: OpaquePointer
    /// The file's path.
    public let path: String
    private var statements: [String: PreparedStatement] = [:]
    private var transactionDepth = 0
    private let commits = CommitCounter()

    /// Opens (creating if needed) and migrates the store.
    /// - Parameters:
    ///   - path: the database file (":memory:" for a private in-memory store).
    ///   - migrations: schema steps, ascending versions; `RecordSchema.migrations` by default.
    /// - Throws: `RecordStoreError` (`.cannotOpen`, `.notADatabase`, `.schemaTooNew`, …).
    /// Wraps `sqlite3_open_v2`, `PRAGMA journal_mode=WAL`, `sqlite3_busy_timeout`.
    public init(path: String, migrations: [RecordStoreMigration] = RecordSchema.migrations) throws {
        // SQLite would say "disk I/O error" of a pipe or a device: say what it is.
        var file = stat()
        if path != ":memory:", stat(path, &file) == 0, file.st_mode & S_IFMT != S_IFREG {
            let kind = file.st_mode & S_IFMT
            let what = kind == S_IFDIR ? "a folder" : kind == S_IFIFO ? "a pipe" : kind == S_IFSOCK ? "a socket" : "a device"
            throw RecordStoreError(code: .cannotOpen, message: "cannot open \(path): it is \(what), not a database file")
        }
        // A file this open creates and cannot finish (a full disk, a file-size limit) is taken away again.
        let creates = path != ":memory:" && stat(path, &file) != 0 && errno == ENOENT
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw RecordStoreError(code: .init(rawValue: status & 0xFF), message: "cannot open \(path): \(message)")
        }
        db = handle
        self.path = path
        sqlite3_extended_result_codes(db, 0)
        sqlite3_busy_timeout(db, 5000)
        sqlite3_commit_hook(db, { user in
            guard let user else { return 0 }
            Unmanaged<CommitCounter>.fromOpaque(user).takeUnretainedValue().count += 1
            return 0 // 0 = let the commit proceed
        }, Unmanaged.passUnretained(commits).toOpaque())
        do {
            try refuseForeignDatabase()
            _ = try query("PRAGMA journal_mode=WAL")
            try execute("PRAGMA synchronous=NORMAL")
            try execute("PRAGMA foreign_keys=ON")
            try migrate(migrations)
        } catch let error as RecordStoreError {
            statements.removeAll()
            sqlite3_close_v2(db)
            if creates { for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) } }
            // Name the file: "file is not a database" alone does not say which.
            throw error.message.contains(path) ? error : RecordStoreError(code: error.code, message: "\(path): \(error.message)")
        }
    }

    deinit {
        statements.removeAll()   // finalize before closing
        sqlite3_close_v2(db)
    }

    /// The journal mode SQLite reports ("wal" for a file, "memory" for ":memory:").
    public var journalMode: String {
        get throws { try query("PRAGMA journal_mode").first?.first?.string ?? "" }
    }

    /// The highest applied migration version (0 for a new file).
    public var schemaVersion: Int {
        get throws { Int(try query("SELECT COALESCE(MAX(version), 0) FROM schema_version").first?.first?.int64 ?? 0) }
    }

    /// Runs one statement with bound values (`?` placeholders) and discards rows.
    /// - Parameters:
    ///   - sql: one SQL statement; prepared once and cached.
    ///   - values: values for `?1…?n`.
    /// - Throws: `RecordStoreError`.
    public func execute(_ sql: String, _ values: [SQLValue] = []) throws {
        _ = try statement(sql).run(values)
    }

    /// Runs one statement and returns every row.
    /// - Parameters:
    ///   - sql: one SQL statement; prepared once and cached.
    ///   - values: values for `?1…?n`.
    /// - Returns: the rows, each a list of column values.
    /// - Throws: `RecordStoreError`.
    public func query(_ sql: String, _ values: [SQLValue] = []) throws -> [SQLRow] {
        try statement(sql).run(values)
    }

    /// Runs one query and calls `body` for each row with a cursor on it (no
    /// row arrays: large listings read their columns in place).
    /// - Throws: `RecordStoreError`, or what `body` throws.
    public func forEachRow(_ sql: String, _ values: [SQLValue] = [], _ body: (SQLCursor) throws -> Void) throws {
        try statement(sql).forEach(values, body)
    }

    /// Runs `body` in one transaction (`BEGIN IMMEDIATE` … `COMMIT`), rolling
    /// back if it throws. Nested calls join the outer transaction (savepoints).
    /// - Parameter body: the work; receives this store.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws, or `RecordStoreError`.
    public func transaction<T>(_ body: (RecordStore) throws -> T) throws -> T {
        let nested = transactionDepth > 0
        let savepoint = "sp\(transactionDepth)"
        try execute(nested ? "SAVEPOINT \(savepoint)" : "BEGIN IMMEDIATE")
        transactionDepth += 1
        do {
            let value = try body(self)
            transactionDepth -= 1
            try execute(nested ? "RELEASE \(savepoint)" : "COMMIT")
            return value
        } catch {
            transactionDepth -= 1
            if nested {
                try? execute("ROLLBACK TO \(savepoint)")
                try? execute("RELEASE \(savepoint)")
            } else {
                try? execute("ROLLBACK")
            }
            throw error
        }
    }

    /// `transaction`, retried while another connection holds the write lock
    /// past the busy timeout (SQLITE_BUSY): short pauses with jitter, growing
    /// to 100 ms, until `limit`. One writer at a time across processes, and a
    /// waiting writer never surfaces "database is locked" before `limit`.
    /// `body` must touch only the store: a retry runs it again after the rollback.
    /// - Throws: what `body` throws, or `RecordStoreError` (`.busy` after `limit`).
    public func writeTransaction<T>(retryingBusyFor limit: Duration = .seconds(60),
                                    _ body: (RecordStore) throws -> T) throws -> T {
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        var pauseMs = 2.0
        while true {
            do {
                return try transaction(body)
            } catch let error as RecordStoreError where error.code == .busy && transactionDepth == 0 && clock.now < deadline {
                usleep(useconds_t(pauseMs * Double.random(in: 500...1500)))
                pauseMs = min(pauseMs * 2, 100)
            }
        }
    }

    /// Write transactions committed on this connection since it opened, as
    /// SQLite reports them through `sqlite3_commit_hook` (read-only statements
    /// do not count). SPEC D6 tests count a batch's writes with it.
    public var committedWrites: Int { commits.count }

    /// Rows changed by the last INSERT/UPDATE/DELETE (`sqlite3_changes`).
    public var changes: Int { Int(sqlite3_changes(db)) }

    // MARK: - internals

    /// Boxed so the C commit hook can reach it; lives as long as the connection.
    private final class CommitCounter {
        var count = 0
    }

    private func statement(_ sql: String) throws -> PreparedStatement {
        if let cached = statements[sql] { return cached }
        let prepared = try PreparedStatement(sql: sql, store: self)
        statements[sql] = prepared
        return prepared
    }

    /// A file with tables but no `schema_version` belongs to another program:
    /// refuse it before WAL or any table is written (a read-only look).
    private func refuseForeignDatabase() throws {
        let tables = try query("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap { $0.first?.string }
        if !tables.isEmpty && !tables.contains("schema_version") {
            throw RecordStoreError(code: .foreignDatabase,
                                   message: "\(path) is another program's SQLite database (tables \(tables.prefix(3).joined(separator: ", "))…); it was left untouched")
        }
    }

    /// Each step in its own write transaction; the version is read inside it,
    /// so a process that lost the race for the lock sees the winner's steps.
    private func migrate(_ migrations: [RecordStoreMigration]) throws {
        let newest = migrations.last?.version ?? 0
        try writeTransaction { store in
            try store.executeUncached("""
                CREATE TABLE IF NOT EXISTS schema_version (
                    version INTEGER PRIMARY KEY NOT NULL,
                    name TEXT NOT NULL,
                    applied_at_ms INTEGER NOT NULL
                )
                """)
            let current = try store.schemaVersion
            if current > newest {
                throw RecordStoreError(code: .schemaTooNew,
                                       message: "\(store.path) has schema version \(current); this build knows up to \(newest)")
            }
        }
        for step in migrations {
            try writeTransaction { store in
                guard step.version > (try store.schemaVersion) else { return }
                for sql in step.statements { try store.executeUncached(sql) }
                try store.execute("INSERT INTO schema_version(version, name, applied_at_ms) VALUES (?, ?, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))",
                                  [.integer(Int64(step.version)), .text(step.name)])
            }
        }
    }

    /// Runs SQL once without caching its statement (schema changes).
    private func executeUncached(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(db, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard status == SQLITE_OK else {
            throw RecordStoreError(code: .init(rawValue: status), message: message.map { String(cString: $0) } ?? "exec failed")
        }
    }

    func error(_ status: Int32, context: String) -> RecordStoreError {
        var message = String(cString: sqlite3_errmsg(db))
        // "disk I/O error" alone does not say a disk is full or a file-size limit was reached: the system's errno does.
        let system = sqlite3_system_errno(db)
        if status & 0xFF == SQLITE_IOERR || status & 0xFF == SQLITE_FULL, system != 0 {
            message += " (\(String(cString: strerror(system))))"
        }
        return RecordStoreError(code: .init(rawValue: status & 0xFF), message: "\(context): \(message)")
    }
}
