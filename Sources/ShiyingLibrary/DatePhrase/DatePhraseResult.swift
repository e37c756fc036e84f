// What the date-phrase parser returns (SPEC Q2).

/// Which table recognised a date phrase.
public enum DatePhraseKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// Simplified-Chinese relative words: 昨天, 上周六, 上个月底, 今年初 …
    case chineseRelative
    /// A written month + day in Chinese (simplified or traditional) or Japanese: 五月一日, 5月1日, 2025年5月1號.
    case chineseJapaneseWritten
    /// Korean: 5월 1일, 2025년 5월 1일.
    case korean
    /// English: May 1, 1 May, May 1st, May 1, 2025.
    case english
    /// German: 1. Mai, 1. Mai 2025.
    case german
    /// French: 1er mai, 14 juillet 2024.
    case french
    /// Spanish: 1 de mayo, 1 de mayo de 2025.
    case spanish
}

/// One recognised date phrase.
public struct DatePhraseMatch: Sendable, Hashable {
    /// The days the phrase stands for (inclusive).
    public let range: DayRange
    /// The consumed text, exactly as typed.
    public let text: String
    /// Where the consumed text sits in the query (for highlighting).
    public let bounds: Range<String.Index>
    /// The same position in UTF-16 code units (for NSRange / UIKit highlighting).
    public let utf16Offsets: Range<Int>
    /// The table that recognised it.
    public let kind: DatePhraseKind
}

/// The outcome of parsing one query.
public struct DatePhraseResult: Sendable, Hashable {
    /// Every recognised phrase, in the order they appear in the query.
    public let matches: [DatePhraseMatch]
    /// The query without the consumed phrases: the remaining pieces, each
    /// trimmed, joined by one space. This is what still goes to text search.
    public let rest: String

    /// The date ranges of `matches`, in query order (zero or more).
    public var ranges: [DayRange] { matches.map(\.range) }
}
