// Schema versions of the record store.

/// One schema step: applied once, in order, inside a transaction; its version
/// is then recorded in the `schema_version` table.
public struct RecordStoreMigration: Sendable {
    /// Strictly increasing, starting at 1.
    public let version: Int
    /// A short name, stored beside the version.
    public let name: String
    /// The statements of this step.
    public let statements: [String]

    /// - Parameters:
    ///   - version: the version this step brings the schema to.
    ///   - name: a short description.
    ///   - statements: SQL statements run in order.
    public init(version: Int, name: String, statements: [String]) {
        self.version = version
        self.name = name
        self.statements = statements
    }
}

/// The record store's schema: every table of the app's record store, in version order.
/// New features (organizing decisions, …) append a step; never edit a released one.
public enum RecordSchema {
    /// All steps, oldest first.
    public static let migrations: [RecordStoreMigration] = [
        RecordStoreMigration(version: 1, name: "recent searches (SPEC Q1)", statements: [
            """
            CREATE TABLE recent_searches (
                key TEXT PRIMARY KEY NOT NULL,   -- RecentSearchKey.normalize(query)
                query TEXT NOT NULL,             -- the latest text as typed (trimmed)
                used_at_ms INTEGER NOT NULL,     -- injectable clock, Unix milliseconds
                seq INTEGER NOT NULL             -- order of use; newest = largest
            )
            """,
            "CREATE INDEX recent_searches_seq ON recent_searches(seq DESC)",
        ]),
        OrganizeSchema.migration,
        LibrarySchema.migration,
        LibrarySearchSchema.migration,
        OrganizeSchema.scanMigration,
        LibrarySearchGrams.migration,
        LibrarySchema.organizeLinkMigration,
        OrganizeSchema.gainMapEvidenceMigration,
        OrganizeSchema.movieReadingMigration,
    ]

    /// The newest version this build knows.
    public static var currentVersion: Int { migrations.last?.version ?? 0 }
}
