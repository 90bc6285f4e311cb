import Foundation

extension SessionReader {
    /// The SQL literal of the first UUIDv7 of `date`'s second — what
    /// `onboardmetrics_uuidv7_floor(timestamptz)` gives for the bound as the reader always sent
    /// it (ISO 8601, whole seconds) — built from the number alone, so no text from a user reaches
    /// the statement. Dates before 1970 are clamped to the first UUIDv7, dates past the 48-bit
    /// millisecond range to the last, as a uuid cannot hold them.
    package static func boundLiteral(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        let sent = formatter.date(from: formatter.string(from: date)) ?? date
        let seconds = sent.timeIntervalSince1970.rounded(.down)
        let limit = Double(UInt64(1) << 48 - 1)
        let milliseconds = UInt64(min(max(seconds * 1000, 0), limit))
        let hex = String(milliseconds, radix: 16)
        let digits = String(repeating: "0", count: 12 - hex.count) + hex
        return "'\(digits.prefix(8))-\(digits.dropFirst(8))-0000-0000-000000000000'::uuid"
    }

    /// `session_id` in these buckets, with the bucket function written out (PostgreSQL's
    /// `uuid_hash`, as `onboardmetrics_bucket` in migration 0003) so that Citus workers, which
    /// lack the tool's functions, can run it. The numbers are typed integers, never text.
    package static func bucketCondition(_ buckets: [Int]) -> String {
        let list = buckets.map { String($0) }.joined(separator: ",")
        return "((uuid_hash(session_id)::bigint + 2147483648) >> 26)::integer = ANY ('{\(list)}'::integer[])"
    }
}
