import Foundation

/// Sends events to an OnboardMetrics collector (`funnel serve`) over HTTP, for apps that must not
/// hold database credentials: ``record(_:)`` returns at once, and a worker thread of the
/// transport's own posts batches to `{endpoint}/v1/batch`.
///
/// When events reach disk: a recorded event waits in memory until a batch's worth has gathered,
/// for at most one second (or ``Configuration/flushInterval`` when that is shorter), or until
/// ``flush()`` or ``shutdown()``; the worker then appends everything waiting to an on-disk queue in
/// ``Configuration/queueDirectory`` as one fsynced record, and sends only from there. An event
/// leaves the queue once the server has answered for it — accepted (stored) or rejected (invalid
/// as sent) — so events survive an app kill once on disk, and a new transport on the same folder
/// sends what an earlier one left. Resends (after a timeout or a crash) repeat the same event ids,
/// which the server stores once.
///
/// Answers: `200` settles each event as its result says (rejections are logged and counted);
/// `413` splits the batch in halves, and a lone event still too large is dropped as rejected;
/// `429` waits for `Retry-After`; `401`/`403` keep the events and retry at
/// ``Configuration/maximumBackoff`` (the key may be fixed on the server); `5xx`, `408`, network
/// errors and timeouts retry with exponential backoff and full jitter (never sooner than a
/// `Retry-After` they carry); any other `4xx` drops the batch as rejected. Memory stays bounded
/// (about ten batches waiting for the disk, plus a batch and one queue segment being sent), and
/// the disk queue by ``Configuration/maximumQueueBytes``.
///
/// Every rule above is a `TransportStateMachine` value behind one lock, which callers and the
/// worker hold only briefly; the worker thread carries out what the machine decides (disk
/// writes, requests, log lines). ``flush()`` and ``shutdown()`` suspend without blocking a
/// thread, and the worker never waits for the network.
///
/// An app makes one with `HTTPTransport(configuration:)`, which `OnboardMetricsURLSession` adds
/// (part of the `OnboardMetricsSDK` product): `URLSession` lives in FoundationNetworking on Linux,
/// and keeping it out of this module keeps it, and libcurl, out of the server's programs.
public final class HTTPTransport: Sendable {
    /// Where the transport sends, how it batches and how it retries.
    public struct Configuration: Sendable {
        /// The collector's base URL, e.g. `https://collector.example.com`; requests go to `/v1/batch` under it.
        public var endpoint: URL
        /// The app key, sent as `Authorization: Bearer {appKey}`.
        public var appKey: String
        /// The folder of the on-disk queue. One transport at a time may use a folder.
        /// Default: `OnboardMetrics/APP/outbox-HASH` in the app's Application Support folder
        /// (Caches on tvOS), one per app and per collector and key.
        public var queueDirectory: String
        /// Bytes the on-disk queue may hold; past it the oldest events are dropped and counted.
        /// Default 16 MiB (some 50,000 events: days of a phone's events while offline).
        public var maximumQueueBytes = 16 << 20
        /// Events per request at most. Default 100.
        public var batchSize = 100
        /// Bytes of request body at most (an event larger than this alone is still sent alone).
        /// Default 512 KiB.
        public var maximumBatchBytes = 512 * 1024
        /// Seconds between sends while less than a batch is waiting. Default 5: few requests
        /// (radio wake-ups cost a phone's battery), data on the server within seconds.
        public var flushInterval: TimeInterval = 5
        /// First retry delay after a failure, in seconds; doubles per failure up to ``maximumBackoff``.
        public var initialBackoff: TimeInterval = 1
        /// Longest retry delay, in seconds, and the delay after `401`/`403`. Default 300: a fleet of
        /// phones with a revoked key should not hammer the collector.
        public var maximumBackoff: TimeInterval = 300
        /// Events held in memory waiting for the disk at most; past it the oldest are dropped and
        /// counted, so ``HTTPTransport/record(_:)`` never waits. Default: ten batches, at least 1,000.
        public var maximumBufferedEvents: Int?
        /// Seconds a request may go without progress before it fails (and is retried). Default 30.
        public var requestTimeout: TimeInterval = 30
        /// The clock that stamps `sent_at`, validates events and reads `Retry-After` dates.
        public var clock: @Sendable () -> Date = { Date() }
        /// Where the transport reports what it had to do (rejections, retries, a wrong key).
        public var log: @Sendable (String) -> Void = { message in
            FileHandle.standardError.write(Data("transport: \(message)\n".utf8))
        }

