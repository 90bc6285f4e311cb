import Foundation
import OnboardMetricsReader

/// What every report is built by: recorded sessions in, one at a time (``add(_:)``); partial
/// aggregates of other sessions merged in (``merge(_:)``); the report out (``report()``).
///
/// Merging is what makes parallel and sharded reads exact: adding sessions to several aggregates
/// and merging them equals adding all the sessions to one, whatever the order — counts add,
/// samples for exact quantiles concatenate, per-user state merges by user (a user's sessions may
/// sit on different shards).
///
/// Build a report from sessions in memory with ``report(of:)``, or from the database with
/// ``OnboardMetricsReader/ShardedReader/report(progress:_:)``:
///
/// ```swift
/// let report = try await reader.report { FunnelAggregator(flow: flow, options: options, now: Date()) }
/// ```
public protocol SessionAggregator: SessionConsumer {
    /// What the aggregate turns into.
    associatedtype Report: Sendable
    /// Adds another aggregate, built with the same options, of other sessions.
    mutating func merge(_ other: Self)
    /// The report of every session added or merged so far.
    mutating func report() throws -> Report
}

extension SessionAggregator {
    /// The report of `sessions` (in memory), added in order to this aggregate.
    /// - Throws: what ``add(_:)`` or ``report()`` throw (the simulation's `SimulationError`).
    public func report(of sessions: some Sequence<RecordedSession>) throws -> Report {
        var aggregate = self
        for session in sessions { try aggregate.add(session) }
        return try aggregate.report()
    }
}

extension ShardedReader {
    /// Reads every source in parallel into an aggregate of its own made by `make`, merges them
    /// in source order and returns their report: the one entry point every report is read through,
    /// on one connection, several, or the shards of a deployment.
    /// - Parameters:
    ///   - progress: called with the events read so far over all sources.
    ///   - make: a new, empty aggregate (called once per source).
    /// - Throws: `PostgresError` for a read, or what the aggregate threw.
    public func report<Aggregate: SessionAggregator>(
        progress: @escaping @Sendable (Int) -> Void = { _ in }, _ make: @escaping @Sendable () throws -> Aggregate
    ) async throws -> Aggregate.Report {
        var parts = try await read(progress: progress, make)
        guard !parts.isEmpty else {
            var empty = try make()
            return try empty.report()
        }
        // Each part taken out of the array before it is merged: the first then changes in place
        // (not a copy of the array's), and each other is freed once merged. Per user, where
        // every person is held to the end, the copies were a fifth of the peak.
        var merged = parts.removeFirst()
        while !parts.isEmpty { merged.merge(parts.removeFirst()) }
        return try merged.report()
    }
}
