// SPEC Q2: written month + day dates in English, Japanese, Korean, German, French, Spanish.
// Reference day unless stated: 2025-03-12.
import ShiyingLibrary
import Testing

private let W = "2025-03-12"

enum OtherLanguageCases {
    static let english: [PhraseCase] = [
        .init("May 1", W, "2024-05-01", kind: .english),
        .init("may 1", W, "2024-05-01"),
        .init("MAY 1", W, "2024-05-01"),
        .init("1 May", W, "2024-05-01"),
        .init("May 1st", W, "2024-05-01"),
        .init("1st May", W, "2024-05-01"),
        .init("1st of May", W, "2024-05-01"),
        .init("May 1, 2025", W, "2025-05-01"),
        .init("May 1 2023", W, "2023-05-01"),
        .init("1 May 2023", W, "2023-05-01"),
        .init("March 12", W, "2025-03-12"),
        .init("March 13", W, "2024-03-13"),
        .init("Dec 25", W, "2024-12-25"),
        .init("Dec. 25", W, "2024-12-25"),
        .init("Sept 3", W, "2024-09-03"),
        .init("Sep 3rd", W, "2024-09-03"),
        .init("February 29", W, "2024-02-29"),
        .init("Feb 29", "2024-02-28", "2020-02-29"),
        .init("Jan 1", "2025-01-01", "2025-01-01"),
        .init("December 31", "2025-01-01", "2024-12-31"),
        .init("July 4th fireworks", W, "2024-07-04", rest: "fireworks"),
        // the first as a word (a rules sweep found it unread)
        .init("first of May", W, "2024-05-01", kind: .english),
        .init("First of May 2023", W, "2023-05-01"),
        .init("picnic first of May", W, "2024-05-01", rest: "picnic"),
        .none("first class"), .none("first of all"),
        .init("beach May 1 sunset", W, "2024-05-01", rest: "beach sunset"),
        .init("photos from Aug 22", W, "2024-08-22", rest: "photos"),
        // words that only tie the date to the sentence are read with it, not left as terms (a rules sweep)
        .init("the 1st of May", W, "2024-05-01", kind: .english),
        .init("picnic on the first of May", W, "2024-05-01", rest: "picnic"),
        .init("beach on May 1", W, "2024-05-01", rest: "beach"),
        .init("the beach May 1", W, "2024-05-01", rest: "the beach"),
        .init("theme 1 May", W, "2024-05-01", rest: "theme"),
        .init("on the on the May 1", W, "2024-05-01", rest: "on the"),
        .init("Ｍａｙ １", W, "2024-05-01"),
        .init("May 1, beach", W, "2024-05-01", rest: "beach"),
        .init("Oct 31 2024 party", W, "2024-10-31", rest: "party"),
    ]

    static let englishNotDates: [PhraseCase] = [
        .none("May"), .none("may"), .none("Theresa May"), .none("May 2025"), .none("May 32"), .none("Feb 30"),
        .none("Feb 29, 2025"), .none("April 31"), .none("1"), .none("2024"), .none("maybe 1"),
        .none("March"), .none("marching 5"), .none("May1"), .none("5 Mays"), .none("Jun"), .none("1 2 3"),
        .none("dec"), .none("Octopus 3"),
    ]

    static let japanese: [PhraseCase] = [
        .init("5月1日", W, "2024-05-01", kind: .chineseJapaneseWritten),
        .init("2025年5月1日", W, "2025-05-01"),
        .init("１２月２４日", W, "2024-12-24"),
        .init("3月3日のひなまつり", W, "2025-03-03", rest: "のひなまつり"),
        .init("京都で11月23日", W, "2024-11-23", rest: "京都で"),
        .init("2024年1月1日 初詣", W, "2024-01-01", rest: "初詣"),
        .init("七月七日", W, "2024-07-07"),
    ]

    static let japaneseNotDates: [PhraseCase] = [.none("日本"), .none("5月"), .none("月曜日"), .none("2月31日")]

