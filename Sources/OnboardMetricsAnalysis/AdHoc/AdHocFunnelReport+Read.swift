import Foundation
import OnboardMetricsReader

extension AdHocFunnelReport {
    /// How an ad-hoc funnel over `options` reads sessions: events of `[since, until + window)`,
    /// sessions closed after window + inactivity (finished flows are not closed early: an ad-hoc
    /// step may follow a flow's end). What `funnel report --steps` and the dashboard's `/funnel`
    /// both read with, so their reports are the same.
    public static func reader(options: FunnelOptions) -> SessionReader {
        SessionReader(
            since: options.since, until: options.until.map { $0.addingTimeInterval(options.window) },
            closeAfter: options.window + options.inactivity)
    }

    /// The ad-hoc funnel over the sessions `sharded` reads (made with ``reader(options:)``).
    /// - Throws: `PostgresError` for a read.
    public static func read(
        funnel: AdHocFunnel, from sharded: ShardedReader, progress: @escaping @Sendable (Int) -> Void = { _ in }
    ) async throws -> AdHocFunnelReport {
        try await sharded.report(progress: progress) { AdHocFunnelAggregator(funnel: funnel) }
    }
}
