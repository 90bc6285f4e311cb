import Foundation
import OnboardMetrics

/// Progress of a read over the events table: a bar on stderr against PostgreSQL's own estimate
/// of the rows (from the planner statistics), silent when stderr is not a terminal or with --quiet.
struct ReplayProgress: Sendable {
    private let bar: ProgressBar
    private let estimate: Double

    /// Reads the row estimate; call on the connection's thread before the read starts.
    init(quiet: Bool, connection: PostgresConnection) throws {
        self.init(quiet: quiet, estimate: try EventStore().estimatedCount(on: connection))
    }

    /// A bar against a known row estimate (a sharded read sums its shards').
    init(quiet: Bool, estimate: Double) {
        bar = ProgressBar(enabled: !quiet && isatty(STDERR_FILENO) == 1)
        self.estimate = estimate
    }

    /// Called with the number of events read so far.
    func update(_ read: Int) {
        bar.draw(fraction: estimate > 0 ? Double(read) / estimate : 0, count: read, unit: "events")
    }

    /// Clears the bar before the report is printed.
    func finish() { bar.clear() }
}

extension ReplayProgress {
    /// Runs a report over the events table off the cooperative pool: opens a connection, shows
    /// progress while `body` reads, and closes both.
    static func run<T: Sendable>(
        configuration: PostgresConfiguration, quiet: Bool,
        _ body: @escaping @Sendable (PostgresConnection, ReplayProgress) throws -> T
    ) async throws -> T {
        try await BlockingIO.run {
            let connection = try PostgresConnection(configuration: configuration)
            defer { connection.close() }
            let progress = try ReplayProgress(quiet: quiet, connection: connection)
            defer { progress.finish() }
            return try body(connection, progress)
        }
    }
}

extension ReplayProgress {
    /// Runs a report over a deployment's sessions: `body` gets a ``ShardedReader`` over its
    /// shards — or over the coordinator itself when it has none, on `--read-connections` connections —
    /// and the progress to report to (a bar against the row estimates of every server read).
    /// With `people`, a session's user is its person: the identity links of every server read
    /// are merged first (``PersonLinks``), and how many ids were merged is said on stderr.
    static func runDeployment<T: Sendable>(
        configuration: PostgresConfiguration, quiet: Bool, reader: SessionReader, read: ReadOptions,
        people: Bool = false, _ body: @Sendable (ShardedReader, ReplayProgress) async throws -> T
    ) async throws -> T {
        var reader = reader
        reader.source = read.source
        var deployment = try await ShardedReader.deployment(
            configuration: configuration, reader: reader, connections: read.connections, people: people,
            cohort: read.cohort, citusWorkers: read.citusWorkers)
        deployment.reader.sessionFiles = read.sessionFileStore()
        if let cohort = deployment.cohort {
            Console(quiet: quiet).status(
                "cohort \(cohort.name): \(cohort.members.count) \(cohort.unit.rawValue)s"
                    + (cohort.description.isEmpty ? "" : " (\(cohort.description))"))
        }
        if let resolved = deployment.people {
            Console(quiet: quiet).status(
                "identity: \(resolved.mergedIDs) ids merged into \(resolved.mergedPeople) people "
                    + "(identify and alias calls)")
        }
        let progress = ReplayProgress(quiet: quiet, estimate: deployment.estimatedEvents)
        defer { progress.finish() }
        return try await body(deployment.reader, progress)
    }
}
