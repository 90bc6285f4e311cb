import Foundation
import OnboardMetrics
import Testing

/// The example app package (examples/onboarding-app, which depends on the SDK product alone)
/// drives the five scenario flows through `OnboardingModel` and `HTTPTransport` against a real
/// `funnel serve`: every event it recorded lands once in PostgreSQL.
@Suite(.serialized) struct SDKExampleAppTests {
    static func exampleExecutable() throws -> String {
        guard let path = ProcessInfo.processInfo.environment["ONBOARDMETRICS_SDK_EXAMPLE"], !path.isEmpty else {
            throw TestDatabase.NotConfigured()
        }
        return path
    }

    @Test func theExampleAppsEventsLandOnceAndReplayAsFlows() async throws {
        let executable = try Self.exampleExecutable()
        // A `funnel serve` process of its own, as an app meets it: a collector in this process,
        // beside the other suites, answered so slowly under the full suite on CI (160-209 s for
        // what takes 1.3 s alone) that the app's requests timed out.
        let fixture = try await ServeFixture.start("sdk_example")
        defer { fixture.close() }
        let flows = TestDatabase.packageRoot.appendingPathComponent("examples/flows").path
        let arguments = [
            "--endpoint", fixture.endpoint.absoluteString, "--key", fixture.key, "--flows", flows, "--users", "30",
            "--outbox", fixture.folder.appendingPathComponent("outbox").path,
        ]
        let run = try await FunnelProcess.run(arguments, executable: executable)
        #expect(run.status == 0, "\(run.errors)")
        let counters = try #require(
            try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Int], "\(run.output)")
        let recorded = try #require(counters["recorded"])
        #expect(recorded > 500)
        #expect(counters["sent"] == recorded)
        #expect(counters["dropped"] == 0 && counters["rejected"] == 0 && counters["queued"] == 0)

        let (rows, distinct, sessions, flowIDs) = try await TestDatabase.withConnection(fixture.configuration) {
            connection in
            let row = try connection.query(
                "SELECT count(*) AS n, count(DISTINCT event_id) AS d, count(DISTINCT session_id) AS s FROM events"
            ).first
            let flows = try connection.query("SELECT DISTINCT flow_id FROM events WHERE flow_id IS NOT NULL")
                .compactMap { $0["flow_id"].string }
            return (row?["n"].int ?? -1, row?["d"].int ?? -1, row?["s"].int ?? -1, Set(flows))
        }
        #expect(rows == recorded)
        #expect(distinct == rows)
        #expect(sessions == counters["sessions"])
        #expect(
            flowIDs == [
                "health-study", "board-creation", "spotlight-share", "enterprise-first-run", "enterprise-restore",
                "login", "account",
            ])

        // What the app recorded replays as flows.
        let report = try await FunnelProcess.run([
            "report", "--flow", flows + "/health-study.json", "--format", "json", "--database-url", fixture.url,
            "--quiet",
        ])
        #expect(report.status == 0, "\(report.errors)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(report.output.utf8)) as? [String: Any])
        let groups = try #require(json["groups"] as? [[String: Any]])
        let totals = try #require(groups.first?["totals"] as? [String: Any])
        #expect((totals["started"] as? Int ?? 0) > 10)
    }
}
