import CoreMetrics
import Foundation

/// The recorder's counters as swift-metrics. The recorder publishes the growth of
/// ``EventRecorder/Counters`` since its last publication (before it answers flushes, so a
/// collector's answer and its metrics agree), which keeps the counting itself in one place.
struct RecorderMetrics: Sendable {
    /// The metrics' names; the first four are the names `GET /metrics` has always served.
    enum Label {
        static let committed = "onboardmetrics_events_committed_total"
        static let duplicates = "onboardmetrics_events_duplicate_total"
        static let spooled = "onboardmetrics_events_spooled_total"
        static let dropped = "onboardmetrics_events_dropped_total"
        static let recorded = "onboardmetrics_recorder_recorded_total"
        static let rejected = "onboardmetrics_recorder_rejected_total"
        static let retried = "onboardmetrics_recorder_retries_total"
        static let queued = "onboardmetrics_recorder_queued_events"
        static let write = "onboardmetrics_recorder_write_duration_seconds"
    }

    private let committed: Counter
    private let duplicates: Counter
    private let spooled: Counter
    private let dropped: Counter
    private let recorded: Counter
    private let rejected: Counter
    private let retried: Counter
    private let queued: Gauge
    /// Time of one COPY of a batch into PostgreSQL.
    let writeDuration: CoreMetrics.Timer

    init(factory: any MetricsFactory = MetricsSystem.factory) {
        committed = Counter(label: Label.committed, factory: factory)
        duplicates = Counter(label: Label.duplicates, factory: factory)
        spooled = Counter(label: Label.spooled, factory: factory)
        dropped = Counter(label: Label.dropped, factory: factory)
        recorded = Counter(label: Label.recorded, factory: factory)
        rejected = Counter(label: Label.rejected, factory: factory)
        retried = Counter(label: Label.retried, factory: factory)
        queued = Gauge(label: Label.queued, factory: factory)
        writeDuration = CoreMetrics.Timer(label: Label.write, dimensions: [], factory: factory)
    }

    /// Adds what grew since `published` (the recorder's record of the last call, kept under its
    /// lock), and notes `counts` as published.
    func publish(_ counts: EventRecorder.Counters, queued waiting: Int, since published: inout EventRecorder.Counters) {
        func add(_ counter: Counter, _ now: Int, _ before: Int) {
            if now > before { counter.increment(by: now - before) }
        }
        add(committed, counts.committed, published.committed)
        add(duplicates, counts.duplicates, published.duplicates)
        add(spooled, counts.spooled, published.spooled)
        add(dropped, counts.dropped, published.dropped)
        add(recorded, counts.recorded, published.recorded)
        add(rejected, counts.rejected, published.rejected)
        add(retried, counts.retried, published.retried)
        queued.record(waiting)
        published = counts
    }
}
