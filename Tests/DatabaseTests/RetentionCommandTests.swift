import Foundation
import Testing

/// `funnel retention` end to end: generated health-study sessions ingested into a fresh database,
/// the command run as a user would, its groups checked against `funnel report --per user`.
@Suite struct RetentionCommandTests {
    static let until = "2100-01-01T00:00:00Z"

    static func json(_ arguments: [String], url: String) async throws -> [String: Any] {
        let run = try await FunnelProcess.run(arguments + ["--format", "json", "--quiet", "--database-url", url])
        #expect(run.status == 0, "\(arguments): \(run.errors)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
    }

    @Test func groupsAgreeWithTheFunnelAndDaysAreObservedWhole() async throws {
        let configuration = try await TestDatabase.migrated("retention_cli")
        let url = TestDatabase.url(of: configuration)
        let folder = try TestDatabase.temporaryFolder("retention")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await FunnelProcess.generateAndIngest("health-study", sessions: 2_000, seed: 34, into: folder, url: url)
        let flow = TestDatabase.packageRoot.appendingPathComponent("examples/flows/health-study.json").path

        let retention = try await Self.json(
            ["retention", "--flow", flow, "--days", "0,1,7,30", "--until", Self.until], url: url)
        let funnel = try await Self.json(["report", "--flow", flow, "--per", "user", "--until", Self.until], url: url)
        let totals = try #require(
            ((funnel["groups"] as? [[String: Any]])?.first?["totals"]) as? [String: Any])
        let groups = try #require(retention["groups"] as? [[String: Any]])
        let units = Dictionary(
            uniqueKeysWithValues: groups.map { ($0["group"] as? String ?? "", $0["units"] as? Int ?? -1) })
        // The outcome groups are the flow funnel's own counts per user.
        #expect(units["completed"] == totals["completed"] as? Int)
        #expect(units["dropped"] == totals["dropped"] as? Int)
        #expect(units.values.reduce(0, +) == totals["started"] as? Int)
        #expect(retention["units"] as? Int == totals["started"] as? Int)
        for group in groups {
            let days = try #require(group["days"] as? [[String: Any]])
            #expect(days.map { $0["day"] as? Int } == [0, 1, 7, 30])
            // Day 0 holds the onboarding itself: everyone observed is retained.
            #expect(days[0]["retained"] as? Int == days[0]["eligible"] as? Int)
            for day in days {
                #expect((day["retained"] as? Int ?? -1) <= (day["eligible"] as? Int ?? -1))
            }
            // --until 2100 observes every day whole for everyone.
            #expect(days.allSatisfy { $0["eligible"] as? Int == group["units"] as? Int })
        }
        let differences = try #require(retention["differences"] as? [[String: Any]])
        #expect(differences.allSatisfy { $0["reference"] as? String == "dropped" })

        // Without --until the data's end is the newest event read (times corrected for clock skew,
        // so within the generator's skew of the newest stored occurred_at).
        let open = try await Self.json(["retention", "--flow", flow], url: url)
        let newest = try await TestDatabase.withConnection(configuration) { connection in
            try connection.query("SELECT extract(epoch FROM max(occurred_at))::float8 AS t FROM events").first?["t"]
                .double ?? 0
        }
        let dataEnd = try #require((open["data_end"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) })
        #expect(abs(dataEnd.timeIntervalSince1970 - newest) < 86_400, "\(dataEnd) vs \(newest)")

        let bad = try await FunnelProcess.run(["retention", "--flow", flow, "--by", "platform", "--database-url", url])
        #expect(bad.status != 0)
        #expect(bad.errors.contains("--by must be outcome, variant:EXPERIMENT or flow_version"))
        let badDays = try await FunnelProcess.run([
            "retention", "--flow", flow, "--days", "1,-2", "--database-url", url,
        ])
        #expect(badDays.errors.contains("'-2' is not one"))
    }
}
