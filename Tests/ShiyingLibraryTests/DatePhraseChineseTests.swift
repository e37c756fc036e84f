// SPEC Q2: simplified-Chinese relative words and Chinese written dates.
// Reference day unless stated: 2025-03-12, a Wednesday (week 2025-03-10 … 03-16).
import ShiyingLibrary
import Testing

private let W = "2025-03-12"

enum ChineseCases {
    // SPEC Q2: 昨天/前天/今天, weeks, weekdays (周/星期/礼拜, 日/天), 上周末
    static let relativeDaysAndWeeks: [PhraseCase] = [
        .init("今天", W, "2025-03-12"),
        .init("昨天", W, "2025-03-11"),
        .init("前天", W, "2025-03-10"),
        .init("昨天", "2025-01-01", "2024-12-31"),
        .init("前天", "2024-03-01", "2024-02-28"),
        .init("前天", "2025-03-01", "2025-02-27"),
        // found by a rules sweep: 大前天 read as 前天 + 「大」, 上上周 as 上周 + 「上」
        .init("大前天", W, "2025-03-09"),
        .init("大前天", "2024-03-01", "2024-02-27"),
        .init("上上周", W, "2025-02-24..2025-03-02"),
        .init("上上星期", "2025-01-08", "2024-12-23..2024-12-29"),
        .init("上上周六", W, "2025-03-01"),
        .init("上上个礼拜天", W, "2025-03-02"),
        .init("本周", W, "2025-03-10..2025-03-16"),
        .init("这周", W, "2025-03-10..2025-03-16"),
        .init("这个星期", W, "2025-03-10..2025-03-16"),
        .init("上周", W, "2025-03-03..2025-03-09"),
        .init("上星期", W, "2025-03-03..2025-03-09"),
        .init("上礼拜", W, "2025-03-03..2025-03-09"),
        .init("上个星期", W, "2025-03-03..2025-03-09"),
        .init("上周", "2025-03-10", "2025-03-03..2025-03-09"),   // Monday
        .init("上周", "2025-03-16", "2025-03-03..2025-03-09"),   // Sunday: weeks start Monday
        .init("上周", "2025-01-01", "2024-12-23..2024-12-29"),   // year boundary
        .init("本周", "2025-01-01", "2024-12-30..2025-01-05"),
        .init("上周一", W, "2025-03-03"),
        .init("上周二", W, "2025-03-04"),
        .init("上周三", W, "2025-03-05"),
        .init("上周四", W, "2025-03-06"),
        .init("上周五", W, "2025-03-07"),
        .init("上周六", W, "2025-03-08"),
        .init("上周日", W, "2025-03-09"),
        .init("上周天", W, "2025-03-09"),
        .init("上星期一", W, "2025-03-03"),
        .init("上星期六", W, "2025-03-08"),
        .init("上星期日", W, "2025-03-09"),
        .init("上星期天", W, "2025-03-09"),
        .init("上礼拜二", W, "2025-03-04"),
        .init("上礼拜天", W, "2025-03-09"),
        .init("上个礼拜五", W, "2025-03-07"),
        .init("这周六", W, "2025-03-15"),
        .init("本周一", W, "2025-03-10"),
        .init("上周日", "2025-03-16", "2025-03-09"),
        .init("上周六", "2025-01-01", "2024-12-28"),
        .init("上周一", "2024-03-04", "2024-02-26"),
        .init("上周末", W, "2025-03-08..2025-03-09"),
        .init("上周末", "2025-01-01", "2024-12-28..2024-12-29"),
        .init("这周末", W, "2025-03-15..2025-03-16"),
        .init("上星期末", W, "2025-03-08..2025-03-09"),
        .init("上周末海边", W, "2025-03-08..2025-03-09", rest: "海边"),
        .init("上周六拍的猫", W, "2025-03-08", rest: "拍的猫"),
        .init("猫 上周六", W, "2025-03-08", rest: "猫"),
        .init("猫上周六狗", W, "2025-03-08", rest: "猫 狗"),
        .init("昨天 上周六", W, "2025-03-11;2025-03-08"),
    ]

