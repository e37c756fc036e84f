// SPEC Q1: recent searches — the rule as a pure value, and its persistence in
// the record store.
import Foundation

/// One remembered search.
public struct RecentSearch: Sendable, Hashable, Codable {
    /// The latest text typed for this search (trimmed).
    public var query: String
    /// `RecentSearchKey.normalize(query)`: one entry per key.
    public var key: String
    /// When it was last used (Unix milliseconds, from the injected clock).
    public var usedAtMilliseconds: Int64

    /// - Parameters: see the properties.
    public init(query: String, key: String, usedAtMilliseconds: Int64) {
        self.query = query
        self.key = key
        self.usedAtMilliseconds = usedAtMilliseconds
    }
}

/// The recent-searches rule without storage (SPEC Q1): at most `limit`
/// entries, newest first, one per normalized query; a repeat moves to the
/// front (showing the latest spelling); remove one; clear all.
public struct RecentSearchList: Sendable, Hashable {
    /// 10: a row of capsules fits them and they are enough to go back to.
    public static let defaultLimit = 10

    /// Newest first.
    public private(set) var entries: [RecentSearch]
    /// Maximum number of entries.
    public let limit: Int

    /// - Parameters:
    ///   - entries: existing entries, newest first (trimmed to `limit`).
    ///   - limit: maximum entries (10 by default).
    public init(entries: [RecentSearch] = [], limit: Int = RecentSearchList.defaultLimit) {
        self.limit = max(1, limit)
        self.entries = Array(entries.prefix(self.limit))
    }

    /// Records a search.
    /// - Parameters:
    ///   - query: the text as typed; ignored when empty after trimming.
    ///   - now: the time of use (Unix milliseconds).
    /// - Returns: the keys dropped because the list was full (oldest first).
    @discardableResult
    public mutating func add(_ query: String, now: Int64) -> [String] {
        let key = RecentSearchKey.normalize(query)
        guard !key.isEmpty else { return [] }
        entries.removeAll { $0.key == key }
        entries.insert(RecentSearch(query: RecentSearchKey.display(query), key: key, usedAtMilliseconds: now), at: 0)
        guard entries.count > limit else { return [] }
        let dropped = entries[limit...].map(\.key)
        entries.removeLast(entries.count - limit)
        return dropped
    }

    /// Removes the entry for `query` (any spelling with the same key).
    /// - Returns: whether an entry was removed.
    @discardableResult
    public mutating func remove(_ query: String) -> Bool {
        let key = RecentSearchKey.normalize(query)
        let before = entries.count
        entries.removeAll { $0.key == key }
        return entries.count != before
    }

    /// Removes every entry.
    public mutating func clear() { entries.removeAll() }
}

/// Recent searches persisted in the record store's `recent_searches` table.
///
/// Each operation is one transaction. The clock is injectable for tests.
/// Not Sendable (it uses a `RecordStore` connection).
public final class RecentSearches {
    private let store: RecordStore
    private let limit: Int
    private let clock: @Sendable () -> Int64

    /// The system clock in Unix milliseconds.
    public static let systemClock: @Sendable () -> Int64 = {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// - Parameters:
    ///   - store: an open record store (migrated with `RecordSchema.migrations`).
    ///   - limit: maximum entries (10).
    ///   - clock: current time in Unix milliseconds.
    public init(store: RecordStore, limit: Int = RecentSearchList.defaultLimit,
                clock: @escaping @Sendable () -> Int64 = RecentSearches.systemClock) {
        self.store = store
        self.limit = max(1, limit)
        self.clock = clock
    }

    /// Newest first, at most `limit`.
    /// - Throws: `RecordStoreError`.
    public func list() throws -> [RecentSearch] {
        try store.query("SELECT query, key, used_at_ms FROM recent_searches ORDER BY seq DESC LIMIT ?",
                        [.integer(Int64(limit))]).map {
            RecentSearch(query: $0[0].string ?? "", key: $0[1].string ?? "", usedAtMilliseconds: $0[2].int64 ?? 0)
        }
    }

    /// Records a search (SPEC Q1): upsert by key, move to front, keep `limit`.
    /// - Parameter query: the text as typed; ignored when empty after trimming.
    /// - Throws: `RecordStoreError`.
    public func add(_ query: String) throws {
        var rule = RecentSearchList(entries: try list(), limit: limit)
        let dropped = rule.add(query, now: clock())
        guard let front = rule.entries.first, front.key == RecentSearchKey.normalize(query), !front.key.isEmpty else { return }
        try store.transaction { db in
            let seq = (try db.query("SELECT COALESCE(MAX(seq), 0) + 1 FROM recent_searches").first?.first?.int64) ?? 1
            try db.execute("""
                INSERT INTO recent_searches(key, query, used_at_ms, seq) VALUES (?1, ?2, ?3, ?4)
                ON CONFLICT(key) DO UPDATE SET query = excluded.query, used_at_ms = excluded.used_at_ms, seq = excluded.seq
                """, [.text(front.key), .text(front.query), .integer(front.usedAtMilliseconds), .integer(seq)])
            for key in dropped { try db.execute("DELETE FROM recent_searches WHERE key = ?", [.text(key)]) }
            // Anything beyond the limit (e.g. written by an older build with a larger limit).
            try db.execute("DELETE FROM recent_searches WHERE key NOT IN (SELECT key FROM recent_searches ORDER BY seq DESC LIMIT ?)",
                           [.integer(Int64(limit))])
        }
    }

    /// Removes one search (any spelling with the same key).
    /// - Returns: whether an entry was removed.
    /// - Throws: `RecordStoreError`.
    @discardableResult
    public func remove(_ query: String) throws -> Bool {
        try store.transaction { db in
            try db.execute("DELETE FROM recent_searches WHERE key = ?", [.text(RecentSearchKey.normalize(query))])
            return db.changes > 0
        }
    }

    /// Removes every search.
    /// - Throws: `RecordStoreError`.
    public func clear() throws {
        try store.transaction { try $0.execute("DELETE FROM recent_searches") }
    }
}
