import Foundation
import Testing

@testable import OnboardMetricsPostgres
@testable import OnboardMetricsSDK

/// A database, a key and a running `funnel serve` process; `close()` stops it. For the tests of
/// the command itself (its output, signals, restarts); the collector is tested in process
/// (``CollectorFixture``).
struct ServeFixture {
    var configuration: PostgresConfiguration
    var url: String
    var key: String
    var folder: URL
    var server: FunnelProcess
    var endpoint: URL

    static func start(_ name: String, _ serverArguments: [String] = []) async throws -> ServeFixture {
        let configuration = try await TestDatabase.migrated(name)
        let url = TestDatabase.url(of: configuration)
        let folder = try TestDatabase.temporaryFolder(name)
        let created = try await FunnelProcess.run(["keys", "create", "test app", "--database-url", url, "--quiet"])
        #expect(created.status == 0, "\(created.errors)")
        let key = created.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let (server, endpoint) = try await FunnelProcess.serve(
            ["--database-url", url, "--spool-dir", folder.appendingPathComponent("spool").path] + serverArguments)
        return ServeFixture(
            configuration: configuration, url: url, key: key, folder: folder, server: server, endpoint: endpoint)
    }

    /// Stops the server (from `defer`, which cannot await; a SIGTERM'd server exits at once).
    func close() {
        server.stopBlocking()
        try? FileManager.default.removeItem(at: folder)
    }

    func storedEvents() async throws -> [UUID: (sentAt: Date?, receivedAt: Date?)] {
        try await TestDatabase.storedStamps(configuration)
    }
}
