import Foundation
import Testing

/// Cohorts end to end: `funnel users --save-cohort` saves who is listed, and `--cohort` restricts
/// any report to them.
@Suite struct CohortTests {
    static let until = "2100-01-01T00:00:00Z"

    static func json(_ arguments: [String], url: String) async throws -> [String: Any] {
        let run = try await FunnelProcess.run(
            arguments + ["--until", until, "--format", "json", "--quiet", "--database-url", url])
        #expect(run.status == 0, "\(arguments): \(run.errors)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
    }

    static func totals(_ report: [String: Any]) throws -> [String: Int] {
        let totals = try #require((report["groups"] as? [[String: Any]])?.first?["totals"] as? [String: Any])
        return totals.compactMapValues { $0 as? Int }
    }

    @Test func aSavedCohortRestrictsEveryReport() async throws {
        let configuration = try await TestDatabase.migrated("cohorts")
        let url = TestDatabase.url(of: configuration)
        let folder = try TestDatabase.temporaryFolder("cohorts")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await FunnelProcess.generateAndIngest("health-study", sessions: 1_500, seed: 41, into: folder, url: url)
        let flow = TestDatabase.packageRoot.appendingPathComponent("examples/flows/health-study.json").path

        // The users who dropped at consent, saved as a cohort.
        let save = try await Self.json(
            [
                "users", "--flow", flow, "--step", "consent", "--status", "dropped", "--per", "user",
                "--save-cohort", "consent-droppers",
            ], url: url)
        let saved = try #require(save["units"] as? Int)
        #expect(saved > 10)
        // Their funnel: all of them started and dropped, none completed, each at consent.
        let theirs = try Self.totals(
            try await Self.json(["report", "--flow", flow, "--per", "user", "--cohort", "consent-droppers"], url: url))
        #expect(theirs["started"] == saved)
        #expect(theirs["completed"] == 0)
        #expect(theirs["dropped"] == saved)
        // Other reports take it too, and agree on who is in it.
        let retention = try await Self.json(
            ["retention", "--flow", flow, "--cohort", "consent-droppers", "--days", "1"], url: url)
        #expect(retention["units"] as? Int == saved)
        let listed = try await Self.json(
            ["users", "--flow", flow, "--status", "viewed", "--per", "user", "--cohort", "consent-droppers"], url: url)
        #expect(listed["units"] as? Int == saved)

        // A cohort of sessions: the completed sessions; their funnel completes every one.
        _ = try await Self.json(
            ["users", "--flow", flow, "--status", "completed", "--save-cohort", "finishers"], url: url)
        let finishers = try Self.totals(
            try await Self.json(["report", "--flow", flow, "--cohort", "finishers"], url: url))
        let everyone = try Self.totals(try await Self.json(["report", "--flow", flow], url: url))
        #expect(finishers["started"] == everyone["completed"])
        #expect(finishers["completed"] == everyone["completed"])

        // Saving over a name needs --replace; a bad name or an unknown cohort is a clear error.
        let again = try await FunnelProcess.run([
            "users", "--flow", flow, "--status", "completed", "--save-cohort", "finishers", "--database-url", url,
        ])
        #expect(again.status == 65)
        #expect(again.errors.contains("pass --replace"))
        let replaced = try await FunnelProcess.run([
            "users", "--flow", flow, "--status", "dropped", "--save-cohort", "finishers", "--replace", "--quiet",
            "--database-url", url,
        ])
        #expect(replaced.status == 0, "\(replaced.errors)")
        let dropped = try Self.totals(
            try await Self.json(["report", "--flow", flow, "--cohort", "finishers"], url: url))
        #expect(dropped["completed"] == 0)
        #expect(dropped["started"] == everyone["dropped"])
        let unknown = try await FunnelProcess.run(["report", "--flow", flow, "--cohort", "nope", "--database-url", url])
        #expect(unknown.status == 65)
        #expect(unknown.errors.contains("no cohort named \"nope\" (saved: consent-droppers, finishers)"))
        let badName = try await FunnelProcess.run([
            "users", "--flow", flow, "--save-cohort", "bad name", "--database-url", url,
        ])
        #expect(badName.status != 0)
        #expect(badName.errors.contains("must be 1-64 letters"))
    }
}
