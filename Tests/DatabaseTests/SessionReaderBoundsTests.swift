import Foundation
import OnboardMetrics
import OnboardMetricsSDK
import OnboardMetricsStatistics
import Testing

@testable import OnboardMetricsPostgres
@testable import OnboardMetricsReader

/// Issue 35: the reader's bounds are literals made from typed values, so its statement runs where
/// the tool's settings and functions do not exist (a Citus worker). The literals must select what
/// the schema's functions select: checked against `onboardmetrics_uuidv7_floor` and
/// `onboardmetrics_bucket` as the server computes them from the ISO text the reader used to send.
@Suite struct SessionReaderBoundsTests {
    static let dates: [Date] = [
        Date(timeIntervalSince1970: 0),
        Date(timeIntervalSince1970: 1_767_225_600),  // 2026-01-01T00:00:00Z
        Date(timeIntervalSince1970: 1_767_225_600.999),  // a fraction of a second: whole seconds are sent
        Date(timeIntervalSince1970: 1_785_000_123.5),
        Date(timeIntervalSince1970: 1_785_000_123.999_999),  // just short of the next second
        Date(timeIntervalSince1970: 4_102_444_800),  // 2100-01-01
        Date(timeIntervalSince1970: 253_402_300_799),  // 9999-12-31T23:59:59Z
    ]

    @Test func aBoundLiteralIsTheSchemasUUIDv7Floor() async throws {
        let configuration = try await TestDatabase.migrated("reader_bounds")
        try await TestDatabase.withConnection(configuration) { connection in
            for date in Self.dates {
                let literal = SessionReader.boundLiteral(date)
                let row = try connection.query(
                    "SELECT (\(literal))::text AS ours, onboardmetrics_uuidv7_floor($1::timestamptz)::text AS schema",
                    [.text(ISO8601DateFormatter().string(from: date))]
                ).first
                #expect(row?["ours"].string == row?["schema"].string, "\(date)")
                #expect(row?["ours"].string != nil)
            }
        }
    }

    /// The floor is made by arithmetic; it must be the second of the ISO text the reader sent
    /// before (`ISO8601DateFormatter`, which rounds to the millisecond first): 20,000 dates,
    /// fractions near a millisecond's tie and near the next second among them.
    @Test func theFloorIsTheSecondOfTheISOText() {
        let formatter = ISO8601DateFormatter()
        var random = SplitMix64(seed: 41)
        let fractions = [0, 0.0005, 0.4995, 0.5, 0.9994999, 0.9995, 0.99951, 0.999_999]
        var differ = 0
        for index in 0..<20_000 {
            let second = Double(Int64.random(in: 0...4_102_444_800, using: &random))
            let fraction =
                index % 2 == 0 ? fractions[index / 2 % fractions.count] : Double.random(in: 0..<1, using: &random)
            let date = Date(timeIntervalSince1970: second + fraction)
            let sent = formatter.date(from: formatter.string(from: date)) ?? date
            let expected = UInt64(sent.timeIntervalSince1970.rounded(.down) * 1000)
            if SessionReader.boundFloor(date).leadingMilliseconds != expected { differ += 1 }
        }
        #expect(differ == 0)
    }

    @Test func theBucketConditionIsTheSchemasBucketFunction() async throws {
        let configuration = try await TestDatabase.migrated("reader_buckets")
        try await TestDatabase.withConnection(configuration) { connection in
            let condition = SessionReader.bucketCondition([0, 7, 31, 63])
            let row = try connection.query(
                """
                SELECT count(*) FILTER (WHERE (\(condition)) <> (onboardmetrics_bucket(session_id) IN (0, 7, 31, 63))) AS differ,
                       count(*) FILTER (WHERE \(condition)) AS chosen
                FROM (SELECT gen_random_uuid() AS session_id FROM generate_series(1, 5000)) AS ids
                """
            ).first
            #expect(row?["differ"].int == 0)
            // 4 of 64 buckets: about 312 of 5,000; far from none and from all.
            #expect((150...500).contains(row?["chosen"].int ?? -1))
            let none = try connection.query(
                "SELECT count(*) AS n FROM (SELECT gen_random_uuid() AS session_id) AS ids WHERE \(SessionReader.bucketCondition([]))"
            ).first
            #expect(none?["n"].int == 0)
        }
    }

    @Test func theStatementNeedsNoSettingOrFunctionOfTheTool() {
        var reader = SessionReader(since: Self.dates[1], until: Self.dates[4])
        reader.buckets = [1, 2]
        let statements = reader.copyStatements
        #expect(statements.count == 1)
        let statement = statements.joined()
        #expect(!statement.contains("current_setting") && !statement.contains("onboardmetrics_"))
        #expect(statement.contains("event_id >= '019b76da-a800-0000-0000-000000000000'::uuid"))
        // A Citus worker's shards: one statement each, each in its own event-id order.
        reader.tables = ["\"events_102008\"", "\"events_102010\""]
        #expect(reader.copyStatements.count == 2)
        #expect(reader.copyStatements.allSatisfy { $0.hasSuffix("ORDER BY event_id) TO STDOUT (FORMAT binary)") })
        #expect(reader.copyStatements.last?.contains("FROM \"events_102010\" WHERE") == true)
    }
}
