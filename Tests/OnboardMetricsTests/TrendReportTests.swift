import Foundation
import Testing

@testable import OnboardMetricsAnalysis
@testable import OnboardMetricsReader
@testable import OnboardMetricsRendering
@testable import OnboardMetricsSDK

/// `funnel trends`: hand-built sessions over days, ISO weeks and months; expected counts are
/// worked out in the comments, period labels checked against the ISO 8601 calendar.
@Suite struct TrendReportTests {
    typealias Fixture = FunnelReportTests

    static let day: Int64 = 86_400_000_000
    /// 2026-01-05T00:00:00Z, a Monday (ISO week 2026-W02).
    static let monday: Int64 = 1_767_571_200_000_000

    static func dropped(_ number: Int, start: Int64, context: [String: JSONValue] = [:]) -> RecordedSession {
        Fixture.session(number, context: context, start: start, [(.stepViewed, "welcome", 1)])
    }

    @Test func isoWeeksAndMonthsAreLabelledByTheCalendar() {
        // 2021-01-03 is a Sunday in ISO week 2020-W53; 2021-01-04 starts 2021-W01.
        let sunday = TrendInterval.days(year: 2021, month: 1, day: 3)
        #expect(TrendInterval.week.label(startDay: TrendInterval.week.periodStartDay(sunday * Self.day)) == "2020-W53")
        #expect(TrendInterval.week.label(startDay: sunday + 1) == "2021-W01")
        #expect(TrendInterval.week.periodStartDay((sunday + 1) * Self.day + 5) == sunday + 1)
        #expect(TrendInterval.days(year: 2026, month: 1, day: 5) * Self.day == Self.monday)
        #expect(TrendInterval.week.label(startDay: TrendInterval.days(year: 2026, month: 1, day: 5)) == "2026-W02")
        // 2024 is a leap year: 29 February belongs to February, 1 March starts the next month.
        let leap = TrendInterval.days(year: 2024, month: 2, day: 29)
        #expect(TrendInterval.month.label(startDay: TrendInterval.month.periodStartDay(leap * Self.day)) == "2024-02")
        #expect(TrendInterval.month.nextPeriodStartDay(TrendInterval.days(year: 2024, month: 2, day: 1)) == leap + 1)
        #expect(
            TrendInterval.month.nextPeriodStartDay(TrendInterval.days(year: 2025, month: 12, day: 1))
                == TrendInterval.days(year: 2026, month: 1, day: 1))
        #expect(TrendInterval.day.label(startDay: leap) == "2024-02-29")
        // Before 1970 too.
        #expect(TrendInterval.civil(fromDays: -1) == (1969, 12, 31))
    }

    /// Monday: 3 complete, 1 drops. Tuesday: nothing. Wednesday: 1 completes, 1 drops. The next
    /// Monday (week 2): 1 complete, 3 in progress (the report's end is 10 minutes after them).
    static var sessions: [RecordedSession] {
        let context: [String: JSONValue] = ["healthDataAvailable": false]
        var sessions: [RecordedSession] = []
        for index in 0..<3 { sessions.append(Fixture.completeRun(index, context: context, start: monday)) }
        sessions.append(dropped(3, start: monday))
        sessions.append(Fixture.completeRun(4, context: context, start: monday + 2 * day))
        sessions.append(dropped(5, start: monday + 2 * day))
        sessions.append(Fixture.completeRun(6, context: context, start: monday + 7 * day))
        for index in 7..<10 { sessions.append(dropped(index, start: monday + 7 * day)) }
        return sessions
    }

    static func options(_ interval: TrendInterval) -> TrendOptions {
        var options = TrendOptions()
        options.interval = interval
        options.funnel.reportEnd = Date(timeIntervalSince1970: Double(monday + 7 * day) / 1e6 + 600)
        return options
    }

    @Test func periodsCountSessionsByStartAndMarkThoseMostlyInProgress() throws {
        let report = try TrendAggregator(flow: Fixture.flow, options: Self.options(.day), now: Date()).report(
            of: Self.sessions)
        let periods = try #require(report.series.first?.periods)
        // Every day from the first to the last: 8 days.
        #expect(periods.map(\.label) == (5...12).map { String(format: "2026-01-%02d", $0) })
        #expect(periods[0].started == 4)
        #expect(periods[0].completed == 3)
        #expect(periods[0].completionRate == 0.75)
        // Wilson 95 % for 3/4: 0.30064 – 0.95441 (Wilson's score formula with SciPy's
        // norm.ppf(0.975), computed outside the package).
        #expect(abs((periods[0].interval?.lower ?? 0) - 0.30064) < 1e-4)
        #expect(abs((periods[0].interval?.upper ?? 0) - 0.95441) < 1e-4)
        #expect(periods[1].started == 0)
        #expect(periods[1].completionRate == nil)
        #expect(periods[2].completionRate == 0.5)
        // Day 8: 1 completed, 3 in progress: 75 % in progress is "mostly"; the rate is 1/1.
        #expect(periods[7].inProgress == 3)
        #expect(periods[7].mostlyInProgress)
        #expect(periods[7].completionRate == 1)
        #expect(!periods[0].mostlyInProgress)
        // Step conversion: welcome viewed by all settled; done by the completers.
        let done = try #require(periods[0].steps.first { $0.step == "done" })
        #expect(done.eligible == 4)
        #expect(done.viewed == 3)

        let weekly = try TrendAggregator(flow: Fixture.flow, options: Self.options(.week), now: Date()).report(
            of: Self.sessions)
        let weeks = try #require(weekly.series.first?.periods)
        #expect(weeks.map(\.label) == ["2026-W02", "2026-W03"])
        #expect(weeks[0].started == 6)
        #expect(weeks[0].completed == 4)
        #expect(weeks[1].mostlyInProgress)
        let monthly = try TrendAggregator(flow: Fixture.flow, options: Self.options(.month), now: Date()).report(
            of: Self.sessions)
        #expect(monthly.series.first?.periods.map(\.label) == ["2026-01"])
        #expect(monthly.series.first?.periods.first?.started == 10)
        // 3 of the 10 in progress: not mostly, but provisional (the rate counts only the fast finishers).
        let month = try #require(monthly.series.first?.periods.first)
        #expect(month.provisional && !month.mostlyInProgress)
        #expect(monthly.table.rows.first?.contains("provisional: 30.0% in progress") == true, "\(monthly.table.rows)")
        #expect(periods[7].provisional && !periods[0].provisional)
    }

    @Test func breakdownMakesOneSeriesPerValueAndEveryFormatRenders() throws {
        var sessions = Self.sessions
        sessions.append(Self.dropped(20, start: Self.monday, context: ["platform": "web"]))
        var options = Self.options(.week)
        options.funnel.breakdown = "platform"
        let report = try TrendAggregator(flow: Fixture.flow, options: options, now: Date()).report(of: sessions)
        #expect(report.series.map(\.breakdown) == ["(none)", "web"])
        #expect(report.series[1].periods.map(\.started) == [1])
        let json = try report.rendered(.json)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["interval"] as? String == "week")
        let series = try #require(object["series"] as? [[String: Any]])
        let first = try #require((series.first?["periods"] as? [[String: Any]])?.first)
        #expect(first["mostly_in_progress"] as? Bool == false)
        #expect(first["completion_rate"] as? Double == 4.0 / 6)
        #expect(try report.rendered(.text).contains("mostly in progress"))
        #expect(try report.rendered(.csv).hasPrefix("platform,period,started"))
        #expect(try report.rendered(.markdown).hasPrefix("## Trend study v1 by week and platform"))
        let html = report.html()
        #expect(html.contains("<polygon"))  // the interval band
        #expect(html.contains("stroke-dasharray"))  // the line into the provisional week
        #expect(html.contains("data-table=\"trend-periods\""))
    }
}