        /// A configuration with the defaults above.
        /// - Parameters:
        ///   - endpoint: the collector's base URL.
        ///   - appKey: the app key the collector issued.
        ///   - queueDirectory: the on-disk queue's folder; `nil` for the default.
        public init(endpoint: URL, appKey: String, queueDirectory: String? = nil) {
            self.endpoint = endpoint
            self.appKey = appKey
            if let queueDirectory {
                self.queueDirectory = queueDirectory
            } else {
                let base = Self.storageBase
                let app = Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
                let folder = Self.defaultQueueDirectory(base: base, app: app, endpoint: endpoint, appKey: appKey)
                Self.adoptLegacyOutbox(base: base, into: folder)
                self.queueDirectory = folder.path
            }
        }

        /// Where the SDK keeps its files: Application Support, or Caches on tvOS (an Apple TV
        /// lets apps write nothing else). The tvOS branch is not compiled on this project's CI.
        static var storageBase: URL {
            #if os(tvOS)
                let kind = FileManager.SearchPathDirectory.cachesDirectory
            #else
                let kind = FileManager.SearchPathDirectory.applicationSupportDirectory
            #endif
            return FileManager.default.urls(for: kind, in: .userDomainMask).first
                ?? FileManager.default.temporaryDirectory
        }

        /// `OnboardMetrics/APP/outbox-HASH` under `base`: one folder per app (non-sandboxed macOS
        /// apps share Application Support) and per collector and key (two transports in one
        /// process would otherwise collide on the folder's lock). The key is hashed, never written.
        static func defaultQueueDirectory(base: URL, app: String, endpoint: URL, appKey: String) -> URL {
            let safeApp = FileName.safe(app, keeping: "._-")
            let transport = String(
                CRC32.checksum(Array("\(endpoint.absoluteString)\u{1F}\(appKey)".utf8)), radix: 16)
            return base.appendingPathComponent(
                "OnboardMetrics/\(safeApp.isEmpty ? "app" : safeApp)/outbox-\(transport)")
        }

        /// Moves the outbox of earlier versions (`OnboardMetrics/outbox`) to `folder` when only the
        /// old one exists, so an update sends what the previous version left.
        static func adoptLegacyOutbox(base: URL, into folder: URL) {
            let legacy = base.appendingPathComponent("OnboardMetrics/outbox")
            let files = FileManager.default
            guard files.fileExists(atPath: legacy.path), !files.fileExists(atPath: folder.path) else { return }
            try? files.createDirectory(at: folder.deletingLastPathComponent(), withIntermediateDirectories: true)
            try? files.moveItem(at: legacy, to: folder)
        }
    }

    /// What the transport has done so far.
    public struct Counters: Sendable, Hashable, Codable {
        /// Events accepted by ``record(_:)``.
        public var recorded = 0
        /// Events the server accepted (stored).
        public var sent = 0
        /// Events refused: invalid at ``record(_:)``, rejected by the server, or too large for it.
        public var rejected = 0
        /// Failed attempts that will be retried (network errors, `5xx`, `429`, `401`/`403`).
        public var retried = 0
        /// Events lost: the on-disk queue was over its cap, or the disk could not be written.
        public var dropped = 0
        /// Events on disk waiting for the server (including any an earlier transport left).
        public var queued = 0
        /// Events in memory, not yet on disk.
        public var buffered = 0
    }

    /// How the transport was set up (its queue folder, for instance).
    public let configuration: Configuration
    let poster: any BatchPoster
    /// Uniform in 0...1, for the backoff's jitter.
    let random: @Sendable () -> Double
    /// Maps each retry delay chosen to the delay waited (identity; tests record and shorten it).
    let retryDelay: @Sendable (TimeInterval) -> TimeInterval
    /// Runs on the worker thread before each write to the on-disk queue (nothing; a test holds it
    /// to stand for a disk that has stalled).
    let beforeDiskWrite: @Sendable () -> Void
    private let validator = EventValidator()
    /// The state machine, and the continuations of the calls waiting for it.
    private let shared: LockedBox<Shared>
    /// Signalled when an action says to wake the worker; the machine sends at most one signal
    /// between two waits.
    private let wakeup = DispatchSemaphore(value: 0)

