// The bridge from Foundation's clock to `Day` (the only Foundation use of the parser).
import Foundation

extension Day {
    /// The calendar day of `date` in `timeZone`.
    /// - Parameters:
    ///   - date: an instant.
    ///   - timeZone: the zone whose wall-clock day is wanted (the device's by default).
    public init(_ date: Date, timeZone: TimeZone = .current) {
        let seconds = Int((date.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: date))).rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        self.init(daysSinceEpoch: days)
    }

    /// Today in `timeZone`.
    /// - Parameter timeZone: the zone (the device's by default).
    public static func today(timeZone: TimeZone = .current) -> Day { Day(Date(), timeZone: timeZone) }
}
