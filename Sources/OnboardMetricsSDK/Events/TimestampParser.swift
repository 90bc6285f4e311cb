import Foundation

/// Parses the timestamps ingest accepts, straight from bytes:
///
/// - ISO 8601: `2026-01-31T09:15:02Z`, `2026-01-31T09:15:02.125+01:00`, `...-0500`, `...+01`;
/// - the SQL / spreadsheet form `2026-01-31 09:15:02[.125]`, with or without a zone.
///
/// Seconds may be left out (`09:15`). A fraction keeps up to microseconds (PostgreSQL's
/// precision). A timestamp without a zone is read in ``timeZone`` (UTC unless set).
package struct TimestampParser: Sendable {
    /// The zone of timestamps that carry none.
    package var timeZone: TimeZone

    package init(timeZone: TimeZone = TimeZone(secondsFromGMT: 0) ?? .current) {
        self.timeZone = timeZone
    }

    /// The instant `text` names, or nil when it is not one of the accepted forms or not a real date.
    package func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse($0) }
    }

    /// The instant the bytes name, or nil.
    package func parse(_ b: UnsafeBufferPointer<UInt8>) -> Date? {
        guard b.count >= 16, b[4] == 45, b[7] == 45, b[10] == 84 || b[10] == 32 || b[10] == 116, b[13] == 58,
            let year = Self.number(b, 0, 4), let month = Self.number(b, 5, 2), let day = Self.number(b, 8, 2),
            let hour = Self.number(b, 11, 2), let minute = Self.number(b, 14, 2),
            (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year), hour < 24, minute < 60
        else { return nil }
        var index = 16
        var second: Int64 = 0
        var micros: Int64 = 0
        var fractionDigits = 0
        if index < b.count, b[index] == 58 {
            guard let value = Self.number(b, 17, 2), value < 61 else { return nil }
            second = value
            index = 19
            if index < b.count, b[index] == 46 || b[index] == 44 {
                index += 1
                var scale: Int64 = 100_000
                while index < b.count, b[index] >= 48, b[index] <= 57 {
                    micros += Int64(b[index] - 48) * scale
                    scale /= 10
                    fractionDigits += 1
                    index += 1
                }
                guard fractionDigits > 0 else { return nil }
            }
        }
        // A space before the zone is common in SQL output ("... 09:15:02 +01:00").
        if index < b.count, b[index] == 32, index + 1 < b.count { index += 1 }
        var offsetSeconds: Int64?
        if index < b.count {
            switch b[index] {
            case 90, 122:  // Z, z
                offsetSeconds = 0
                index += 1
            case 43, 45:  // +, -
                let sign: Int64 = b[index] == 45 ? -1 : 1
                guard let hours = Self.number(b, index + 1, 2), hours < 24 else { return nil }
                index += 3
                var minutes: Int64 = 0
                if index < b.count {
                    if b[index] == 58 { index += 1 }
                    guard let value = Self.number(b, index, 2), value < 60 else { return nil }
                    minutes = value
                    index += 2
                }
                offsetSeconds = sign * (hours * 3600 + minutes * 60)
            default:
                return nil
            }
        }
        guard index == b.count else { return nil }
        let days = Timestamp.daysFromCivil(year: year, month: month, day: day)
        let local = days * 86_400 + hour * 3600 + minute * 60 + second
        let seconds = local - (offsetSeconds ?? localOffset(local))
        if fractionDigits <= 3 {
            // The same arithmetic as `Timestamp`, so a millisecond timestamp gives the same Date.
            return Timestamp.date(milliseconds: seconds * 1000 + micros / 1000)
        }
        return Date(timeIntervalSince1970: Double(seconds) + Double(micros) / 1_000_000)
    }

    /// The zone's offset at the wall-clock time `local` (seconds since 1970 as if it were UTC).
    private func localOffset(_ local: Int64) -> Int64 {
        if timeZone.secondsFromGMT() == 0, timeZone.identifier == "GMT" || timeZone.identifier == "UTC" {
            return 0
        }
        // First guess with the offset at `local` read as UTC, then correct once (handles DST edges).
        let guess = Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(local))))
        return Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(local - guess))))
    }

    private static func number(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> Int64? {
        guard start + count <= b.count else { return nil }
        var value: Int64 = 0
        for index in start..<(start + count) {
            let byte = b[index]
            guard byte >= 48, byte <= 57 else { return nil }
            value = value * 10 + Int64(byte - 48)
        }
        return value
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