    /// What the lock guards: the machine, and the continuations of the ``flush()`` and
    /// ``shutdown()`` calls waiting, under the ids the machine gave them.
    private struct Shared: Sendable {
        var machine: TransportStateMachine
        var flushes: [TransportStateMachine.WaiterID: CheckedContinuation<Bool, Never>] = [:]
        var stops: [TransportStateMachine.WaiterID: CheckedContinuation<Void, Never>] = [:]
    }

    /// Starts a transport that posts through `poster`: opens the on-disk queue (sending what an
    /// earlier transport left there) and the worker thread. Apps call `init(configuration:)` of
    /// `OnboardMetricsURLSession`, which posts with `URLSession`.
    /// - Throws: `RecorderError` `.spool` when the queue folder cannot be created or another
    ///   transport or process uses it.
    /// - Parameters:
    ///   - random: uniform numbers in 0...1 for the backoff's jitter.
    ///   - retryDelay: maps each retry delay the transport chose to the delay it waits.
    ///   - beforeDiskWrite: runs on the worker thread before each write to the on-disk queue.
    package init(
        configuration: Configuration, poster: any BatchPoster,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) },
        retryDelay: @escaping @Sendable (TimeInterval) -> TimeInterval = { $0 },
        beforeDiskWrite: @escaping @Sendable () -> Void = {}
    ) throws {
        self.configuration = configuration
        self.poster = poster
        self.random = random
        self.retryDelay = retryDelay
        self.beforeDiskWrite = beforeDiskWrite
        shared = LockedBox(
            Shared(machine: TransportStateMachine(settings: .init(configuration: configuration), now: Date())))
        // The worker opens the queue itself: the spool is not Sendable, so it is made on the one
        // thread that uses it. This initializer waits for the folder, to throw when it is taken.
        let opened = DispatchSemaphore(value: 0)
        let failure = LockedBox<(any Error)?>(nil)
        let thread = Thread { [self] in
            let spool: Spool
            do {
                spool = try Spool(
                    directory: configuration.queueDirectory, capacityBytes: max(1, configuration.maximumQueueBytes),
                    log: configuration.log)
            } catch {
                failure.withLock { $0 = error }
                opened.signal()
                return
            }
            opened.signal()
            var worker = TransportWorker(transport: self, outbox: TransportOutbox(spool: spool))
            worker.run()
        }
        thread.name = "onboardmetrics.transport"
        thread.start()
        opened.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// A snapshot of the counters.
    public var counters: Counters {
        shared.withLock { $0.machine.counters }
    }

    /// Accepts an event for sending. Returns at once, whatever the network or the disk do: the
    /// event waits in a bounded memory buffer that the worker thread writes to the on-disk queue;
    /// when the buffer is full (the disk is slower than the app, or failing) the oldest buffered
    /// event is dropped and counted in ``Counters/dropped`` — the caller never waits.
    /// - Throws: `EventValidationError` when the event is invalid (counted as rejected), or
    ///   `RecorderError` `.shutDown` after ``shutdown()``.
    public func record(_ event: Event) throws {
        try record(contentsOf: [event])
    }

    /// Accepts the events of one move together: all, or none when one is invalid (each invalid
    /// one is counted as rejected) or the transport is shut down. Returns at once, as ``record(_:)``.
    public func record(contentsOf events: [Event]) throws {
        let now = configuration.clock()
        var firstError: (any Error)?
        var invalid = 0
        for event in events {
            do {
                try validator.validate(event, now: now)
            } catch {
                invalid += 1
                if firstError == nil { firstError = error }
            }
        }
        if let firstError {
            shared.withLock { $0.machine.rejectInvalid(invalid) }
            throw firstError
        }
        let accepted = update { shared in
            switch shared.machine.record(events, now: Date()) {
            case .shutDown: (false, TransportStateMachine.Actions())
            case .accepted(let actions): (true, actions)
            }
        }
        guard accepted else { throw RecorderError(.shutDown, "the transport was shut down") }
    }

    /// Sends everything waiting, including what an earlier transport left on disk.
    ///
    /// It attempts at once, cutting short a backoff wait — but not a wait the server asked for
    /// with `429 Retry-After`: while one runs, it returns `false` without sending.
    /// - Returns: `true` once every event recorded before the call is settled (accepted or
    ///   rejected by the server); `false` after an attempt that failed (the events stay queued).
    @discardableResult
    public func flush() async -> Bool {
        await withCheckedContinuation { continuation in
            let done: Bool? = update { shared in
                switch shared.machine.flush(now: Date()) {
                case .done(let flushed):
                    return (flushed, TransportStateMachine.Actions())
                case .waiting(let id, let actions):
                    shared.flushes[id] = continuation
                    return (nil, actions)
                }
            }
            if let done { continuation.resume(returning: done) }
        }
    }

    /// Flushes, writes what is left to disk (for the next transport on the folder), stops the
    /// worker and releases the folder. Later ``record(_:)`` calls fail.
    /// - Returns: the final counters.
    @discardableResult
    public func shutdown() async -> Counters {
        shared.withLock { $0.machine.close() }
        await flush()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = update { shared in
                switch shared.machine.stop() {
                case .done:
                    return (true, TransportStateMachine.Actions())
                case .waiting(let id, let actions):
                    shared.stops[id] = continuation
                    return (false, actions)
                }
            }
            if done { continuation.resume() }
        }
        return counters
    }

    // MARK: - For the worker thread

    /// Runs `body` on the machine under the lock and carries out the actions it returns.
    func perform(_ body: (inout TransportStateMachine) -> TransportStateMachine.Actions) {
        update { shared in ((), body(&shared.machine)) }
    }

    /// Runs `body` on the machine under the lock, for inputs that return no actions.
    func withMachine<Value>(_ body: (inout TransportStateMachine) -> Value) -> Value {
        shared.withLock { body(&$0.machine) }
    }

    /// Sleeps until `date`, or until an action wakes the worker.
    func waitForWork(until date: Date) {
        _ = wakeup.wait(timeout: .now() + max(0, date.timeIntervalSinceNow))
    }

    /// Posts a batch's body in a task (the worker thread never waits for the network); the
    /// answer goes to the machine, which wakes the worker to handle it.
    func post(_ body: Data) {
        let poster = poster
        let appKey = configuration.appKey
        Task.detached { [self] in
            let outcome: Result<BatchPoster.Reply, any Error>
            do {
                outcome = .success(try await poster.post(body: body, appKey: appKey))
            } catch {
                outcome = .failure(error)
            }
            perform { $0.answerArrived(outcome) }
        }
    }

    /// Runs `body` under the lock, takes out the continuations its actions resume, and once the
    /// lock is released carries the actions out: log, wake the worker, resume.
    private func update<Value>(
        _ body: (inout Shared) -> (Value, TransportStateMachine.Actions)
    ) -> Value {
        let (value, actions, flushes, stops) = shared.withLock { shared in
            let (value, actions) = body(&shared)
            let flushes = actions.resumeFlushes.compactMap { resumption in
                shared.flushes.removeValue(forKey: resumption.id).map { ($0, resumption.flushed) }
            }
            let stops = actions.resumeStops.compactMap { shared.stops.removeValue(forKey: $0) }
            return (value, actions, flushes, stops)
        }
        for line in actions.log { configuration.log(line) }
        if actions.wakeWorker { wakeup.signal() }
        for (continuation, flushed) in flushes { continuation.resume(returning: flushed) }
        for continuation in stops { continuation.resume() }
        return value
    }
}

extension HTTPTransport: EventSink {}

extension HTTPTransport {
    /// Seconds to wait from a `Retry-After` value; see ``TransportStateMachine/retryAfter(_:now:)``.
    package static func retryAfter(_ value: String, now: Date) -> TimeInterval? {
        TransportStateMachine.retryAfter(value, now: now)
    }
}