    // SPEC Q2: a weekday character counts only when what follows allows it.
    static let weekdayFollowers: [PhraseCase] = [
        .init("上周日本", W, "2025-03-03..2025-03-09", rest: "本"),
        .init("上星期日本", W, "2025-03-03..2025-03-09", rest: "本"),
        .init("上周日本料理", W, "2025-03-03..2025-03-09", rest: "本料理"),
        .init("上周三星", W, "2025-03-03..2025-03-09", rest: "星"),
        .init("上周天气", W, "2025-03-03..2025-03-09", rest: "气"),
        .init("上周一起", W, "2025-03-03..2025-03-09", rest: "起"),
        .init("上周日 本", W, "2025-03-09", rest: "本"),
        .init("上周日的日本菜", W, "2025-03-09", rest: "的日本菜"),
        .init("上周六月", W, "2025-03-03..2025-03-09", rest: "月"),
        .init("上周五月一日", W, "2025-03-03..2025-03-09", rest: "月一日"),
    ]

    // SPEC Q2: months — 本月/上个月, 月初 1–10, 月底/月末 21–end
    static let months: [PhraseCase] = [
        .init("本月", W, "2025-03-01..2025-03-31"),
        .init("这个月", W, "2025-03-01..2025-03-31"),
        .init("上个月", W, "2025-02-01..2025-02-28"),
        .init("上月", W, "2025-02-01..2025-02-28"),
        .init("上个月", "2024-03-12", "2024-02-01..2024-02-29"),
        .init("上个月", "2025-01-15", "2024-12-01..2024-12-31"),
        .init("上上个月", W, "2025-01-01..2025-01-31"),
        .init("上上月", "2025-01-15", "2024-11-01..2024-11-30"),
        .init("上上个月底", W, "2025-01-21..2025-01-31"),
        .init("月初", W, "2025-03-01..2025-03-10"),
        .init("月底", W, "2025-03-21..2025-03-31"),
        .init("月末", W, "2025-03-21..2025-03-31"),
        .init("月底", "2025-04-15", "2025-04-21..2025-04-30"),   // 30-day month
        .init("月末", "2025-02-03", "2025-02-21..2025-02-28"),
        .init("月底", "2024-02-03", "2024-02-21..2024-02-29"),
        .init("本月初", W, "2025-03-01..2025-03-10"),
        .init("上个月初", W, "2025-02-01..2025-02-10"),
        .init("上个月底", W, "2025-02-21..2025-02-28"),           // February, non-leap
        .init("上个月底", "2024-03-05", "2024-02-21..2024-02-29"), // February, leap
        .init("上个月底", "2100-03-01", "2100-02-21..2100-02-28"), // century, not leap
        .init("上个月底", "2000-03-01", "2000-02-21..2000-02-29"), // 400-year rule, leap
        .init("上个月末", "2025-05-03", "2025-04-21..2025-04-30"), // 30-day month
        .init("上个月底", "2025-01-05", "2024-12-21..2024-12-31"), // year boundary
        .init("上月底", "2025-08-01", "2025-07-21..2025-07-31"),
        .init("上个月底的聚会", W, "2025-02-21..2025-02-28", rest: "的聚会"),
    ]

    // SPEC Q2: years — 今年/去年, 今年初/年初 = January, 年底/年末 = December
    static let years: [PhraseCase] = [
        .init("今年", W, "2025-01-01..2025-12-31"),
        .init("去年", W, "2024-01-01..2024-12-31"),
        .init("去年", "2025-01-01", "2024-01-01..2024-12-31"),
        .init("大前年", W, "2022-01-01..2022-12-31"),
        .init("今年初", W, "2025-01-01..2025-01-31"),
        .init("年初", W, "2025-01-01..2025-01-31"),
        .init("今年年初", W, "2025-01-01..2025-01-31"),
        .init("去年初", W, "2024-01-01..2024-01-31"),
        .init("年底", W, "2025-12-01..2025-12-31"),
        .init("年末", W, "2025-12-01..2025-12-31"),
        .init("去年底", W, "2024-12-01..2024-12-31"),
        .init("去年年底", W, "2024-12-01..2024-12-31"),
        .init("去年年末", W, "2024-12-01..2024-12-31"),
        .init("今年底", W, "2025-12-01..2025-12-31"),
        .init("去年 海边", W, "2024-01-01..2024-12-31", rest: "海边"),
        .init("去年五月", W, "2024-01-01..2024-12-31", rest: "五月"),   // month alone is not rewritten
    ]

