import Foundation
import OnboardMetricsReader
import OnboardMetricsSDK

extension FunnelReport {
    /// How a flow funnel over `options` reads sessions: events of `[since, until + window)`,
    /// sessions closed after window + inactivity — and finished ones after the inactivity alone,
    /// since the flow funnel ignores what follows a flow's end. What `funnel report --flow` and
    /// the dashboard both read with.
    public static func reader(options: FunnelOptions) -> SessionReader {
        SessionReader(
            since: options.since, until: options.until.map { $0.addingTimeInterval(options.window) },
            closeAfter: options.window + options.inactivity, closeFinishedAfter: options.inactivity)
    }

    /// The flow funnel of `flow` over the sessions `sharded` reads (made with ``reader(options:)``),
    /// judged at `now` when `options` has no end.
    /// - Throws: `PostgresError` for a read.
    public static func read(
        flow: FlowDefinition, options: FunnelOptions, from sharded: ShardedReader, now: Date,
        progress: @escaping @Sendable (Int) -> Void = { _ in }
    ) async throws -> FunnelReport {
        try await sharded.report(progress: progress) { FunnelAggregator(flow: flow, options: options, now: now) }
    }
}
