import Foundation
import Testing

@testable import OnboardMetricsSDK

/// The shared helpers of the `HTTPTransport…Tests` suites: each suite conforms, and reaches them
/// as `Self.…` and by their short names (`ScriptedPoster`, `Observer`, `TestClock`).
protocol HTTPTransportTestCase {}

/// One request as the scripted poster saw it.
struct HTTPTransportSentBatch: Sendable {
    let body: Data
    let appKey: String
    let sentAt: String
    let events: [Event]
    var ids: [UUID] { events.map(\.eventID) }
}

/// The body's two keys, decoded the way the collector would.
struct HTTPTransportEnvelope: Decodable {
    let sentAt: String
    let events: [Event]
    enum CodingKeys: String, CodingKey {
        case sentAt = "sent_at"
        case events
    }
}

/// A poster that answers from a script, one call at a time, and remembers every request.
final class HTTPTransportScriptedPoster: BatchPoster, Sendable {
    typealias Script = @Sendable (HTTPTransportSentBatch, Int) throws -> BatchPoster.Reply

    private struct State {
        var script: Script
        var sent: [HTTPTransportSentBatch] = []
    }

    private let state: LockedBox<State>

    init(_ script: @escaping Script = { batch, _ in HTTPTransportFixtures.accept(batch) }) {
        state = LockedBox(State(script: script))
    }

    var requests: [HTTPTransportSentBatch] { state.withLock { $0.sent } }

    func answer(with script: @escaping Script) {
        state.withLock { $0.script = script }
    }

    func post(body: Data, appKey: String) async throws -> Reply {
        let envelope = try JSONDecoder().decode(HTTPTransportEnvelope.self, from: body)
        let batch = HTTPTransportSentBatch(body: body, appKey: appKey, sentAt: envelope.sentAt, events: envelope.events)
        let (script, index) = state.withLock { state in
            state.sent.append(batch)
            return (state.script, state.sent.count - 1)
        }
        return try script(batch, index)
    }
}

/// Collects log lines, and the retry delays the transport chose (it then waits a millisecond,
/// or `replacement` seconds when set).
final class HTTPTransportObserver: Sendable {
    private struct State {
        var lines: [String] = []
        var chosen: [TimeInterval] = []
    }

    private let state = LockedBox(State())
    private let replacement: TimeInterval?

    init(waiting replacement: TimeInterval? = nil) { self.replacement = replacement }

    var log: [String] { state.withLock { $0.lines } }
    var delays: [TimeInterval] { state.withLock { $0.chosen } }
    func append(_ line: String) { state.withLock { $0.lines.append(line) } }
    func delay(_ delay: TimeInterval) -> TimeInterval {
        state.withLock { $0.chosen.append(delay) }
        return replacement ?? 0.001
    }
}

/// A clock that can be moved, or that moves a second at every reading.
final class HTTPTransportTestClock: Sendable {
    private let now: LockedBox<Date>
    private let step: TimeInterval
    init(_ now: Date, step: TimeInterval = 0) {
        self.now = LockedBox(now)
        self.step = step
    }
    func read() -> Date {
        now.withLock { now in
            defer { now.addTimeInterval(step) }
            return now
        }
    }
}

/// Events, answers, folders and transports for the tests.
enum HTTPTransportFixtures {
    static let start = Date(timeIntervalSince1970: 1_792_567_680)  // 2026-10-21T07:28:00Z

    static func accept(_ batch: HTTPTransportSentBatch, rejecting rejected: Set<Int> = []) -> BatchPoster.Reply {
        (200, ["content-type": "application/json"], acceptedBody(batch.events, rejecting: rejected))
    }

    /// A collector's `200` body accepting every event but those at `rejected` (user_id missing).
    static func acceptedBody(_ events: [Event], rejecting rejected: Set<Int>) -> Data {
        let results = events.enumerated().map { index, event in
            rejected.contains(index)
                ? BatchResponse.Result(
                    index: index, eventID: event.eventID, status: .rejected,
                    error: .init(code: "missing", field: "user_id", reason: "is empty"))
                : BatchResponse.Result(index: index, eventID: event.eventID, status: .accepted)
        }
        return (try? JSONEncoder().encode(BatchResponse(results: results))) ?? Data()
    }

    /// A collector's error body.
    static func failureBody(code: String, message: String) -> Data {
        (try? JSONEncoder().encode(CollectorErrorResponse(code: code, message: message))) ?? Data()
    }
}

extension HTTPTransportTestCase {
    typealias Reply = BatchPoster.Reply
    typealias SentBatch = HTTPTransportSentBatch
    typealias ScriptedPoster = HTTPTransportScriptedPoster
    typealias Observer = HTTPTransportObserver
    typealias TestClock = HTTPTransportTestClock

    static var start: Date { HTTPTransportFixtures.start }

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
        HTTPTransportFixtures.accept(batch, rejecting: rejected)
    }

    static func failure(_ status: Int, code: String, message: String, headers: [String: String] = [:]) -> Reply {
        (status, headers, HTTPTransportFixtures.failureBody(code: code, message: message))
    }

    static func configuration(
        folder: String, observer: Observer, clock: TestClock = TestClock(HTTPTransportFixtures.start),
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
        folder: String, poster: ScriptedPoster, observer: Observer,
        clock: TestClock = TestClock(HTTPTransportFixtures.start),
        random: @escaping @Sendable () -> Double = { 0.5 }, edit: (inout HTTPTransport.Configuration) -> Void = { _ in }
    ) throws -> HTTPTransport {
        try HTTPTransport(
            configuration: configuration(folder: folder, observer: observer, clock: clock, edit: edit), poster: poster,
            random: random, retryDelay: { observer.delay($0) })
    }

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
}
