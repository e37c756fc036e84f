// A prepared SQLite statement (sqlite3_stmt), owned by its RecordStore.
internal import CSQLite

/// SQLITE_TRANSIENT: SQLite copies bound text and blobs before the call returns.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// Wraps one `sqlite3_stmt`; `deinit` calls `sqlite3_finalize`. Not Sendable:
/// used only by the connection that prepared it.
final class PreparedStatement {
    let handle: OpaquePointer
    private unowned let store: RecordStore

    init(sql: String, store: RecordStore) throws {
        var stmt: OpaquePointer?
        let status = sqlite3_prepare_v3(store.db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
        guard status == SQLITE_OK, let stmt else {
            sqlite3_finalize(stmt)
            throw store.error(status, context: "prepare \(sql.prefix(80))")
        }
        handle = stmt
        self.store = store
    }

    deinit { sqlite3_finalize(handle) }

    /// Binds `values` to ?1…?n, steps to the end and returns every row; resets the statement.
    func run(_ values: [SQLValue]) throws -> [SQLRow] {
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        try bind(values)
        var rows: [SQLRow] = []
        while true {
            let status = sqlite3_step(handle)
            if status == SQLITE_DONE { return rows }
            guard status == SQLITE_ROW else { throw store.error(status, context: "step") }
            let columns = sqlite3_column_count(handle)
            var row: SQLRow = []
            row.reserveCapacity(Int(columns))
            for c in 0..<columns { row.append(column(c)) }
            rows.append(row)
        }
    }

    /// Binds `values`, then calls `body` once per row with a cursor on it
    /// (columns read in place, no row arrays); resets the statement.
    func forEach(_ values: [SQLValue], _ body: (SQLCursor) throws -> Void) throws {
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        try bind(values)
        let cursor = SQLCursor(handle: handle)
        while true {
            let status = sqlite3_step(handle)
            if status == SQLITE_DONE { return }
            guard status == SQLITE_ROW else { throw store.error(status, context: "step") }
            try body(cursor)
        }
    }

    private func bind(_ values: [SQLValue]) throws {
        for (n, value) in values.enumerated() {
            let index = Int32(n + 1)
            let status: Int32
            switch value {
            case .null: status = sqlite3_bind_null(handle, index)
            case .integer(let v): status = sqlite3_bind_int64(handle, index, v)
            case .real(let v): status = sqlite3_bind_double(handle, index, v)
            case .text(let v): status = sqlite3_bind_text(handle, index, v, -1, transient)
            case .blob(let v):
                status = v.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), transient) }
            }
            guard status == SQLITE_OK else { throw store.error(status, context: "bind ?\(index)") }
        }
    }

    private func column(_ c: Int32) -> SQLValue {
        switch sqlite3_column_type(handle, c) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, c))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, c))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(handle, c) else { return .text("") }
            let count = Int(sqlite3_column_bytes(handle, c))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, c))
            guard count > 0, let bytes = sqlite3_column_blob(handle, c) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }
}

/// The current row of a statement stepping in `RecordStore.forEachRow`:
/// typed column reads straight from SQLite, valid only inside the callback.
public struct SQLCursor {
    fileprivate let handle: OpaquePointer

    /// Whether column `c` (0-based) is NULL.
    public func isNull(_ c: Int32) -> Bool { sqlite3_column_type(handle, c) == SQLITE_NULL }
    /// Column `c` as an integer (0 for NULL).
    public func int64(_ c: Int32) -> Int64 { sqlite3_column_int64(handle, c) }
    /// Column `c` as a double (0 for NULL).
    public func double(_ c: Int32) -> Double { sqlite3_column_double(handle, c) }
    /// Column `c` as text, nil for NULL.
    public func text(_ c: Int32) -> String? {
        guard let bytes = sqlite3_column_text(handle, c) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, c))), as: UTF8.self)
    }
}
