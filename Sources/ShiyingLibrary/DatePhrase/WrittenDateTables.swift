// SPEC Q2: written month + day dates, as per-language data.
//
// Chinese (simplified and traditional) and Japanese share one shape,
// [year 年] month 月 day 日/号/號, with Arabic, full-width or Chinese numerals;
// Korean is [year 년] month 월 day 일. The Latin-script languages differ in
// word order, ordinal suffixes and connecting words, which each table states.

/// Month/day markers of the CJK shape.
struct CJKDateScript: Sendable {
    let kind: DatePhraseKind
    let yearMarker: UInt32
    let monthMarker: UInt32
    /// Characters that may end the day (日, 号, 號 / 일).
    let dayMarkers: [UInt32]
}

enum CJKDateTable {
    static let scripts: [CJKDateScript] = [
        // 五月一日, 5月1日, 5月1号 (simplified), 5月1號 (traditional), 2025年5月1日 (also Japanese)
        CJKDateScript(kind: .chineseJapaneseWritten, yearMarker: 0x5E74 /* 年 */, monthMarker: 0x6708 /* 月 */,
                      dayMarkers: [0x65E5 /* 日 */, 0x53F7 /* 号 */, 0x865F /* 號 */]),
        // 5월 1일, 2025년 5월 1일
        CJKDateScript(kind: .korean, yearMarker: 0xB144 /* 년 */, monthMarker: 0xC6D4 /* 월 */,
                      dayMarkers: [0xC77C /* 일 */]),
    ]

    /// Relative year words that may precede a written date: 去年五月一日 (SPEC Q2).
    static let yearWords: [(word: [UInt32], offset: Int)] = [
        ("今年".foldedScalars, 0), ("去年".foldedScalars, -1), ("前年".foldedScalars, -2),
    ]

    /// Chinese numerals: digit values (〇/零 = 0) and tens characters (十 = 10, 廿 = 20, 卅 = 30).
    static let numeralDigits: [UInt32: Int] = [
        0x3007: 0, 0x96F6: 0, 0x4E00: 1, 0x4E8C: 2, 0x4E09: 3, 0x56DB: 4, 0x4E94: 5,
        0x516D: 6, 0x4E03: 7, 0x516B: 8, 0x4E5D: 9,
    ]
    static let numeralTens: [UInt32: Int] = [0x5341: 10, 0x5EFF: 20, 0x5345: 30]
}

/// The shape of written dates in one Latin-script language (all words folded:
/// lower case, no diacritics).
struct LatinDateLanguage: Sendable {
    let kind: DatePhraseKind
    /// Month names and abbreviations with their month numbers.
    let months: [(name: [UInt32], month: Int)]
    /// Ordinal endings allowed right after the day number (1st, 1er, 1º).
    let daySuffixes: [[UInt32]]
    /// The day number must be followed by a full stop (German 1. Mai).
    let dayNeedsFullStop: Bool
    /// Words allowed between day and month (of, de).
    let dayMonthWords: [[UInt32]]
    /// Month before day is allowed (English May 1).
    let monthFirst: Bool
    /// Words allowed between the date and its year (Spanish de/del); a comma is always allowed.
    let yearWords: [[UInt32]]
    /// The first of a month as a word (first of May, premier mai, primero de mayo).
    let firstWords: [[UInt32]]
    /// Words that only tie a date to the sentence (from, on the, am, le, del): read
    /// with the date just after them, so they do not stay behind as search terms
    /// every photo would have to contain.
    let leadWords: [[UInt32]]

