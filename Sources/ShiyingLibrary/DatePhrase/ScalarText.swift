// The query as an array of folded Unicode scalars, one per original scalar,
// so every match offset maps straight back to the typed text. Matching works
// on this array: no regular expressions, no per-query allocations beyond it.

/// Folded scalar values of a query (1:1 with the query's Unicode scalars).
///
/// Folding: ASCII and Latin-1/Latin Extended-A letters to lower case without
/// diacritics (é → e, Ä → a, ß stays), full-width ASCII to ASCII (５ → 5,
/// Ｍａｙ → may), the ideographic space to a space.
struct ScalarText {
    /// Folded scalar values.
    let f: [UInt32]
    var count: Int { f.count }

    init(_ text: String) {
        var values: [UInt32] = []
        values.reserveCapacity(text.unicodeScalars.count)
        for s in text.unicodeScalars { values.append(ScalarText.fold(s.value)) }
        f = values
    }

    @inline(__always) subscript(_ i: Int) -> UInt32 { i < f.count && i >= 0 ? f[i] : 0 }

    static func fold(_ v: UInt32) -> UInt32 {
        switch v {
        case 0x41...0x5A: return v + 0x20
        case 0xFF01...0xFF5E: return fold(v - 0xFEE0)
        case 0x3000: return 0x20
        case 0xC0...0x17F: return latinFold[Int(v - 0xC0)]
        default: return v
        }
    }

    /// U+00C0…U+017F without diacritics, lower case (a table built once).
    private static let latinFold: [UInt32] = {
        // Generated with Python: unicodedata.normalize("NFD", c)[0].lower() for U+00C0…U+017F
        // (× ÷ ß kept as they are).
        let base = "aaaaaaæceeeeiiiiðnooooo×øuuuuyþßaaaaaaæceeeeiiiiðnooooo÷øuuuuyþy"
            + "aaaaaaccccccccddđđeeeeeeeeeegggggggghhħħiiiiiiiiiıĳĳjjkkĸllllllŀ"
            + "ŀłłnnnnnnŉŋŋooooooœœrrrrrrssssssssttttŧŧuuuuuuuuuuuuwwyyyzzzzzzſ"
        let table = base.unicodeScalars.map(\.value)
        precondition(table.count == 0x180 - 0xC0)
        return table
    }()

    // MARK: character classes (on folded values)

    @inline(__always) static func isDigit(_ v: UInt32) -> Bool { v >= 0x30 && v <= 0x39 }
    @inline(__always) static func isSpace(_ v: UInt32) -> Bool { v == 0x20 || v == 0x09 || v == 0x0A || v == 0x0D || v == 0xA0 }
    /// Letters and digits of alphabetic scripts: a word boundary is anything else.
    @inline(__always) static func isWordChar(_ v: UInt32) -> Bool {
        (v >= 0x61 && v <= 0x7A) || isDigit(v) || (v >= 0xC0 && v <= 0x24F && v != 0xD7 && v != 0xF7)
            || (v >= 0x370 && v <= 0x52F)
    }
    /// CJK ideographs (basic + extension A) and the ideographic zero.
    @inline(__always) static func isIdeograph(_ v: UInt32) -> Bool {
        (v >= 0x4E00 && v <= 0x9FFF) || (v >= 0x3400 && v <= 0x4DBF) || v == 0x3007
    }

    /// Index after any spaces from `i`.
    @inline(__always) func skipSpaces(_ i: Int) -> Int {
        var j = i
        while j < f.count, ScalarText.isSpace(f[j]) { j += 1 }
        return j
    }

    /// A run of 1...`maxDigits` ASCII digits at `i` not followed by another digit.
    /// - Returns: the value and the index after it, or nil.
    func number(at i: Int, maxDigits: Int) -> (value: Int, end: Int)? {
        var j = i
        var value = 0
        while j < f.count, ScalarText.isDigit(f[j]) {
            if j - i == maxDigits { return nil }
            value = value * 10 + Int(f[j] - 0x30)
            j += 1
        }
        return j > i ? (value, j) : nil
    }

    /// Exactly four digits at `i` (a year), not followed by a digit.
    func year(at i: Int) -> (value: Int, end: Int)? {
        guard let n = number(at: i, maxDigits: 4), n.end - i == 4 else { return nil }
        return n
    }

    /// Whether the folded text at `i` starts with `word` (given as folded scalar values).
    @inline(__always) func hasPrefix(_ word: [UInt32], at i: Int) -> Bool {
        guard i + word.count <= f.count else { return false }
        for k in 0..<word.count where f[i + k] != word[k] { return false }
        return true
    }

    /// Whether an alphabetic word may start at `i` (no letter/digit just before it).
    @inline(__always) func wordStarts(at i: Int) -> Bool { i == 0 || !ScalarText.isWordChar(f[i - 1]) }
    /// Whether an alphabetic word may end at `i` (no letter/digit at `i`).
    @inline(__always) func wordEnds(at i: Int) -> Bool { i >= f.count || !ScalarText.isWordChar(f[i]) }
}

extension String {
    /// The folded scalar values of a table word (tables are written in lower case).
    var foldedScalars: [UInt32] { unicodeScalars.map { ScalarText.fold($0.value) } }
}
