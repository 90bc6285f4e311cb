import Foundation
import Testing

@testable import OnboardMetricsGeneration

/// `funnel trends` end to end: generated health-study sessions (28 days from Monday 2026-01-05)
/// are ingested into a fresh database and the command runs as a user would run it.
@Suite struct TrendsCommandTests {
    @Test func weeklyTrendFromTheDatabase() async throws {
        let configuration = try await TestDatabase.migrated("trends_cli")
        let url = TestDatabase.url(of: configuration)
        let folder = try TestDatabase.temporaryFolder("trends")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sessions = 3_000
        try await FunnelProcess.generateAndIngest("health-study", sessions: sessions, seed: 18, into: folder, url: url)
        let flow = TestDatabase.packageRoot.appendingPathComponent("examples/flows/health-study.json").path

        let run = try await FunnelProcess.run([
            "trends", "--flow", flow, "--interval", "week", "--format", "json", "--database-url", url, "--quiet",
        ])
        #expect(run.status == 0, "\(run.errors)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect(report["interval"] as? String == "week")
        #expect(report["flow_id"] as? String == "health-study")
        let series = try #require(report["series"] as? [[String: Any]])
        #expect(series.count == 1)
        let periods = try #require(series.first?["periods"] as? [[String: Any]])
        // 28 days from a Monday: ISO weeks 2 to 5 (a session or two may start a moment later).
        let labels = periods.compactMap { $0["label"] as? String }
        #expect(Array(labels.prefix(4)) == ["2026-W02", "2026-W03", "2026-W04", "2026-W05"])
        let started = periods.compactMap { $0["started"] as? Int }.reduce(0, +)
        #expect(started == sessions)
        for period in periods where (period["started"] as? Int ?? 0) > 100 {
            let rate = try #require(period["completion_rate"] as? Double)
            let interval = try #require(period["interval"] as? [String: Double])
            #expect(try #require(interval["lower"]) <= rate && rate <= (interval["upper"] ?? 0))
            #expect(period["mostly_in_progress"] as? Bool == false)
            #expect((period["steps"] as? [[String: Any]])?.count == ExampleFlows.healthStudy.steps.count)
        }

        let byPlatform = try await FunnelProcess.run([
            "trends", "--flow", flow, "--interval", "month", "--by", "platform", "--format", "csv",
            "--database-url", url, "--quiet",
        ])
        #expect(byPlatform.status == 0)
        let lines = byPlatform.output.split(separator: "\n")
        #expect(lines.first?.hasPrefix("platform,period,started") == true)
        #expect(Set(lines.dropFirst().compactMap { $0.split(separator: ",").first }) == ["android", "ios", "web"])

        let page = folder.appendingPathComponent("trends.html").path
        let html = try await FunnelProcess.run([
            "trends", "--flow", flow, "--interval", "day", "--format", "html", "--output", page, "--database-url", url,
            "--quiet",
        ])
        #expect(html.status == 0)
        let written = try String(contentsOfFile: page, encoding: .utf8)
        #expect(written.contains("<section id=\"trend-health-study\""))
        #expect(written.contains("<polygon"))
        let text = try await FunnelProcess.run(["trends", "--flow", flow, "--database-url", url, "--quiet"])
        #expect(text.output.contains("Trend health-study v1 by week"))
        #expect(try await FunnelProcess.run(["trends", "--database-url", url]).status != 0)
    }
}
