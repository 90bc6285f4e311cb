import Foundation
import Testing

@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

/// `funnel` installed as a user would: the binary copied alone into an empty folder and run
/// there, with no source tree to find migrations or example flows in.
@Suite struct InstallTests {
    @Test func aCopiedBinaryMigratesAndReportsFromAnEmptyFolder() async throws {
        let folder = try TestDatabase.temporaryFolder("install")
        defer { try? FileManager.default.removeItem(at: folder) }
        let binary = folder.appendingPathComponent("funnel").path
        // Copied by cp, not by this process: a child that another test forks meanwhile would inherit
        // our descriptor of the new file, and running it would fail with "text file busy".
        let copied = try await FunnelProcess.run([TestDatabase.funnelExecutable, binary], executable: "/bin/cp")
        #expect(copied.status == 0, "\(copied.errors)")

        let version = try await FunnelProcess.run(["--version"], executable: binary, directory: folder)
        #expect(version.status == 0)
        #expect(version.output.trimmingCharacters(in: .whitespacesAndNewlines) == OnboardMetricsVersion.current)

        let url = TestDatabase.url(of: try await TestDatabase.fresh("install"))
        let migrated = try await FunnelProcess.run(
            ["migrate", "--database-url", url, "--format", "json"], executable: binary, directory: folder)
        #expect(migrated.status == 0, "\(migrated.errors)")
        let summary = try #require(
            try JSONSerialization.jsonObject(with: Data(migrated.output.utf8)) as? [String: Any])
        #expect(summary["applied"] as? [String] == BundledMigrations.files.map(\.name))
        let status = try await FunnelProcess.run(
            ["migrate", "--status", "--database-url", url, "--format", "csv"], executable: binary, directory: folder)
        #expect(status.output.split(separator: "\n").dropFirst().allSatisfy { $0.contains(",applied,") })

        // The README's example path, which does not exist in this folder: the copy in the binary.
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("examples").path))
        let report = try await FunnelProcess.run(
            ["report", "--flow", "examples/flows/health-study.json", "--database-url", url, "--format", "json"],
            executable: binary, directory: folder)
        #expect(report.status == 0, "\(report.errors)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(report.output.utf8)) as? [String: Any])
        #expect(json["flow_id"] as? String == "health-study")
    }
}
