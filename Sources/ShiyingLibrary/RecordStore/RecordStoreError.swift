// Errors of the record store (SQLite).

/// A record-store failure: an SQLite result code and its message.
public struct RecordStoreError: Error, CustomStringConvertible, Sendable {
    /// The kind of failure; SQLite's primary result codes plus the store's own.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: Int32
        /// - Parameter rawValue: an SQLite primary result code, or a negative store code.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// SQLITE_ERROR: SQL error or missing database.
        public static let sqlError = Code(rawValue: 1)
        /// SQLITE_BUSY: the file is locked by another connection (after the busy timeout).
        public static let busy = Code(rawValue: 5)
        /// SQLITE_READONLY.
        public static let readOnly = Code(rawValue: 8)
        /// SQLITE_CANTOPEN: the file cannot be opened.
        public static let cannotOpen = Code(rawValue: 14)
        /// SQLITE_CONSTRAINT.
        public static let constraint = Code(rawValue: 19)
        /// SQLITE_NOTADB: the file is not a database.
        public static let notADatabase = Code(rawValue: 26)
        /// The file's schema is newer than this build knows.
        public static let schemaTooNew = Code(rawValue: -1)
        /// An SQLite database of another program (tables, but no `schema_version`): left untouched.
        public static let foreignDatabase = Code(rawValue: -2)

        public var description: String {
            switch self {
            case .sqlError: return "SQLITE_ERROR"
            case .busy: return "SQLITE_BUSY"
            case .readOnly: return "SQLITE_READONLY"
            case .cannotOpen: return "SQLITE_CANTOPEN"
            case .constraint: return "SQLITE_CONSTRAINT"
            case .notADatabase: return "SQLITE_NOTADB"
            case .schemaTooNew: return "schema too new"
            case .foreignDatabase: return "another program's database"
            default: return "SQLite code \(rawValue)"
            }
        }
    }

    /// What failed.
    public let code: Code
    /// SQLite's message (sqlite3_errmsg) or the store's explanation.
    public let message: String

    /// - Parameters:
    ///   - code: what failed.
    ///   - message: the explanation.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "record store: \(message) (\(code))" }
}
