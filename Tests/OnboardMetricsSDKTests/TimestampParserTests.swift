import Foundation
import Testing

@testable import OnboardMetricsSDK

@Suite struct TimestampParserTests {
    private let utc = TimestampParser()
    private let reference = Date(timeIntervalSince1970: 1_769_850_902)  // 2026-01-31T09:15:02Z

    @Test(arguments: [
        "2026-01-31T09:15:02Z", "2026-01-31T09:15:02.000Z", "2026-01-31T10:15:02+01:00", "2026-01-31T04:15:02-0500",
        "2026-01-31T11:15:02+02", "2026-01-31 09:15:02", "2026-01-31 09:15:02Z", "2026-01-31T09:15:02",
        "2026-01-31 10:15:02 +01:00", "2026-01-31t09:15:02z",
    ])
    func acceptedFormsNameTheSameInstant(text: String) {
        #expect(utc.parse(text) == reference)
    }

    @Test func fractionsKeepMillisecondsExactlyAndMicroseconds() {
        #expect(utc.parse("2026-01-31T09:15:02.125Z") == Timestamp.date(milliseconds: 1_769_850_902_125))
        #expect(utc.parse("2026-01-31T09:15:02.1Z") == Timestamp.date(milliseconds: 1_769_850_902_100))
        let micro = utc.parse("2026-01-31T09:15:02.123456Z")?.timeIntervalSince1970 ?? 0
        #expect(abs(micro - 1_769_850_902.123456) < 1e-6)
        // The same Date as the event format's own parser, so round trips compare equal.
        #expect(utc.parse("2026-01-31T09:15:02.125Z") == Timestamp.parse("2026-01-31T09:15:02.125Z"))
    }

    @Test func minutesWithoutSeconds() {
        #expect(utc.parse("2026-01-31 09:15") == reference.addingTimeInterval(-2))
    }

    @Test func aTimeZoneAppliesOnlyToTimestampsWithoutOne() throws {
        let berlin = TimestampParser(timeZone: try #require(TimeZone(identifier: "Europe/Berlin")))
        // Winter: UTC+1; summer: UTC+2.
        #expect(berlin.parse("2026-01-31 10:15:02") == reference)
        #expect(berlin.parse("2026-07-01 12:00:00") == utc.parse("2026-07-01T10:00:00Z"))
        #expect(berlin.parse("2026-01-31T09:15:02Z") == reference)
    }

    @Test(arguments: [
        "", "2026-01-31", "2026-13-01 00:00:00", "2026-02-30 00:00:00", "2025-02-29 00:00:00", "2026-01-31 24:00:00",
        "2026-01-31T09:15:02.Z", "2026-01-31T09:15:02+1", "2026-01-31T09:15:02 UTC", "31/01/2026 09:15:02",
        "2026-01-31T09:15:02Zjunk", "yesterday",
    ])
    func rejectedForms(text: String) {
        #expect(utc.parse(text) == nil)
    }

    @Test func leapDayOfALeapYear() {
        #expect(utc.parse("2024-02-29 12:00:00") == Date(timeIntervalSince1970: 1_709_208_000))
    }
}
