// SPEC Q2: simplified-Chinese relative date words, as data.
//
// Words are generated from small component lists (week prefixes × weekday
// names, month words × parts, year words × parts) so every variant the SPEC
// names — 周/星期/礼拜, 日/天 for Sunday, 底/末 — comes from one list entry.

/// What a relative word resolves to, given "today".
enum RelativeMeaning: Sendable, Hashable {
    case day(offset: Int)                        // 今天 0, 昨天 -1, 前天 -2
    case week(offset: Int)                       // 本周 0, 上周 -1
    case weekday(weekOffset: Int, weekday: Int)  // 上周六: -1, 6
    case weekend(weekOffset: Int)                // 上周末
    case month(offset: Int, from: Int, through: Int?)  // 上个月底: -1, 21, nil (= last day)
    case year(offset: Int, firstMonth: Int, lastMonth: Int)  // 去年: -1, 1, 12; 年初: 0, 1, 1
}

/// One relative word.
struct RelativeWord: Sendable {
    let word: String
    let meaning: RelativeMeaning
    /// The last character is a weekday character (一…六, 日, 天): it counts only
    /// when the text after it allows it (see `ChineseRelativeTable.weekdayBlockedBy`).
    let endsInWeekdayCharacter: Bool
}

enum ChineseRelativeTable {
    static let days: [(String, Int)] = [("今天", 0), ("昨天", -1), ("前天", -2), ("大前天", -3)]

    /// Words naming a week, with the week offset.
    static let weeks: [(String, Int)] = [
        ("本周", 0), ("这周", 0), ("这个周", 0), ("本星期", 0), ("这星期", 0), ("这个星期", 0), ("这礼拜", 0), ("这个礼拜", 0),
        ("上周", -1), ("上星期", -1), ("上个星期", -1), ("上礼拜", -1), ("上个礼拜", -1), ("上个周", -1),
        ("上上周", -2), ("上上星期", -2), ("上上个星期", -2), ("上上礼拜", -2), ("上上个礼拜", -2), ("上上个周", -2),
    ]

    /// Weekday names after a week word (ISO weekday numbers).
    static let weekdayNames: [(String, Int)] = [
        ("一", 1), ("二", 2), ("三", 3), ("四", 4), ("五", 5), ("六", 6), ("日", 7), ("天", 7),
    ]

    /// Words naming a month, with the month offset.
    static let months: [(String, Int)] = [("本月", 0), ("这个月", 0), ("这月", 0), ("上个月", -1), ("上月", -1),
                                          ("上上个月", -2), ("上上月", -2)]

    /// Parts of a month: 月初 = days 1–10, 月底/月末 = day 21 to the month's end (SPEC Q2).
    static let monthParts: [(suffix: String, from: Int, through: Int?)] = [("初", 1, 10), ("底", 21, nil), ("末", 21, nil)]

    /// Bare month parts refer to the current month.
    static let bareMonthParts: [(String, Int, Int?)] = [("月初", 1, 10), ("月底", 21, nil), ("月末", 21, nil)]

    /// Words naming a year, with the year offset.
    static let years: [(String, Int)] = [("今年", 0), ("去年", -1), ("前年", -2), ("大前年", -3)]

    /// Parts of a year: 年初 = January, 年底/年末 = December (SPEC Q2), also written 今年年初.
    static let yearParts: [(suffix: String, first: Int, last: Int)] = [
        ("初", 1, 1), ("年初", 1, 1), ("底", 12, 12), ("年底", 12, 12), ("末", 12, 12), ("年末", 12, 12),
    ]

    /// Bare year parts refer to the current year.
    static let bareYearParts: [(String, Int, Int)] = [("年初", 1, 1), ("年底", 12, 12), ("年末", 12, 12)]

    /// A weekday character does not count when the next character makes a word
    /// with it (「上周日本」 = 上周 + 本, 「上周三星」 = 上周 + 三星). Keyed by the weekday
    /// character; values are the characters that block it.
    static let weekdayBlockedBy: [Character: String] = [
        "日": "本韩语文元期记子常历出落光报程式用料夜照食晒剧漫版产立军寇后前间",
        "天": "气空津堂使鹅涯下才地文然真台桥坛窗蓝",
        "一": "月起家样直定些切点下会次般生路号个只半共同",
        "二": "月手维胡次号人环",
        "三": "月星亚明峡国角里只号人个大门文",
        "四": "月川季合号人个大",
        "五": "月金官星花彩台号人个大一",
        "六": "月合角一号人个",
    ]

    /// A word whose first character follows one of these does not start there:
    /// 「马上周末」 is 马上 + 周末, 「日本周末」 is 日本 + 周末.
    static let blockedAfter: [Character: String] = [
        "上": "马早晚网路身手天海山桌床楼墙街车地线世以向往爬赶跟追镜台顶",
        "本": "日基根成资课书笔剧版样原账文剧",
        "这": "",
        "今": "如至古当",
        "去": "过回出进失来",
        "前": "以之面目提从向往跟眼门",
        "月": "一二三四五六七八九十0123456789正腊岁日明满",
        "年": "一二三四五六七八九十〇零0123456789每新明过当往",
    ]

    /// Every word with its meaning (built once).
    static let words: [RelativeWord] = {
        var list: [RelativeWord] = []
        func add(_ word: String, _ meaning: RelativeMeaning, weekdayChar: Bool = false) {
            list.append(RelativeWord(word: word, meaning: meaning, endsInWeekdayCharacter: weekdayChar))
        }
        for (w, offset) in days { add(w, .day(offset: offset)) }
        for (w, offset) in weeks {
            add(w, .week(offset: offset))
            add(w + "末", .weekend(weekOffset: offset))
            for (name, weekday) in weekdayNames {
                add(w + name, .weekday(weekOffset: offset, weekday: weekday), weekdayChar: true)
            }
        }
        for (w, offset) in months {
            add(w, .month(offset: offset, from: 1, through: nil))
            for part in monthParts { add(w + part.suffix, .month(offset: offset, from: part.from, through: part.through)) }
        }
        for (w, from, through) in bareMonthParts { add(w, .month(offset: 0, from: from, through: through)) }
        for (w, offset) in years {
            add(w, .year(offset: offset, firstMonth: 1, lastMonth: 12))
            for part in yearParts { add(w + part.suffix, .year(offset: offset, firstMonth: part.first, lastMonth: part.last)) }
        }
        for (w, first, last) in bareYearParts { add(w, .year(offset: 0, firstMonth: first, lastMonth: last)) }
        return list
    }()
}
