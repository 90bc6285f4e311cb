import Foundation
import Testing

@testable import OnboardMetricsAnalysis
@testable import OnboardMetricsReader
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

/// Ad-hoc funnel results equal an independent SQL computation on the same data (issue 5).
///
/// The SQL is written from the rules, not from the Swift algorithm: ordered takes, for every
/// step-1 occurrence, the earliest next step after it within the window (a subquery per step;
/// events in (time, step, seq) order, which is PostHog's expansion of ties when each event
/// matches one step, as here); strict follows chains from instant to instant (a recursive
/// query); any order counts distinct steps among the events in the window after each matched
/// event (a self-join).
@Suite struct AdHocFunnelSQLTests {
    static let steps = ["a", "b", "c", "d"]
    static let window: TimeInterval = 1_800

    /// About 4,000 events in 400 sessions of 60 users: custom events a, b, c, d among noise
    /// (x, y, step views, a feature "c" that matches step c by name), gaps from 0 (timestamp ties)
    /// to 50 minutes (past the 30-minute window), and client clocks off by up to an hour with
    /// flush delays, so only the skew-corrected time orders a user's sessions correctly.
    static func generate() -> [Event] {
        var random = SeededRandom(seed: 5)
        var ids = UUIDv7Generator()
        var events: [Event] = []
        let start: Int64 = 1_790_000_000_000  // milliseconds; all times whole milliseconds
        for session in 0..<400 {
            let sessionID = UUIDv7Generator.randomV4(using: &random)
            let clockSkew = Int64.random(in: -3_600_000...3_600_000, using: &random)
            let offset = Int64.random(in: 0...2_000, using: &random)  // corrected = true time + offset
            var trueTime = start + Int64(session) * 300_000
            let count = Int.random(in: 4...16, using: &random)
            for seq in 0..<count {
                let roll = Int.random(in: 0..<100, using: &random)
                if seq > 0 {
                    let gap = Int.random(in: 0..<100, using: &random)
                    trueTime +=
                        gap < 12
                        ? 0
                        : gap < 80
                            ? Int64.random(in: 1...60_000, using: &random)
                            : Int64.random(in: 600_000...3_000_000, using: &random)
                }
                var kind = EventKind.custom
                var name: String?
                var stepID: String?
                switch seq == 0 ? -1 : roll {
                case -1: kind = .sessionStarted
                case 0..<25: name = "a"
                case 25..<45: name = "b"
                case 45..<60: name = "c"
                case 60..<70: name = "d"
                case 70..<85: name = "x"
                case 85..<90: name = "y"
                case 90..<95:
                    kind = .stepViewed
                    stepID = "s1"
                default:
                    kind = .featureUsed
                    name = "c"
                }
                let flush = Int64.random(in: 0...5_000, using: &random)
                let occurred = trueTime + clockSkew
                let date = { (milliseconds: Int64) in Date(timeIntervalSince1970: Double(milliseconds) / 1_000) }
                events.append(
                    Event(
                        eventID: ids.next(milliseconds: occurred, using: &random), sessionID: sessionID,
                        userID: "user-\(session % 60)", seq: seq, kind: kind, flowID: kind.isStepEvent ? "f" : nil,
                        flowVersion: kind.isStepEvent ? 1 : nil, stepID: stepID, name: name,
                        occurredAt: date(occurred), sentAt: date(occurred + flush),
                        receivedAt: date(trueTime + flush + offset)))
            }
        }
        return events
    }

    /// Each unit's events with their 1-based step (0 for none) and position in (time, step, seq)
    /// order; `$1` the comma-separated steps, `$2` the window in seconds.
    static func rankedEvents(unit: String) -> String {
        """
        WITH matched AS (
            SELECT \(unit) AS unit,
                   CASE WHEN sent_at IS NULL THEN occurred_at ELSE received_at - (sent_at - occurred_at) END AS t,
                   seq,
                   COALESCE(array_position(string_to_array($1, ','), name),
                            array_position(string_to_array($1, ','), CASE WHEN kind = 'step_viewed' THEN step_id END),
                            array_position(string_to_array($1, ','), kind), 0) AS step
            FROM events
        ), ranked AS (
            SELECT unit, t, step, row_number() OVER (PARTITION BY unit ORDER BY t, step, seq) AS pos FROM matched
        )
        """
    }

