import Foundation
import Testing

@testable import OnboardMetricsPostgres
@testable import OnboardMetricsStore

/// `funnel reorder` on a Citus coordinator reorders each worker's shards of `events`, on a
/// connection to that worker (Citus itself: scripts/check-citus.sh, which CI cannot run). Here
/// this server plays two workers, each holding a table shaped like a Citus shard of `events`
/// (`events_102008`: partitioned by event id, a month partition's shard and the default one's),
/// filled in shuffled order; the database's own `events` must be left alone.
@Suite struct EventReordererCitusTests {
    static let shardTables = ["events_102008", "events_102009"]

    /// Whether the rows of `table` lie in its heap in key order (physical order is ctid order).
    static func heapInKeyOrder(_ table: String, on connection: PostgresConnection) throws -> Bool? {
        try connection.query(
            """
            SELECT coalesce(bool_and(previous < event_id), true) AS ordered
            FROM (SELECT event_id, lag(event_id) OVER (ORDER BY ctid) AS previous FROM \(table)) pairs
            WHERE previous IS NOT NULL
            """
        ).first?["ordered"].bool
    }

    @Test func reordersEachWorkersShardTablesAndNothingElse() async throws {
        let configuration = try await TestDatabase.migrated("reorder_citus")
        let url = TestDatabase.url(of: configuration)
        let folder = try TestDatabase.temporaryFolder("reorder-citus")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await FunnelProcess.generateAndIngest("health-study", sessions: 400, seed: 8, into: folder, url: url)

        let (placements, rowsBefore, eventsNodes) = try await TestDatabase.withConnection(configuration) {
            connection in
            var rows: [String: Int] = [:]
            for (offset, table) in Self.shardTables.enumerated() {
                // Half of the sessions on each "worker", inserted in an order unrelated to the key.
                try connection.executeScript(
                    """
                    CREATE TABLE \(table) (LIKE events INCLUDING ALL) PARTITION BY RANGE (event_id);
                    CREATE TABLE events_2026_01_\(table.dropFirst(7)) PARTITION OF \(table)
                        FOR VALUES FROM (MINVALUE) TO (MAXVALUE);
                    CREATE TABLE events_default_\(table.dropFirst(7)) PARTITION OF \(table) DEFAULT;
                    INSERT INTO \(table) SELECT * FROM events
                        WHERE (session_id < '80000000-0000-0000-0000-000000000000') = \(offset == 0)
                        ORDER BY md5(event_id::text)
                    """)
                rows[table] = try connection.query("SELECT count(*) AS n FROM \(table)").first?["n"].int
                // The check below can fail: shuffled rows are out of order.
                #expect(try Self.heapInKeyOrder(table, on: connection) == false)
            }
            let server = try #require(
                try connection.query(
                    """
                    SELECT coalesce(host(inet_server_addr()), split_part(current_setting('unix_socket_directories'), ',', 1))
                           AS host, current_setting('port')::int AS port
                    """
                ).first)
            let host = try #require(server["host"].string)
            let port = try #require(server["port"].int)
            let placements = CitusPlacements(
                workers: Self.shardTables.map { CitusPlacements.Worker(host: host, port: port, tables: [$0]) })
            let nodes = try connection.query(
                """
                SELECT string_agg(c.relfilenode::text, ',' ORDER BY c.relname) AS nodes
                FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'events'::regclass
                """
            ).first?["nodes"].string
            return (placements, rows, nodes)
        }
        #expect(rowsBefore.values.allSatisfy { $0 > 500 })

        let partitions = try await TestDatabase.withConnection(configuration) { _ in
            try EventReorderer().reorderCitusWorkers(placements, coordinator: configuration) { _ in }
        }
        let worker = "\(placements.workers[0].host):\(placements.workers[0].port)"
        #expect(
            partitions.map(\.name) == [
                "events_2026_01_102008", "events_default_102008", "events_2026_01_102009", "events_default_102009",
            ])
        for partition in partitions {
            #expect(partition.shard == worker)
            if partition.isDefault {
                #expect(!partition.reordered && partition.pageSwitchesPerRow == nil, "\(partition.name): empty")
            } else {
                #expect(partition.reordered, "\(partition.name)")
                #expect((partition.pageSwitchesPerRow ?? 0) > 0.5, "\(partition.name)")
                #expect(partition.rows == rowsBefore["events_" + partition.name.suffix(6)], "\(partition.name)")
            }
        }
        try await TestDatabase.withConnection(configuration) { connection in
            for table in Self.shardTables {
                #expect(try Self.heapInKeyOrder(table, on: connection) == true, "\(table)")
                let rows = try connection.query("SELECT count(*) AS n FROM \(table)").first?["n"].int
                #expect(rows == rowsBefore[table])
            }
            // The database's own events partitions were not rewritten.
            let nodes = try connection.query(
                """
                SELECT string_agg(c.relfilenode::text, ',' ORDER BY c.relname) AS nodes
                FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'events'::regclass
                """
            ).first?["nodes"].string
            #expect(nodes == eventsNodes)
        }
    }
}
