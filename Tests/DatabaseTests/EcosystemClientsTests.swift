import Foundation
import OnboardMetrics
import Testing

@testable import OnboardMetricsSDK

/// The real analytics clients from PyPI — segment-analytics-python (gzip), rudder-sdk-python,
/// posthog — pointed at `funnel serve` on loopback, into PostgreSQL: every event once (resends
/// included), names and users as sent, an ad-hoc funnel and a mapped flow funnel with the counts
/// the driver's plan implies (scripts/ecosystem/drive_clients.py).
@Suite(.serialized) struct EcosystemClientsTests {
    static let mapping = #"""
        {"screens": {"Welcome": {"kind": "step_viewed", "flow_id": "signup", "flow_version": 1, "step_id": "welcome"}}}
        """#
    static let flow = #"""
        {"id": "signup", "version": 1, "title": "Sign-up", "steps": [{"id": "welcome"}, {"id": "profile"}]}
        """#

    /// The python of a venv holding the clients, made once per test run (scripts/ecosystem/clients.sh).
    static func python() async throws -> String {
        let work = ProcessInfo.processInfo.environment["ONBOARDMETRICS_TEST_WORK_DIR"] ?? NSTemporaryDirectory()
        let made = try await FunnelProcess.run(
            [Self.script("clients.sh"), work], executable: "/bin/bash")
        #expect(made.status == 0, "\(made.errors)")
        return made.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func script(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/ecosystem/\(name)").path
    }

    @Test(arguments: ["segment", "rudder", "posthog"])
    func realClientLandsEveryEventOnceAndFunnelsCount(client: String) async throws {
        let python = try await Self.python()
        let setup = try TestDatabase.temporaryFolder("ecosystem_\(client)_files")
        defer { try? FileManager.default.removeItem(at: setup) }
        let mappingFile = setup.appendingPathComponent("mapping.json")
        let flowFile = setup.appendingPathComponent("signup.json")
        try Data(Self.mapping.utf8).write(to: mappingFile)
        try Data(Self.flow.utf8).write(to: flowFile)
        let mapping = try EventMapping(contentsOf: mappingFile.path)
        let fixture = try await CollectorFixture.start("ecosystem_\(client)") { $0.collector.mapping = mapping }
        defer { fixture.close() }

        let driven = try await FunnelProcess.run(
            [Self.script("drive_clients.py"), client, fixture.endpoint.absoluteString, fixture.key, "t1"],
            executable: python)
        #expect(driven.status == 0, "\(driven.errors)")
        let parsed = try JSONSerialization.jsonObject(with: Data(driven.output.utf8))
        let summary = try #require(parsed as? [String: Any])
        #expect((summary["errors"] as? [Any])?.isEmpty == true, "\(summary)")
        let unique = try #require(summary["unique"] as? Int)
        #expect((summary["sent"] as? Int ?? 0) > unique)  // the resends

        // Every message once; names, kinds and users as the plan sent them.
        let rows = try await TestDatabase.withConnection(fixture.configuration) { connection in
            try connection.query("SELECT user_id, kind, name, step_id, flow_id FROM events").map {
                [
                    $0["user_id"].string ?? "", $0["kind"].string ?? "", $0["name"].string ?? "",
                    $0["step_id"].string ?? "", $0["flow_id"].string ?? "",
                ]
            }
        }
        #expect(rows.count == unique)
        #expect(Set(rows.map { $0[0] }) == Set((0..<10).map { "\(client)-t1-user-\($0)" }))
        func count(_ kind: String, _ name: String = "", step: String = "") -> Int {
            rows.filter { $0[1] == kind && $0[2] == name && $0[3] == step }.count
        }
        #expect(count("custom", "App Opened") == 10)
        #expect(count("custom", "Signup Tapped") == 6)
        #expect(count("custom", "Account Created") == 3)
        #expect(count("session_started") == 10)
        #expect(count("step_viewed", step: "welcome") == 10)  // the Welcome screen, through the mapping file
        #expect(count("step_completed", step: "welcome") == 10)
        #expect(count("step_viewed", step: "profile") == 7)
        #expect(count("flow_completed") == 4)

        // An ad-hoc funnel over the names: one derived session per user (events a second apart).
        let adHoc = try await FunnelProcess.run(
            [
                "report", "--steps", "App Opened,Signup Tapped,Account Created", "--format", "json", "--database-url",
                fixture.url, "--quiet",
            ])
        #expect(adHoc.status == 0, "\(adHoc.errors)")
        let adHocParsed = try JSONSerialization.jsonObject(with: Data(adHoc.output.utf8))
        let adHocJSON = try #require(adHocParsed as? [String: Any])
        let adHocRows = try #require(adHocJSON["rows"] as? [[String: Any]])
        #expect(adHocRows.map { $0["count"] as? Int } == [10, 6, 3])
        #expect(adHocJSON["units"] as? Int == 10)
        // The app's own names of events the convention made onboarding kinds still make a funnel
        // (issue 32: "Onboarding Started" and "Onboarding Completed" counted 0 before).
        let named = try await FunnelProcess.run(
            [
                "report", "--steps", "Onboarding Started,Signup Tapped,Onboarding Completed", "--format", "json",
                "--database-url", fixture.url, "--quiet",
            ])
        #expect(named.status == 0, "\(named.errors)")
        let namedJSON = try #require(try JSONSerialization.jsonObject(with: Data(named.output.utf8)) as? [String: Any])
        #expect((namedJSON["rows"] as? [[String: Any]])?.map { $0["count"] as? Int } == [10, 6, 4], "\(named.output)")

        // The mapped flow: started 10, welcome 10, profile 7, completed 4 (all inactive > 30 min: dropped).
        let report = try await FunnelProcess.run(
            ["report", "--flow", flowFile.path, "--format", "json", "--database-url", fixture.url, "--quiet"])
        #expect(report.status == 0, "\(report.errors)")
        let reportParsed = try JSONSerialization.jsonObject(with: Data(report.output.utf8))
        let json = try #require(reportParsed as? [String: Any])
        let group = try #require((json["groups"] as? [[String: Any]])?.first)
        let totals = try #require(group["totals"] as? [String: Any])
        #expect(totals["started"] as? Int == 10)
        #expect(totals["completed"] as? Int == 4)
        #expect(totals["dropped"] as? Int == 6)
        let steps = try #require(group["steps"] as? [[String: Any]])
        #expect(steps.map { $0["viewed"] as? Int } == [10, 7])

        // Nothing rejected; the format's requests counted.
        let metrics = String(decoding: try await ServeCommandTests.get(fixture.endpoint, "metrics").body, as: UTF8.self)
        let format = client == "posthog" ? "posthog" : "segment"
        #expect(metrics.contains("onboardmetrics_format_requests_total{format=\"\(format)\",status=\"200\"}"))
        #expect(!metrics.contains("onboardmetrics_events_rejected_by_reason_total{"))
    }
}
