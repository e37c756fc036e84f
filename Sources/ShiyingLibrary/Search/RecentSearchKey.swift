// SPEC Q1: when two typed queries are "the same search".
import Foundation

/// The normalized form under which recent searches are de-duplicated (SPEC Q1):
/// case, full/half width, diacritics and surrounding whitespace are ignored.
public enum RecentSearchKey {
    /// Normalizes a query.
    ///
    /// Steps: NFKC (full-width ＡＢＣ → ABC, half-width ｶ → カ, ideographic
    /// space → space); canonical decomposition with combining diacritical
    /// marks removed (é → e) — but kana voicing marks kept, so ガ ≠ カ; lower
    /// case; leading and trailing whitespace trimmed. Inner spaces are kept.
    /// - Parameter query: the text as typed.
    /// - Returns: the key; empty when the query is only whitespace.
    public static func normalize(_ query: String) -> String {
        let compatible = query.precomposedStringWithCompatibilityMapping
        var scalars = String.UnicodeScalarView()
        for s in compatible.decomposedStringWithCanonicalMapping.unicodeScalars where !isDiacritic(s.value) {
            scalars.append(s)
        }
        return String(scalars).precomposedStringWithCanonicalMapping.lowercased()
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Combining marks that are diacritics on Latin, Greek and Cyrillic letters.
    /// U+3099/U+309A (kana voicing) are deliberately not here.
    private static func isDiacritic(_ v: UInt32) -> Bool {
        (0x0300...0x036F).contains(v) || (0x1AB0...0x1AFF).contains(v) || (0x1DC0...0x1DFF).contains(v)
            || (0x20D0...0x20FF).contains(v) || (0xFE20...0xFE2F).contains(v)
    }

    /// The text shown for a query: trimmed, otherwise as typed.
    /// - Parameter query: the text as typed.
    public static func display(_ query: String) -> String {
        query.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
