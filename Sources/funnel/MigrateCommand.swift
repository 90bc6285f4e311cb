import ArgumentParser
import Foundation
import OnboardMetrics

struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply the schema migrations (migrations/NNNN_*.sql) that are not applied yet.",
        discussion: """
            Each migration runs once, in its own transaction, and is recorded with a checksum. \
            Concurrent runs are safe (an advisory lock serializes them). A migration whose file \
            changed after it was applied is refused. With --status, lists applied and pending \
            migrations without applying anything. On a Citus coordinator (the citus extension \
            installed, workers added), it then distributes events and sessions by session_id \
            (colocated, 64 shards) and makes the small tables reference tables; a second run \
            changes nothing.
            """)

    @Flag(help: "List applied and pending migrations; apply nothing.")
    var status = false

    @Option(
        name: .customLong("migrations"),
        help:
            "The folder of migration files. Default: ONBOARDMETRICS_MIGRATIONS, else the ones built into funnel."
    )
    var migrationsDirectory: String?

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let console = output.console
        let migrator = try MigrationsLocation.migrator(migrationsDirectory)
        let configuration = try await database.resolve(console: console)
        if status {
            let statuses = try await BlockingIO.run {
                let connection = try PostgresConnection(configuration: configuration)
                return try migrator.status(on: connection)
            }
            try printStatus(statuses, console: console)
            return
        }
        let applied = try await BlockingIO.run {
            let connection = try PostgresConnection(configuration: configuration)
            return try migrator.migrate(on: connection) { console.status("applying \($0.fileName)") }
        }
        // A coordinator's shards get the same schema; its SQL view of them follows the topology.
        let shardResults = try await BlockingIO.run {
            let connection = try PostgresConnection(configuration: configuration)
            defer { connection.close() }
            guard try ShardCatalog().loadIfMigrated(on: connection).isSharded else { return [(String, Int)]() }
            let results = try ShardCatalog().migrateShards(on: connection, migrator: migrator)
            do {
                try ShardForeignTables().rebuild(on: connection)
            } catch {
                console.status("warning: sharded.events (postgres_fdw) not rebuilt: \(error)")
            }
            return results.map { ($0.0, $0.1.count) }
        }
        // On a Citus coordinator the events are spread by Citus itself (docs/SCALING.md).
        let citus = try await BlockingIO.run { () -> CitusDistribution.Summary? in
            let connection = try PostgresConnection(configuration: configuration)
            defer { connection.close() }
            let distribution = CitusDistribution()
            guard try distribution.isCitus(on: connection) else { return nil }
            return try distribution.distribute(on: connection)
        }
        if let citus {
            console.status(
                citus.isEmpty
                    ? "citus: already distributed"
                    : "citus: distributed \((citus.distributed + citus.reference + citus.functions).joined(separator: ", "))"
            )
        }
        for (shard, count) in shardResults {
            console.status("shard \(shard): applied \(count) migration\(count == 1 ? "" : "s")")
        }
        let summary = MigrationSummary(
            applied: applied.map(\.fileName), total: migrator.migrations.count, citus: citus)
        switch output.format {
        case .json: try console.printJSON(summary)
        default:
            console.print(
                applied.isEmpty
                    ? "database is up to date (\(summary.total) migrations applied earlier)"
                    : "applied \(applied.count) migration\(applied.count == 1 ? "" : "s"); database is up to date")
        }
    }

    private func printStatus(_ statuses: [Migrator.Status], console: Console) throws {
        let rows = statuses.map {
            MigrationRow(version: $0.version, file: $0.fileName, state: $0.state.rawValue, appliedAt: $0.appliedAt)
        }
        let formatter = ISO8601DateFormatter()
        let table = rows.map {
            [String($0.version), $0.file, $0.state, $0.appliedAt.map(formatter.string(from:)) ?? ""]
        }
        switch output.format {
        case .json: try console.printJSON(["migrations": rows])
        case .csv: console.print(TextTable(header: ["version", "file", "state", "applied_at"], rows: table).csv)
        case .markdown:
            console.print(TextTable(header: ["version", "file", "state", "applied_at"], rows: table).markdown)
        case .text: console.print(TextTable(header: ["VERSION", "FILE", "STATE", "APPLIED AT"], rows: table).text)
        }
    }
}

private struct MigrationRow: Encodable {
    let version: Int
    let file: String
    let state: String
    let appliedAt: Date?
}

private struct MigrationSummary: Encodable {
    let applied: [String]
    let total: Int
    /// Only on a Citus coordinator (absent from the JSON elsewhere).
    let citus: CitusDistribution.Summary?
}

/// The migrations a command applies: the folder given (or ONBOARDMETRICS_MIGRATIONS), else the
/// ones the binary carries, so an installed `funnel` works from any folder.
enum MigrationsLocation {
    static func migrator(_ explicit: String?) throws -> Migrator {
        if let explicit { return try Migrator(directory: URL(fileURLWithPath: explicit)) }
        if let configured = ProcessInfo.processInfo.environment["ONBOARDMETRICS_MIGRATIONS"], !configured.isEmpty {
            return try Migrator(directory: URL(fileURLWithPath: configured))
        }
        return Migrator(migrations: try Migration.bundled())
    }
}
