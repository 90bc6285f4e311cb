import Foundation
import NIOConcurrencyHelpers
import OnboardMetricsPostgres
import OnboardMetricsSDK

/// Records events into PostgreSQL in the background: ``record(_:)`` returns at once, and writer
/// threads of the recorder's own (``Configuration/writeConnections``) send batches with binary COPY.
///
/// The writers start in ``run()`` (the recorder is a `Service`: run it in a `ServiceGroup`, or
/// in a task of your own, as postgres-nio's client — or use ``EventRecording/withRunning(_:)``)
/// and stop once ``shutdown()`` has flushed. A ``flush()`` or ``shutdown()`` without ``run()``
/// starts them too, so that waiting for events never waits forever. Events recorded before the
/// writers start wait in memory.
///
/// Guarantees: an accepted event is never lost while the process lives and never stored twice
/// (the database drops a repeated `event_id`). When the database is unreachable the recorder keeps
/// accepting events, retries with exponential backoff and jitter, and moves waiting events to an
/// append-only spool on disk (bounded by ``Configuration/spoolCapacityBytes``: at the cap it
/// refuses new events rather than drop spooled ones), which it drains once the database is back — also after a crash or `SIGKILL`, when a new recorder opens the
/// same spool folder. Memory stays bounded by ``Configuration/maximumBufferedEvents``.
///
/// Every decision (what is queued and settled, who waits, which writer connects, writes, spools
/// or drains) is made by a `RecorderStateMachine` in one lock box; this class performs the I/O
/// and the waits the machine asks for.
public final class EventRecorder: Sendable {
    /// How the recorder batches, retries and spools.
    public let configuration: Configuration
    let validator = EventValidator()
    let store = EventStore()
    let spool: RecorderSpool?
    let metrics: RecorderMetrics
    /// Ids of the batches taken lately by any writer: a batch repeating one probes before its COPY.
    let recentIDs = NIOLockedValueBox(RecentEventIDs())
    private let state: NIOLockedValueBox<State>
    /// One per writer: signalled when the machine wakes it (a wait with a deadline otherwise).
    let wakeups: [DispatchSemaphore]

    /// The machine and the waiting callers it names by id.
    struct State: Sendable {
        var machine: RecorderStateMachine
        var nextWaiter = 0
        var flushes: [Int: CheckedContinuation<Bool, Never>] = [:]
        var stops: [Int: CheckedContinuation<Counters, Never>] = [:]
        var rooms: [Int: DispatchSemaphore] = [:]
        /// The counters last published as metrics.
        var published = Counters()

        /// Publishes the counters' growth as metrics.
        mutating func publish(_ metrics: RecorderMetrics) {
            var published = self.published
            metrics.publish(machine.counters, queued: machine.queue.count, since: &published)
            self.published = published
        }

        mutating func waiterID() -> Int {
            defer { nextWaiter += 1 }
            return nextWaiter
        }
    }

    /// Creates a recorder and opens its spool (what an earlier process left there is drained once
    /// the database is reachable). Nothing is written until ``run()`` (or ``shutdown()``).
    /// - Throws: `RecorderError` `.spool` when the spool folder cannot be used.
    public init(configuration: Configuration) throws {
        self.configuration = configuration
        metrics = RecorderMetrics(factory: configuration.metricsFactory)
        if let folder = configuration.spoolDirectory {
            // The spool is SDK code (Foundation only): it reports through a closure.
            let logger = configuration.logger
            let log: @Sendable (String) -> Void = { logger.warning("\($0)", metadata: ["component": "spool"]) }
            spool = RecorderSpool(
                // Refusing when full: what the spool holds was acknowledged (`funnel serve` answers
                // once an event is committed or spooled), so nothing in it may be dropped for room.
                try Spool(
                    directory: folder, capacityBytes: configuration.spoolCapacityBytes, whenFull: .refuse, log: log))
        } else {
            spool = nil
        }
        let writers = max(configuration.writeConnections, 1)
        let settings = RecorderStateMachine.Settings(
            batchSize: max(configuration.batchSize, 1), writerCount: writers,
            maximumBufferedEvents: max(configuration.maximumBufferedEvents, 1),
            flushInterval: configuration.flushInterval, hasSpool: spool != nil,
            backoff: Backoff(
                initial: configuration.initialBackoff, maximum: configuration.maximumBackoff, jitter: .equal))
        let machine = RecorderStateMachine(settings: settings, spoolHasData: !(spool?.isEmpty ?? true), now: Date())
        state = NIOLockedValueBox(State(machine: machine))
        wakeups = (0..<writers).map { _ in DispatchSemaphore(value: 0) }
    }

    /// Whether new events should be refused: the spool refused a batch at its cap
    /// (``Configuration/spoolCapacityBytes``) and no writer has reached the database since.
    /// Events already recorded wait in memory; nothing spooled is dropped.
    public var isRefusingEvents: Bool {
        state.withLockedValue { $0.machine.isSaturated }
    }

    /// A snapshot of the counters.
    public var counters: Counters {
        state.withLockedValue { $0.machine.counters }
    }

    /// Accepts an event for recording. Returns at once (unless the queue is full, see
    /// ``Configuration/maximumBufferedEvents``): the event is written in the background.
    /// - Throws: `EventValidationError` when the event is invalid (counted as rejected), or
    ///   `RecorderError` `.shutDown` after ``shutdown()``.
    public func record(_ event: Event) throws {
        _ = try enqueue(event)
    }

    /// Accepts an event like ``record(_:)`` and notes it in `mark`, for ``flush(_:)``.
    public func record(_ event: Event, marking mark: inout RecordingMark) throws {
        mark.note(try enqueue(event), recorder: 0)
    }

