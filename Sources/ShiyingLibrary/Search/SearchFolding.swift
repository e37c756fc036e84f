// The one text folding of search (SPEC Q1): what recent searches compare and
// what the library's word index stores and matches.
import Foundation

/// Folds text so that case, full/half width and diacritics do not matter.
public enum SearchFolding {
    /// Folds `text`; inner and surrounding whitespace is kept.
    ///
    /// Steps: NFKC (full-width ＡＢＣ → ABC, half-width ｶ → カ, ideographic
    /// space → space); canonical decomposition with combining diacritical
    /// marks removed (é → e) — but kana voicing marks kept, so ガ ≠ カ; lower case.
    /// - Parameter text: any text.
    /// - Returns: the folded text (Chinese, Japanese and Korean characters unchanged).
    public static func fold(_ text: String) -> String {
        // ASCII (file names, cameras, most Latin words) folds to its lower
        // case: NFKC and the diacritic removal leave it as it is.
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            return String(decoding: text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
        }
        let compatible = text.precomposedStringWithCompatibilityMapping
        var scalars = String.UnicodeScalarView()
        for s in compatible.decomposedStringWithCanonicalMapping.unicodeScalars where !isDiacritic(s.value) {
            scalars.append(s)
        }
        return String(scalars).precomposedStringWithCanonicalMapping.lowercased()
    }

    /// Combining marks that are diacritics on Latin, Greek and Cyrillic letters.
    /// U+3099/U+309A (kana voicing) are deliberately not here.
    private static func isDiacritic(_ v: UInt32) -> Bool {
        (0x0300...0x036F).contains(v) || (0x1AB0...0x1AFF).contains(v) || (0x1DC0...0x1DFF).contains(v)
            || (0x20D0...0x20FF).contains(v) || (0xFE20...0xFE2F).contains(v)
    }
}
