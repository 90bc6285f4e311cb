import Foundation
import OnboardMetricsPostgres
import OnboardMetricsStore

/// A PostgreSQL cluster of its own for a test run: created in a temporary folder, started, given
/// the schema, and removed again by ``stop()`` — for end-to-end tests of an app's or backend's own
/// reports against the real database, with nothing to configure.
///
/// It uses the same embedded cluster as `funnel db start` (PostgreSQL's `initdb` and `pg_ctl`
/// must be installed; as root, the server runs as the `postgres` user).
///
/// ```swift
/// let database = try await ThrowawayDatabase.start(migrations: Migrator(directory: migrationsURL))
/// defer { database.stop() }
/// let recorder = try EventRecorder(configuration: .init(database: database.configuration))
/// ```
public struct ThrowawayDatabase: Sendable {
    /// Settings that reach the database.
    public let configuration: PostgresConfiguration
    /// The database's URL (for `funnel --database-url` or `DATABASE_URL`).
    public let url: String
    /// The cluster's folder, removed by ``stop()``.
    public let folder: URL
    private let cluster: EmbeddedCluster

    /// Creates and starts a cluster in a new temporary folder and applies `migrations`.
    /// - Throws: what starting the cluster or migrating threw; the folder is removed then.
    public static func start(migrations: Migrator) async throws -> ThrowawayDatabase {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("onboardmetrics-throwaway-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // The server may run as the postgres user, which must reach the folder.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        let cluster = EmbeddedCluster(dataDirectory: folder.appendingPathComponent("postgres").path)
        do {
            let configuration = try await BlockingIO.run { try cluster.start() }
            try await BlockingIO.run {
                let connection = try PostgresConnection(configuration: configuration)
                defer { connection.close() }
                try migrations.migrate(on: connection)
            }
            return ThrowawayDatabase(configuration: configuration, url: cluster.url, folder: folder, cluster: cluster)
        } catch {
            _ = try? cluster.stop(mode: .immediate)
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    /// Stops the server (as an outage would: in-flight transactions are cut) and keeps its folder,
    /// for tests of what happens while a database is down; ``restart()`` brings it back.
    /// - Throws: `EmbeddedClusterError` when the server cannot be stopped.
    public func halt() throws {
        _ = try cluster.stop(mode: .immediate)
    }

    /// Starts the server again after ``halt()``, with the same data and URL.
    /// - Throws: `EmbeddedClusterError` when it cannot be started.
    public func restart() throws {
        _ = try cluster.start()
    }

    /// Stops the server and removes its folder.
    public func stop() {
        _ = try? cluster.stop(mode: .immediate)
        try? FileManager.default.removeItem(at: folder)
    }
}