    static let korean: [PhraseCase] = [
        .init("5월 1일", W, "2024-05-01", kind: .korean),
        .init("5월1일", W, "2024-05-01"),
        .init("2025년 5월 1일", W, "2025-05-01"),
        .init("2023년 12월 25일", W, "2023-12-25"),
        .init("3월 12일", W, "2025-03-12"),
        .init("12월 31일", "2025-01-01", "2024-12-31"),
        .init("바다 5월 1일", W, "2024-05-01", rest: "바다"),
        .init("5월 5일 어린이날", W, "2024-05-05", rest: "어린이날"),
    ]

    static let koreanNotDates: [PhraseCase] = [.none("5월"), .none("일요일"), .none("2월 30일"), .none("5월 1")]

    static let german: [PhraseCase] = [
        .init("1. Mai", W, "2024-05-01", kind: .german),
        .init("1.Mai", W, "2024-05-01"),
        .init("1. mai", W, "2024-05-01"),
        .init("1. Mai 2023", W, "2023-05-01"),
        .init("24. Dezember", W, "2024-12-24"),
        .init("3. Oktober", W, "2024-10-03"),
        .init("12. März", W, "2025-03-12"),
        .init("12. Maerz", W, "2025-03-12"),
        .init("13. März", W, "2024-03-13"),
        .init("29. Februar", W, "2024-02-29"),
        .init("1. Jänner", "2025-01-01", "2025-01-01"),
        .init("31. Dez.", "2025-01-01", "2024-12-31"),
        .init("Strand am 15. August", W, "2024-08-15", rest: "Strand"),
        .init("Fotos vom 1. Mai", W, "2024-05-01", rest: "Fotos"),
        .init("Kram 1. Mai", W, "2024-05-01", rest: "Kram"),
        .init("1. Mai Demo", W, "2024-05-01", rest: "Demo"),
    ]

    static let germanNotDates: [PhraseCase] = [
        .none("1. FC Köln"), .none("Mai"), .none("Mai 2024"), .none("30. Februar"), .none("1. Klasse"),
        .none("Maibaum 1"), .none("1. Maier"),
    ]

    static let french: [PhraseCase] = [
        .init("1er mai", W, "2024-05-01"),
        .init("1 mai", W, "2024-05-01"),
        .init("1er Mai 2023", W, "2023-05-01"),
        .init("14 juillet", W, "2024-07-14", kind: .french),
        .init("25 décembre", W, "2024-12-25"),
        .init("25 decembre", W, "2024-12-25"),
        .init("15 août", W, "2024-08-15"),
        .init("15 aout", W, "2024-08-15"),
        .init("12 mars", W, "2025-03-12"),
        .init("13 mars", W, "2024-03-13"),
        .init("29 février", W, "2024-02-29"),
        .init("plage le 14 juillet", W, "2024-07-14", rest: "plage"),
        .init("photos du 1er mai", W, "2024-05-01", rest: "photos"),
        .init("le premier mai", W, "2024-05-01", kind: .french),
        .init("1er janvier 2025", W, "2025-01-01"),
        .init("premier mai", W, "2024-05-01", kind: .french),
        .init("Premier janvier 2025", W, "2025-01-01"),
    ]

    static let frenchNotDates: [PhraseCase] = [.none("mai"), .none("mars"), .none("1er"), .none("30 février"), .none("1er maire"),
                                               .none("premier ministre"), .none("premier")]

    static let spanish: [PhraseCase] = [
        .init("1 de mayo", W, "2024-05-01", kind: .spanish),
        .init("1 mayo", W, "2024-05-01"),
        .init("1º de mayo", W, "2024-05-01"),
        .init("1 de mayo de 2023", W, "2023-05-01"),
        .init("1 de Mayo del 2023", W, "2023-05-01"),
        .init("25 de diciembre", W, "2024-12-25"),
        .init("12 de marzo", W, "2025-03-12"),
        .init("13 de marzo", W, "2024-03-13"),
        .init("6 de enero", W, "2025-01-06"),
        .init("29 de febrero", W, "2024-02-29"),
        .init("15 de setiembre", W, "2024-09-15"),
        .init("playa 1 de mayo", W, "2024-05-01", rest: "playa"),
        .init("fiesta del 24 de junio", W, "2024-06-24", rest: "fiesta"),
        .init("el 1 de mayo", W, "2024-05-01", kind: .spanish),
        // month first, as written in parts of Latin America
        .init("diciembre 25", W, "2024-12-25", kind: .spanish),
        .init("Mayo 1", W, "2024-05-01", kind: .spanish),
        .init("Navidad diciembre 25 de 2023", W, "2023-12-25", rest: "Navidad"),
        .init("primero de mayo", W, "2024-05-01", kind: .spanish),
        .init("primer de enero de 2023", W, "2023-01-01"),
    ]

