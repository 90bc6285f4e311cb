import Foundation
import OnboardMetrics
import Testing

@testable import OnboardMetricsSDK

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `funnel serve` through real HTTP on loopback into a real PostgreSQL database: keys, limits,
/// per-event errors, metrics, resends, and a restart under load.
@Suite(.serialized) struct ServeCommandTests {
    struct Reply: Sendable {
        var status: Int
        var headers: [String: String]
        var body: Data

        func json() throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        }
    }

    static func post(_ endpoint: URL, path: String = "v1/batch", key: String?, body: Data) async throws -> Reply {
        var request = URLRequest(url: endpoint.appendingPathComponent(path))
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let key { request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization") }
        return try await send(request)
    }

    static func get(_ endpoint: URL, _ path: String) async throws -> Reply {
        try await send(URLRequest(url: endpoint.appendingPathComponent(path)))
    }

    private static func send(_ request: URLRequest) async throws -> Reply {
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return Reply(status: http.statusCode, headers: headers, body: data)
    }

    /// `{"sent_at": …, "events": [...]}` with each event as its JSONL object.
    static func batch(_ events: [Event], sentAt: Date = Date(), extra: [String] = []) -> Data {
        let objects = events.map { String($0.jsonLine) } + extra
        return Data(#"{"sent_at":"\#(Timestamp.string(sentAt))","events":[\#(objects.joined(separator: ","))]}"#.utf8)
    }

    /// Events of `sessions` sessions that happened a minute ago, with fresh ids.
    static func recentEvents(sessions: Int, perSession: Int, seed: UInt64) -> [Event] {
        SampleEvents.make(sessions: sessions, perSession: perSession, seed: seed, start: Date().addingTimeInterval(-60))
    }

    @Test func acceptedEventsLandOnceWithServerTimesAndBadOnesAreNamed() async throws {
        let fixture = try await ServeFixture.start("serve_accept")
        defer { fixture.close() }
        let events = Self.recentEvents(sessions: 5, perSession: 10, seed: 11)
        let missingUser =
            #"{"event_id":"019ab0c1-0000-7000-8000-0000000000aa","session_id":"4f9d43f3-72e1-4877-a260-157c15fed96a","seq":1,"kind":"custom","occurred_at":"2026-01-09T11:20:47.532Z","properties":{}}"#
        let sentAt = Date().addingTimeInterval(-30)  // a client clock half a minute behind
        let body = Self.batch(events, sentAt: sentAt, extra: [missingUser, #""not an event""#])
        let before = Date()
        let first = try await Self.post(fixture.endpoint, key: fixture.key, body: body)
        #expect(first.status == 200)
        let response = try JSONDecoder().decode(BatchResponse.self, from: first.body)
        #expect(response.accepted == 50 && response.rejected == 2)
        #expect(response.results.map(\.index) == Array(0..<52))
        #expect(response.results[..<50].map(\.eventID) == events.map(\.eventID))
        let rejection = try #require(response.results[50].error)
        #expect(rejection.code == "missing" && rejection.field == "user_id")
        #expect(response.results[50].eventID == UUID(uuidString: "019ab0c1-0000-7000-8000-0000000000aa"))
        #expect(response.results[51].error?.code == "malformed")

        // Acknowledged means stored: no waiting before the query.
        var stored = try await fixture.storedEvents()
        #expect(Set(stored.keys) == Set(events.map(\.eventID)))
        for (sent, received) in stored.values {
            #expect(sent.map { abs($0.timeIntervalSince(sentAt)) < 0.002 } == true, "sent_at is the batch's")
            #expect(received.map { $0 >= before.addingTimeInterval(-1) && $0 <= Date().addingTimeInterval(1) } == true)
        }

        // The client did not hear the answer and sends the same batch again: stored once.
        let again = try await Self.post(fixture.endpoint, key: fixture.key, body: body)
        #expect(again.status == 200)
        stored = try await fixture.storedEvents()
        #expect(stored.count == 50)
        let scrape = try await Self.get(fixture.endpoint, "metrics")
        #expect(scrape.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        let metrics = try PrometheusText(String(decoding: scrape.body, as: UTF8.self))
        let expected: [(String, Double)] = [
            ("onboardmetrics_events_received_total", 104), ("onboardmetrics_events_accepted_total", 100),
            ("onboardmetrics_events_rejected_total", 4), ("onboardmetrics_events_committed_total", 50),
            ("onboardmetrics_events_duplicate_total", 50), ("onboardmetrics_events_spooled_total", 0),
            ("onboardmetrics_events_dropped_total", 0), ("onboardmetrics_batch_duration_seconds_count", 2),
        ]
        for (name, value) in expected { #expect(metrics.value(name) == value, "\(name)") }
        #expect(metrics.value("onboardmetrics_batch_requests_total", ["status": "200"]) == 2)
        // The buckets served before swift-prometheus, with their bounds.
        #expect(metrics.value("onboardmetrics_batch_duration_seconds_bucket", ["le": "0.001"]) != nil)
        #expect(metrics.value("onboardmetrics_batch_duration_seconds_bucket", ["le": "+Inf"]) == 2)
        #expect(metrics.types["onboardmetrics_batch_duration_seconds"] == "histogram")
        #expect(metrics.types["onboardmetrics_events_committed_total"] == "counter")
        #expect(metrics.types["onboardmetrics_recorder_queued_events"] == "gauge")
        #expect(metrics.help["onboardmetrics_events_received_total"] == "Events received in batches.")
        // Every batch was one COPY at most: the recorder's timer saw them.
        #expect((metrics.value("onboardmetrics_recorder_write_duration_seconds_count") ?? 0) >= 1)
        let health = try await Self.get(fixture.endpoint, "healthz")
        #expect(health.status == 200)
        #expect(try health.json()["status"] as? String == "ok")
        #expect(try health.json()["version"] as? String == OnboardMetricsVersion.current)
    }

    @Test func wrongMissingOrRevokedKeysAreRefusedAndStoreNothing() async throws {
        let fixture = try await ServeFixture.start("serve_keys")
        defer { fixture.close() }
        let body = Self.batch(Self.recentEvents(sessions: 1, perSession: 3, seed: 12))
        for key in [nil, "om_not-a-key", fixture.key + "x"] {
            let reply = try await Self.post(fixture.endpoint, key: key, body: body)
            #expect(reply.status == 401)
            #expect(reply.headers["www-authenticate"] == "Bearer")
            let error = try #require(try reply.json()["error"] as? [String: Any])
            #expect(error["code"] as? String == "unauthorized")
        }
        #expect(try await fixture.storedEvents().isEmpty)

        // A key created while the server runs works at once; a revoked one stops within seconds.
        let created = try await FunnelProcess.run([
            "keys", "create", "second", "--database-url", fixture.url, "--format", "json",
        ])
        let createdJSON = try #require(
            try JSONSerialization.jsonObject(with: Data(created.output.utf8)) as? [String: Any])
        let second = try #require(createdJSON["secret"] as? String)
        let keyID = try #require((createdJSON["key"] as? [String: Any])?["id"] as? Int)
        // Unknown keys are looked up at most once a second, so a new key works within a second
        // (AppKeyCacheTests checks that with the clock passed in); the wait here is longer because
        // a CI machine running the other suites at once can take seconds to answer.
        var accepted = 0
        let start = Date()
        while accepted != 200, Date().timeIntervalSince(start) < 15 {
            accepted = try await Self.post(fixture.endpoint, key: second, body: body).status
            if accepted != 200 { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(accepted == 200)
        let revoked = try await FunnelProcess.run(["keys", "revoke", String(keyID), "--database-url", fixture.url])
        #expect(revoked.status == 0 && revoked.output.contains("revoked key \(keyID)"), "\(revoked.errors)")
        let deadline = Date().addingTimeInterval(15)
        var status = 200
        while status == 200, Date() < deadline {
            try await Task.sleep(for: .milliseconds(250))
            status = try await Self.post(fixture.endpoint, key: second, body: Self.batch([])).status
        }
        #expect(status == 401)
        let listed = try await FunnelProcess.run(["keys", "list", "--database-url", fixture.url, "--format", "json"])
        let keys = try #require(
            (try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [String: Any])?["keys"]
                as? [[String: Any]])
        #expect(keys.count == 2)
        #expect(keys.filter { $0["revoked_at"] != nil }.count == 1)
        #expect(!listed.output.contains(second), "the key itself is never stored")
        // Only the digest is stored, and it is SHA-256 as PostgreSQL computes it.
        let digestMatches = try await TestDatabase.withConnection(fixture.configuration) { connection in
            try connection.query(
                "SELECT count(*)::int8 AS n FROM app_keys WHERE key_hash = sha256(convert_to($1, 'UTF8'))",
                [.text(second)]
            ).first?["n"].int
        }
        #expect(digestMatches == 1)
        let unknown = try await FunnelProcess.run(["keys", "revoke", "999", "--database-url", fixture.url])
        #expect(unknown.status != 0 && unknown.errors.contains(#"no app key has id, prefix or key "999""#))

        // One log line per refused request, and never a key: not even the wrong one that began
        // with a real key.
        let log = await fixture.server.stop().errors
        let refusals = log.split(separator: "\n").filter { $0.contains("request refused") && $0.contains("status=401") }
        #expect(refusals.count >= 4, "\(log)")
        #expect(!log.contains(fixture.key) && !log.contains(second), "a secret in the log")
    }

    @Test func limitsAnswer413And429AndMalformedBodies400() async throws {
        let fixture = try await ServeFixture.start(
            // One request in 100 s after a burst of 4: no token comes back while the test runs,
            // however slow the machine (a wall-clock refill made this test flaky under load).
            "serve_limits", ["--max-body-bytes", "8192", "--max-events", "10", "--rate-limit", "0.01", "--burst", "4"])
        defer { fixture.close() }
        let oversized = Self.batch(Self.recentEvents(sessions: 1, perSession: 40, seed: 13))
        #expect(oversized.count > 8192)
        let tooLarge = try await Self.post(fixture.endpoint, key: fixture.key, body: oversized)
        #expect(tooLarge.status == 413)
        #expect((try tooLarge.json()["error"] as? [String: Any])?["code"] as? String == "payload_too_large")
        let eleven = Self.batch(Self.recentEvents(sessions: 1, perSession: 11, seed: 14))
        #expect(eleven.count < 8192)
        let tooMany = try await Self.post(fixture.endpoint, key: fixture.key, body: eleven)
        #expect(tooMany.status == 413)
        #expect((try tooMany.json()["error"] as? [String: Any])?["code"] as? String == "too_many_events")
        let malformed = try await Self.post(fixture.endpoint, key: fixture.key, body: Data(#"{"events":[{"#.utf8))
        #expect(malformed.status == 400)
        let message = try #require((try malformed.json()["error"] as? [String: Any])?["message"] as? String)
        #expect(message.contains("not valid JSON (byte"))
        // Four requests use the burst of 4; the fifth is refused with when to come back.
        let fourth = try await Self.post(fixture.endpoint, key: fixture.key, body: Data("{}".utf8))
        #expect(fourth.status == 400)
        let limited = try await Self.post(fixture.endpoint, key: fixture.key, body: Data("{}".utf8))
        #expect(limited.status == 429)
        #expect(limited.headers["retry-after"].flatMap(Int.init).map { $0 >= 1 } == true)
        #expect(try await fixture.storedEvents().isEmpty)

        // Each refusal is one structured line naming the key by id and prefix.
        let log = await fixture.server.stop().errors
        let refusals = log.split(separator: "\n").filter { $0.contains("request refused") }
        #expect(refusals.count == 5, "\(log)")
        for (status, code) in [("413", "payload_too_large"), ("413", "too_many_events"), ("429", "rate_limited")] {
            #expect(refusals.contains { $0.contains("status=\(status)") && $0.contains("code=\(code)") }, "\(log)")
        }
        #expect(refusals.allSatisfy { $0.contains("key_prefix=") && $0.contains("key_id=") }, "\(log)")
        #expect(!log.contains(fixture.key))
    }

    /// One key's events are counted over every format: a Segment batch takes from the budget a
    /// native batch then finds in debt, and the next batch of any format is refused whole.
    @Test func eventRateLimitCountsEveryFormat() async throws {
        // Bursts of 15 events, one back every 100 s: no refill while the test runs.
        let fixture = try await ServeFixture.start(
            "serve_event_limit", ["--event-rate-limit", "0.01", "--event-burst", "15"])
        defer { fixture.close() }
        let now = Timestamp.string(Date())
        let calls = (0..<10).map {
            #"{"type":"track","userId":"u","event":"Opened","messageId":"limit-\#($0)","timestamp":"\#(now)"}"#
        }
        let segment = Data(#"{"writeKey":"\#(fixture.key)","batch":[\#(calls.joined(separator: ","))]}"#.utf8)
        #expect(try await Self.post(fixture.endpoint, key: nil, body: segment).status == 200)
        // 5 left: a batch of 10 still goes ahead, into debt.
        let ten = Self.recentEvents(sessions: 1, perSession: 10, seed: 41)
        let native = try await Self.post(fixture.endpoint, key: fixture.key, body: Self.batch(ten))
        #expect(native.status == 200)
        let one = Self.recentEvents(sessions: 1, perSession: 1, seed: 42)
        let limited = try await Self.post(fixture.endpoint, key: fixture.key, body: Self.batch(one))
        #expect(limited.status == 429)
        #expect(limited.headers["retry-after"].flatMap(Int.init).map { $0 >= 1 } == true)
        let message = try #require((try limited.json()["error"] as? [String: Any])?["message"] as? String)
        #expect(message.contains("events a second for this key"))
        let posthog = Data(
            #"{"api_key":"\#(fixture.key)","batch":[{"event":"x","distinct_id":"u","timestamp":"\#(now)"}]}"#.utf8)
        #expect(try await Self.post(fixture.endpoint, path: "batch/", key: nil, body: posthog).status == 429)
        // The native ten landed; nothing of the refused batch did.
        let stored = try await fixture.storedEvents()
        #expect(ten.allSatisfy { stored[$0.eventID] != nil })
        #expect(stored[one[0].eventID] == nil)
    }

    /// Clients post batches concurrently while the server is killed (SIGKILL) and started again on
    /// the same database and spool; every event the server answered 200 for is stored, once.
    @Test func aRestartUnderLoadLosesNothingAcknowledged() async throws {
        var fixture = try await ServeFixture.start("serve_restart", ["--rate-limit", "0"])
        defer { fixture.close() }
        let endpoint = LockedBox(fixture.endpoint)
        let acknowledged = Acknowledged()
        let key = fixture.key
        // Clients are stopped by a flag, not by cancelling their tasks: cancelling a task while its
        // URLSession request completes deadlocks swift-corelibs-foundation (seen in CI).
        let running = LockedBox(true)
        let clients = (0..<4).map { client in
            Task {
                var batchNumber = 0
                while running.withLock({ $0 }) {
                    let events = Self.recentEvents(
                        sessions: 2, perSession: 10, seed: UInt64(1_000 * client + batchNumber + 100))
                    batchNumber += 1
                    // Resend the same batch until it is acknowledged, as a client must.
                    while running.withLock({ $0 }) {
                        if let reply = try? await Self.post(
                            endpoint.withLock({ $0 }), key: key, body: Self.batch(events)),
                            reply.status == 200
                        {
                            await acknowledged.add(events.map(\.eventID))
                            break
                        }
                        try? await Task.sleep(for: .milliseconds(50))
                    }
                }
            }
        }
        // Load on both sides of the kill: at least 1.5 s, and until a batch was answered (a machine
        // busy with the other suites may take longer), at most 20 s.
        try await Task.sleep(for: .milliseconds(1_500))
        try await acknowledged.waitForMore(than: 0, seconds: 20)
        await fixture.server.stop(signal: SIGKILL)
        // Counted once the server is gone: every answer from now on is the new server's.
        let beforeKill = await acknowledged.count
        let (server, url) = try await FunnelProcess.serve(
            ["--database-url", fixture.url, "--spool-dir", fixture.folder.appendingPathComponent("spool").path])
        fixture.server = server
        endpoint.withLock { $0 = url }
        try await Task.sleep(for: .milliseconds(1_500))
        try await acknowledged.waitForMore(than: beforeKill, seconds: 20)
        running.withLock { $0 = false }
        for client in clients { _ = await client.value }
        let stopped = await server.stop(signal: SIGTERM)
        #expect(stopped.status == 0)
        #expect(stopped.errors.contains("stopped:"))

        let ids = await acknowledged.ids
        let stored = try await fixture.storedEvents()
        #expect(beforeKill > 0 && ids.count > beforeKill, "load before and after the restart")
        #expect(ids.subtracting(stored.keys).isEmpty, "\(ids.subtracting(stored.keys).count) acknowledged events lost")
        let rows = try await TestDatabase.withConnection(fixture.configuration) {
            try $0.query("SELECT count(*)::int8 AS n, count(DISTINCT event_id)::int8 AS d FROM events").first
        }
        #expect(rows?["n"].int == rows?["d"].int)
    }

    /// PostgreSQL refuses connections for a while: the server still answers 200 (the events wait
    /// in its fsynced spool), says so in /metrics, and the events land once the database is back.
    @Test func whileTheDatabaseIsUnreachableBatchesAreSpooledThenLand() async throws {
        let fixture = try await ServeFixture.start("serve_outage")
        defer { fixture.close() }
        let database = try #require(fixture.configuration.overrides["dbname"])
        let admin = try TestDatabase.admin()
        func allowConnections(_ allow: Bool) async throws {
            try await TestDatabase.withConnection(admin) { connection in
                // Identifiers cannot be parameters; this one is built from letters, digits and '_' only.
                try connection.query("ALTER DATABASE \(database) ALLOW_CONNECTIONS \(allow)")
                if !allow {
                    try connection.query(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1",
                        [.text(database)])
                }
            }
        }
        try await allowConnections(false)
        let events = Self.recentEvents(sessions: 3, perSession: 10, seed: 31)
        let reply = try await Self.post(fixture.endpoint, key: fixture.key, body: Self.batch(events))
        #expect(reply.status == 200)
        #expect(try JSONDecoder().decode(BatchResponse.self, from: reply.body).accepted == 30)
        let metrics = String(decoding: try await Self.get(fixture.endpoint, "metrics").body, as: UTF8.self)
        #expect(metrics.contains("onboardmetrics_events_spooled_total 30\n"), "\(metrics)")

        try await allowConnections(true)
        var stored = 0
        let deadline = Date().addingTimeInterval(60)
        while stored < 30, Date() < deadline {
            try await Task.sleep(for: .milliseconds(200))
            stored = (try? await fixture.storedEvents().count) ?? 0
        }
        #expect(stored == 30)
    }

    actor Acknowledged {
        private(set) var ids: Set<UUID> = []
        var count: Int { ids.count }
        func add(_ more: [UUID]) { ids.formUnion(more) }

        /// Returns once more than `count` are acknowledged, or after `seconds`.
        func waitForMore(than count: Int, seconds: Int) async throws {
            for _ in 0..<(seconds * 20) where ids.count <= count {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }
}
