import Foundation
import Testing

@testable import OnboardMetricsReader
@testable import OnboardMetricsSDK

@Suite struct DurationTextTests {
    @Test func parsesUnitsAndSums() throws {
        #expect(try DurationText.parse("7d") == 604_800)
        #expect(try DurationText.parse("30m") == 1_800)
        #expect(try DurationText.parse("12h") == 43_200)
        #expect(try DurationText.parse("45s") == 45)
        #expect(try DurationText.parse("2w") == 1_209_600)
        #expect(try DurationText.parse("1.5h") == 5_400)
        #expect(try DurationText.parse("1h30m") == 5_400)
        #expect(try DurationText.parse(" 7D ") == 604_800)
    }

    @Test func rejectsWhatIsNotADuration() {
        let cases: [(String, DurationText.ParseError.Code)] = [
            ("", .empty), ("7", .unknownUnit), ("7x", .unknownUnit), ("d", .invalidNumber), ("1..5h", .invalidNumber),
            ("0m", .notPositive), ("-5m", .unknownUnit), ("1h30", .unknownUnit),
        ]
        for (text, code) in cases {
            #expect(throws: DurationText.ParseError.self, "\(text)") { try DurationText.parse(text) }
            do {
                _ = try DurationText.parse(text)
            } catch {
                #expect(error.code == code, "\(text): \(error.message)")
            }
        }
    }

    @Test func formatsAndReadsBack() throws {
        for seconds in [604_800.0, 1_800, 5_400, 45, 129_600, 90_061] {
            let text = DurationText.format(seconds)
            #expect(try DurationText.parse(text) == seconds, "\(text)")
        }
        #expect(DurationText.format(604_800) == "7d")
        #expect(DurationText.format(5_400) == "1h30m")
        #expect(DurationText.format(0) == "0s")
    }

    @Test func aHugeDurationIsAnErrorAndLibraryValuesAreClamped() throws {
        // 200000000d once trapped converting to Int64 microseconds in report, discovery, experiment.
        let error = #expect(throws: DurationText.ParseError.self) { try DurationText.parse("200000000d") }
        #expect(error?.code == .tooLong)
        #expect(try DurationText.parse("36500d") == DurationText.maximumSeconds)
        #expect(DurationText.microseconds(1e300) == Int64(DurationText.maximumSeconds * 1_000_000))
        #expect(DurationText.microseconds(.infinity) == Int64(DurationText.maximumSeconds * 1_000_000))
        #expect(DurationText.microseconds(.nan) == 0)
        #expect(DurationText.microseconds(-5) == 0)
        #expect(DurationText.format(1e300) == "1e+300")
    }
}
