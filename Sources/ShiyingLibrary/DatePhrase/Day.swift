// A calendar day (proleptic Gregorian) and an inclusive range of days.
// Pure integer arithmetic (H. Hinnant's days-from-civil), no Foundation, so
// date phrases resolve without time zones or locale settings. SPEC Q2.

/// One calendar day in the proleptic Gregorian calendar, with no time or zone.
///
/// Cost: three integers; every operation is O(1) integer arithmetic.
public struct Day: Sendable, Hashable, Comparable, CustomStringConvertible, Codable {
    /// Year, e.g. 2025.
    public let year: Int
    /// Month, 1...12.
    public let month: Int
    /// Day of the month, 1...`Day.daysIn(month:year:)`.
    public let day: Int

    /// A validated day.
    /// - Parameters:
    ///   - year: any year (proleptic Gregorian).
    ///   - month: 1...12.
    ///   - day: 1...number of days of that month.
    /// - Returns: nil when the month or day does not exist (e.g. 30 February).
    public init?(year: Int, month: Int, day: Int) {
        guard (1...12).contains(month), day >= 1, day <= Day.daysIn(month: month, year: year) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    private init(unchecked year: Int, _ month: Int, _ day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses `YYYY-MM-DD`.
    /// - Parameter iso: text such as "2025-03-12".
    /// - Returns: nil when the text is not a valid ISO calendar date.
    public init?(iso: some StringProtocol) {
        let parts = iso.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]) else { return nil }
        self.init(year: y, month: m, day: d)
    }

    /// `YYYY-MM-DD`.
    public var iso: String {
        func pad(_ v: Int, _ width: Int) -> String {
            let s = String(v)
            return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }

    public var description: String { iso }

    /// True for Gregorian leap years (divisible by 4, except centuries not divisible by 400).
    /// - Parameter year: the year.
    /// - Returns: whether February of `year` has 29 days.
    public static func isLeapYear(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    /// Number of days in a month.
    /// - Parameters:
    ///   - month: 1...12 (other values return 0).
    ///   - year: the year (for February).
    /// - Returns: 28...31, or 0 for an invalid month.
    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 1, 3, 5, 7, 8, 10, 12: return 31
        case 4, 6, 9, 11: return 30
        case 2: return isLeapYear(year) ? 29 : 28
        default: return 0
        }
    }

    /// Days since 1970-01-01 (negative before it).
    public var daysSinceEpoch: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The day `days` after 1970-01-01.
    /// - Parameter days: days since the epoch (may be negative).
    public init(daysSinceEpoch days: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        self.init(unchecked: yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// ISO weekday: 1 = Monday … 7 = Sunday.
    public var weekday: Int {
        ((daysSinceEpoch + 3) % 7 + 7) % 7 + 1   // 1970-01-01 was a Thursday (4)
    }

    /// This day moved by `days` (negative = earlier).
    /// - Parameter days: signed number of days.
    /// - Returns: the resulting day.
    public func adding(days: Int) -> Day { Day(daysSinceEpoch: daysSinceEpoch + days) }

    /// The first day of the month `months` away from this day's month (0 = this month).
    /// - Parameter months: signed number of months.
    /// - Returns: day 1 of that month.
    public func firstOfMonth(offset months: Int) -> Day {
        let index = year * 12 + (month - 1) + months
        let y = index >= 0 ? index / 12 : (index - 11) / 12
        return Day(unchecked: y, index - y * 12 + 1, 1)
    }

    /// The last day of this day's month.
    public var lastOfMonth: Day { Day(unchecked: year, month, Day.daysIn(month: month, year: year)) }

    public static func < (a: Day, b: Day) -> Bool {
        (a.year, a.month, a.day) < (b.year, b.month, b.day)
    }

    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let day = Day(iso: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not YYYY-MM-DD: \(text)"))
        }
        self = day
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(iso)
    }
}

/// An inclusive range of days: `start` and `end` both belong to it.
public struct DayRange: Sendable, Hashable, Codable, CustomStringConvertible {
    /// First day (inclusive).
    public let start: Day
    /// Last day (inclusive), never before `start`.
    public let end: Day

    /// A range; the two ends are swapped if given in the wrong order.
    /// - Parameters:
    ///   - start: first day.
    ///   - end: last day.
    public init(start: Day, end: Day) {
        self.start = min(start, end)
        self.end = max(start, end)
    }

    /// A one-day range.
    /// - Parameter day: the day.
    public init(_ day: Day) { self.init(start: day, end: day) }

    /// Whether `day` falls within the range (inclusive).
    /// - Parameter day: the day to test.
    public func contains(_ day: Day) -> Bool { start <= day && day <= end }

    public var description: String { start == end ? start.iso : "\(start.iso)…\(end.iso)" }
}