    // SPEC Q2: written dates, simplified and traditional Chinese
    static let written: [PhraseCase] = [
        .init("五月一日", W, "2024-05-01", kind: .chineseJapaneseWritten),
        .init("5月1日", W, "2024-05-01"),
        .init("5月1号", W, "2024-05-01"),
        .init("5月1號", W, "2024-05-01"),                 // traditional
        .init("五月一號", W, "2024-05-01"),
        .init("去年五月一日", W, "2024-05-01"),
        .init("去年5月1日", W, "2024-05-01"),
        .init("今年五月一日", W, "2025-05-01"),
        .init("2025年5月1日", W, "2025-05-01"),
        .init("2023年12月25日", W, "2023-12-25"),
        .init("2024年2月29日", W, "2024-02-29"),
        .init("三月十二日", W, "2025-03-12"),              // today itself
        .init("三月十三日", W, "2024-03-13"),              // tomorrow -> last year
        .init("十二月三十一日", "2025-01-01", "2024-12-31"),
        .init("一月一日", "2025-01-01", "2025-01-01"),
        .init("二月二十九日", W, "2024-02-29"),
        .init("二月二十九日", "2024-02-28", "2020-02-29"),  // most recent leap day
        .init("十月十日", W, "2024-10-10"),
        .init("十一月廿一日", W, "2024-11-21"),
        .init("六月三十日", W, "2024-06-30"),
        .init("１２月２５日", W, "2024-12-25"),             // full-width digits
        .init("5 月 1 日", W, "2024-05-01"),
        .init("五月一日劳动节", W, "2024-05-01", rest: "劳动节"),
        .init("海边五月一日", W, "2024-05-01", rest: "海边"),
        .init("去年五月一日的海边", W, "2024-05-01", rest: "的海边"),
        .init("2025年5月1日 聚餐", W, "2025-05-01", rest: "聚餐"),
        .init("在台北的五月一號", W, "2024-05-01", rest: "在台北的"),
        .init("十二月二十五日聖誕節", W, "2024-12-25", rest: "聖誕節"),
    ]

    // Must stay text: not dates.
    static let notDates: [PhraseCase] = [
        .none("日本"), .none("三星"), .none("星期"), .none("周末"), .none("一月"), .none("五月"),
        .none("2月30日"), .none("4月31日"), .none("2025年2月29日"), .none("13月1日"), .none("5月32日"),
        .none("5月"), .none("2025年"), .none("2025"), .none("12"), .none("马上周末"), .none("日本周末"),
        .none("早上周末"), .none("目前天气"), .none("十五月一日"), .none("本田"), .none("上海"),
        .none("2024年底"), .none("五月初"), .none("星期六"),
    ]
}

@Test("SPEC Q2 relative days, weeks, weekdays", arguments: ChineseCases.relativeDaysAndWeeks)
func chineseRelative(_ c: PhraseCase) { check(c) }

@Test("SPEC Q2 a weekday character counts only when what follows allows it", arguments: ChineseCases.weekdayFollowers)
func chineseWeekdayFollowers(_ c: PhraseCase) { check(c) }

@Test("SPEC Q2 months: 月初 1–10, 月底/月末 21–end", arguments: ChineseCases.months)
func chineseMonths(_ c: PhraseCase) { check(c) }

@Test("SPEC Q2 years: 年初 January, 年底/年末 December", arguments: ChineseCases.years)
func chineseYears(_ c: PhraseCase) { check(c) }

@Test("SPEC Q2 written dates, simplified and traditional", arguments: ChineseCases.written)
func chineseWritten(_ c: PhraseCase) { check(c) }

@Test("SPEC Q2 phrases that are not dates (Chinese)", arguments: ChineseCases.notDates)
func chineseNotDates(_ c: PhraseCase) { check(c) }

@Test("SPEC Q2 option: keep the blocked weekday character in the rest")
func blockedWeekdayKept() {
    let parser = DatePhraseParser(blockedWeekday: .keptInRest)
    let r = parser.parse("上周日本", today: Day(iso: W)!)
    #expect(r.ranges == [DayRange(start: Day(iso: "2025-03-03")!, end: Day(iso: "2025-03-09")!)])
    #expect(r.rest == "日本")
    #expect(r.matches.map(\.text) == ["上周"])
}
