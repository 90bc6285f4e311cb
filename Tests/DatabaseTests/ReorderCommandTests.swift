import Foundation
import Testing

@testable import OnboardMetricsPostgres
@testable import OnboardMetricsStore

/// `funnel reorder` end to end: generated health-study sessions are ingested (rows in the heap in
/// batch order), some whole sessions are copied five years back in shuffled order (they land in
/// the default partition), and the command runs as a user would run it. Every row stays, each
/// partition's heap ends up in primary-key order, and reports print the same bytes; partitions
/// already in order are left as they are, judged by a measure the tests check against an exact
/// count over every row.
@Suite struct ReorderCommandTests {
    static let flowFile = TestDatabase.packageRoot.appendingPathComponent("examples/flows/health-study.json").path
    static let reports: [[String]] = [
        ["report", "--flow", flowFile],
        ["report", "--flow", flowFile, "--per", "user", "--by", "platform"],
    ]

    /// The partitions of `events` as the catalog lists them (pg_inherits, independently of the
    /// command's own query), each with its primary-key constraint's name.
    static func partitions(on connection: PostgresConnection) throws -> [String: String] {
        let rows = try connection.query(
            """
            SELECT c.relname::text AS name, k.conname::text AS pkey
            FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            JOIN pg_constraint k ON k.conrelid = c.oid AND k.contype = 'p'
            WHERE i.inhparent = 'events'::regclass
            """)
        return Dictionary(uniqueKeysWithValues: rows.map { ($0["name"].string ?? "", $0["pkey"].string ?? "") })
    }

    /// Whether each partition's rows lie in the heap in key order (physical order is ctid order).
    static func heapInKeyOrder(on connection: PostgresConnection) throws -> [String: Bool] {
        var ordered: [String: Bool] = [:]
        for name in try partitions(on: connection).keys {
            let row = try connection.query(
                """
                SELECT coalesce(bool_and((previous_event, previous_session) < (event_id, session_id)), true) AS ordered
                FROM (
                    SELECT event_id, session_id, lag(event_id) OVER (ORDER BY ctid) AS previous_event,
                           lag(session_id) OVER (ORDER BY ctid) AS previous_session
                    FROM \(PostgresConnection.quotedIdentifier(name))
                ) pairs
                WHERE previous_event IS NOT NULL
                """
            ).first
            ordered[name] = row?["ordered"].bool
        }
        return ordered
    }

    /// Exactly how often a read of each non-empty partition in key order moves to another heap
    /// page, per row: every row in key order against the previous one (the command samples).
    static func exactPageSwitchesPerRow(on connection: PostgresConnection) throws -> [String: Double] {
        var switches: [String: Double] = [:]
        for name in try partitions(on: connection).keys {
            let row = try connection.query(
                """
                SELECT count(*) AS rows, count(*) FILTER (WHERE previous IS NOT NULL AND block <> previous) AS switches
                FROM (
                    SELECT (ctid::text::point)[0] AS block,
                           lag((ctid::text::point)[0]) OVER (ORDER BY event_id, session_id) AS previous
                    FROM \(PostgresConnection.quotedIdentifier(name))
                ) blocks
                """
            ).first
            if let rows = row?["rows"].int, rows > 1, let count = row?["switches"].int {
                switches[name] = Double(count) / Double(rows - 1)
            }
        }
        return switches
    }

    /// Each partition's file node: `CLUSTER` writes a new one, so it changes exactly when the
    /// partition was rewritten.
    static func fileNodes(on connection: PostgresConnection) throws -> [String: Int] {
        let rows = try connection.query(
            """
            SELECT c.relname::text AS name, c.relfilenode::int8 AS node
            FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = 'events'::regclass
            """)
        return Dictionary(uniqueKeysWithValues: rows.map { ($0["name"].string ?? "", $0["node"].int ?? -1) })
    }

    /// Row count, distinct ids, and a digest of every row's text in key order.
    static func contents(on connection: PostgresConnection) throws -> [String] {
        let row = try connection.query(
            """
            SELECT count(*)::text AS n, count(DISTINCT event_id)::text AS ids,
                   md5(string_agg(e::text, '|' ORDER BY event_id, session_id)) AS digest
            FROM events e
            """
        ).first
        return [row?["n"].string ?? "", row?["ids"].string ?? "", row?["digest"].string ?? ""]
    }

