import Foundation

/// The length of a trend's periods, in UTC: calendar days, ISO weeks (Monday to Sunday) or
/// calendar months.
public enum TrendInterval: String, Sendable, Hashable, Codable, CaseIterable {
    case day, week, month

    private static let microsecondsPerDay: Int64 = 86_400_000_000

    /// The start of the period holding `time` (microseconds since 1970), as a day number (days since 1970-01-01).
    func periodStartDay(_ time: Int64) -> Int64 {
        let day = Self.floorDivide(time, Self.microsecondsPerDay)
        switch self {
        case .day: return day
        case .week:
            // 1970-01-01 was a Thursday: (day + 3) mod 7 is 0 on Mondays.
            return day - Self.floorModulo(day + 3, 7)
        case .month:
            let (year, month, _) = Self.civil(fromDays: day)
            return Self.days(year: year, month: month, day: 1)
        }
    }

    /// The first day of the period after the one starting on `startDay`.
    func nextPeriodStartDay(_ startDay: Int64) -> Int64 {
        switch self {
        case .day: return startDay + 1
        case .week: return startDay + 7
        case .month:
            let (year, month, _) = Self.civil(fromDays: startDay)
            return month == 12
                ? Self.days(year: year + 1, month: 1, day: 1) : Self.days(year: year, month: month + 1, day: 1)
        }
    }

    /// Midnight UTC of a day number.
    static func date(day: Int64) -> Date { Date(timeIntervalSince1970: Double(day) * 86_400) }

    /// A period's label: 2026-01-05 for days and months (2026-01), 2026-W02 for ISO weeks.
    func label(startDay: Int64) -> String {
        let (year, month, day) = Self.civil(fromDays: startDay)
        switch self {
        case .day: return String(format: "%04lld-%02lld-%02lld", year, month, day)
        case .month: return String(format: "%04lld-%02lld", year, month)
        case .week:
            // The ISO week-numbering year is the year of the week's Thursday.
            let thursday = startDay + 3
            let (isoYear, _, _) = Self.civil(fromDays: thursday)
            let week = (thursday - Self.days(year: isoYear, month: 1, day: 1)) / 7 + 1
            return String(format: "%04lld-W%02lld", isoYear, week)
        }
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }

    private static func floorModulo(_ a: Int64, _ b: Int64) -> Int64 {
        a - floorDivide(a, b) * b
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Hinnant's `days_from_civil`).
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day number (Hinnant's `civil_from_days`).
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPart = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPart + 2) / 5 + 1
        let month = monthPart < 10 ? monthPart + 3 : monthPart - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
