import Foundation
import OnboardMetricsURLSession
import Testing

@testable import OnboardMetricsGeneration
@testable import OnboardMetricsSDK

/// The SDK's `HTTPTransport` against the real collector (`funnel serve`) and PostgreSQL: an
/// onboarding session's events land once; 413 makes it split and 429 makes it wait; events queued
/// on disk while the collector was down are sent by the next transport on the same folder.
@Suite(.serialized) struct HTTPTransportServeTests {
    static func transport(
        _ endpoint: URL, key: String, folder: URL, configure: (inout HTTPTransport.Configuration) -> Void = { _ in }
    ) throws -> HTTPTransport {
        var configuration = HTTPTransport.Configuration(
            endpoint: endpoint, appKey: key, queueDirectory: folder.appendingPathComponent("outbox").path)
        configuration.initialBackoff = 0.05
        configuration.maximumBackoff = 0.5
        configuration.log = { _ in }
        configure(&configuration)
        return try HTTPTransport(configuration: configuration)
    }

    /// Flushes until everything is acknowledged (a flush during a Retry-After wait returns false).
    static func flushed(_ transport: HTTPTransport, within seconds: TimeInterval = 30) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if await transport.flush() { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    @Test func anOnboardingSessionsEventsLandOnce() async throws {
        let fixture = try await CollectorFixture.start("transport_session")
        defer { fixture.close() }
        let transport = try Self.transport(fixture.endpoint, key: fixture.key, folder: fixture.folder)
        let session = try OnboardingSession.start(
            flow: ExampleFlows.healthStudy, user: "user-7",
            context: ["platform": "ios", "healthDataAvailable": true, "notificationsAuthorized": false],
            sink: transport)
        while session.status == .running { try session.next() }
        #expect(try await Self.flushed(transport))
        let counters = await transport.shutdown()
        #expect(counters.recorded > 5)
        #expect(counters.sent == counters.recorded && counters.rejected == 0 && counters.queued == 0)

        let stored = try await TestDatabase.withConnection(fixture.configuration) { connection in
            try connection.query(
                """
                SELECT kind, seq, sent_at IS NOT NULL AND received_at >= sent_at - interval '5 seconds' AS stamped
                FROM events WHERE session_id = $1 ORDER BY seq
                """, [.uuid(session.sessionID)]
            ).map { ($0["kind"].string ?? "", $0["seq"].int ?? -1, $0["stamped"].bool ?? false) }
        }
        #expect(stored.count == counters.recorded)
        #expect(stored.first?.0 == "session_started")
        #expect(stored.last?.0 == "flow_completed")
        #expect(stored.map(\.1) == Array(1...stored.count), "every event once, in order")
        #expect(stored.filter { !$0.2 }.isEmpty, "sent_at from the transport, received_at from the server")
    }

    @Test func splitsOn413AndWaitsOn429() async throws {
        // The collector's clock stands still for its first 12 reads (two a refused request, four
        // one that records): at least four requests then take tokens from a bucket of 3 that cannot refill, so a
        // 429 comes however slowly a loaded machine answers (with the wall's clock, slow requests
        // let it refill and none came).
        let clock = HeldClock(reads: 12)
        let fixture = try await CollectorFixture.start("transport_limits") {
            $0.collector.maximumEvents = 10
            $0.collector.rateLimit = 2
            $0.collector.burst = 3
            $0.collector.clock = { clock.read() }
        }
        defer { fixture.close() }
        let transport = try Self.transport(fixture.endpoint, key: fixture.key, folder: fixture.folder)
        let events = SampleEvents.make(sessions: 19, perSession: 5, seed: 21, start: Date().addingTimeInterval(-60))
        for event in events { try transport.record(event) }
        #expect(try await Self.flushed(transport, within: 120))
        let counters = await transport.shutdown()
        #expect(counters.sent == 95 && counters.rejected == 0)
        // 95 events in batches of 10 at most: 413s until the halves fit, and a 429 while the
        // clock stood still; both waited out, every event lands once.
        #expect(counters.retried > 0)
        let stored = try await TestDatabase.withConnection(fixture.configuration) {
            try $0.query("SELECT count(*)::int8 AS n, count(DISTINCT event_id)::int8 AS d FROM events").first
        }
        #expect(stored?["n"].int == 95 && stored?["d"].int == 95)
    }

    @Test func eventsQueuedWhileTheCollectorIsDownAreSentByTheNextTransport() async throws {
        var fixture = try await CollectorFixture.start("transport_outbox")
        defer { fixture.close() }
        await fixture.server.stop()  // nothing listens at the endpoint now
        let offline = try Self.transport(fixture.endpoint, key: fixture.key, folder: fixture.folder)
        let events = SampleEvents.make(sessions: 6, perSession: 5, seed: 22, start: Date().addingTimeInterval(-60))
        for event in events { try offline.record(event) }
        #expect(await offline.flush() == false)
        let left = await offline.shutdown()
        #expect(left.sent == 0 && left.queued == 30)

        try await fixture.restart()
        let online = try Self.transport(fixture.endpoint, key: fixture.key, folder: fixture.folder)
        #expect(try await Self.flushed(online))
        let counters = await online.shutdown()
        #expect(counters.sent == 30 && counters.queued == 0)
        let stored = try await TestDatabase.withConnection(fixture.configuration) { connection in
            Set(try connection.query("SELECT event_id FROM events").compactMap { $0["event_id"].uuid })
        }
        #expect(stored == Set(events.map(\.eventID)))
    }
}
