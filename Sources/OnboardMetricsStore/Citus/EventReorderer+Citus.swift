import Foundation
import OnboardMetricsPostgres

extension EventReorderer {
    /// Reorders the events of a Citus coordinator on its workers. The coordinator's partitions
    /// of `events` hold no rows, and Citus cannot run the order measure (a sampled read with a
    /// `LIMIT` in a lateral subquery) on a distributed table; on a worker, though, each shard of
    /// a month's partition is a plain table. So each worker's shard tables of `events`
    /// (``CitusPlacements``) are measured, `CLUSTER`ed and analyzed there, on a connection to
    /// that worker, one partition shard at a time, exactly as a single server's partitions.
    /// - Parameters:
    ///   - placements: the workers and their shard tables of `events`.
    ///   - coordinator: the coordinator's configuration (its user, password and database are
    ///     used on the workers).
    ///   - progress: called after each partition shard; `partition.shard` is the worker's
    ///     `host:port`.
    /// - Returns: every partition shard of every worker, in the order done.
    /// - Throws: `PostgresError` from the first worker or partition shard that fails.
    func reorderCitusWorkers(
        _ placements: CitusPlacements, coordinator: PostgresConfiguration, progress: (Progress) -> Void
    ) throws -> [ReorderSummary.Partition] {
        var partitions: [ReorderSummary.Partition] = []
        for worker in placements.workers where !worker.tables.isEmpty {
            let connection = try PostgresConnection(configuration: worker.configuration(from: coordinator))
            defer { connection.close() }
            // Citus leaves shards out of pg_class for applications it does not know, and the
            // partition list reads pg_class.
            try connection.query("SET citus.show_shards_for_app_name_prefixes = '*'")
            partitions +=
                try reorder(
                    on: connection, shard: "\(worker.host):\(worker.port)", roots: worker.tables, progress: progress
                ).partitions
        }
        return partitions
    }
}
