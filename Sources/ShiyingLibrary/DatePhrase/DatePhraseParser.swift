// SPEC Q2: turn date phrases in a search query into day ranges.
//
// One left-to-right pass over the folded scalars. At each position the
// matchers are tried in a fixed order — written CJK date (with an optional
// year, so 去年五月一日 wins over 去年), Chinese relative word, Latin-script
// written date — and the first that matches consumes its text. Everything not
// consumed is the rest of the query.

/// Finds date phrases in a search query (SPEC Q2).
///
/// Recognises simplified-Chinese relative words (昨天, 上周六, 上周末, 上个月底,
/// 今年初 …) and written month + day dates in Chinese (simplified and
/// traditional), Japanese, Korean, English, German, French and Spanish. A
/// month + day without a year means its most recent occurrence not after
/// `today`; a lone number or a lone month name is never a date.
///
/// Cost: O(query length) with table look-ups per character; one array of
/// folded scalars per call. Thread-safe (immutable value).
public struct DatePhraseParser: Sendable {
    /// What happens to a weekday character that the following text does not allow (「上周日本」).
    public enum BlockedWeekday: Sendable, Hashable {
        /// SPEC Q2 as written: the phrase falls back to the whole week and the
        /// weekday character is consumed with it — 「上周日本」 = 上周 + 「本」.
        case consumedWithWeek
        /// The weekday character stays in the search text — 「上周日本」 = 上周 + 「日本」.
        case keptInRest
    }

    /// The calendar used for week arithmetic (weeks start Monday by default).
    public let calendar: SearchCalendar
    /// See `BlockedWeekday`; `.consumedWithWeek` (SPEC Q2) by default.
    public let blockedWeekday: BlockedWeekday

    /// - Parameters:
    ///   - calendar: week rules; `.mondayFirst` unless given.
    ///   - blockedWeekday: treatment of a weekday character the next character rules out.
    public init(calendar: SearchCalendar = .mondayFirst, blockedWeekday: BlockedWeekday = .consumedWithWeek) {
        self.calendar = calendar
        self.blockedWeekday = blockedWeekday
    }

    /// Parses one query.
    /// - Parameters:
    ///   - query: the text as typed.
    ///   - today: the reference day ("今天").
    /// - Returns: the matches (ranges + consumed text) in query order and the rest of the query.
    public func parse(_ query: String, today: Day) -> DatePhraseResult {
        let text = ScalarText(query)
        var found: [(start: Int, end: Int, range: DayRange, kind: DatePhraseKind)] = []
        var i = 0
        while i < text.count {
            if let m = match(text, at: i, today: today) {
                let start = leadStart(text, before: i, notBefore: found.last?.end ?? 0, kind: m.kind)
                found.append((start, m.end, m.range, m.kind))
                i = m.end
            } else {
                i += 1
            }
        }
        return DatePhraseParser.result(query, found)
    }

    // MARK: - dispatch

    private struct Hit {
        var end: Int
        var range: DayRange
        var kind: DatePhraseKind
    }

    @inline(__always)
    private func match(_ t: ScalarText, at i: Int, today: Day) -> Hit? {
        let c = t.f[i]
        if c < 0x80 {
            if ScalarText.isDigit(c) {
                if i > 0, ScalarText.isDigit(t.f[i - 1]) { return nil }
                return writtenCJK(t, at: i, today: today) ?? latinDayFirst(t, at: i, today: today)
            }
            if LatinDateTable.firstWordInitials.contains(c), let hit = latinFirstWord(t, at: i, today: today) { return hit }
            if LatinDateTable.monthFirstInitials.contains(c) { return latinMonthFirst(t, at: i, today: today) }
            return nil
        }
        if ScalarText.isIdeograph(c) {
            return writtenCJK(t, at: i, today: today) ?? relative(t, at: i, today: today)
        }
        return nil
    }

    // MARK: - Chinese relative words

    private func relative(_ t: ScalarText, at i: Int, today: Day) -> Hit? {
        guard let candidates = RelativeIndex.byFirst[t.f[i]] else { return nil }
        if i > 0, let blocked = RelativeIndex.blockedAfter[t.f[i]], blocked.contains(t.f[i - 1]) { return nil }
        var blockedEnd: Int?
        for entry in candidates where t.hasPrefix(entry.scalars, at: i) {
            let end = i + entry.scalars.count
            if entry.endsInWeekdayCharacter, end < t.count,
               let blockers = RelativeIndex.weekdayBlockedBy[entry.scalars[entry.scalars.count - 1]],
               blockers.contains(t.f[end]) {
                blockedEnd = end
                continue   // 「上周日本」: the shorter 上周 comes later in the list
            }
            let consumed = blockedWeekday == .consumedWithWeek ? max(end, blockedEnd ?? end) : end
            return Hit(end: consumed, range: resolve(entry.meaning, today: today), kind: .chineseRelative)
        }
        return nil
    }

