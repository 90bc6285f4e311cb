import Foundation
import Testing

@testable import OnboardMetricsGeneration
@testable import OnboardMetricsPostgres
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

/// `funnel generate --database`: the generator's events recorded through the event recorder.
@Suite struct GenerateDatabaseTests {
    struct Summary: Decodable {
        var sessions: Int
        var lines: Int
        var recorded: Int
        var committed: Int
        var duplicates: Int
        var rejected: Int
    }

    /// Runs `funnel generate --database` into `configuration` from a temporary working folder
    /// (the recorder's spool lives there) and decodes its JSON summary.
    static func generate(
        into configuration: PostgresConfiguration, params: URL, folder: URL
    ) async throws -> (summary: Summary?, output: String, status: Int32) {
        let script = """
            cd '\(folder.path)' && ONBOARDMETRICS_MIGRATIONS='\(TestDatabase.migrationsDirectory.path)' \
            '\(TestDatabase.funnelExecutable)' generate --scenario health-study --sessions 1500 --seed 7 --database \
            --database-url '\(TestDatabase.url(of: configuration))' --params '\(params.path)' --format json --quiet
            """
        let outcome = try await BlockingIO.run { try ProcessRunner.run("/bin/sh", ["-c", script]) }
        // The summary is the JSON object on stdout (stderr shares the capture but --quiet keeps it empty).
        let summary = outcome.output.firstIndex(of: "{").flatMap {
            try? JSONDecoder().decode(Summary.self, from: Data(outcome.output[$0...].utf8))
        }
        return (summary, outcome.output, outcome.status)
    }

    @Test func generatesIntoTheDatabaseOnceAndAgainAddsNothing() async throws {
        let configuration = try await TestDatabase.fresh("generate_db")
        let folder = try TestDatabase.temporaryFolder("generate-db")
        defer { try? FileManager.default.removeItem(at: folder) }
        let params = folder.appendingPathComponent("run.params.json")

        let first = try await Self.generate(into: configuration, params: params, folder: folder)
        #expect(first.status == 0, "\(first.output)")
        let report = try JSONDecoder().decode(GenerationReport.self, from: Data(contentsOf: params))
        let summary = try #require(first.summary, "\(first.output)")
        // Every distinct event lands once; the generator's duplicate lines are dropped.
        #expect(report.summary.duplicates > 0)
        #expect(summary.recorded == report.summary.lines)
        #expect(summary.committed == report.summary.events)
        #expect(summary.duplicates == report.summary.duplicates)
        #expect(summary.rejected == 0)

        let counts = try await TestDatabase.withConnection(configuration) { connection in
            let row = try connection.query(
                """
                SELECT count(*) AS n, count(DISTINCT event_id) AS d,
                       count(*) FILTER (WHERE received_at > $1) AS stamped,
                       count(DISTINCT session_id) AS sessions
                FROM events
                """, [.timestamp(Self.weekAfter(report.periodEnd))]
            ).first
            return (row?["n"].int ?? -1, row?["d"].int ?? -1, row?["stamped"].int ?? -1, row?["sessions"].int ?? -1)
        }
        #expect(counts.0 == report.summary.events)
        #expect(counts.1 == report.summary.events)
        // The generator's received_at is kept (late lines arrive at most 48 h late), not stamped now.
        #expect(counts.2 == 0)
        #expect(counts.3 == report.summary.sessions)

        let flows = try await TestDatabase.withConnection(configuration) { connection in
            try connection.query("SELECT flow_id, version, definition::text AS definition FROM flows").map {
                ($0["flow_id"].string ?? "", $0["version"].int ?? -1, $0["definition"].string ?? "")
            }
        }
        #expect(flows.map(\.0) == ["health-study"])
        #expect(flows.first?.1 == 1)
        let stored = try FlowDefinition.decode(from: Data((flows.first?.2 ?? "").utf8))
        #expect(stored == ExampleFlows.healthStudy)

        let second = try await Self.generate(into: configuration, params: params, folder: folder)
        #expect(second.status == 0, "\(second.output)")
        let again = try #require(second.summary, "\(second.output)")
        #expect(again.committed == 0)
        #expect(again.duplicates == report.summary.lines)
        let total = try await TestDatabase.withConnection(configuration) { connection in
            try connection.query("SELECT count(*) AS n FROM events").first?["n"].int
        }
        #expect(total == report.summary.events)
    }

    /// A week after an ISO 8601 instant: later than any generated line's receipt.
    static func weekAfter(_ text: String) -> Date {
        (Timestamp.parse(text) ?? Date()).addingTimeInterval(7 * 86_400)
    }
}
