import Foundation

/// ISO 8601 timestamps with milliseconds in UTC, e.g. `2026-01-31T09:15:02.125Z`.
///
/// Written by hand rather than with `ISO8601DateFormatter` because the generator formats tens of
/// millions of them and the formatter is neither fast nor `Sendable`.
package enum Timestamp {
    /// Milliseconds since 1970 for a date, to the nearest millisecond (rounding down would turn
    /// a date made from whole milliseconds into the millisecond before, through binary fractions).
    /// Saturates at Int64's range (and takes NaN as the earliest), so that no date — whatever a
    /// client sent — traps here; such a date is refused by ``EventValidator`` anyway.
    package static func milliseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        guard value < 9_223_372_036_854_774_784 else { return .max }
        guard value > -9_223_372_036_854_774_784 else { return .min }
        return Int64(value)
    }

    /// Microseconds since 1970 for a date, to the nearest microsecond; saturates like
    /// ``milliseconds(_:)``.
    package static func microseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1_000_000).rounded()
        guard value < 9_223_372_036_854_774_784 else { return .max }
        guard value > -9_223_372_036_854_774_784 else { return .min }
        return Int64(value)
    }

    /// Numbers sent as times (Segment and PostHog take milliseconds since 1970; PostHog's offset
    /// is milliseconds too) are taken only within this many milliseconds of 1970 — about 31,700
    /// years either way — before any arithmetic turns them into a date.
    package static let largestMilliseconds: Double = 1e15

    /// The date of a count of milliseconds since 1970 sent as a JSON number; `nil` unless it is
    /// finite and within ``largestMilliseconds``.
    package static func date(unixMilliseconds value: Double) -> Date? {
        guard value.isFinite, abs(value) <= largestMilliseconds else { return nil }
        return Date(timeIntervalSince1970: value / 1000)
    }

    /// The date for milliseconds since 1970.
    package static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// Appends the ISO 8601 form of `milliseconds` since 1970 to `bytes`.
    package static func append(milliseconds: Int64, to bytes: inout [UInt8]) {
        let days = milliseconds >= 0 ? milliseconds / 86_400_000 : (milliseconds - 86_399_999) / 86_400_000
        let rest = milliseconds - days * 86_400_000
        let (year, month, day) = civil(fromDays: days)
        let hour = rest / 3_600_000
        let minute = rest / 60_000 % 60
        let second = rest / 1000 % 60
        let millis = rest % 1000
        // Filled in a stack buffer and appended once: per-byte appends dominated the generator's profile.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { b in
            @inline(__always) func put(_ value: Int64, _ at: Int, _ width: Int) {
                var value = value
                var index = at + width - 1
                while index >= at {
                    b[index] = UInt8(truncatingIfNeeded: 48 + value % 10)
                    value /= 10
                    index -= 1
                }
            }
            put(year, 0, 4)
            b[4] = UInt8(ascii: "-")
            put(month, 5, 2)
            b[7] = UInt8(ascii: "-")
            put(day, 8, 2)
            b[10] = UInt8(ascii: "T")
            put(hour, 11, 2)
            b[13] = UInt8(ascii: ":")
            put(minute, 14, 2)
            b[16] = UInt8(ascii: ":")
            put(second, 17, 2)
            b[19] = UInt8(ascii: ".")
            put(millis, 20, 3)
            b[23] = UInt8(ascii: "Z")
            bytes.append(contentsOf: UnsafeBufferPointer(b))
        }
    }

    /// The ISO 8601 form of a date.
    package static func string(_ date: Date) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        append(milliseconds: milliseconds(date), to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Parses a timestamp with `TimestampParser` (the one timestamp reader; zone-less forms are
    /// UTC); nil when the text is not a timestamp.
    package static func parse(_ text: String) -> Date? {
        TimestampParser().parse(text)
    }

    // Howard Hinnant's days-from-civil algorithms: exact for the proleptic Gregorian calendar.
    /// (year, month, day) of a day counted from 1970-01-01, proleptic Gregorian (H. Hinnant's civil_from_days).
    package static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Days from 1970-01-01 to a date, proleptic Gregorian (H. Hinnant's days_from_civil).
    package static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
