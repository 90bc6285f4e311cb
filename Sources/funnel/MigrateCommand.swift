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
            migrations without applying anything.
            """)

    @Flag(help: "List applied and pending migrations; apply nothing.")
    var status = false

    @Option(
        name: .customLong("migrations"),
        help:
            "The folder of migration files. Default: ONBOARDMETRICS_MIGRATIONS, ./migrations, or the one beside the package."
    )
    var migrationsDirectory: String?

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let console = output.console
        let migrator = try Migrator(directory: try MigrationsLocation.resolve(migrationsDirectory))
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
        let summary = MigrationSummary(applied: applied.map(\.fileName), total: migrator.migrations.count)
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
}

/// Finds the migrations folder when none is given.
enum MigrationsLocation {
    static func resolve(_ explicit: String?) throws -> URL {
        if let explicit { return URL(fileURLWithPath: explicit) }
        if let configured = ProcessInfo.processInfo.environment["ONBOARDMETRICS_MIGRATIONS"], !configured.isEmpty {
            return URL(fileURLWithPath: configured)
        }
        let fileManager = FileManager.default
        let local = URL(fileURLWithPath: fileManager.currentDirectoryPath).appendingPathComponent("migrations")
        if fileManager.fileExists(atPath: local.appendingPathComponent("0001_event_schema.sql").path) { return local }
        // Built from a checkout: .build/<config>/funnel sits a few folders below the package root.
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        for _ in 0..<6 {
            let candidate = folder.appendingPathComponent("migrations")
            if fileManager.fileExists(atPath: candidate.appendingPathComponent("0001_event_schema.sql").path) {
                return candidate
            }
            folder.deleteLastPathComponent()
        }
        throw ValidationError("no migrations folder found; pass --migrations DIR or set ONBOARDMETRICS_MIGRATIONS")
    }
}