    private func resolve(_ meaning: RelativeMeaning, today: Day) -> DayRange {
        switch meaning {
        case .day(let offset):
            return DayRange(today.adding(days: offset))
        case .week(let offset):
            return calendar.week(containing: today, offset: offset)
        case .weekday(let weekOffset, let weekday):
            return DayRange(calendar.weekday(weekday, inWeekOf: today, offset: weekOffset))
        case .weekend(let weekOffset):
            return calendar.weekend(inWeekOf: today, offset: weekOffset)
        case .month(let offset, let from, let through):
            return calendar.month(of: today, offset: offset, from: from, through: through)
        case .year(let offset, let firstMonth, let lastMonth):
            return calendar.year(of: today, offset: offset, months: firstMonth, through: lastMonth)
        }
    }

    // MARK: - written dates, CJK shape

    private func writtenCJK(_ t: ScalarText, at i: Int, today: Day) -> Hit? {
        if i > 0, CJKDateTable.numeralDigits[t.f[i - 1]] != nil || CJKDateTable.numeralTens[t.f[i - 1]] != nil {
            return nil   // inside a longer numeral
        }
        var back = i - 1
        while back >= 0, ScalarText.isSpace(t.f[back]) { back -= 1 }
        if back >= 0, CJKDateTable.scripts.contains(where: { $0.yearMarker == t.f[back] }) {
            return nil   // 2025年2月29日 failed as a whole; its month/day alone is not a date
        }
        var j = i
        var explicitYear: Int?
        var yearOffset: Int?
        var script: CJKDateScript?
        // optional year: 2025年 / 2025년, or 今年 / 去年 / 前年
        if let y = t.year(at: j) {
            let k = t.skipSpaces(y.end)
            guard let s = CJKDateTable.scripts.first(where: { $0.yearMarker == t[k] }) else { return nil }
            explicitYear = y.value
            script = s
            j = t.skipSpaces(k + 1)
        } else if let word = CJKDateTable.yearWords.first(where: { t.hasPrefix($0.word, at: j) }) {
            yearOffset = word.offset
            script = CJKDateTable.scripts[0]
            j += word.word.count
        }
        guard let month = cjkNumber(t, at: j, max: 12) else { return nil }
        j = t.skipSpaces(month.end)
        guard let s = CJKDateTable.scripts.first(where: { $0.monthMarker == t[j] }),
              script == nil || script!.kind == s.kind else { return nil }
        j = t.skipSpaces(j + 1)
        guard let dayNumber = cjkNumber(t, at: j, max: 31) else { return nil }
        j = t.skipSpaces(dayNumber.end)
        guard s.dayMarkers.contains(t[j]) else { return nil }
        let end = j + 1
        let day: Day?
        if let y = explicitYear {
            day = Day(year: y, month: month.value, day: dayNumber.value)
        } else if let offset = yearOffset {
            day = Day(year: today.year + offset, month: month.value, day: dayNumber.value)
        } else {
            day = calendar.mostRecent(month: month.value, day: dayNumber.value, notAfter: today)
        }
        guard let day else { return nil }
        return Hit(end: end, range: DayRange(day), kind: s.kind)
    }

    /// 1–2 ASCII digits or a Chinese numeral (五, 十一, 二十一, 廿一, 三十一), 1...`max`.
    private func cjkNumber(_ t: ScalarText, at i: Int, max: Int) -> (value: Int, end: Int)? {
        if let n = t.number(at: i, maxDigits: 2) {
            return (1...max).contains(n.value) ? n : nil
        }
        let digits = CJKDateTable.numeralDigits, tens = CJKDateTable.numeralTens
        var j = i
        var value: Int
        if let ten = tens[t[j]] {
            value = ten
            j += 1
            if let d = digits[t[j]], d > 0 { value += d; j += 1 }
        } else if let d = digits[t[j]], d > 0 {
            j += 1
            if t[j] == 0x5341 /* 十 */ {
                value = d * 10
                j += 1
                if let u = digits[t[j]], u > 0 { value += u; j += 1 }
            } else {
                value = d
            }
        } else {
            return nil
        }
        return (1...max).contains(value) ? (value, j) : nil
    }

    // MARK: - written dates, Latin scripts

