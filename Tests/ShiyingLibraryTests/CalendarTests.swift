// SPEC Q2: the calendar arithmetic under the date phrases.
import Foundation
import ShiyingLibrary
import Testing

@Test("SPEC Q2 days since epoch round-trip over 1600…2400 and agree with weekdays")
func epochRoundTrip() {
    var day = Day(iso: "1600-01-01")!
    let end = Day(iso: "2400-12-31")!
    var previous = day.daysSinceEpoch - 1
    while day <= end {
        #expect(day.daysSinceEpoch == previous + 1)
        #expect(Day(daysSinceEpoch: day.daysSinceEpoch) == day)
        previous = day.daysSinceEpoch
        day = day.adding(days: 17)
        previous += 16
    }
    #expect(Day(iso: "1970-01-01")!.weekday == 4)
    #expect(Day(iso: "2025-03-12")!.weekday == 3)
    #expect(Day(iso: "2024-12-29")!.weekday == 7)
}

@Test("SPEC Q2 leap years and month lengths", arguments: [
    (2024, 2, 29), (2025, 2, 28), (2100, 2, 28), (2000, 2, 29), (1900, 2, 28), (2025, 4, 30), (2025, 12, 31),
])
func monthLengths(_ c: (Int, Int, Int)) {
    #expect(Day.daysIn(month: c.1, year: c.0) == c.2)
}

@Test("SPEC Q2 invalid days are refused")
func invalidDays() {
    #expect(Day(year: 2025, month: 2, day: 29) == nil)
    #expect(Day(year: 2025, month: 13, day: 1) == nil)
    #expect(Day(year: 2025, month: 4, day: 31) == nil)
    #expect(Day(iso: "2025-3-1") == nil)
    #expect(Day(iso: "2025-02-30") == nil)
}

@Test("SPEC Q2 a week that starts on Sunday")
func sundayFirst() {
    let calendar = SearchCalendar(firstWeekday: 7)
    let today = Day(iso: "2025-03-12")!
    #expect(calendar.week(containing: today, offset: -1) == DayRange(start: Day(iso: "2025-03-02")!, end: Day(iso: "2025-03-08")!))
    let r = DatePhraseParser(calendar: calendar).parse("上周", today: today)
    #expect(r.ranges.first?.start == Day(iso: "2025-03-02"))
}

@Test("SPEC Q2 a month + day without a year is its most recent occurrence")
func mostRecent() {
    let calendar = SearchCalendar.mondayFirst
    #expect(calendar.mostRecent(month: 2, day: 29, notAfter: Day(iso: "2104-02-28")!) == Day(iso: "2096-02-29"))
    #expect(calendar.mostRecent(month: 4, day: 31, notAfter: Day(iso: "2025-03-12")!) == nil)
    #expect(calendar.mostRecent(month: 3, day: 12, notAfter: Day(iso: "2025-03-12")!) == Day(iso: "2025-03-12"))
}

@Test("SPEC Q2 Day from a Foundation date in a time zone")
func dayFromDate() {
    // 2025-03-11T20:00:00Z is 2025-03-12 04:00 in Shanghai (UTC+8)
    let date = Date(timeIntervalSince1970: 1_741_723_200)
    #expect(Day(date, timeZone: TimeZone(identifier: "Asia/Shanghai")!) == Day(iso: "2025-03-12"))
    #expect(Day(date, timeZone: TimeZone(identifier: "UTC")!) == Day(iso: "2025-03-11"))
}
