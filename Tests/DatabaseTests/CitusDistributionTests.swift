import Foundation
import OnboardMetrics
import Testing

@testable import OnboardMetricsPostgres
@testable import OnboardMetricsStore

/// Issue 35 on plain PostgreSQL (Citus itself is checked by scripts/check-citus.sh, which CI
/// cannot run): a database without the citus extension is not taken for a coordinator, `funnel
/// migrate` says nothing of Citus, and a report asked to read Citus workers reads the server.
@Suite struct CitusDistributionTests {
    @Test func plainPostgreSQLIsNotACitusCoordinator() async throws {
        let configuration = try await TestDatabase.migrated("citus_plain")
        let (isCitus, placements) = try await TestDatabase.withConnection(configuration) { connection in
            (try CitusDistribution().isCitus(on: connection), try CitusPlacements.load(on: connection))
        }
        #expect(!isCitus)
        #expect(placements == nil)
    }

    @Test func migrateOnPlainPostgreSQLReportsNoCitusLayout() async throws {
        let configuration = try await TestDatabase.fresh("citus_migrate_plain")
        let url = TestDatabase.url(of: configuration)
        for expected in [try Migration.bundled().count, 0] {
            let run = try await FunnelProcess.run(["migrate", "--database-url", url, "--format", "json"])
            #expect(run.status == 0, "\(run.errors)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
            #expect(object["citus"] == nil)
            #expect((object["applied"] as? [String])?.count == expected)
            #expect(!run.errors.contains("citus"))
        }
    }

    @Test func aReportWithCitusWorkersOnPlainPostgreSQLReadsTheServer() async throws {
        let configuration = try await TestDatabase.migrated("citus_workers_plain")
        let url = TestDatabase.url(of: configuration)
        let folder = try TestDatabase.temporaryFolder("citus-plain")
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try await FunnelProcess.generateAndIngest("health-study", sessions: 200, seed: 5, into: folder, url: url)
        let flow = TestDatabase.packageRoot.appendingPathComponent("examples/flows/health-study.json").path
        // A fixed end: without one the report ends at the moment it runs.
        let arguments = [
            "report", "--flow", flow, "--until", "2100-01-01T00:00:00Z", "--format", "json", "--quiet",
            "--database-url",
            url,
        ]
        let plain = try await FunnelProcess.run(arguments)
        let asked = try await FunnelProcess.run(arguments + ["--citus-workers"])
        #expect(plain.status == 0 && asked.status == 0, "\(plain.errors) \(asked.errors)")
        #expect(plain.output.contains("\"eligible\""))
        #expect(asked.output == plain.output)
    }
}