    /// Copies the first `sessions` sessions five years back with new session ids, inserted in a
    /// shuffled order: no monthly partition covers them, so they land in `events_default`.
    static func copySessionsIntoTheDefaultPartition(_ sessions: Int, on connection: PostgresConnection) throws {
        try connection.query(
            """
            INSERT INTO events (event_id, session_id, user_id, seq, kind, flow_id, flow_version, step_id, name,
                                occurred_at, sent_at, received_at, properties)
            SELECT (substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-' || substr(h, 13, 4) || '-' || substr(h, 17, 4)
                    || '-' || substr(h, 21, 12))::uuid,
                   md5(session_id::text)::uuid, user_id, seq, kind, flow_id, flow_version, step_id, name,
                   occurred_at - interval '5 years', sent_at - interval '5 years', received_at - interval '5 years',
                   properties
            FROM (
                SELECT e.*, lpad(to_hex((extract(epoch FROM e.occurred_at - interval '5 years') * 1000)::bigint), 12, '0')
                            || substr(replace(e.event_id::text, '-', ''), 13) AS h
                FROM events e
                WHERE e.session_id IN (SELECT DISTINCT session_id FROM events ORDER BY session_id LIMIT $1)
            ) shifted
            ORDER BY md5(event_id::text)
            """, [.int64(Int64(sessions))])
    }

    static func reportOutputs(url: String) async throws -> [String] {
        var outputs: [String] = []
        for arguments in reports {
            let run = try await FunnelProcess.run(
                arguments + ["--until", "2100-01-01T00:00:00Z", "--format", "json", "--quiet", "--database-url", url])
            #expect(run.status == 0, "\(arguments): \(run.errors)")
            outputs.append(run.output)
        }
        return outputs
    }

