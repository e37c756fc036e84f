// SPEC Q1: when two typed queries are "the same search".
import Foundation

/// The normalized form under which recent searches are de-duplicated (SPEC Q1):
/// case, full/half width, diacritics and surrounding whitespace are ignored.
public enum RecentSearchKey {
    /// Normalizes a query.
    ///
    /// `SearchFolding.fold` (NFKC, diacritics removed but kana voicing kept,
    /// lower case), then leading and trailing whitespace trimmed. Inner spaces are kept.
    /// - Parameter query: the text as typed.
    /// - Returns: the key; empty when the query is only whitespace.
    public static func normalize(_ query: String) -> String {
        SearchFolding.fold(query).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The text shown for a query: trimmed, otherwise as typed.
    /// - Parameter query: the text as typed.
    public static func display(_ query: String) -> String {
        query.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
