import CoreMetrics
import Foundation
import Logging
import OnboardMetricsPostgres

extension EventRecorder {
    /// How the recorder batches, retries and spools.
    public struct Configuration: Sendable {
        /// The database to write to.
        public var database: PostgresConfiguration
        /// Events per COPY. Default 5,000: large enough that a commit's fixed cost (a WAL flush,
        /// about a millisecond) is a small share of the batch, small enough that one batch is
        /// a few megabytes of memory.
        public var batchSize = 5_000
        /// Connections (each with a writer thread) sending batches at once. Default 2: while one
        /// batch waits for its commit, the next is copied, so the database is never idle between
        /// batches (measured in BENCHMARKS.md). Batches are copied in event-id order, so writers of
        /// overlapping ids cannot deadlock, and ``EventRecorder/flush()`` still waits for every
        /// earlier event.
        public var writeConnections = 2
        /// Longest an event waits before its batch is sent, in seconds. Default 1: dashboards see
        /// data within a second, and a quiet app still sends few, larger batches.
        public var flushInterval: TimeInterval = 1
        /// Events held in memory at most. When the queue is full, ``record(_:)`` waits for room:
        /// with the database up, for the next batch to commit (a bulk load then runs at the
        /// database's pace); during an outage, only for the writer to move a batch to the spool.
        /// Default 100,000 (tens of megabytes).
        public var maximumBufferedEvents = 100_000
        /// The spool folder; `nil` for no spool (events then wait in memory during an outage).
        public var spoolDirectory: String? = ".onboardmetrics/spool"
        /// Bytes the spool may hold. Nothing it holds is dropped (it was acknowledged): at the cap,
        /// with the database unreachable, events wait in memory and then ``EventRecorder/record(_:)``
        /// throws `RecorderError` `.spoolFull` (``EventRecorder/isRefusingEvents``). Default 1 GiB.
        public var spoolCapacityBytes = 1 << 30
        /// First retry delay after a failure, in seconds; doubles per failure up to ``maximumBackoff``.
        public var initialBackoff: TimeInterval = 0.1
        /// Longest retry delay, in seconds.
        public var maximumBackoff: TimeInterval = 30
        /// The clock that stamps `sent_at` (and `received_at` when the event has none).
        public var clock: @Sendable () -> Date = { Date() }
        /// Where the recorder reports what it had to do (reconnects, refused events, quarantined
        /// spool records), with the numbers as metadata.
        public var logger = Logger(label: "onboardmetrics.recorder")
        /// Where the recorder's counters go as swift-metrics (default: the process's bootstrapped
        /// backend; a collector passes its own, so that two in one process do not share one).
        public var metricsFactory: any MetricsFactory = MetricsSystem.factory

        /// A configuration with the defaults above.
        public init(database: PostgresConfiguration) {
            self.database = database
        }
    }
}
