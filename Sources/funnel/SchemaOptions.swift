import ArgumentParser
import Foundation
import OnboardMetrics

/// The migrations a command applies before it uses the database.
struct SchemaOptions: ParsableArguments {
    @Option(
        name: .customLong("migrations"),
        help: "The folder of migration files. Default: the ones built into funnel (see `funnel migrate`).")
    var migrationsDirectory: String?

    /// Applies the migrations not applied yet.
    func migrate(_ configuration: PostgresConfiguration, console: Console) async throws {
        try await migrate(configuration, console: console) { _ in }
    }

    /// Applies the migrations not applied yet, then runs `body` on the same connection: what a
    /// command reads first costs no connection of its own (a new server process, 2-3 ms).
    func migrate<Result: Sendable>(
        _ configuration: PostgresConfiguration, console: Console,
        then body: @escaping @Sendable (PostgresConnection) throws -> Result
    ) async throws -> Result {
        let migrator = try MigrationsLocation.migrator(migrationsDirectory)
        return try await BlockingIO.run {
            let connection = try PostgresConnection(configuration: configuration)
            defer { connection.close() }
            try migrator.migrate(on: connection) { console.status("applying \($0.fileName)") }
            return try body(connection)
        }
    }
}
