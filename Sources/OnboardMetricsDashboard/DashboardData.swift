import Foundation
import OnboardMetricsAnalysis
import OnboardMetricsPostgres
import OnboardMetricsReader
import OnboardMetricsSDK
import OnboardMetricsStore

/// What the pages read, through the same code paths as the CLI's reports (``ShardedReader``'s
/// deployment read, ``FunnelReport/read(flow:options:from:now:progress:)``, the experiment
/// aggregator), with the database the reports use. Read-only: nothing here writes.
package struct DashboardData: Sendable {
    /// The coordinator (or single server).
    package var database: PostgresConfiguration
    /// Connections per server a report reads on (`--read-connections`).
    package var connections = 1

    package init(database: PostgresConfiguration, connections: Int = 1) {
        self.database = database
        self.connections = connections
    }

    /// The newest version of every stored flow, by id.
    package func flows() async throws -> [FlowDefinition] {
        try await withConnection { try FlowStore().latest(on: $0) }
    }

    /// The newest stored version of flow `id`, as `funnel report --flow ID` finds it.
    package func flow(id: String) async throws -> FlowDefinition? {
        try await flows().first { $0.id == id }
    }

    /// Every stored experiment.
    package func experiments() async throws -> [ExperimentDefinition] {
        try await withConnection { try ExperimentStore().loadAll(on: $0) }
    }

    /// The stored experiment `key`, if any.
    package func experiment(key: String) async throws -> ExperimentDefinition? {
        try await withConnection { try ExperimentStore().load(key: key, on: $0) }
    }

    /// When the newest event of the deployment happened (over its shards), `nil` with none.
    package func newestEvent() async throws -> Date? {
        let database = database
        return try await BlockingIO.run {
            let connection = try PostgresConnection(configuration: database)
            defer { connection.close() }
            let topology = try ShardCatalog().loadIfMigrated(on: connection)
            guard topology.isSharded else { return try EventStore().newestEvent(on: connection) }
            var newest: Date?
            for shard in topology.shards {
                let shardConnection = try PostgresConnection(configuration: shard.configuration)
                defer { shardConnection.close() }
                if let date = try EventStore().newestEvent(on: shardConnection) {
                    newest = max(newest ?? date, date)
                }
            }
            return newest
        }
    }

    /// The flow funnel `funnel report --flow` prints for the same options.
    package func funnel(flow: FlowDefinition, options: FunnelOptions, now: Date) async throws -> FunnelReport {
        let deployment = try await ShardedReader.deployment(
            configuration: database, reader: FunnelReport.reader(options: options), connections: connections,
            people: options.unit == .user)
        return try await FunnelReport.read(flow: flow, options: options, from: deployment.reader, now: now)
    }

    /// The experiment report `funnel experiment KEY` prints for the same options.
    package func experiment(options: ExperimentOptions) async throws -> ExperimentReport {
        let deployment = try await ShardedReader.deployment(
            configuration: database, reader: options.reader, connections: connections, people: options.unit == .user)
        return try await deployment.reader.report { ExperimentAggregator(options: options) }
    }

    /// Any report over the deployment, read as the CLI reads it (`funnel retention`, `correlate`, `paths`).
    package func report<Aggregate: SessionAggregator>(
        reader: SessionReader, people: Bool, _ make: @escaping @Sendable () throws -> Aggregate
    ) async throws -> Aggregate.Report {
        let deployment = try await ShardedReader.deployment(
            configuration: database, reader: reader, connections: connections, people: people)
        return try await deployment.reader.report(make)
    }

    /// Per flow, started and completion over the last `days` days before `now`: one read for all
    /// flows, each counted as `funnel report --flow ID --since NOW-DAYS` counts it.
    package func summaries(flows: [FlowDefinition], days: Int, now: Date) async throws -> [String: FunnelReport.Totals]
    {
        guard !flows.isEmpty else { return [:] }
        var options = FunnelOptions()
        options.since = now.addingTimeInterval(-Double(days) * 86_400)
        let deployment = try await ShardedReader.deployment(
            configuration: database, reader: FunnelReport.reader(options: options), connections: connections)
        let prepared = options
        let reports = try await deployment.reader.report {
            FlowListAggregator(parts: flows.map { FunnelAggregator(flow: $0, options: prepared, now: now) })
        }
        var totals: [String: FunnelReport.Totals] = [:]
        for report in reports {
            if let all = report.groups.first { totals[report.flowID] = all.totals }
        }
        return totals
    }

    private func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T)
        async throws -> T
    {
        let database = database
        return try await BlockingIO.run {
            let connection = try PostgresConnection(configuration: database)
            defer { connection.close() }
            return try body(connection)
        }
    }
}
