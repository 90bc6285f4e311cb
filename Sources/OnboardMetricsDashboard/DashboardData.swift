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
    package var connections: Int?
    /// Sessions kept decoded between reports (`--cache-events`); `nil` reads PostgreSQL every time.
    package var cache: SessionCache?

    package init(database: PostgresConfiguration, connections: Int? = nil, cache: SessionCache? = nil) {
        self.database = database
        self.connections = connections
        self.cache = cache
    }

    /// The reader of the deployment, as the CLI's reports make it, reading from the cache where
    /// the cache keeps its sessions.
    private func reader(_ reader: SessionReader, people: Bool = false) async throws -> ShardedReader {
        // With kept sessions the read takes no connection of the set-up's.
        var sharded = try await ShardedReader.deployment(
            configuration: database, reader: reader, connections: connections, people: people,
            keepConnection: cache == nil
        ).reader
        sharded.cache = cache
        return sharded
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
        let sharded = try await reader(FunnelReport.reader(options: options), people: options.unit == .user)
        return try await FunnelReport.read(flow: flow, options: options, from: sharded, now: now)
    }

    /// The ad-hoc funnel `funnel report --steps` prints for the same options (from the cache too).
    package func adHocFunnel(_ funnel: AdHocFunnel, options: FunnelOptions) async throws -> AdHocFunnelReport {
        let sharded = try await reader(AdHocFunnelReport.reader(options: options), people: funnel.unit == .user)
        return try await AdHocFunnelReport.read(funnel: funnel, from: sharded)
    }

    /// The experiment report `funnel experiment KEY` prints for the same options.
    package func experiment(options: ExperimentOptions) async throws -> ExperimentReport {
        let sharded = try await reader(options.reader, people: options.unit == .user)
        return try await sharded.report { ExperimentAggregator(options: options) }
    }

    /// Any report over the deployment, read as the CLI reads it (`funnel retention`, `correlate`, `paths`).
    package func report<Aggregate: SessionAggregator>(
        reader: SessionReader, people: Bool, _ make: @escaping @Sendable () throws -> Aggregate
    ) async throws -> Aggregate.Report {
        return try await self.reader(reader, people: people).report(make)
    }

    /// What the home page shows of a flow: started and completion over the last 7 and 30 days,
    /// and sessions started per UTC day over the last 30 (oldest first, today last).
    package struct FlowSummary: Sendable {
        package var last7Days: FunnelReport.Totals?
        package var last30Days: FunnelReport.Totals?
        package var dailyStarted: [Int]
    }

    /// Per flow, its ``FlowSummary`` as of `now`: one read for every flow, each window counted as
    /// `funnel report --flow ID --since NOW-DAYS` counts it, the days as `funnel trends
    /// --interval day` does.
    package func summaries(flows: [FlowDefinition], now: Date) async throws -> [String: FlowSummary] {
        guard !flows.isEmpty else { return [:] }
        func since(_ days: Int) -> FunnelOptions {
            var options = FunnelOptions()
            options.since = now.addingTimeInterval(-Double(days) * 86_400)
            return options
        }
        let (last7, last30) = (since(7), since(30))
        // The sparkline's 30 UTC days end today; they start after NOW-30d, so the read covers them.
        let firstDay = Self.utcDayStart(now).addingTimeInterval(-29 * 86_400)
        var trend = TrendOptions()
        trend.interval = .day
        trend.funnel.since = firstDay
        let sharded = try await reader(FunnelReport.reader(options: last30))
        let prepared = trend
        let report = try await sharded.report {
            FlowListAggregator(
                parts: flows.map { FunnelAggregator(flow: $0, options: last7, now: now) }
                    + flows.map { FunnelAggregator(flow: $0, options: last30, now: now) },
                trends: flows.map { TrendAggregator(flow: $0, options: prepared, now: now) })
        }
        var summaries: [String: FlowSummary] = [:]
        for (index, flow) in flows.enumerated() {
            var daily = Array(repeating: 0, count: 30)
            for period in report.trends[index].series.flatMap(\.periods) {
                let day = Int((period.start.timeIntervalSince(firstDay) / 86_400).rounded(.down))
                if daily.indices.contains(day) { daily[day] += period.started }
            }
            summaries[flow.id] = FlowSummary(
                last7Days: report.funnels[index].groups.first?.totals,
                last30Days: report.funnels[flows.count + index].groups.first?.totals, dailyStarted: daily)
        }
        return summaries
    }

    /// Midnight UTC of `date`'s day.
    static func utcDayStart(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 / 86_400).rounded(.down) * 86_400)
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
