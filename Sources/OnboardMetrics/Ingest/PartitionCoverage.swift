import Foundation

/// Tracks which span of months already has `events` partitions, so ingest of historical data
/// creates monthly partitions once per new span rather than calling the database per batch.
///
/// `events` is partitioned by the time in its UUIDv7 ids; only ids that are version 7 and whose
/// time lies between ``EventValidator/earliest`` and a year ahead count, so a foreign or broken
/// id cannot make the database create thousands of partitions (such rows go to the default
/// partition).
struct PartitionCoverage {
    private var covered: ClosedRange<Int64>?

    /// The span (as instants) that still needs partitions for `events`, or nil.
    mutating func missing(for events: [Event]) -> ClosedRange<Date>? {
        let earliest = Timestamp.milliseconds(EventValidator.earliest)
        let latest = Timestamp.milliseconds(Date()) + 366 * 86_400_000
        var low = Int64.max
        var high = Int64.min
        for event in events {
            let bytes = event.eventID.uuid
            guard bytes.6 >> 4 == 7 else { continue }
            let milliseconds =
                Int64(bytes.0) << 40 | Int64(bytes.1) << 32 | Int64(bytes.2) << 24 | Int64(bytes.3) << 16
                | Int64(bytes.4) << 8 | Int64(bytes.5)
            guard milliseconds >= earliest, milliseconds <= latest else { continue }
            low = min(low, milliseconds)
            high = max(high, milliseconds)
        }
        guard low <= high else { return nil }
        if let covered, covered.contains(low), covered.contains(high) { return nil }
        let span = covered.map { min($0.lowerBound, low)...max($0.upperBound, high) } ?? low...high
        covered = span
        return Timestamp.date(milliseconds: span.lowerBound)...Timestamp.date(milliseconds: span.upperBound)
    }
}
