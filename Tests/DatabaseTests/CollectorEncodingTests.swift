import Foundation
import OnboardMetrics
import Testing

@testable import OnboardMetricsSDK

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `Content-Encoding` and the ecosystem's refusals through real HTTP: a gzip native batch lands,
/// a plain body labelled gzip is 400, a body inflating past the limit 413, another encoding 415;
/// refusals carry the fields Segment's and PostHog's clients read.
@Suite(.serialized) struct CollectorEncodingTests {
    static func post(
        _ endpoint: URL, path: String = "v1/batch", headers: [String: String], body: Data
    ) async throws -> ServeCommandTests.Reply {
        var request = URLRequest(url: endpoint.appendingPathComponent(path))
        request.httpMethod = "POST"
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        return ServeCommandTests.Reply(status: http.statusCode, headers: [:], body: data)
    }

    /// `data` compressed by the system's gzip.
    static func gzip(_ data: Data, in folder: URL) async throws -> Data {
        let file = folder.appendingPathComponent("body-\(UUID().uuidString)")
        try data.write(to: file)
        let outcome = try await FunnelProcess.run(["-f", file.path], executable: "/bin/gzip")
        #expect(outcome.status == 0, "\(outcome.errors)")
        return try Data(contentsOf: URL(fileURLWithPath: file.path + ".gz"))
    }

    @Test func encodedBodiesAreDecodedWithinTheLimitAndOthersRefused() async throws {
        let fixture = try await CollectorFixture.start("serve_encoding")
        defer { fixture.close() }
        let events = ServeCommandTests.recentEvents(sessions: 2, perSession: 5, seed: 31)
        let plain = ServeCommandTests.batch(events)
        let bearer = ["Authorization": "Bearer \(fixture.key)", "Content-Type": "application/json"]

        let gzipped = try await Self.gzip(plain, in: fixture.folder)
        let accepted = try await Self.post(
            fixture.endpoint, headers: bearer.merging(["Content-Encoding": "gzip"]) { $1 }, body: gzipped)
        #expect(accepted.status == 200)
        #expect(Set(try await fixture.storedEvents().keys) == Set(events.map(\.eventID)))

        let labelled = try await Self.post(
            fixture.endpoint, headers: bearer.merging(["Content-Encoding": "gzip"]) { $1 }, body: plain)
        #expect(labelled.status == 400)
        let brotli = try await Self.post(
            fixture.endpoint, headers: bearer.merging(["Content-Encoding": "br"]) { $1 }, body: plain)
        #expect(brotli.status == 415)
        // 3 MB of spaces inside a batch: a few kB on the wire, over the 1 MiB limit once inflated.
        let bomb = try await Self.gzip(
            Data(#"{"events":["#.utf8) + Data(repeating: 32, count: 3_000_000) + Data("]}".utf8), in: fixture.folder)
        #expect(bomb.count < 10_000)
        let inflated = try await Self.post(
            fixture.endpoint, headers: bearer.merging(["Content-Encoding": "gzip"]) { $1 }, body: bomb)
        #expect(inflated.status == 413)

        // Segment's client with an unknown write key (HTTP Basic): 401 with code and message at the top.
        let basic = "Basic " + Data("om_unknown:".utf8).base64EncodedString()
        let segment = try await Self.post(
            fixture.endpoint, headers: ["Authorization": basic],
            body: Data(#"{"batch":[{"type":"track","event":"A","userId":"u"}]}"#.utf8))
        #expect(segment.status == 401)
        let json = try segment.json()
        #expect(json["code"] as? String == "unauthorized" && json["message"] is String)
        // PostHog's client: api_key in the body; a malformed body is 400 with `detail`.
        let posthog = try await Self.post(fixture.endpoint, path: "batch/", headers: [:], body: Data("{".utf8))
        #expect(posthog.status == 400)
        #expect(try posthog.json()["detail"] is String)
        let unknownKey = try await Self.post(
            fixture.endpoint, path: "capture/", headers: [:],
            body: Data(#"{"api_key":"om_nope","event":"A","distinct_id":"u"}"#.utf8))
        #expect(unknownKey.status == 401)
        // A Segment call rejected for its content is counted by format and code.
        let rejected = try await Self.post(
            fixture.endpoint, path: "v1/track",
            headers: ["Authorization": "Basic " + Data("\(fixture.key):".utf8).base64EncodedString()],
            body: Data(#"{"event":"Step Viewed","userId":"u","properties":{"flow_id":"f"}}"#.utf8))
        #expect(rejected.status == 200)
        #expect(try rejected.json()["rejected"] as? Int == 1)
        let metrics = String(decoding: try await ServeCommandTests.get(fixture.endpoint, "metrics").body, as: UTF8.self)
        #expect(metrics.contains(#"onboardmetrics_events_rejected_by_reason_total{format="segment",code="missing"} 1"#))
        #expect(metrics.contains(#"onboardmetrics_format_requests_total{format="posthog",status="400"} 1"#))
    }
}