    init(kind: DatePhraseKind, months: [(String, Int)], daySuffixes: [String] = [], dayNeedsFullStop: Bool = false,
         dayMonthWords: [String] = [], monthFirst: Bool = false, yearWords: [String] = [], firstWords: [String] = [],
         leadWords: [String] = []) {
        self.kind = kind
        // Longest first, so "sept" wins over "sep" and "juillet" over "juil".
        self.months = months.map { ($0.0.foldedScalars, $0.1) }.sorted { $0.name.count > $1.name.count }
        self.daySuffixes = daySuffixes.map(\.foldedScalars)
        self.dayNeedsFullStop = dayNeedsFullStop
        self.dayMonthWords = dayMonthWords.map(\.foldedScalars).sorted { $0.count > $1.count }
        self.monthFirst = monthFirst
        self.yearWords = yearWords.map(\.foldedScalars).sorted { $0.count > $1.count }
        self.firstWords = firstWords.map(\.foldedScalars).sorted { $0.count > $1.count }
        self.leadWords = leadWords.map(\.foldedScalars)
    }
}

enum LatinDateTable {
    static let english = LatinDateLanguage(
        kind: .english,
        months: [("january", 1), ("jan", 1), ("february", 2), ("feb", 2), ("march", 3), ("mar", 3),
                 ("april", 4), ("apr", 4), ("may", 5), ("june", 6), ("jun", 6), ("july", 7), ("jul", 7),
                 ("august", 8), ("aug", 8), ("september", 9), ("sept", 9), ("sep", 9), ("october", 10),
                 ("oct", 10), ("november", 11), ("nov", 11), ("december", 12), ("dec", 12)],
        daySuffixes: ["st", "nd", "rd", "th"], dayMonthWords: ["of"], monthFirst: true, firstWords: ["first"],
        leadWords: ["the", "on", "from"])

    static let german = LatinDateLanguage(
        kind: .german,
        months: [("januar", 1), ("jänner", 1), ("jan", 1), ("februar", 2), ("feber", 2), ("feb", 2),
                 ("märz", 3), ("maerz", 3), ("mär", 3), ("mrz", 3), ("april", 4), ("apr", 4), ("mai", 5),
                 ("juni", 6), ("jun", 6), ("juli", 7), ("jul", 7), ("august", 8), ("aug", 8),
                 ("september", 9), ("sept", 9), ("sep", 9), ("oktober", 10), ("okt", 10),
                 ("november", 11), ("nov", 11), ("dezember", 12), ("dez", 12)],
        dayNeedsFullStop: true, leadWords: ["am", "vom", "der", "den"])

    static let french = LatinDateLanguage(
        kind: .french,
        months: [("janvier", 1), ("janv", 1), ("février", 2), ("févr", 2), ("mars", 3), ("avril", 4),
                 ("avr", 4), ("mai", 5), ("juin", 6), ("juillet", 7), ("juil", 7), ("août", 8),
                 ("septembre", 9), ("octobre", 10), ("novembre", 11), ("décembre", 12), ("déc", 12)],
        daySuffixes: ["er"], firstWords: ["premier"], leadWords: ["le", "du"])

    static let spanish = LatinDateLanguage(
        kind: .spanish,
        months: [("enero", 1), ("febrero", 2), ("marzo", 3), ("abril", 4), ("mayo", 5), ("junio", 6),
                 ("julio", 7), ("agosto", 8), ("septiembre", 9), ("setiembre", 9), ("octubre", 10),
                 ("noviembre", 11), ("diciembre", 12)],
        daySuffixes: ["º", "°", "ª"], dayMonthWords: ["de"], monthFirst: true, yearWords: ["de", "del"],
        firstWords: ["primero", "primer"], leadWords: ["el", "del"])

    /// Tried in this order for day-first dates; German first because its full stop is the most specific.
    static let dayFirst: [LatinDateLanguage] = [german, english, french, spanish]
    static let monthFirst: [LatinDateLanguage] = dayFirst.filter(\.monthFirst)

    static func language(_ kind: DatePhraseKind) -> LatinDateLanguage? { dayFirst.first { $0.kind == kind } }

    /// First letters of the words for "the first" (a cheap pre-check).
    static let firstWordInitials: Set<UInt32> = Set(dayFirst.flatMap { $0.firstWords.map { $0[0] } })

    /// First letters of month-first month names (a cheap pre-check).
    static let monthFirstInitials: Set<UInt32> = Set(monthFirst.flatMap { $0.months.map { $0.name[0] } })
}