    /// Ordered: from each step-1 occurrence, the earliest step 2 after it within the window, then
    /// the earliest step 3 after that, and so on; a unit's depth is the best over its occurrences.
    static func orderedSQL(unit: String) -> String {
        rankedEvents(unit: unit) + """
            , s1 AS (SELECT unit, t AS t1, pos AS p1 FROM ranked WHERE step = 1),
            s2 AS (SELECT s1.*, (SELECT min(r.pos) FROM ranked r WHERE r.unit = s1.unit AND r.step = 2 AND r.pos > s1.p1
                                 AND r.t <= s1.t1 + make_interval(secs => $2)) AS p2 FROM s1),
            s3 AS (SELECT s2.*, (SELECT min(r.pos) FROM ranked r WHERE r.unit = s2.unit AND r.step = 3 AND r.pos > s2.p2
                                 AND r.t <= s2.t1 + make_interval(secs => $2)) AS p3 FROM s2),
            s4 AS (SELECT s3.*, (SELECT min(r.pos) FROM ranked r WHERE r.unit = s3.unit AND r.step = 4 AND r.pos > s3.p3
                                 AND r.t <= s3.t1 + make_interval(secs => $2)) AS p4 FROM s3),
            depths AS (
                SELECT unit, max(CASE WHEN p4 IS NOT NULL THEN 4 WHEN p3 IS NOT NULL THEN 3
                                      WHEN p2 IS NOT NULL THEN 2 ELSE 1 END) AS depth
                FROM s4 GROUP BY unit
            )
            """ + countsByDepth
    }

    /// Strict, by PostHog's tie rule (issue 18): a unit's events are grouped into instants (equal
    /// times), each instant a set of matched steps (empty when its events match none). A chain
    /// starts at an instant holding step 1 and runs through the consecutive steps 1..m the instant
    /// holds; the next instant must hold the chain's next step (then it runs on through that
    /// instant's consecutive steps) and lie within the window of the start, else the chain ends.
    /// The old reference walked single events with `lead` (ties ordered by step, unmatched events
    /// first), so an unmatched event or a repeated step tied with the next step broke the chain;
    /// PostHog expands a tie into its matched steps, which this recursive query follows.
    static func strictSQL(unit: String) -> String {
        rankedEvents(unit: unit) + """
            , instants AS (
                SELECT unit, t, ARRAY[bool_or(step = 1), bool_or(step = 2), bool_or(step = 3), bool_or(step = 4)] AS f,
                       row_number() OVER (PARTITION BY unit ORDER BY t) AS ipos
                FROM matched GROUP BY unit, t
            ), runs AS (
                -- rK: the last step of the run of consecutive steps K+1, K+2, ... the instant holds (K when it lacks K+1).
                SELECT i.*,
                       (SELECT min(m) - 1 FROM generate_series(1, 5) m WHERE m = 5 OR NOT i.f[m]) AS r0,
                       (SELECT min(m) - 1 FROM generate_series(2, 5) m WHERE m = 5 OR NOT i.f[m]) AS r1,
                       (SELECT min(m) - 1 FROM generate_series(3, 5) m WHERE m = 5 OR NOT i.f[m]) AS r2,
                       (SELECT min(m) - 1 FROM generate_series(4, 5) m WHERE m = 5 OR NOT i.f[m]) AS r3
                FROM instants i
            ), chains AS (
                WITH RECURSIVE chain(unit, start_t, ipos, depth) AS (
                    SELECT unit, t, ipos, r0 FROM runs WHERE r0 >= 1
                    UNION ALL
                    SELECT c.unit, c.start_t, r.ipos,
                           CASE c.depth WHEN 1 THEN r.r1 WHEN 2 THEN r.r2 ELSE r.r3 END
                    FROM chain c JOIN runs r ON r.unit = c.unit AND r.ipos = c.ipos + 1
                         AND r.t <= c.start_t + make_interval(secs => $2)
                    WHERE c.depth < 4 AND CASE c.depth WHEN 1 THEN r.r1 WHEN 2 THEN r.r2 ELSE r.r3 END > c.depth
                )
                SELECT * FROM chain
            ), depths AS (
                SELECT unit, max(depth) AS depth FROM chains GROUP BY unit
            )
            """ + countsByDepth
    }

