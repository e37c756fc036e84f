// Week, month and year arithmetic for date phrases (SPEC Q2).

/// The calendar rules the date-phrase parser resolves against.
///
/// Gregorian only; the one setting is the first day of the week (Monday by
/// default, as in China, Germany, France, Spain and ISO 8601).
public struct SearchCalendar: Sendable, Hashable {
    /// First day of a week as an ISO weekday, 1 = Monday … 7 = Sunday.
    public var firstWeekday: Int

    /// - Parameter firstWeekday: ISO weekday (1 = Monday … 7 = Sunday) that starts a week; clamped to 1...7.
    public init(firstWeekday: Int = 1) {
        self.firstWeekday = min(max(firstWeekday, 1), 7)
    }

    /// Weeks start on Monday.
    public static let mondayFirst = SearchCalendar(firstWeekday: 1)

    /// The first day of the week containing `day`, moved by `weeks` whole weeks.
    /// - Parameters:
    ///   - day: any day of the reference week.
    ///   - weeks: 0 = that week, -1 = the week before.
    /// - Returns: the week's first day.
    public func startOfWeek(containing day: Day, offset weeks: Int = 0) -> Day {
        let back = (day.weekday - firstWeekday + 7) % 7
        return day.adding(days: -back + 7 * weeks)
    }

    /// The whole week (7 days) containing `day`, moved by `weeks`.
    /// - Parameters:
    ///   - day: any day of the reference week.
    ///   - weeks: 0 = that week, -1 = the week before.
    public func week(containing day: Day, offset weeks: Int = 0) -> DayRange {
        let start = startOfWeek(containing: day, offset: weeks)
        return DayRange(start: start, end: start.adding(days: 6))
    }

    /// The given ISO weekday within the week containing `day`, moved by `weeks`.
    /// - Parameters:
    ///   - weekday: 1 = Monday … 7 = Sunday.
    ///   - day: any day of the reference week.
    ///   - weeks: 0 = that week, -1 = the week before.
    public func weekday(_ weekday: Int, inWeekOf day: Day, offset weeks: Int = 0) -> Day {
        let start = startOfWeek(containing: day, offset: weeks)
        return start.adding(days: (weekday - firstWeekday + 7) % 7)
    }

    /// Saturday and the Sunday right after it, for the week containing `day` moved by `weeks`.
    /// With weeks starting Monday that is the week's last two days.
    public func weekend(inWeekOf day: Day, offset weeks: Int = 0) -> DayRange {
        let saturday = weekday(6, inWeekOf: day, offset: weeks)
        return DayRange(start: saturday, end: saturday.adding(days: 1))
    }

    /// Part of the month `months` away from `day`'s month.
    /// - Parameters:
    ///   - day: reference day.
    ///   - months: 0 = this month, -1 = last month.
    ///   - firstDay: first day of the part (clamped to the month).
    ///   - lastDay: last day of the part; nil = the month's last day.
    public func month(of day: Day, offset months: Int, from firstDay: Int = 1, through lastDay: Int? = nil) -> DayRange {
        let first = day.firstOfMonth(offset: months)
        let length = Day.daysIn(month: first.month, year: first.year)
        let a = min(max(firstDay, 1), length)
        let b = min(max(lastDay ?? length, a), length)
        return DayRange(start: first.adding(days: a - 1), end: first.adding(days: b - 1))
    }

    /// Months `firstMonth...lastMonth` of the year `years` away from `day`'s year.
    /// - Parameters:
    ///   - day: reference day.
    ///   - years: 0 = this year, -1 = last year.
    ///   - firstMonth: the first month of the range, 1…12.
    ///   - lastMonth: the last month of the range, 1…12.
    public func year(of day: Day, offset years: Int, months firstMonth: Int = 1, through lastMonth: Int = 12) -> DayRange {
        let y = day.year + years
        let start = Day(year: y, month: firstMonth, day: 1)!
        return DayRange(start: start, end: Day(year: y, month: lastMonth, day: 1)!.lastOfMonth)
    }

    /// The latest `month`/`day` that is not after `today` (SPEC Q2: a month + day
    /// without a year means its most recent occurrence). 29 February goes back to the last leap year.
    /// - Returns: nil when the month/day never exists (e.g. 31 April).
    public func mostRecent(month: Int, day: Int, notAfter today: Day) -> Day? {
        guard (1...12).contains(month), day >= 1, day <= Day.daysIn(month: month, year: 2000) else { return nil }
        var year = today.year
        for _ in 0..<9 {   // a 29 February is at most 8 years back (e.g. 2096 -> 2104)
            if let candidate = Day(year: year, month: month, day: day), candidate <= today { return candidate }
            year -= 1
        }
        return nil
    }
}
