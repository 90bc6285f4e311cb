import Foundation
import OnboardMetricsPostgres

/// Where a Citus coordinator keeps the shards of `events`: for each worker, the shard tables it
/// holds (`events_102008`, ...; each a partitioned table with the month partitions' shards), read
/// from `pg_dist_shard`, `pg_dist_placement` and `pg_dist_node`. A report can then read every
/// worker on connections of its own instead of through the coordinator, which would gather and
/// sort every row itself.
public struct CitusPlacements: Sendable, Hashable {
    /// One worker and the shard tables of `events` placed on it.
    public struct Worker: Sendable, Hashable {
        /// The worker's host and port, as the coordinator reaches it (`pg_dist_node`).
        public var host: String
        /// The worker's port.
        public var port: Int
        /// The shard tables, by shard id.
        public var tables: [String]

        /// The coordinator's configuration with this worker's host and port (same user,
        /// password and database: Citus requires the database name to be the same on every node).
        public func configuration(from coordinator: PostgresConfiguration) -> PostgresConfiguration {
            var copy = coordinator
            copy.overrides["host"] = host
            copy.overrides["port"] = String(port)
            return copy
        }
    }

    /// The workers holding shards of `events`, by host and port.
    public var workers: [Worker]

    /// Loads the placements of `events` from a coordinator; `nil` when the database is not a
    /// Citus coordinator with `events` distributed.
    /// - Throws: `PostgresError`; ``ShardingError`` `.citusPlacement` for a shard without an active
    ///   primary placement (a report would miss its sessions) or a shard name that is not a plain
    ///   identifier.
    public static func load(on connection: PostgresConnection) throws -> CitusPlacements? {
        guard try CitusDistribution().isCitus(on: connection),
            try CitusDistribution().layout(on: connection)["events"] == "h"
        else { return nil }
        let rows = try connection.query(
            """
            SELECT s.shardid, shard_name('events'::regclass, s.shardid) AS name,
                   n.nodename::text AS host, n.nodeport AS port
            FROM pg_dist_shard s
            LEFT JOIN pg_dist_placement p ON p.shardid = s.shardid
            LEFT JOIN pg_dist_node n ON n.groupid = p.groupid AND n.noderole = 'primary' AND n.isactive
            WHERE s.logicalrelid = 'events'::regclass
            ORDER BY s.shardid, n.nodeid
            """)
        var byNode: [String: Worker] = [:]
        var order: [String] = []
        var placed = Set<String>()
        for row in rows {
            guard let name = row["name"].string, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" })
            else { throw ShardingError(.citusPlacement, "a Citus shard of events has an unexpected name") }
            // A shard with several placements (replication) is read once, on its first node.
            guard !placed.contains(name) else { continue }
            guard let host = row["host"].string, let port = row["port"].int else { continue }
            placed.insert(name)
            let key = "\(host):\(port)"
            if byNode[key] == nil {
                byNode[key] = Worker(host: host, port: port, tables: [])
                order.append(key)
            }
            byNode[key]?.tables.append(name)
        }
        let shards = Set(rows.compactMap { $0["name"].string })
        guard placed == shards else {
            throw ShardingError(
                .citusPlacement,
                "\(shards.count - placed.count) Citus shard(s) of events have no active primary placement")
        }
        return CitusPlacements(workers: order.compactMap { byNode[$0] })
    }
}
