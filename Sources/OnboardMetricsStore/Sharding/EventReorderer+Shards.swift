import Foundation
import OnboardMetricsPostgres

extension EventReorderer {
    /// Reorders the events of a deployment: the database `configuration` names and, when it is
    /// a coordinator, each of its shards after it (where a sharded deployment's events are),
    /// one database and one partition at a time. On a Citus coordinator, each worker's shards of
    /// `events` instead (``reorderCitusWorkers(_:coordinator:progress:)``): the coordinator's
    /// partitions hold no rows.
    /// - Parameters:
    ///   - configuration: the database (a single server or a coordinator).
    ///   - progress: called after each partition; `partition.shard` names the shard.
    /// - Returns: every partition of every database, in the order done.
    /// - Throws: `PostgresError` from the first database or partition that fails.
    public func reorderDeployment(
        _ configuration: PostgresConfiguration, progress: (Progress) -> Void = { _ in }
    ) throws -> ReorderSummary {
        let start = Date()
        let connection = try PostgresConnection(configuration: configuration)
        defer { connection.close() }
        if let placements = try CitusPlacements.load(on: connection) {
            let partitions = try reorderCitusWorkers(placements, coordinator: configuration, progress: progress)
            return ReorderSummary(partitions: partitions, seconds: Date().timeIntervalSince(start))
        }
        var partitions = try reorder(on: connection, progress: progress).partitions
        for shard in try ShardCatalog().loadIfMigrated(on: connection).shards {
            let shardConnection = try PostgresConnection(configuration: shard.configuration)
            defer { shardConnection.close() }
            partitions += try reorder(on: shardConnection, shard: shard.redactedURL, progress: progress).partitions
        }
        return ReorderSummary(partitions: partitions, seconds: Date().timeIntervalSince(start))
    }
}
