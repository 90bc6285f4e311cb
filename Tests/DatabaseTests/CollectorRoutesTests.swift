import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

@testable import OnboardMetricsCollector
@testable import OnboardMetricsPostgres
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

/// The collector's HTTP routes driven in process through HummingbirdTesting's router client —
/// no socket, no spawned binary — against a real database: each route answers what the README
/// documents, and what it accepts lands once.
@Suite struct CollectorRoutesTests {
    /// A collector over `configuration` with its own metrics, as `CollectorService` wires it.
    static func application(
        _ configuration: PostgresConfiguration, recorder: EventRecorder, metrics: ServeMetrics
    ) async throws -> some ApplicationProtocol {
        let keys = AppKeyCache(database: configuration)
        try await keys.load()
        var settings = Collector.Configuration()
        settings.metricsFactory = metrics
        settings.maximumBodyBytes = 64 * 1024
        var quiet = Logger(label: "test.collector")
        quiet.logLevel = .critical
        let collector = Collector(configuration: settings, recorder: recorder, keys: keys, logger: quiet)
        return Application(router: CollectorRouter.make(collector, metrics: metrics.registry))
    }

    @Test func everyRouteAnswersAsDocumentedAndWhatItTakesLandsOnce() async throws {
        let configuration = try await TestDatabase.migrated("collector_routes")
        let key = try await TestDatabase.withConnection(configuration) {
            try AppKeyStore().create(name: "routes", on: $0).secret
        }
        var recorderSettings = EventRecorderTests.recorderConfiguration(configuration, spool: nil)
        let metrics = ServeMetrics()
        recorderSettings.metricsFactory = metrics
        let recorder = try EventRecorder(configuration: recorderSettings)
        let app = try await Self.application(configuration, recorder: recorder, metrics: metrics)
        let events = ServeCommandTests.recentEvents(sessions: 3, perSession: 4, seed: 71)
        let bearer: HTTPFields = [.authorization: "Bearer \(key)", .contentType: "application/json"]

        _ = try await recorder.withRunning {
            try await app.test(.router) { client in
                // The native batch: one result per event, 200 once committed.
                let batch = ByteBuffer(data: ServeCommandTests.batch(events, extra: [#"{"event_id":"nope"}"#]))
                try await client.execute(uri: "/v1/batch", method: .post, headers: bearer, body: batch) { response in
                    #expect(response.status == .ok)
                    let answer = try JSONDecoder().decode(BatchResponse.self, from: Data(buffer: response.body))
                    #expect(answer.results.filter { $0.status == .accepted }.count == events.count)
                    #expect(answer.results.last?.status == .rejected)
                }
                // No key, an unknown key: 401, nothing stored.
                try await client.execute(uri: "/v1/batch", method: .post, body: batch) { response in
                    #expect(response.status == .unauthorized)
                }
                let wrong: HTTPFields = [.authorization: "Bearer om_wrong", .contentType: "application/json"]
                try await client.execute(uri: "/v1/batch", method: .post, headers: wrong, body: batch) { response in
                    #expect(response.status == .unauthorized)
                }
                // Over the body limit: 413; an encoding it cannot read: 415; not a batch: 400.
                let huge = ByteBuffer(repeating: UInt8(ascii: " "), count: 65 * 1024)
                try await client.execute(uri: "/v1/batch", method: .post, headers: bearer, body: huge) { response in
                    #expect(response.status == .contentTooLarge)
                }
                var brotli = bearer
                brotli[.contentEncoding] = "br"
                try await client.execute(uri: "/v1/batch", method: .post, headers: brotli, body: batch) { response in
                    #expect(response.status == .unsupportedMediaType)
                }
                try await client.execute(
                    uri: "/v1/batch", method: .post, headers: bearer, body: ByteBuffer(string: "{")
                ) { response in
                    #expect(response.status == .badRequest)
                }
                // Segment's single call, the key as HTTP Basic user; PostHog's capture, the key in the body.
                let basic = "Basic " + Data("\(key):".utf8).base64EncodedString()
                let track = #"{"userId":"u-routes","event":"Opened Settings","timestamp":"2026-01-05T10:00:00Z"}"#
                try await client.execute(
                    uri: "/v1/track", method: .post,
                    headers: [.authorization: basic, .contentType: "application/json"],
                    body: ByteBuffer(string: track)
                ) { response in
                    #expect(response.status == .ok)
                }
                // A time no clock can give (the issue's repro: 1e19 ms trapped the server): refused, served on.
                for (path, body) in [
                    ("/v1/track", #"{"userId":"u","event":"x","timestamp":1e19}"#),
                    ("/capture/", #"{"api_key":"\#(key)","event":"x","distinct_id":"u","offset":1e300}"#),
                ] {
                    try await client.execute(
                        uri: path, method: .post, headers: [.authorization: basic, .contentType: "application/json"],
                        body: ByteBuffer(string: body)
                    ) { response in
                        #expect(response.status == .ok, "\(path): \(response.status)")
                    }
                }
                let capture =
                    #"{"api_key":"\#(key)","event":"opened_settings","distinct_id":"u-routes","timestamp":"2026-01-05T10:01:00Z"}"#
                try await client.execute(
                    uri: "/capture/", method: .post, headers: [.contentType: "application/json"],
                    body: ByteBuffer(string: capture)
                ) { response in
                    #expect(response.status == .ok)
                }
                // Health and metrics.
                try await client.execute(uri: "/healthz", method: .get) { response in
                    #expect(response.status == .ok)
                    let health = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                    #expect(health?["version"] as? String == OnboardMetricsVersion.current)
                }
                try await client.execute(uri: "/metrics", method: .get) { response in
                    #expect(response.status == .ok)
                    let text = String(buffer: response.body)
                    // Native, Segment and PostHog requests alike (the two refused times are answered 200
                    // with their message rejected, as Segment's and PostHog's clients expect).
                    #expect(text.contains("onboardmetrics_batch_requests_total{status=\"200\"} 5"), "\(text)")
                    #expect(text.contains("onboardmetrics_batch_requests_total{status=\"415\"} 1"), "\(text)")
                    #expect(text.contains("onboardmetrics_batch_requests_total{status=\"401\"} 2"), "\(text)")
                }
                try await client.execute(uri: "/nowhere", method: .get) { response in
                    #expect(response.status == .notFound)
                }
                // A known path with another method: 405 and the method it takes (issue 31; was 404).
                for (path, method, allowed) in [
                    ("/v1/batch", HTTPRequest.Method.get, "POST"), ("/v1/track", .put, "POST"),
                    ("/capture/", .delete, "POST"), ("/healthz", .post, "GET"), ("/metrics", .delete, "GET"),
                ] {
                    try await client.execute(uri: path, method: method, headers: bearer) { response in
                        #expect(response.status == .methodNotAllowed, "\(method) \(path)")
                        #expect(response.headers[.allow] == allowed, "\(method) \(path)")
                    }
                }
            }
        }
        let stored = try await EventRecorderTests.count(configuration)
        #expect(stored.total == events.count + 2 && stored.distinct == stored.total)
    }
}
