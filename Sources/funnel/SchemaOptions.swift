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
        let migrator = try MigrationsLocation.migrator(migrationsDirectory)
        try await BlockingIO.run {
            let connection = try PostgresConnection(configuration: configuration)
            defer { connection.close() }
            try migrator.migrate(on: connection) { console.status("applying \($0.fileName)") }
        }
    }
}
