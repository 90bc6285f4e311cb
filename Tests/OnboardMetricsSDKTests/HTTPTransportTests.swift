import Foundation
import Testing

@testable import OnboardMetricsSDK

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct HTTPTransportTests {
    typealias Reply = (status: Int, headers: [String: String], body: Data)

    /// One request as the scripted poster saw it.
    struct SentBatch: Sendable {
        let body: Data
        let appKey: String
        let sentAt: String
        let events: [Event]
        var ids: [UUID] { events.map(\.eventID) }
    }

    /// The body's two keys, decoded the way the collector would.
    struct Envelope: Decodable {
        let sentAt: String
        let events: [Event]
        enum CodingKeys: String, CodingKey {
            case sentAt = "sent_at"
            case events
        }
    }

    /// A poster that answers from a script, one call at a time, and remembers every request.
    final class ScriptedPoster: BatchPoster, @unchecked Sendable {
        private let lock = NSLock()
        private var script: @Sendable (SentBatch, Int) throws -> Reply
        private var sent: [SentBatch] = []

        init(
            _ script: @escaping @Sendable (SentBatch, Int) throws -> Reply = { batch, _ in
                HTTPTransportTests.accept(batch)
            }
        ) {
            self.script = script
        }

        var requests: [SentBatch] { lock.withLock { sent } }

        func answer(with script: @escaping @Sendable (SentBatch, Int) throws -> Reply) {
            lock.withLock { self.script = script }
        }

        func post(body: Data, appKey: String) async throws -> Reply {
            let envelope = try JSONDecoder().decode(Envelope.self, from: body)
            let batch = SentBatch(body: body, appKey: appKey, sentAt: envelope.sentAt, events: envelope.events)
            let (script, index) = lock.withLock {
                sent.append(batch)
                return (self.script, sent.count - 1)
            }
            return try script(batch, index)
        }
    }

    /// Collects log lines, and the retry delays the transport chose (it then waits a millisecond,
    /// or `replacement` seconds when set).
    final class Observer: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        private var chosen: [TimeInterval] = []
        private let replacement: TimeInterval?

        init(waiting replacement: TimeInterval? = nil) { self.replacement = replacement }

        var log: [String] { lock.withLock { lines } }
        var delays: [TimeInterval] { lock.withLock { chosen } }
        func append(_ line: String) { lock.withLock { lines.append(line) } }
        func delay(_ delay: TimeInterval) -> TimeInterval {
            lock.withLock { chosen.append(delay) }
            return replacement ?? 0.001
        }
    }

    /// A clock that can be moved, or that moves a second at every reading.
    final class TestClock: @unchecked Sendable {
        private let lock = NSLock()
        private var now: Date
        private let step: TimeInterval
        init(_ now: Date, step: TimeInterval = 0) {
            self.now = now
            self.step = step
        }
        func read() -> Date {
            lock.withLock {
                defer { now.addTimeInterval(step) }
                return now
            }
        }
    }

    static let start = Date(timeIntervalSince1970: 1_792_567_680)  // 2026-10-21T07:28:00Z

    static func folder() -> String {
        NSTemporaryDirectory() + "transport-test-\(UUID().uuidString)"
    }

    static func events(_ count: Int, offset: Int = 0, padding: Int = 0) -> [Event] {
        let session = UUID()
        return (0..<count).map { index in
            Event(
                eventID: UUID(), sessionID: session, userID: "u1", seq: offset + index + 1, kind: .custom,
                name: "e\(offset + index)", occurredAt: start.addingTimeInterval(Double(offset + index)),
                properties: padding > 0 ? ["blob": .string(String(repeating: "x", count: padding))] : ["i": 1])
        }
    }

    static func accept(_ batch: SentBatch, rejecting rejected: Set<Int> = []) -> Reply {
        let results = batch.events.enumerated().map { index, event in
            rejected.contains(index)
                ? BatchResponse.Result(
                    index: index, eventID: event.eventID, status: .rejected,
                    error: .init(code: "missing", field: "user_id", reason: "is empty"))
                : BatchResponse.Result(index: index, eventID: event.eventID, status: .accepted)
        }
        let body = (try? JSONEncoder().encode(BatchResponse(results: results))) ?? Data()
        return (200, ["content-type": "application/json"], body)
    }

    static func failure(_ status: Int, code: String, message: String, headers: [String: String] = [:]) -> Reply {
        let body = (try? JSONEncoder().encode(CollectorErrorResponse(code: code, message: message))) ?? Data()
        return (status, headers, body)
    }

    static func configuration(
        folder: String, observer: Observer, clock: TestClock = TestClock(start),
        edit: (inout HTTPTransport.Configuration) -> Void = { _ in }
    ) throws -> HTTPTransport.Configuration {
        var configuration = HTTPTransport.Configuration(
            endpoint: try #require(URL(string: "https://collector.test")), appKey: "key-1", queueDirectory: folder)
        // Partial batches go only on flush(): the tests decide when.
        configuration.flushInterval = 3600
        configuration.initialBackoff = 1
        configuration.maximumBackoff = 8
        configuration.clock = { clock.read() }
        configuration.log = { observer.append($0) }
        edit(&configuration)
        return configuration
    }

    static func transport(
        folder: String, poster: ScriptedPoster, observer: Observer, clock: TestClock = TestClock(start),
        random: @escaping @Sendable () -> Double = { 0.5 }, edit: (inout HTTPTransport.Configuration) -> Void = { _ in }
    ) throws -> HTTPTransport {
        try HTTPTransport(
            configuration: configuration(folder: folder, observer: observer, clock: clock, edit: edit), poster: poster,
            random: random, retryDelay: { observer.delay($0) })
    }

    /// Polls until `check` holds or ten seconds pass.
    /// Waits for `check` to hold. Generous: the transport's requests run as tasks, and CPU-bound
    /// suites running in parallel in the same process can hold the cooperative pool for a minute.
    static func eventually(_ check: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(180)
        while Date() < deadline {
            if check() { return true }
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
        return check()
    }

    // MARK: - The request

    @Test func theBodyIsSentAtAndTheEventsJSONLines() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let poster = ScriptedPoster()
        let observer = Observer()
        let transport = try Self.transport(folder: path, poster: poster, observer: observer)
        let events = Self.events(3)
        for event in events { try transport.record(event) }
        #expect(await transport.flush())
        let request = try #require(poster.requests.first)
        #expect(poster.requests.count == 1)
        #expect(request.appKey == "key-1")
        #expect(request.sentAt == "2026-10-21T07:28:00.000Z")
        let expected =
            #"{"sent_at":"2026-10-21T07:28:00.000Z","events":["# + events.map(\.jsonLine).joined(separator: ",") + "]}"
        #expect(String(decoding: request.body, as: UTF8.self) == expected)
        #expect(request.events == events)
        let keys = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any]).keys
        #expect(Set(keys) == ["sent_at", "events"])
        #expect(TransportBatch.envelopeBytes == TransportBatch().body(sentAt: Self.start).count)
        let counters = await transport.shutdown()
        #expect(counters.recorded == 3)
        #expect(counters.sent == 3)
        #expect(counters.queued == 0)
        #expect(counters.buffered == 0)
    }

    @Test func theURLSessionPosterBuildsTheWireRequest() throws {
        let endpoint = try #require(URL(string: "https://collector.example.com/onboarding/"))
        let poster = URLSessionBatchPoster(endpoint: endpoint, timeout: 12)
        let request = poster.request(body: Data("{}".utf8), appKey: "om_live_abc")
        #expect(request.url?.absoluteString == "https://collector.example.com/onboarding/v1/batch")
        #expect(request.httpMethod == "POST")
        #expect(request.value(forHTTPHeaderField: "Authorization") == "Bearer om_live_abc")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(request.httpBody == Data("{}".utf8))
        #expect(request.timeoutInterval == 12)
    }

    // MARK: - Batching

    @Test func batchesHoldAtMostBatchSizeEventsAndAFullOneGoesWithoutFlush() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let poster = ScriptedPoster()
        let transport = try Self.transport(
            folder: path, poster: poster, observer: Observer(), edit: { $0.batchSize = 3 })
        let events = Self.events(7)
        for event in events.prefix(3) { try transport.record(event) }
        // A complete batch is sent at once, long before the flush interval (an hour here).
        #expect(await Self.eventually { poster.requests.count == 1 })
        for event in events.dropFirst(3) { try transport.record(event) }
        #expect(await transport.flush())
        #expect(poster.requests.map(\.events.count) == [3, 3, 1])
        #expect(poster.requests.flatMap(\.ids) == events.map(\.eventID))
        #expect(await transport.shutdown().sent == 7)
    }

    @Test func batchesStayUnderMaximumBatchBytes() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let poster = ScriptedPoster()
        let transport = try Self.transport(
            folder: path, poster: poster, observer: Observer(), edit: { $0.maximumBatchBytes = 5_000 })
        // Each event is some 2,200 bytes of JSON: two fit under 5,000, three do not.
        let events = Self.events(5, padding: 2_000)
        for event in events { try transport.record(event) }
        #expect(await transport.flush())
        #expect(poster.requests.map(\.events.count) == [2, 2, 1])
        #expect(poster.requests.allSatisfy { $0.body.count <= 5_000 })
        #expect(poster.requests.flatMap(\.ids) == events.map(\.eventID))
        await transport.shutdown()
    }

    // MARK: - Answers

    @Test func rejectedEventsAreDroppedCountedAndLogged() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let poster = ScriptedPoster { batch, _ in Self.accept(batch, rejecting: [1, 3]) }
        let observer = Observer()
        let transport = try Self.transport(folder: path, poster: poster, observer: observer)
        let events = Self.events(4)
        for event in events { try transport.record(event) }
        #expect(await transport.flush())
        let counters = transport.counters
        #expect(counters.sent == 2)
        #expect(counters.rejected == 2)
        #expect(counters.queued == 0)
        for index in [1, 3] {
            let id = events[index].eventID.uuidString.lowercased()
            #expect(
                observer.log.contains {
                    $0.contains(id) && $0.contains("index \(index)") && $0.contains("missing user_id: is empty")
                })
        }
        // Nothing is resent: the rejected events left the queue with the accepted ones.
        #expect(await transport.flush())
        #expect(poster.requests.count == 1)
        await transport.shutdown()
    }

    @Test func payloadTooLargeSplitsUntilALoneEventIsDropped() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let events = Self.events(4)
        let huge = events[1].eventID
        let poster = ScriptedPoster { batch, _ in
            batch.ids.contains(huge) || batch.events.count > 2
                ? Self.failure(413, code: "payload_too_large", message: "at most 1 MiB") : Self.accept(batch)
        }
        let observer = Observer()
        let transport = try Self.transport(folder: path, poster: poster, observer: observer)
        for event in events { try transport.record(event) }
        #expect(await transport.flush())
        #expect(
            poster.requests.map(\.ids) == [
                events.map(\.eventID), [events[0], events[1]].map(\.eventID), [events[0].eventID], [huge],
                [events[2], events[3]].map(\.eventID),
            ])
        let counters = await transport.shutdown()
        #expect(counters.sent == 3)
        #expect(counters.rejected == 1)
        #expect(counters.retried == 0)
        #expect(counters.queued == 0)
        #expect(observer.log.contains { $0.contains(huge.uuidString.lowercased()) && $0.contains("too large") })
    }

    @Test func tooManyRequestsWaitsRetryAfterSeconds() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let poster = ScriptedPoster { batch, attempt in
            attempt == 0
                ? Self.failure(429, code: "rate_limited", message: "slow down", headers: ["Retry-After": "7"])
                : Self.accept(batch)
        }
        let observer = Observer()
        let transport = try Self.transport(folder: path, poster: poster, observer: observer)
        let events = Self.events(2)
        for event in events { try transport.record(event) }
        #expect(await transport.flush() == false)
        #expect(await Self.eventually { transport.counters.sent == 2 })
        #expect(observer.delays == [7])
        #expect(poster.requests.map(\.ids) == [events.map(\.eventID), events.map(\.eventID)])
        #expect(await transport.shutdown().retried == 1)
    }

    @Test func tooManyRequestsWaitsUntilARetryAfterDate() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let poster = ScriptedPoster { batch, attempt in
            attempt == 0
                ? Self.failure(
                    429, code: "rate_limited", message: "slow down",
                    headers: ["retry-after": "Wed, 21 Oct 2026 07:28:07 GMT"])
                : Self.accept(batch)
        }
        let observer = Observer()
        let transport = try Self.transport(folder: path, poster: poster, observer: observer)
        try transport.record(Self.events(1)[0])
        #expect(await transport.flush() == false)
        #expect(await Self.eventually { transport.counters.sent == 1 })
        #expect(observer.delays == [7])
        await transport.shutdown()
    }

    @Test func retryAfterValuesAreReadInBothForms() {
        let now = Self.start
        #expect(HTTPTransport.retryAfter("120", now: now) == 120)
        #expect(HTTPTransport.retryAfter(" 0 ", now: now) == 0)
        #expect(HTTPTransport.retryAfter("Wed, 21 Oct 2026 07:28:07 GMT", now: now) == 7)
        #expect(HTTPTransport.retryAfter("Wednesday, 21-Oct-26 07:29:00 GMT", now: now) == 60)
        #expect(HTTPTransport.retryAfter("Wed Oct 21 07:28:30 2026", now: now) == 30)
        // A date already past means now; an absurd wait is capped at a day.
        #expect(HTTPTransport.retryAfter("Tue, 20 Oct 2026 07:28:00 GMT", now: now) == 0)
        #expect(HTTPTransport.retryAfter("99999999", now: now) == 86_400)
        #expect(HTTPTransport.retryAfter("soon", now: now) == nil)
        #expect(HTTPTransport.retryAfter("-5", now: now) == nil)
        #expect(HTTPTransport.retryAfter("", now: now) == nil)
    }

    @Test func whileRetryAfterRunsFlushDoesNotSend() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let poster = ScriptedPoster { _, _ in
            Self.failure(429, code: "rate_limited", message: "slow down", headers: ["Retry-After": "3600"])
        }
        let observer = Observer(waiting: 3600)
        let transport = try Self.transport(folder: path, poster: poster, observer: observer)
        for event in Self.events(3) { try transport.record(event) }
        #expect(await transport.flush() == false)
        #expect(await transport.flush() == false)
        #expect(poster.requests.count == 1)
        let counters = await transport.shutdown()
        #expect(poster.requests.count == 1)
        #expect(counters.queued == 3)
        #expect(counters.retried == 1)
    }

    @Test func serverErrorsBackOffExponentiallyWithFullJitterUpToTheMaximum() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let poster = ScriptedPoster { batch, attempt in
            attempt < 5 ? Self.failure(503, code: "unavailable", message: "database down") : Self.accept(batch)
        }
        let observer = Observer()
        // Jitter drawn at 0.5: half of each ceiling 1, 2, 4, 8, 8 (initial 1 s, maximum 8 s).
        let transport = try Self.transport(folder: path, poster: poster, observer: observer, random: { 0.5 })
        let events = Self.events(2)
        for event in events { try transport.record(event) }
        #expect(await transport.flush() == false)
        #expect(await Self.eventually { transport.counters.sent == 2 })
        #expect(observer.delays == [0.5, 1, 2, 4, 4])
        #expect(poster.requests.count == 6)
        #expect(poster.requests.allSatisfy { $0.ids == events.map(\.eventID) })
        // The first failure is logged with its reason; the success after failures too.
        #expect(observer.log.contains { $0.contains("503") && $0.contains("database down") })
        #expect(observer.log.contains { $0.contains("answers again") })
        let counters = await transport.shutdown()
        #expect(counters.retried == 5)
        #expect(counters.sent == 2)
    }

    @Test func aRetryAfterOnServiceUnavailableIsAFloorUnderTheBackoff() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let poster = ScriptedPoster { batch, attempt in
            attempt < 1
                ? Self.failure(503, code: "unavailable", message: "keys", headers: ["Retry-After": "5"])
                : Self.accept(batch)
        }
        let observer = Observer()
        let transport = try Self.transport(folder: path, poster: poster, observer: observer, random: { 0.5 })
        try transport.record(Self.events(1)[0])
        #expect(await transport.flush() == false)
        #expect(await Self.eventually { transport.counters.sent == 1 })
        #expect(observer.delays == [5])
        await transport.shutdown()
    }

    @Test func jitterStaysBetweenZeroAndTheCeiling() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let poster = ScriptedPoster { batch, attempt in
            attempt < 8 ? Self.failure(500, code: "internal", message: "oops") : Self.accept(batch)
        }
        let observer = Observer()
        let transport = try Self.transport(
            folder: path, poster: poster, observer: observer, random: { Double.random(in: 0...1) })
        try transport.record(Self.events(1)[0])
        #expect(await transport.flush() == false)
        #expect(await Self.eventually { transport.counters.sent == 1 })
        let ceilings: [TimeInterval] = [1, 2, 4, 8, 8, 8, 8, 8]
        let delays = observer.delays
        #expect(delays.count == ceilings.count)
        for (delay, ceiling) in zip(delays, ceilings) {
            #expect(delay >= 0 && delay <= ceiling)
        }
        #expect(Set(delays).count > 1)
        await transport.shutdown()
    }

    @Test func networkErrorsResendTheSameIDsWithAFreshSentAt() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let poster = ScriptedPoster { batch, attempt in
            if attempt == 0 { throw URLError(.timedOut) }
            return Self.accept(batch)
        }
        let observer = Observer()
        let clock = TestClock(Self.start, step: 1)
        let transport = try Self.transport(folder: path, poster: poster, observer: observer, clock: clock)
        let events = Self.events(3)
        for event in events { try transport.record(event) }
        #expect(await transport.flush() == false)
        #expect(await Self.eventually { transport.counters.sent == 3 })
        let requests = poster.requests
        #expect(requests.count == 2)
        #expect(requests.allSatisfy { $0.ids == events.map(\.eventID) })
        #expect(requests[0].sentAt != requests[1].sentAt)
        #expect(observer.log.contains { $0.contains("unreachable") })
        await transport.shutdown()
    }

    @Test func aRefusedKeyKeepsTheEventsAndRetriesAtTheMaximumBackoff() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let poster = ScriptedPoster { _, _ in Self.failure(401, code: "unauthorized", message: "unknown app key") }
        let observer = Observer(waiting: 3600)
        let transport = try Self.transport(folder: path, poster: poster, observer: observer)
        for event in Self.events(4) { try transport.record(event) }
        #expect(await transport.flush() == false)
        #expect(transport.counters.queued == 4)
        #expect(observer.delays == [8])
        #expect(observer.log.contains { $0.contains("refused the app key") && $0.contains("unknown app key") })
        // A flush does not wait out the backoff: it tries again at once.
        #expect(await transport.flush() == false)
        #expect(poster.requests.count == 2)
        poster.answer { batch, _ in Self.accept(batch) }
        #expect(await transport.flush())
        let counters = await transport.shutdown()
        #expect(counters.sent == 4)
        #expect(counters.retried == 2)
        #expect(counters.queued == 0)
    }

    @Test func anotherClientErrorDropsTheBatchAsRejected() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let poster = ScriptedPoster { _, _ in Self.failure(400, code: "malformed", message: "events must be an array") }
        let observer = Observer()
        let transport = try Self.transport(folder: path, poster: poster, observer: observer)
        for event in Self.events(3) { try transport.record(event) }
        #expect(await transport.flush())
        let counters = await transport.shutdown()
        #expect(counters.rejected == 3)
        #expect(counters.sent == 0)
        #expect(counters.queued == 0)
        #expect(observer.log.contains { $0.contains("400 malformed: events must be an array") })
    }

    // MARK: - The disk queue

    @Test func eventsLeftAtShutdownAreSentByTheNextTransportOnTheFolder() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let failing = ScriptedPoster { _, _ in Self.failure(503, code: "unavailable", message: "down") }
        let first = try Self.transport(folder: path, poster: failing, observer: Observer())
        let events = Self.events(5)
        for event in events { try first.record(event) }
        let left = await first.shutdown()
        #expect(left.queued == 5)
        #expect(left.sent == 0)
        #expect(!failing.requests.isEmpty)
        #expect(failing.requests.allSatisfy { $0.ids == events.map(\.eventID) })

        let poster = ScriptedPoster()
        let observer = Observer()
        let second = try Self.transport(folder: path, poster: poster, observer: observer)
        #expect(await Self.eventually { second.counters.queued == 5 })
        #expect(await second.flush())
        #expect(poster.requests.flatMap(\.ids) == events.map(\.eventID))
        #expect(poster.requests.flatMap(\.events) == events)
        let counters = await second.shutdown()
        #expect(counters.recorded == 0)
        #expect(counters.sent == 5)
        #expect(counters.queued == 0)
        #expect(observer.log.contains { $0.contains("5 events left by an earlier transport") })
    }

    @Test func aBacklogLeftByAKilledProcessGoesFirst() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        // What a killed app leaves: fsynced records in an unsealed segment.
        let backlog = Self.events(3)
        do {
            let spool = try Spool(directory: path, capacityBytes: 1 << 20, log: { _ in })
            try spool.append(backlog)
        }
        let poster = ScriptedPoster()
        let transport = try Self.transport(folder: path, poster: poster, observer: Observer())
        let fresh = Self.events(2, offset: 3)
        for event in fresh { try transport.record(event) }
        #expect(await transport.flush())
        #expect(poster.requests.flatMap(\.ids) == (backlog + fresh).map(\.eventID))
        #expect(await transport.shutdown().sent == 5)
        let left = try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.hasSuffix(".spool") }
        #expect(left.isEmpty)
    }

    @Test func overTheQueueCapTheOldestEventsAreDroppedAndEveryEventIsAccountedFor() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let poster = ScriptedPoster { _, _ in Self.failure(503, code: "unavailable", message: "down") }
        let observer = Observer(waiting: 3600)
        let transport = try Self.transport(
            folder: path, poster: poster, observer: observer, edit: { $0.maximumQueueBytes = 2_000 })
        // Each round is one spool record of some 1,100 bytes: the cap holds fewer than two.
        for round in 0..<6 {
            for event in Self.events(4, offset: round * 4) { try transport.record(event) }
            #expect(await transport.flush() == false)
            let counters = transport.counters
            #expect(counters.queued + counters.dropped == (round + 1) * 4)
        }
        #expect(transport.counters.dropped > 0)
        #expect(observer.log.contains { $0.contains("cap") })
        let failed = poster.requests.count
        poster.answer { batch, _ in Self.accept(batch) }
        #expect(await transport.flush())
        let counters = await transport.shutdown()
        #expect(counters.queued == 0)
        #expect(counters.sent + counters.dropped == 24)
        // Each survivor is sent once, in order: the newest, and the batch that was being retried
        // (still in memory when its segment was deleted).
        let sent = poster.requests.dropFirst(failed).flatMap(\.events).map(\.seq)
        #expect(sent.count == counters.sent)
        #expect(sent == sent.sorted() && Set(sent).count == sent.count)
        #expect(sent.suffix(8) == Array(17...24))
    }

    @Test func aFolderServesOneTransportAtATime() throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let first = try Self.transport(folder: path, poster: ScriptedPoster(), observer: Observer())
        #expect(throws: RecorderError.self) {
            _ = try Self.transport(folder: path, poster: ScriptedPoster(), observer: Observer())
        }
        _ = first
    }

    // MARK: - flush, record, shutdown

    @Test func flushReportsWhetherEverythingRecordedWasSettled() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let poster = ScriptedPoster { _, _ in Self.failure(503, code: "unavailable", message: "down") }
        let observer = Observer(waiting: 3600)
        let transport = try Self.transport(folder: path, poster: poster, observer: observer)
        #expect(await transport.flush())
        #expect(poster.requests.isEmpty)
        let events = Self.events(3)
        for event in events { try transport.record(event) }
        #expect(await transport.flush() == false)
        #expect(transport.counters.queued == 3)
        #expect(transport.counters.buffered == 0)
        poster.answer { batch, _ in Self.accept(batch) }
        #expect(await transport.flush())
        #expect(transport.counters.queued == 0)
        #expect(poster.requests.count == 2)
        await transport.shutdown()
    }

    @Test func recordNeverWaitsForAStalledDiskAndDropsTheOldestWhenTheBufferIsFull() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        // The worker stalls at its first disk write until released: the disk has stalled.
        let gate = DispatchSemaphore(value: 0)
        let stalled = LockedBox(true)
        let poster = ScriptedPoster()
        let observer = Observer()
        let transport = try HTTPTransport(
            configuration: Self.configuration(
                folder: path, observer: observer,
                edit: {
                    $0.maximumBufferedEvents = 100
                    $0.batchSize = 10
                }),
            poster: poster, random: { 0.5 }, retryDelay: { observer.delay($0) },
            beforeDiskWrite: { if stalled.withLock({ $0 }) { gate.wait() } })
        let events = Self.events(5_000)
        // Recorded on a thread of its own: were record() to wait for the disk, the test fails at the
        // deadline below instead of hanging.
        let done = DispatchSemaphore(value: 0)
        let longest = LockedBox<TimeInterval>(0)
        let failure = LockedBox<String?>(nil)
        Thread {
            for event in events {
                let started = Date()
                do { try transport.record(event) } catch { failure.withLock { $0 = "\(error)" } }
                let took = Date().timeIntervalSince(started)
                longest.withLock { $0 = max($0, took) }
            }
            done.signal()
        }.start()
        let finished = done.wait(timeout: .now() + 60) == .success
        #expect(finished, "record() waited for the stalled disk")
        #expect(failure.withLock { $0 } == nil)
        #expect(longest.withLock { $0 } < 1, "the longest record() call took \(longest.withLock { $0 }) s")
        let stalledCounters = transport.counters
        #expect(stalledCounters.recorded == 5_000)
        #expect(stalledCounters.buffered == 100)
        // What the worker took before it stalled is neither buffered nor dropped.
        let taken = 5_000 - stalledCounters.buffered - stalledCounters.dropped
        #expect(stalledCounters.dropped >= 4_000)
        #expect(taken >= 1 && taken <= 100)

        stalled.withLock { $0 = false }
        gate.signal()
        #expect(await transport.flush())
        let counters = await transport.shutdown()
        #expect(counters.sent + counters.dropped == 5_000)
        #expect(counters.sent == taken + 100)
        // The newest 100 survive, after what the worker held when the disk stalled.
        let sent = poster.requests.flatMap(\.events).map(\.seq)
        #expect(sent.suffix(100) == Array(4_901...5_000))
    }

    @Test func recordValidatesAndRefusesAfterShutdown() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let transport = try Self.transport(folder: path, poster: ScriptedPoster(), observer: Observer())
        var invalid = Self.events(1)[0]
        invalid.userID = ""
        #expect(throws: EventValidationError.self) { try transport.record(invalid) }
        #expect(transport.counters.rejected == 1)
        #expect(transport.counters.recorded == 0)
        let counters = await transport.shutdown()
        #expect(counters.rejected == 1)
        #expect(throws: RecorderError.self) { try transport.record(Self.events(1)[0]) }
        // A second shutdown is harmless.
        #expect(await transport.shutdown() == counters)
    }
}