    /// Any order: the most distinct steps among the events within the window from a matched event.
    static func anySQL(unit: String) -> String {
        rankedEvents(unit: unit) + """
            , depths AS (
                SELECT unit, max(steps) AS depth FROM (
                    SELECT e.unit, e.pos, count(DISTINCT o.step) AS steps
                    FROM ranked e JOIN ranked o ON o.unit = e.unit AND o.step > 0
                         AND o.t >= e.t AND o.t <= e.t + make_interval(secs => $2)
                    WHERE e.step > 0 GROUP BY e.unit, e.pos
                ) windows GROUP BY unit
            )
            """ + countsByDepth
    }

    /// Units in all, and units whose depth is at least 1, 2, 3, 4.
    static let countsByDepth = """
        SELECT (SELECT count(DISTINCT unit) FROM matched) AS units,
               count(*) FILTER (WHERE depth >= 1) AS c1, count(*) FILTER (WHERE depth >= 2) AS c2,
               count(*) FILTER (WHERE depth >= 3) AS c3, count(*) FILTER (WHERE depth >= 4) AS c4
        FROM depths
        """

    struct Outcome: Sendable, Hashable, CustomStringConvertible {
        var units: Int
        var counts: [Int]
        var description: String { "\(units) units, counts \(counts)" }
    }

    @Test(arguments: [
        (AdHocFunnel.Order.ordered, FunnelOptions.Unit.session), (.ordered, .user), (.strict, .session),
        (.strict, .user), (.any, .session), (.any, .user),
    ])
    func swiftReportEqualsSQL(order: AdHocFunnel.Order, unit: FunnelOptions.Unit) async throws {
        let configuration = try await TestDatabase.migrated("adhoc_sql_\(order.rawValue)_\(unit.rawValue)")
        let events = Self.generate()
        let sql =
            switch order {
            case .ordered: Self.orderedSQL(unit: unit == .session ? "session_id" : "user_id")
            case .strict: Self.strictSQL(unit: unit == .session ? "session_id" : "user_id")
            case .any: Self.anySQL(unit: unit == .session ? "session_id" : "user_id")
            }
        let funnel = try AdHocFunnel(steps: Self.steps, order: order, window: Self.window, unit: unit)
        let fromSQL = try await TestDatabase.withConnection(configuration) { connection in
            try EventStore().write(events, on: connection, receivedAt: Date())
            let row = try connection.query(sql, [.text(Self.steps.joined(separator: ",")), .float64(Self.window)])
            return Outcome(
                units: row.first?["units"].int ?? -1, counts: ["c1", "c2", "c3", "c4"].map { row.first?[$0].int ?? -1 })
        }
        let reader = ShardedReader(
            reader: SessionReader(), sources: [.init(configuration: configuration, buckets: nil)])
        let report = try await reader.report { AdHocFunnelAggregator(funnel: funnel) }
        let fromSwift = Outcome(units: report.units, counts: report.rows.map(\.count))
        #expect(fromSwift == fromSQL)
        // The data must exercise the funnel: some units reach the end, and not all of them do.
        #expect(fromSQL.units == (unit == .session ? 400 : 60))
        #expect(fromSQL.counts[3] > 0)
        #expect(fromSQL.counts[3] < fromSQL.counts[0])
    }
}
