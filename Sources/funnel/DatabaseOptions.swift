import ArgumentParser
import Foundation
import OnboardMetrics

/// Where the database is: shared by every command that talks to PostgreSQL.
struct DatabaseOptions: ParsableArguments {
    @Option(
        name: .customLong("database-url"),
        help: ArgumentHelp(
            "A libpq connection string or URI (postgresql://user@host/db).",
            discussion: "Default: DATABASE_URL, then the PG* variables (PGHOST, PGDATABASE, ...), "
                + "then the embedded cluster, created and started on first use."))
    var databaseURL: String?

    @Option(
        name: .customLong("data-dir"),
        help: ArgumentHelp(
            "The embedded cluster's data folder.",
            discussion:
                "Default: ONBOARDMETRICS_DATA_DIR, else ./.onboardmetrics/postgres. Used only when no database is configured."
        ))
    var dataDirectory: String?

    @OptionGroup var logging: LoggingOptions

    /// The embedded cluster these options name.
    var embeddedCluster: EmbeddedCluster {
        dataDirectory.map(EmbeddedCluster.init(dataDirectory:)) ?? EmbeddedCluster.fromEnvironment()
    }

    /// The configured database, or the embedded cluster, started if needed. Sets up logging
    /// first (``LoggingOptions``), unless the command already did.
    func resolve(console: Console) async throws -> PostgresConfiguration {
        try logging.bootstrap(fallback: console.quiet ? .error : .notice)
        if let databaseURL { return PostgresConfiguration(databaseURL) }
        if let configured = PostgresConfiguration.fromEnvironment(ProcessInfo.processInfo.environment) {
            return configured
        }
        let cluster = embeddedCluster
        return try await BlockingIO.run { try cluster.start(progress: { console.status($0) }) }
    }
}

/// How results are printed.
struct OutputOptions: ParsableArguments {
    @Option(help: "Output format: text, json, csv or markdown.")
    var format: ReportFormat = .text

    @Flag(name: .shortAndLong, help: "Print no progress or status lines on stderr.")
    var quiet = false

    var console: Console { Console(quiet: quiet) }
}

extension ReportFormat: ExpressibleByArgument {}
