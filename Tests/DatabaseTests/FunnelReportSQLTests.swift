import Foundation
import Testing

@testable import OnboardMetricsAnalysis
@testable import OnboardMetricsGeneration
@testable import OnboardMetricsPostgres
@testable import OnboardMetricsReader
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

/// `FunnelReport` read from PostgreSQL equals scripts/bench/health-study-funnel.sql, an
/// independent computation of the same funnel in one SQL statement, run through psql.
@Suite struct FunnelReportSQLTests {
    @Test func flowFunnelEqualsTheIndependentSQLComputation() async throws {
        let configuration = try await TestDatabase.migrated("funnel_sql")
        let generator = try SyntheticGenerator(scenario: Scenario.healthStudy, seed: 5)
        var events = (0..<3_000).flatMap { generator.session($0).events }
        // Stamps skew correction must not trust, and messages whose offsets disagree (issue 31,
        // N3): the SQL and the reader must apply the same bounds to them.
        for index in events.indices {
            guard let sent = events[index].sentAt, let received = events[index].receivedAt else { continue }
            switch index % 53 {
            case 5: events[index].sentAt = Date(timeIntervalSince1970: 946_684_800)  // sent "in 2000"
            case 17: events[index].sentAt = received.addingTimeInterval(23 * 3_600)  // 23 h ahead of the server
            case 29: events[index].sentAt = received.addingTimeInterval(25 * 3_600)  // beyond a day
            case 31: events[index].sentAt = nil
            case 43: events[index].sentAt = sent.addingTimeInterval(-180)  // 3 min more offset: beyond the spread
            case 47: events[index].sentAt = sent.addingTimeInterval(-90)  // within the spread
            default: break
            }
        }
        let stamped = events
        let reportEnd = Date()
        let flowURL = TestDatabase.packageRoot.appendingPathComponent("examples/flows/health-study.json")
        let flow = try FlowDefinition.decode(from: Data(contentsOf: flowURL))
        let options = {
            var options = FunnelOptions()
            options.reportEnd = reportEnd
            return options
        }()
        try await TestDatabase.withConnection(configuration) { connection in
            _ = try EventStore().write(stamped, on: connection, receivedAt: reportEnd)
        }
        let reader = ShardedReader(
            reader: SessionReader(), sources: [.init(configuration: configuration, buckets: nil)])
        let report = try await reader.report { FunnelAggregator(flow: flow, options: options, now: reportEnd) }
        let sqlFile = TestDatabase.packageRoot.appendingPathComponent("scripts/bench/health-study-funnel.sql").path
        let url = TestDatabase.url(of: configuration)
        let psql = try await BlockingIO.run {
            try ProcessRunner.run(
                "/usr/bin/psql",
                [
                    url, "-q", "-A", "-t", "-F", " ", "-v", "ON_ERROR_STOP=1", "-v",
                    "report_end=\(ISO8601DateFormatter().string(from: reportEnd))", "-v", "window=7 days", "-v",
                    "inactivity=30 minutes", "-f", sqlFile,
                ])
        }
        #expect(psql.status == 0, "\(psql.output)")
        let sqlRows = psql.output.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        let steps = try #require(report.groups.first?.steps)
        #expect(sqlRows.count == steps.count)
        for (row, step) in zip(sqlRows, steps) {
            #expect(row[0] == step.step)
            #expect(
                row[1...6].compactMap { Int($0) }
                    == [
                        step.eligible, step.viewed, step.completed, step.skipped, step.droppedHere, step.inProgressHere,
                    ],
                "step \(step.step)")
            // Conversion rounded to 4 places, median time on step and p90 from start to 2 places.
            #expect(Double(row[7]).map { abs($0 - (step.conversionFromPrevious ?? -1)) < 0.00005 } == true)
            #expect(Double(row[8]).map { abs($0 - (step.timeOnStep.median ?? -1)) < 0.0051 } == true)
            #expect(Double(row[9]).map { abs($0 - (step.timeFromStart.p90 ?? -1)) < 0.0051 } == true)
        }
        // The data has drop-offs at every step, so the comparison is not of zeros.
        #expect(steps.allSatisfy { $0.droppedHere > 0 })
    }
}
