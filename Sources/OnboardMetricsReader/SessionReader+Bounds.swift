import Foundation

extension SessionReader {
    /// The first UUIDv7 of `date`'s second — what `onboardmetrics_uuidv7_floor(timestamptz)`
    /// gives for the bound as the reader always sent it (ISO 8601, whole seconds) — built from
    /// the number alone, so no text from a user reaches a statement. Dates before 1970 are
    /// clamped to the first UUIDv7, dates past the 48-bit millisecond range to the last, as a
    /// uuid cannot hold them. Both read paths (events rows and traces) bound by it.
    package static func boundFloor(_ date: Date) -> UUID {
        // The second of the date rounded to the millisecond, as the ISO text the reader once sent
        // had it: the round trip through `ISO8601DateFormatter` that made it cost 3 ms of a
        // warm report (ICU's set-up). A test holds the two equal on many dates, ties included.
        let seconds = ((date.timeIntervalSince1970 * 1000).rounded() / 1000).rounded(.down)
        let limit = Double(UInt64(1) << 48 - 1)
        let milliseconds = UInt64(min(max(seconds * 1000, 0), limit))
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - index))) }
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
            ))
    }

    /// ``boundFloor(_:)`` as an SQL literal.
    package static func boundLiteral(_ date: Date) -> String {
        "'\(boundFloor(date).uuidString.lowercased())'::uuid"
    }

    /// `session_id` in these buckets, with the bucket function written out (PostgreSQL's
    /// `uuid_hash`, as `onboardmetrics_bucket` in migration 0003) so that Citus workers, which
    /// lack the tool's functions, can run it. The numbers are typed integers, never text.
    package static func bucketCondition(_ buckets: [Int]) -> String {
        let list = buckets.map { String($0) }.joined(separator: ",")
        return "((uuid_hash(session_id)::bigint + 2147483648) >> 26)::integer = ANY ('{\(list)}'::integer[])"
    }
}