    /// Validates and queues an event, waiting for room when the queue is full.
    /// - Returns: its ordinal, the order in which it was recorded.
    func enqueue(_ event: Event) throws -> Int {
        do {
            try validator.validate(event, now: configuration.clock())
        } catch {
            update { state in (state.machine.rejectedInvalid(), RecorderStateMachine.Effects()) }
            throw error
        }
        while true {
            let (action, room) = update { state in
                let id = state.waiterID()
                let (action, effects) = state.machine.record(event, waiter: id)
                var room: DispatchSemaphore?
                if action == .waitForRoom {
                    room = DispatchSemaphore(value: 0)
                    state.rooms[id] = room
                }
                return ((action, room), effects)
            }
            switch action {
            case .enqueued(let ordinal): return ordinal
            case .shutDown: throw RecorderError(.shutDown, "the recorder was shut down")
            case .spoolFull:
                throw RecorderError(
                    .spoolFull, "the database is unreachable and the spool is full: the event was not recorded")
            case .waitForRoom:
                // Room is made by a writer: a committed batch, or, during an outage, a spooled one.
                room?.wait()
            }
        }
    }

    /// Returns once every event recorded before the call is committed to the database — or,
    /// while the database is unreachable, durably spooled (it does not wait out an outage).
    /// With a reachable database, events spooled earlier are drained first.
    /// - Returns: `true` when everything is committed, `false` when some of it waits in the spool.
    @discardableResult
    public func flush() async -> Bool {
        await flush(ordinals: nil)
    }

    /// Returns once the events noted in `mark` are committed — or, while the database is
    /// unreachable, durably spooled — without waiting for events recorded by other callers
    /// before them (which ``flush()`` waits for).
    /// An empty mark waits for no event, only for the spool as ``flush()`` does.
    /// - Returns: `true` when they are committed and the spool is empty, `false` otherwise.
    @discardableResult
    public func flush(_ mark: RecordingMark) async -> Bool {
        await flush(ordinals: mark.ordinals(of: 0) ?? 0..<0)
    }

    /// Waits for the events numbered `ordinals`; `nil` for every event recorded so far.
    func flush(ordinals: Range<Int>?) async -> Bool {
        startWriters()
        // A continuation, not a blocked thread: a server may have hundreds of flushes waiting,
        // and blocked threads would starve the pool its other tasks run on.
        return await withCheckedContinuation { continuation in
            let now = update { state in
                let id = state.waiterID()
                let (result, effects) = state.machine.flush(ordinals: ordinals, waiter: id)
                if result == nil { state.flushes[id] = continuation }
                return (result, effects)
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    /// Flushes, spools what cannot be written, stops the writers and closes their connections
    /// and the spool. Later ``record(_:)`` calls fail. Starts the writers first if ``run()`` was
    /// never called, so that nothing recorded is left behind.
    /// - Returns: the final counters.
    @discardableResult
    public func shutdown() async -> Counters {
        startWriters()
        return await withCheckedContinuation { continuation in
            let final = update { state in
                let id = state.waiterID()
                let (counters, effects) = state.machine.shutdown(waiter: id)
                if counters == nil { state.stops[id] = continuation }
                return (counters, effects)
            }
            if let final { continuation.resume(returning: final) }
        }
    }

    /// Waits until the writers have stopped, without asking them to.
    func waitUntilStopped() async {
        _ = await withCheckedContinuation { (continuation: CheckedContinuation<Counters, Never>) in
            let final = update { state in
                let id = state.waiterID()
                let counters = state.machine.waitForStop(waiter: id)
                if counters == nil { state.stops[id] = continuation }
                return (counters, RecorderStateMachine.Effects())
            }
            if let final { continuation.resume(returning: final) }
        }
    }

    /// Asks the writers to flush and stop, without waiting.
    func beginShutdown() {
        update { state in ((), state.machine.shutdown(waiter: nil).1) }
    }

    /// Starts the writer threads, once.
    func startWriters() {
        guard update({ state in (state.machine.start(), RecorderStateMachine.Effects()) }) else { return }
        for number in wakeups.indices {
            let thread = Thread { [self] in runWriter(number) }
            thread.name = "onboardmetrics.recorder.\(number)"
            thread.start()
        }
    }

    /// Changes the machine under the lock, then — with the lock released — resumes the callers
    /// and wakes the writers its effects name.
    @discardableResult
    func update<Value>(
        _ body: (inout State) -> (Value, RecorderStateMachine.Effects)
    ) -> Value {
        let (value, flushes, stops, rooms, wake) = state.withLockedValue { state in
            let (value, effects) = body(&state)
            let flushes = effects.flushes.compactMap { result in
                state.flushes.removeValue(forKey: result.waiter).map { ($0, result.allCommitted) }
            }
            let counters = state.machine.counters
            let stops = effects.stops.compactMap { state.stops.removeValue(forKey: $0) }.map { ($0, counters) }
            let rooms = effects.rooms.compactMap { state.rooms.removeValue(forKey: $0) }
            if !effects.flushes.isEmpty || !effects.stops.isEmpty {
                // Published before answers, so a collector's answer and its metrics agree.
                state.publish(metrics)
            }
            return (value, flushes, stops, rooms, effects.wake)
        }
        for (continuation, result) in flushes { continuation.resume(returning: result) }
        for (continuation, counters) in stops { continuation.resume(returning: counters) }
        for room in rooms { room.signal() }
        for number in wake { wakeups[number].signal() }
        return value
    }
}
