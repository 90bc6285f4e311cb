import Foundation
import Testing

@testable import OnboardMetricsPostgres
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

/// The throwaway PostgreSQL server `scripts/test.sh` starts, and a database of its own per suite.
enum TestDatabase {
    struct NotConfigured: Error, CustomStringConvertible {
        var description: String {
            "database tests need a PostgreSQL server: run `bash scripts/test.sh` (it starts a throwaway "
                + "cluster and sets ONBOARDMETRICS_TEST_DATABASE_URL), or set ONBOARDMETRICS_TEST_DATABASE_URL yourself"
        }
    }

    /// The server's administrative URL, or a failure telling how to run database tests. Never a skip.
    static func adminURL() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["ONBOARDMETRICS_TEST_DATABASE_URL"], !url.isEmpty else {
            throw NotConfigured()
        }
        return url
    }

    /// Settings for the administrative database.
    static func admin() throws -> PostgresConfiguration {
        PostgresConfiguration(try adminURL())
    }

    /// Drops and creates the database `test_<name>`; returns settings that reach it.
    static func fresh(_ name: String) async throws -> PostgresConfiguration {
        let admin = try admin()
        let database = "test_" + name.lowercased().filter { $0.isLetter || $0.isNumber || $0 == "_" }
        try await BlockingIO.run {
            let connection = try PostgresConnection(configuration: admin)
            // Identifiers cannot be parameters; this one is built from letters, digits and '_' only.
            try connection.query("DROP DATABASE IF EXISTS \(database) WITH (FORCE)")
            try connection.query("CREATE DATABASE \(database)")
        }
        return admin.database(database)
    }

    /// A fresh database with the project's migrations applied.
    static func migrated(_ name: String) async throws -> PostgresConfiguration {
        let configuration = try await fresh(name)
        let migrator = try Migrator(directory: migrationsDirectory)
        try await BlockingIO.run {
            let connection = try PostgresConnection(configuration: configuration)
            try migrator.migrate(on: connection)
        }
        return configuration
    }

    /// Runs `body` with a new connection to `configuration`, on a blocking-work thread.
    /// Every stored event's `sent_at` and `received_at`, by event id (what the collector tests check).
    static func storedStamps(
        _ configuration: PostgresConfiguration
    ) async throws -> [UUID: (sentAt: Date?, receivedAt: Date?)] {
        try await withConnection(configuration) { connection in
            var stored: [UUID: (Date?, Date?)] = [:]
            for row in try connection.query("SELECT event_id, sent_at, received_at FROM events") {
                if let id = row["event_id"].uuid { stored[id] = (row["sent_at"].date, row["received_at"].date) }
            }
            return stored
        }
    }

    static func withConnection<T: Sendable>(
        _ configuration: PostgresConfiguration, _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws -> T {
        try await BlockingIO.run {
            let connection = try PostgresConnection(configuration: configuration)
            defer { connection.close() }
            return try body(connection)
        }
    }

    /// The package's root folder.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The project's migrations/ folder.
    static var migrationsDirectory: URL { packageRoot.appendingPathComponent("migrations") }

    /// The built `funnel` executable.
    static var funnelExecutable: String {
        ProcessInfo.processInfo.environment["ONBOARDMETRICS_FUNNEL"]
            ?? packageRoot.appendingPathComponent(".build/debug/funnel").path
    }

    /// A new empty folder that the postgres system user can reach, removed by the caller.
    static func temporaryFolder(_ name: String) throws -> URL {
        let base = ProcessInfo.processInfo.environment["ONBOARDMETRICS_TEST_WORK_DIR"] ?? NSTemporaryDirectory()
        let folder = URL(fileURLWithPath: base).appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        return folder
    }
}
