// A typed search split into capture-date ranges and word terms (issue 21; SPEC Q2).

/// What a search looks for: the date phrases of the text (SPEC Q2) and the
/// rest as folded terms, each matched as a substring of an asset's words.
///
/// 「上周日本」 is last week's photos whose words contain 「本」; "beach 2024年5月1日"
/// is that day's photos with "beach". Terms are what the rest holds between
/// spaces (Chinese text without spaces is one term, matched as a substring).
public struct LibrarySearchQuery: Sendable, Hashable {
    /// The text as typed.
    public let text: String
    /// Day ranges of the date phrases, in query order; a photo matches when
    /// its capture day lies in any of them (none: any date, undated included).
    public let ranges: [DayRange]
    /// `SearchFolding.fold` of each word of the rest, duplicates removed;
    /// every one must occur in an asset's words.
    public let terms: [String]

    /// Parses `text` with `parser` as of `today`.
    public init(_ text: String, today: Day, parser: DatePhraseParser = DatePhraseParser()) {
        let parsed = parser.parse(text, today: today)
        self.text = text
        ranges = parsed.ranges
        var seen = Set<String>()
        terms = SearchFolding.fold(parsed.rest).split(whereSeparator: { $0.isWhitespace }).map(String.init)
            .filter { seen.insert($0).inserted }
    }

    /// Whether the query asks for anything (an empty query finds nothing).
    public var isEmpty: Bool { ranges.isEmpty && terms.isEmpty }

    /// Capture-time bounds of `ranges` in the catalogue's `captured_at_ms`
    /// (the Exif local time read as UTC): [first day 00:00, day after the last).
    public var capturedAtBounds: [Range<Int64>] {
        ranges.map { r in
            Int64(r.start.daysSinceEpoch) * 86_400_000..<Int64(r.end.daysSinceEpoch + 1) * 86_400_000
        }
    }
}
