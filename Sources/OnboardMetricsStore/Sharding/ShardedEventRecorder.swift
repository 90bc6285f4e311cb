import Foundation
import OnboardMetricsSDK
import ServiceLifecycle

/// Records events into a sharded deployment: one ``EventRecorder`` per shard, each event handed
/// to the recorder of its session's shard (``SessionBucket``). Each shard's recorder batches,
/// copies (binary COPY), dedupes, retries and spools on its own, so the shards are written in
/// parallel and a shard that is down only delays its own events — they wait in that shard's
/// spool (`SPOOL/shard-ID`) while the others land.
///
/// Without shards it is one recorder writing to the coordinator, as before.
///
/// The topology is read once, at start: a bucket moved later is routed anew by the next process
/// (move buckets while writers are stopped, see docs/SCALING.md).
public final class ShardedEventRecorder: EventRecording {
    /// The topology events are routed by.
    public let topology: ShardTopology
    private let recorders: [EventRecorder]
    private let owner: [Int?]

    /// Starts one recorder per shard (one for the coordinator when there are none).
    /// - Parameters:
    ///   - configuration: the recorder settings; its database is the coordinator's, its spool
    ///     folder gets a `shard-ID` folder per shard.
    ///   - topology: the shards (``ShardCatalog/load(_:)``).
    /// - Throws: `RecorderError` `.spool` when a spool folder cannot be used.
    public init(configuration: EventRecorder.Configuration, topology: ShardTopology) throws {
        self.topology = topology
        guard topology.isSharded else {
            recorders = [try EventRecorder(configuration: configuration)]
            owner = Array(repeating: 0, count: SessionBucket.count)
            return
        }
        var recorders: [EventRecorder] = []
        for shard in topology.shards {
            var settings = configuration
            settings.database = shard.configuration
            settings.spoolDirectory = configuration.spoolDirectory.map {
                URL(fileURLWithPath: $0).appendingPathComponent("shard-\(shard.id)").path
            }
            settings.logger[metadataKey: "shard"] = "\(shard.id)"
            recorders.append(try EventRecorder(configuration: settings))
        }
        self.recorders = recorders
        owner = topology.ownerOfBucket
    }

    /// The position of the recorder of an event's shard.
    private func recorderIndex(for event: Event) throws -> Int {
        let bucket = SessionBucket.of(event.sessionID)
        guard let index = owner[bucket] else {
            throw ShardingError(.badBucket, "bucket \(bucket) is held by no shard (see `funnel shards list`)")
        }
        return index
    }

    /// Accepts an event for its shard's recorder. Returns at once.
    /// - Throws: `EventValidationError` for an invalid event, `RecorderError` after shutdown,
    ///   ``ShardingError`` when no shard holds the event's bucket.
    public func record(_ event: Event) throws {
        try recorders[recorderIndex(for: event)].record(event)
    }

    /// Accepts an event like ``record(_:)`` and notes it in `mark`, for ``flush(_:)``.
    public func record(_ event: Event, marking mark: inout RecordingMark) throws {
        let index = try recorderIndex(for: event)
        mark.note(try recorders[index].enqueue(event), recorder: index)
    }

    /// Waits until every shard's recorder has committed (or spooled) what it was given.
    @discardableResult
    public func flush() async -> Bool {
        await flush(recorders.map { ($0, nil) })
    }

    /// Waits until the shards' recorders have committed (or spooled) the events noted in `mark`,
    /// not those other callers recorded before them.
    @discardableResult
    public func flush(_ mark: RecordingMark) async -> Bool {
        // An empty mark waits for no event, only for the spools, as `EventRecorder.flush(_:)` does.
        if mark.isEmpty { return await flush(recorders.map { ($0, 0..<0) }) }
        return await flush(mark.ranges.map { (recorders[$0.recorder], $0.ordinals) })
    }

    /// Waits for each recorder's `ordinals` (`nil`: everything it was given), at once.
    private func flush(_ waits: [(recorder: EventRecorder, ordinals: Range<Int>?)]) async -> Bool {
        // One shard (every single-server collector): no child task per request.
        if waits.count == 1, let only = waits.first { return await only.recorder.flush(ordinals: only.ordinals) }
        return await withTaskGroup(of: Bool.self) { group in
            for wait in waits { group.addTask { await wait.recorder.flush(ordinals: wait.ordinals) } }
            var all = true
            for await done in group { all = all && done }
            return all
        }
    }

    /// Whether any shard's recorder refuses new events (see ``EventRecording/isRefusingEvents``).
    public var isRefusingEvents: Bool { recorders.contains(where: \.isRefusingEvents) }

    /// The counters of every shard's recorder, summed.
    public var counters: EventRecorder.Counters {
        recorders.map(\.counters).reduce(EventRecorder.Counters(), +)
    }

    /// Each shard's counters, in ``topology`` order (one entry without shards).
    public var countersByShard: [EventRecorder.Counters] { recorders.map(\.counters) }

    /// Flushes and stops every recorder (starting their writers if ``run()`` was never called).
    /// - Returns: the final counters, summed.
    @discardableResult
    public func shutdown() async -> EventRecorder.Counters {
        await withTaskGroup(of: EventRecorder.Counters.self) { group in
            for recorder in recorders { group.addTask { await recorder.shutdown() } }
            var sum = EventRecorder.Counters()
            for await counters in group { sum = sum + counters }
            return sum
        }
    }
}

extension ShardedEventRecorder: Service {
    /// Runs every shard's recorder (see ``EventRecorder/run()``) until they have stopped: after
    /// ``shutdown()``, a graceful shutdown of the group, or cancellation.
    public func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            for recorder in recorders { group.addTask { try? await recorder.run() } }
        }
    }
}
