import Foundation

@testable import OnboardMetricsPostgres

/// The events table, as the tests of whole app lives read it: a few columns of every row.
struct StoredEvents {
    struct Row: Sendable {
        var sessionID: String
        var userID: String
        var kind: String
        var seq: Int
        var name: String?
        /// `properties.$anon_distinct_id` (set on identification links).
        var linkedAnonymousID: String?
        /// `properties.installNumber` (set on `session_started` by the example app).
        var installNumber: Int?
    }

    var rows: [Row]
    var count: Int { rows.count }
    var distinctIDs: Int

    /// Sessions whose `seq` values have holes: events the app recorded that never arrived (a
    /// kill before the transport wrote them to its outbox).
    var sessionsWithHoles: Int {
        Dictionary(grouping: rows, by: \.sessionID).values.filter { rows in
            let seqs = Set(rows.map(\.seq))
            return seqs.count != (seqs.max() ?? 0)
        }.count
    }

    static func read(_ configuration: PostgresConfiguration) async throws -> StoredEvents {
        try await TestDatabase.withConnection(configuration) { connection in
            let rows = try connection.query(
                """
                SELECT session_id::text AS session_id, user_id, kind::text AS kind, seq, name,
                       properties->>'$anon_distinct_id' AS anon, (properties->>'installNumber')::numeric::int AS install
                FROM events ORDER BY session_id, seq
                """
            ).map { row in
                Row(
                    sessionID: row["session_id"].string ?? "", userID: row["user_id"].string ?? "",
                    kind: row["kind"].string ?? "", seq: row["seq"].int ?? -1, name: row["name"].string,
                    linkedAnonymousID: row["anon"].string,
                    installNumber: row["install"].int)
            }
            let distinct = try connection.query("SELECT count(DISTINCT event_id) AS n FROM events").first?["n"].int
            return StoredEvents(rows: rows, distinctIDs: distinct ?? -1)
        }
    }
}