    /// Where a Latin-script date starts once the words tying it to the sentence
    /// before it are read with it: "photos from the 1st of May" → "from the 1st of May".
    private func leadStart(_ t: ScalarText, before i: Int, notBefore floor: Int, kind: DatePhraseKind) -> Int {
        guard let language = LatinDateTable.language(kind), !language.leadWords.isEmpty else { return i }
        var start = i
        for _ in 0..<2 {
            var end = start
            while end > floor, ScalarText.isSpace(t[end - 1]) { end -= 1 }
            guard end < start, let word = language.leadWords.first(where: {
                end - $0.count >= floor && t.hasPrefix($0, at: end - $0.count) && t.wordStarts(at: end - $0.count)
            }) else { break }
            start = end - word.count
        }
        return start
    }

    /// "first of May", "premier mai", "primero de mayo" [de 2025]: the day written as the word for the first.
    private func latinFirstWord(_ t: ScalarText, at i: Int, today: Day) -> Hit? {
        guard t.wordStarts(at: i) else { return nil }
        for language in LatinDateTable.dayFirst {
            for word in language.firstWords where t.hasPrefix(word, at: i) && t.wordEnds(at: i + word.count) {
                if let hit = latinDayFirst(t, at: i, today: today, day: (1, i + word.count), languages: [language]) {
                    return hit
                }
            }
        }
        return nil
    }

    /// 1 May, 1st of May, 1. Mai, 1er mai, 1 de mayo [de 2025]; `day` given: its word was read already.
    private func latinDayFirst(_ t: ScalarText, at i: Int, today: Day, day: (value: Int, end: Int)? = nil,
                               languages: [LatinDateLanguage] = LatinDateTable.dayFirst) -> Hit? {
        guard t.wordStarts(at: i), let n = day ?? t.number(at: i, maxDigits: 2), (1...31).contains(n.value) else { return nil }
        for language in languages {
            var j = n.end
            if language.dayNeedsFullStop {
                guard t[j] == 0x2E else { continue }
                j = t.skipSpaces(j + 1)
            } else {
                if let suffix = language.daySuffixes.first(where: { t.hasPrefix($0, at: j) }), t.wordEnds(at: j + suffix.count) {
                    j += suffix.count
                }
                guard t.wordEnds(at: j) else { continue }
                let k = t.skipSpaces(j)
                guard k > j else { continue }
                j = k
                if let word = language.dayMonthWords.first(where: { t.hasPrefix($0, at: j) && t.wordEnds(at: j + $0.count) }) {
                    let k = t.skipSpaces(j + word.count)
                    if k > j + word.count { j = k }
                }
            }
            guard let month = monthName(language, t, at: j) else { continue }
            var end = month.end
            if t[end] == 0x2E { end += 1 }   // Sept. / Jan.
            let year = latinYear(language, t, after: end)
            if let y = year { end = y.end }
            if let hit = latinHit(month: month.month, day: n.value, year: year?.value, end: end, kind: language.kind, today: today) {
                return hit
            }
        }
        return nil
    }

    /// May 1, May 1st, May 1, 2025.
    private func latinMonthFirst(_ t: ScalarText, at i: Int, today: Day) -> Hit? {
        guard t.wordStarts(at: i) else { return nil }
        for language in LatinDateTable.monthFirst {
            guard let month = monthName(language, t, at: i) else { continue }
            var j = month.end
            if t[j] == 0x2E { j += 1 }
            let k = t.skipSpaces(j)
            guard k > j, let n = t.number(at: k, maxDigits: 2), (1...31).contains(n.value) else { continue }
            var end = n.end
            if let suffix = language.daySuffixes.first(where: { t.hasPrefix($0, at: end) }) { end += suffix.count }
            guard t.wordEnds(at: end) else { continue }
            let year = latinYear(language, t, after: end)
            if let y = year { end = y.end }
            if let hit = latinHit(month: month.month, day: n.value, year: year?.value, end: end, kind: language.kind, today: today) {
                return hit
            }
        }
        return nil
    }

    /// A whole month word at `i`.
    private func monthName(_ language: LatinDateLanguage, _ t: ScalarText, at i: Int) -> (month: Int, end: Int)? {
        for entry in language.months where t.hasPrefix(entry.name, at: i) && t.wordEnds(at: i + entry.name.count) {
            return (entry.month, i + entry.name.count)
        }
        return nil
    }

    /// An optional year after a date: `, 2025`, ` 2025`, Spanish ` de 2025`.
    private func latinYear(_ language: LatinDateLanguage, _ t: ScalarText, after i: Int) -> (value: Int, end: Int)? {
        var j = i
        if t[j] == 0x2C { j += 1 }
        var k = t.skipSpaces(j)
        if let word = language.yearWords.first(where: { t.hasPrefix($0, at: k) && t.wordEnds(at: k + $0.count) }), k > j {
            let after = t.skipSpaces(k + word.count)
            guard after > k + word.count else { return nil }
            k = after
        }
        guard k > i, let y = t.year(at: k), t.wordEnds(at: y.end) else { return nil }
        return y
    }

