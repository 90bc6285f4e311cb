import Foundation
import OnboardMetricsSDK

/// Decides which monthly partitions of `events` a writer creates before a batch, shared by the
/// recorder (and so the collector) and `funnel ingest`.
///
/// `events` is partitioned by the time in its UUIDv7 ids. Partitions are created only for months
/// that rows of the batch fall in — never for the span between two far-apart rows — only for
/// plausible months (from ``EventValidator/earliest`` to two days past the clock; the validator
/// already refuses an id far from its `occurred_at`), and at most ``maximumNewPerBatch`` per
/// batch, the months with the most rows first. Rows of any other month land in the default
/// partition and are moved out by whichever later batch creates their month's partition, so
/// nothing a client sends can make one request create many tables.
package struct PartitionPlanner: Sendable {
    /// Most partitions one batch may create.
    package static let maximumNewPerBatch = 3

    /// Months (``monthIndex(milliseconds:)``) known to have a partition.
    private var known = Set<Int64>()

    package init() {}

    /// Year * 12 + month - 1 of a Unix time in milliseconds (UTC).
    package static func monthIndex(milliseconds: Int64) -> Int64 {
        let days = milliseconds >= 0 ? milliseconds / 86_400_000 : (milliseconds - 86_399_999) / 86_400_000
        let (year, month, _) = Timestamp.civil(fromDays: days)
        return year * 12 + month - 1
    }

    /// The first instant of a month index.
    package static func start(ofMonth index: Int64) -> Date {
        let days = Timestamp.daysFromCivil(year: index / 12, month: index % 12 + 1, day: 1)
        return Date(timeIntervalSince1970: Double(days) * 86_400)
    }

    /// Notes months that already have partitions (read from the catalog, or just created).
    package mutating func markKnown<S: Sequence>(_ months: S) where S.Element == Int64 {
        known.formUnion(months)
    }

    /// Whether a month is known to have a partition.
    package func isKnown(_ month: Int64) -> Bool { known.contains(month) }

    /// The months to create before writing `events` (at most ``maximumNewPerBatch``, most rows
    /// first); call ``markKnown(_:)`` with them once created.
    package func monthsToCreate(for events: [Event], now: Date) -> [Int64] {
        let earliest = Timestamp.milliseconds(EventValidator.earliest)
        let latest = Timestamp.milliseconds(now) + 2 * 86_400_000
        var rows: [Int64: Int] = [:]
        var lastDay = Int64.min
        var lastMonth = Int64.min
        for event in events {
            guard let milliseconds = event.eventID.version7Milliseconds, milliseconds >= earliest,
                milliseconds <= latest
            else { continue }
            // Events come in time order runs: the month is recomputed only when the day changes.
            let day = milliseconds / 86_400_000
            if day != lastDay {
                lastDay = day
                lastMonth = Self.monthIndex(milliseconds: milliseconds)
            }
            if !known.contains(lastMonth) { rows[lastMonth, default: 0] += 1 }
        }
        return rows.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .prefix(Self.maximumNewPerBatch).map(\.key)
    }
}
