import Foundation
import OnboardMetricsURLSession
import Testing

@testable import OnboardMetricsSDK

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The request on the wire, and how events are cut into batches.
@Suite struct HTTPTransportRequestTests: HTTPTransportTestCase {
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
}