    @Test func keepsEveryRowAndEveryReportAndOrdersEachPartition() async throws {
        let configuration = try await TestDatabase.migrated("reorder_cli")
        let url = TestDatabase.url(of: configuration)
        let folder = try TestDatabase.temporaryFolder("reorder")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await FunnelProcess.generateAndIngest(
            "health-study", sessions: 1_500, seed: 16, into: folder, url: url)
        try await TestDatabase.withConnection(configuration) {
            try Self.copySessionsIntoTheDefaultPartition(40, on: $0)
        }

        let (partitions, orderBefore, contentsBefore, defaultRows) = try await TestDatabase.withConnection(
            configuration
        ) { connection in
            let defaultRows = try connection.query("SELECT count(*) AS n FROM events_default").first?["n"].int ?? -1
            return (
                try Self.partitions(on: connection), try Self.heapInKeyOrder(on: connection),
                try Self.contents(on: connection), defaultRows
            )
        }
        #expect(defaultRows > 100)
        #expect(partitions["events_default"] != nil)
        #expect(partitions.count > 3)
        // The check below can fail: before the reorder, ingested and shuffled rows are out of order.
        #expect(orderBefore["events_default"] == false)
        #expect(orderBefore["events_2026_01"] == false)
        let reportsBefore = try await Self.reportOutputs(url: url)

        let run = try await FunnelProcess.run(["reorder", "--all", "--format", "json", "--database-url", url])
        #expect(run.status == 0, "\(run.errors)")
        let summary = try JSONDecoder().decode(ReorderSummary.self, from: Data(run.output.utf8))
        #expect(Set(summary.partitions.map(\.name)) == Set(partitions.keys))
        #expect(summary.partitions.count == partitions.count)
        #expect(summary.reorderedCount == partitions.count)
        for partition in summary.partitions {
            #expect(partition.reordered, "\(partition.name)")
            #expect(partition.index == partitions[partition.name], "\(partition.name)")
            #expect(partition.isDefault == (partition.name == "events_default"))
            #expect(partition.shard == nil && partition.schema == "public")
        }
        #expect(summary.partitions.last?.name == "events_default")
        #expect(summary.partitions.first { $0.isDefault }?.rows == defaultRows)
        #expect(String(summary.rows) == contentsBefore[0])
        // Keys of the JSON are stable snake_case, with totals.
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect(
            Set(object.keys) == [
                "partitions", "seconds", "rows", "reordered_partitions", "bytes_before", "bytes_after",
            ])
        let entries = try #require(object["partitions"] as? [[String: Any]])
        let defaultEntry = try #require(entries.first { $0["name"] as? String == "events_default" })
        #expect(
            Set(defaultEntry.keys) == [
                "schema", "name", "index", "is_default", "reordered", "page_switches_per_row", "rows", "bytes_before",
                "bytes_after", "seconds",
            ])
        // One progress line per partition on stderr, naming it.
        let progress = run.errors.split(separator: "\n").filter { $0.hasPrefix("reordered ") }
        #expect(progress.count == partitions.count, "\(run.errors)")
        for name in partitions.keys { #expect(progress.contains { $0.hasPrefix("reordered \(name) (") }, "\(name)") }

        let (orderAfter, contentsAfter) = try await TestDatabase.withConnection(configuration) { connection in
            (try Self.heapInKeyOrder(on: connection), try Self.contents(on: connection))
        }
        #expect(contentsAfter == contentsBefore)
        #expect(contentsAfter[0] == contentsAfter[1])
        #expect(orderAfter.count == partitions.count)
        #expect(orderAfter.values.allSatisfy { $0 }, "\(orderAfter)")
        #expect(try await Self.reportOutputs(url: url) == reportsBefore)

        // Again, quietly, in text: nothing on stderr, a total on stdout, still in order.
        let again = try await FunnelProcess.run(["reorder", "--all", "--quiet", "--database-url", url])
        #expect(again.status == 0, "\(again.errors)")
        #expect(again.errors.isEmpty, "\(again.errors)")
        #expect(
            again.output.contains(
                "reordered \(partitions.count) of \(partitions.count) partitions (\(contentsBefore[0]) rows)"))
        #expect(again.output.contains("events_default_pkey"))
        let orderAgain = try await TestDatabase.withConnection(configuration) { try Self.heapInKeyOrder(on: $0) }
        #expect(orderAgain.values.allSatisfy { $0 })
    }

    @Test func partitionsAlreadyInOrderAreLeftAsTheyAre() async throws {
        let configuration = try await TestDatabase.migrated("reorder_skip")
        let url = TestDatabase.url(of: configuration)
        let folder = try TestDatabase.temporaryFolder("reorder-skip")
        defer { try? FileManager.default.removeItem(at: folder) }
        // One ingest batch (the size given: a small load is otherwise cut into batches for both
        // connections), sorted by id before it is written: its partitions are in key order but
        // for the resent events. The shuffled copy makes the default partition one page a row.
        try await FunnelProcess.generateAndIngest(
            "health-study", sessions: 1_500, seed: 18, ingestArguments: ["--batch-size", "20000"], into: folder,
            url: url)
        let (exact, nodesBefore, contentsBefore) = try await TestDatabase.withConnection(configuration) {
            try Self.copySessionsIntoTheDefaultPartition(60, on: $0)
            return (
                try Self.exactPageSwitchesPerRow(on: $0), try Self.fileNodes(on: $0), try Self.contents(on: $0)
            )
        }
        // The situation this test needs: some partitions in order, one far from it.
        #expect((exact["events_default"] ?? 0) > 0.5, "\(exact)")
        #expect(exact.values.filter { $0 < 0.05 }.count >= 1, "\(exact)")

        let run = try await FunnelProcess.run(["reorder", "--format", "json", "--database-url", url])
        #expect(run.status == 0, "\(run.errors)")
        let summary = try JSONDecoder().decode(ReorderSummary.self, from: Data(run.output.utf8))
        let nodesAfter = try await TestDatabase.withConnection(configuration) { try Self.fileNodes(on: $0) }
        #expect(summary.partitions.count == nodesBefore.count)
        for partition in summary.partitions {
            let name = partition.name
            if let exactSwitches = exact[name] {
                // The sampled measure agrees with the exact count, and decides by it.
                let measured = try #require(partition.pageSwitchesPerRow, "\(name)")
                #expect(abs(measured - exactSwitches) < 0.05, "\(name): \(measured) against \(exactSwitches)")
                #expect(partition.reordered == (exactSwitches > 0.1), "\(name): \(exactSwitches)")
            } else {
                #expect(partition.pageSwitchesPerRow == nil && !partition.reordered, "\(name)")
            }
            // A partition left alone keeps its file; a rewritten one has a new one.
            #expect((nodesAfter[name] != nodesBefore[name]) == partition.reordered, "\(name)")
            #expect(partition.reordered || (partition.rows == 0 && partition.bytesAfter == partition.bytesBefore))
        }
        #expect(summary.partitions.first { $0.name == "events_default" }?.reordered == true)
        #expect(summary.reorderedCount == summary.partitions.filter(\.reordered).count)
        #expect(summary.reorderedCount >= 1 && summary.reorderedCount < summary.partitions.count)
        #expect(run.errors.contains("reordered events_default ("), "\(run.errors)")
        #expect(run.errors.contains("in order already"), "\(run.errors)")
        #expect(run.errors.contains("empty"), "\(run.errors)")

        // Now every partition is in order: a second run rewrites none.
        let again = try await FunnelProcess.run(["reorder", "--database-url", url, "--quiet"])
        #expect(again.status == 0, "\(again.errors)")
        #expect(again.output.contains("reordered 0 of \(nodesBefore.count) partitions (0 rows)"), "\(again.output)")
        let (nodesAgain, exactAgain, contentsAfter) = try await TestDatabase.withConnection(configuration) {
            (try Self.fileNodes(on: $0), try Self.exactPageSwitchesPerRow(on: $0), try Self.contents(on: $0))
        }
        #expect(nodesAgain == nodesAfter)
        #expect(exactAgain.values.allSatisfy { $0 < 0.05 }, "\(exactAgain)")
        #expect(contentsAfter == contentsBefore)
    }

    @Test func onACoordinatorEveryShardIsReorderedAndNoPasswordIsPrinted() async throws {
        let coordinator = try await TestDatabase.migrated("reorder_coordinator")
        let shard = try await TestDatabase.fresh("reorder_shard")
        let coordinatorURL = TestDatabase.url(of: coordinator)
        // The test server ignores the password; no command may print it.
        let shardURL = TestDatabase.url(of: shard) + "&password=s3cr3t-shard"
        let added = try await FunnelProcess.run([
            "shards", "add", shardURL, "--database-url", coordinatorURL, "--quiet",
        ])
        #expect(added.status == 0, "\(added.errors)")
        let folder = try TestDatabase.temporaryFolder("reorder-shards")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await FunnelProcess.generateAndIngest(
            "health-study", sessions: 300, seed: 17, into: folder, url: coordinatorURL)
        let (shardPartitions, orderBefore, contentsBefore) = try await TestDatabase.withConnection(shard) {
            try Self.copySessionsIntoTheDefaultPartition(20, on: $0)
            return (try Self.partitions(on: $0), try Self.heapInKeyOrder(on: $0), try Self.contents(on: $0))
        }
        #expect(orderBefore["events_default"] == false)
        #expect((Int(contentsBefore[0]) ?? 0) > 3_000)

        let run = try await FunnelProcess.run([
            "reorder", "--all", "--format", "json", "--database-url", coordinatorURL,
        ])
        #expect(run.status == 0, "\(run.errors)")
        #expect(!run.output.contains("s3cr3t") && !run.errors.contains("s3cr3t"))
        let summary = try JSONDecoder().decode(ReorderSummary.self, from: Data(run.output.utf8))
        let onShard = summary.partitions.filter { $0.shard != nil }
        #expect(Set(onShard.map(\.name)) == Set(shardPartitions.keys))
        #expect(onShard.allSatisfy { $0.shard?.contains("dbname=test_reorder_shard") == true })
        #expect(onShard.allSatisfy { $0.shard?.contains("password=***") == true })
        #expect(summary.partitions.filter { $0.shard == nil }.count > 3)
        #expect(String(onShard.reduce(0) { $0 + $1.rows }) == contentsBefore[0])
        #expect(run.errors.contains("shard postgresql://"))

        let (orderAfter, contentsAfter) = try await TestDatabase.withConnection(shard) {
            (try Self.heapInKeyOrder(on: $0), try Self.contents(on: $0))
        }
        #expect(contentsAfter == contentsBefore)
        #expect(orderAfter.values.allSatisfy { $0 }, "\(orderAfter)")
    }

    @Test func anUnreachableDatabaseIs69AndShowsNoPassword() async throws {
        let outcome = try await FunnelProcess.run([
            "reorder", "--quiet", "--database-url",
            "postgresql://nobody:sup3rsecret@/x?host=/nonexistent-folder&connect_timeout=2",
        ])
        #expect(outcome.status == 69, "\(outcome.errors)")
        #expect(outcome.errors.contains("could not connect"), "\(outcome.errors)")
        #expect(!outcome.errors.contains("sup3rsecret"))
        #expect(outcome.output.isEmpty)
    }

    @Test func aDatabaseWithoutEventsIsAFailureSayingToMigrate() async throws {
        let configuration = try await TestDatabase.fresh("reorder_unmigrated")
        let outcome = try await FunnelProcess.run([
            "reorder", "--quiet", "--database-url", TestDatabase.url(of: configuration),
        ])
        #expect(outcome.status == 1, "\(outcome.errors)")
        #expect(outcome.errors.contains("funnel migrate"), "\(outcome.errors)")
        #expect(outcome.errors.contains("SQLSTATE 42P01"), "\(outcome.errors)")
    }
}