    static let spanishNotDates: [PhraseCase] = [
        .none("mayo"), .none("de mayo"), .none("Cinco de Mayo"), .none("31 de abril"), .none("1 de"), .none("1 de mayonesa"),
        .none("primero de todo"), .none("mayo 2023"), .none("diciembre 32"), .none("el mayo"),
    ]

    /// Several phrases in one query, mixed languages.
    static let mixed: [PhraseCase] = [
        .init("May 1 五月一日", W, "2024-05-01;2024-05-01"),
        .init("上周六 May 1", W, "2025-03-08;2024-05-01"),
        .init("1. Mai und 1er mai", W, "2024-05-01;2024-05-01", rest: "und"),
        .init("昨天和去年五月一日", W, "2025-03-11;2024-05-01", rest: "和"),
        .init("  上周六  ", W, "2025-03-08"),
        .none("  猫  ").replacingRest("猫"),
        .none(""),
    ]
}

extension PhraseCase {
    func replacingRest(_ rest: String) -> PhraseCase { PhraseCase(query, today, expect, rest: rest, kind: kind) }
}

@Test("SPEC Q2 English written dates", arguments: OtherLanguageCases.english)
func english(_ c: PhraseCase) { check(c) }

@Test("SPEC Q2 English phrases that are not dates", arguments: OtherLanguageCases.englishNotDates)
func englishNotDates(_ c: PhraseCase) { check(c) }

@Test("SPEC Q2 Japanese written dates", arguments: OtherLanguageCases.japanese + OtherLanguageCases.japaneseNotDates)
func japanese(_ c: PhraseCase) { check(c) }

@Test("SPEC Q2 Korean written dates", arguments: OtherLanguageCases.korean + OtherLanguageCases.koreanNotDates)
func korean(_ c: PhraseCase) { check(c) }

@Test("SPEC Q2 German written dates", arguments: OtherLanguageCases.german + OtherLanguageCases.germanNotDates)
func german(_ c: PhraseCase) { check(c) }

@Test("SPEC Q2 French written dates", arguments: OtherLanguageCases.french + OtherLanguageCases.frenchNotDates)
func french(_ c: PhraseCase) { check(c) }

@Test("SPEC Q2 Spanish written dates", arguments: OtherLanguageCases.spanish + OtherLanguageCases.spanishNotDates)
func spanish(_ c: PhraseCase) { check(c) }

@Test("SPEC Q2 several phrases in one query", arguments: OtherLanguageCases.mixed)
func mixed(_ c: PhraseCase) { check(c) }

@Test("SPEC Q2 the case tables hold at least 200 cases")
func caseCount() {
    let tables: [[PhraseCase]] = [
        ChineseCases.relativeDaysAndWeeks, ChineseCases.weekdayFollowers, ChineseCases.months, ChineseCases.years,
        ChineseCases.written, ChineseCases.notDates,
        OtherLanguageCases.english, OtherLanguageCases.englishNotDates, OtherLanguageCases.japanese,
        OtherLanguageCases.japaneseNotDates, OtherLanguageCases.korean, OtherLanguageCases.koreanNotDates,
        OtherLanguageCases.german, OtherLanguageCases.germanNotDates, OtherLanguageCases.french,
        OtherLanguageCases.frenchNotDates, OtherLanguageCases.spanish, OtherLanguageCases.spanishNotDates,
        OtherLanguageCases.mixed,
    ]
    let total = tables.reduce(0) { $0 + $1.count }
    print("date-phrase cases: \(total)")
    #expect(total >= 200)
}