    private func latinHit(month: Int, day: Int, year: Int?, end: Int, kind: DatePhraseKind, today: Day) -> Hit? {
        let resolved = year.map { Day(year: $0, month: month, day: day) }
            ?? calendar.mostRecent(month: month, day: day, notAfter: today)
        guard let resolved else { return nil }
        return Hit(end: end, range: DayRange(resolved), kind: kind)
    }

    // MARK: - result

    private static let separators: Set<UInt32> = [0x20, 0x09, 0x0A, 0x0D, 0xA0, 0x3000, 0x2C, 0xFF0C, 0x3001, 0x3B, 0xFF1B]

    private static func result(_ query: String, _ found: [(start: Int, end: Int, range: DayRange, kind: DatePhraseKind)])
        -> DatePhraseResult {
        let scalars = query.unicodeScalars
        guard !found.isEmpty else {
            return DatePhraseResult(matches: [], rest: trim(Array(scalars)[...], separators: false, leading: true, trailing: true))
        }
        let all = Array(scalars)
        // String indices of every match boundary, walking the scalars once.
        var indices: [Int: String.Index] = [:]
        var wanted = Set(found.flatMap { [$0.start, $0.end] })
        var position = 0
        var index = scalars.startIndex
        while !wanted.isEmpty {
            if wanted.remove(position) != nil { indices[position] = index }
            if index == scalars.endIndex { break }
            index = scalars.index(after: index)
            position += 1
        }
        var matches: [DatePhraseMatch] = []
        var pieces: [String] = []
        var cursor = 0
        for m in found {
            let lower = indices[m.start]!, upper = indices[m.end]!
            let utf16Start = query.utf16.distance(from: query.utf16.startIndex, to: lower)
            let utf16Length = query.utf16.distance(from: lower, to: upper)
            matches.append(DatePhraseMatch(range: m.range, text: String(query[lower..<upper]), bounds: lower..<upper,
                                           utf16Offsets: utf16Start..<(utf16Start + utf16Length), kind: m.kind))
            pieces.append(trim(all[cursor..<m.start], separators: true, leading: true, trailing: true))
            cursor = m.end
        }
        pieces.append(trim(all[cursor...], separators: true, leading: true, trailing: true))
        return DatePhraseResult(matches: matches, rest: pieces.filter { !$0.isEmpty }.joined(separator: " "))
    }

    private static func trim(_ slice: ArraySlice<Unicode.Scalar>, separators: Bool, leading: Bool, trailing: Bool) -> String {
        func strip(_ s: Unicode.Scalar) -> Bool {
            separators ? self.separators.contains(s.value) : s.properties.isWhitespace
        }
        var lo = slice.startIndex, hi = slice.endIndex
        while leading, lo < hi, strip(slice[lo]) { lo += 1 }
        while trailing, hi > lo, strip(slice[hi - 1]) { hi -= 1 }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: slice[lo..<hi])
        return String(view)
    }
}

/// The relative-word table indexed by first character (built once).
enum RelativeIndex {
    struct Entry: Sendable {
        let scalars: [UInt32]
        let meaning: RelativeMeaning
        let endsInWeekdayCharacter: Bool
    }

    /// Candidates per first scalar, longest first (so 上个月底 is tried before 上个月, 上周日 before 上周).
    static let byFirst: [UInt32: [Entry]] = {
        var table: [UInt32: [Entry]] = [:]
        for w in ChineseRelativeTable.words {
            let scalars = w.word.foldedScalars
            table[scalars[0], default: []].append(Entry(scalars: scalars, meaning: w.meaning,
                                                        endsInWeekdayCharacter: w.endsInWeekdayCharacter))
        }
        return table.mapValues { $0.sorted { $0.scalars.count > $1.scalars.count } }
    }()

    static let weekdayBlockedBy: [UInt32: Set<UInt32>] = Dictionary(uniqueKeysWithValues:
        ChineseRelativeTable.weekdayBlockedBy.map { ($0.key.unicodeScalars.first!.value, Set($0.value.unicodeScalars.map(\.value))) })

    static let blockedAfter: [UInt32: Set<UInt32>] = Dictionary(uniqueKeysWithValues:
        ChineseRelativeTable.blockedAfter.map { ($0.key.unicodeScalars.first!.value, Set($0.value.unicodeScalars.map(\.value))) })
}
