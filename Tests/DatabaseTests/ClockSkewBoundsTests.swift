import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import OnboardMetricsCollector
@testable import OnboardMetricsPostgres
@testable import OnboardMetricsReader
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

/// Skew correction cannot be turned against the data (issue 31, N3; issue 59, P3-4): a batch
/// stamped as sent in 2000 does not move its session 26 years ahead, and a message sent under
/// another user's id (or into another's session) with a `sentAt` 23 h ahead moves nothing, not
/// even itself, so that user's session starts when it started — on the native, Segment and
/// PostHog paths, read back through the reader every report uses and the `sessions` table.
@Suite struct ClockSkewBoundsTests {
    struct Collected: SessionConsumer {
        var sessions: [RecordedSession] = []
        mutating func add(_ session: RecordedSession) throws { sessions.append(session) }
    }

    @Test func aForgedSentAtMovesNoSessionAndNoOtherUsersEvents() async throws {
        let configuration = try await TestDatabase.migrated("clock_skew_bounds")
        let key = try await TestDatabase.withConnection(configuration) {
            try AppKeyStore().create(name: "skew", on: $0).secret
        }
        let recorder = try EventRecorder(
            configuration: EventRecorderTests.recorderConfiguration(configuration, spool: nil))
        let app = try await CollectorRoutesTests.application(configuration, recorder: recorder, metrics: ServeMetrics())
        let now = Date()
        let stamp = { (date: Date) in Timestamp.string(date) }
        let forgedPast = Date(timeIntervalSince1970: 946_684_800)  // 2000-01-01, within sent_at's bounds
        let forgedAhead = now.addingTimeInterval(23 * 3_600)
        // Native: two sessions' events stamped a minute ago. The first one's batch "sent" in 2000;
        // the second one's sent now, but for its third event, sent again 23 h "ahead".
        let native = ServeCommandTests.recentEvents(sessions: 2, perSession: 5, seed: 31)
        let sentIn2000 = native.filter { $0.sessionID == native[0].sessionID }
        let second = native.filter { $0.sessionID != native[0].sessionID }
        #expect(sentIn2000.count == 5 && second.count == 5)
        // Segment: the victim's three calls in one batch, the attacker's with its own sentAt.
        let segment = """
            {"sentAt":"\(stamp(now))","batch":[
            {"type":"track","userId":"victim-s","event":"Opened","messageId":"s1","timestamp":"\(stamp(now.addingTimeInterval(-50)))"},
            {"type":"track","userId":"victim-s","event":"Tapped","messageId":"s2","timestamp":"\(stamp(now.addingTimeInterval(-40)))"},
            {"type":"track","userId":"victim-s","event":"Closed","messageId":"s3","timestamp":"\(stamp(now.addingTimeInterval(-30)))"},
            {"type":"track","userId":"victim-s","event":"Forged","messageId":"s4","timestamp":"\(stamp(now.addingTimeInterval(-35)))","sentAt":"\(stamp(forgedAhead))"}]}
            """
        // PostHog: the same, the attacker in a batch of its own whose sent_at is 23 h ahead.
        func posthog(_ events: [(String, Date)], sentAt: Date) -> String {
            let items = events.map { name, time in
                #"{"event":"\#(name)","distinct_id":"victim-p","timestamp":"\#(stamp(time))","properties":{}}"#
            }
            return #"{"api_key":"\#(key)","sent_at":"\#(stamp(sentAt))","batch":[\#(items.joined(separator: ","))]}"#
        }
        let posthogVictim = posthog(
            [
                ("opened", now.addingTimeInterval(-50)), ("tapped", now.addingTimeInterval(-40)),
                ("closed", now.addingTimeInterval(-30)),
            ], sentAt: now)
        let posthogForged = posthog([("forged", now.addingTimeInterval(-35))], sentAt: forgedAhead)

        let bearer: HTTPFields = [.authorization: "Bearer \(key)", .contentType: "application/json"]
        let basic: HTTPFields = [
            .authorization: "Basic " + Data("\(key):".utf8).base64EncodedString(), .contentType: "application/json",
        ]
        let json: HTTPFields = [.contentType: "application/json"]
        _ = try await recorder.withRunning {
            try await app.test(.router) { client in
                func nativeBatch(_ events: [Event], sentAt: Date) -> String {
                    String(decoding: ServeCommandTests.batch(events, sentAt: sentAt), as: UTF8.self)
                }
                let secondForged = [second[2]]
                let secondOwn = second.filter { $0.eventID != second[2].eventID }
                for (path, headers, body) in [
                    ("/v1/batch", bearer, nativeBatch(sentIn2000, sentAt: forgedPast)),
                    ("/v1/batch", bearer, nativeBatch(secondOwn, sentAt: now)),
                    ("/v1/batch", bearer, nativeBatch(secondForged, sentAt: forgedAhead)),
                    ("/v1/batch", basic, segment), ("/batch/", json, posthogVictim),
                    ("/batch/", json, posthogForged),
                ] {
                    try await client.execute(uri: path, method: .post, headers: headers, body: ByteBuffer(string: body))
                    {
                        response in
                        #expect(response.status == .ok, "\(path): \(String(buffer: response.body))")
                        #expect(
                            String(buffer: response.body).contains(#""rejected":0"#), "\(String(buffer: response.body))"
                        )
                    }
                }
            }
        }
        #expect(try await EventRecorderTests.count(configuration).total == 10 + 4 + 4)

        let reader = ShardedReader(
            reader: SessionReader(), sources: [.init(configuration: configuration, buckets: nil)])
        let sessions = try await reader.read { Collected() }.flatMap(\.sessions)
        let events = sessions.flatMap { session in session.events.map { (session.userID, $0) } }
        #expect(events.count == 18)
        // Every event, the forged ones included, stays where it happened, a minute or so ago (10
        // minutes of slack for a loaded machine): no session in 2053, none a day early.
        for (user, event) in events {
            let age = now.timeIntervalSince(event.date)
            #expect(abs(age) < 600, "\(user) \(event.kind) \(event.name ?? "") at \(event.date)")
        }
        // Each attacked session starts with its own first event, where the forged one did not move it.
        for (user, firstName) in [("victim-s", "Opened"), ("victim-p", "opened")] {
            let session = try #require(sessions.first { $0.userID == user })
            #expect(session.events.count == 4)
            #expect(session.events.first?.name == firstName, "\(user) starts with \(session.events.first?.name ?? "")")
            // Its own events may move by the batch's transit (received − sentAt, seconds on a
            // loaded machine: CI saw 36 s), never by the forged 23 h.
            #expect(abs(now.addingTimeInterval(-50).timeIntervalSince(session.events[0].date)) < 600)
        }
        let attacked = try #require(sessions.first { $0.sessionID == second[0].sessionID })
        #expect(attacked.events.count == 5)
        #expect(attacked.events.map(\.seq) == second.map(\.seq))
        // The native session's row in `sessions` starts when it happened, too.
        let started = try await TestDatabase.withConnection(configuration) { connection in
            try connection.query("SELECT min(started_at) AS first, max(started_at) AS last FROM sessions")
        }
        let first = try #require(started.first?["first"].date)
        let last = try #require(started.first?["last"].date)
        #expect(abs(now.timeIntervalSince(first)) < 600 && abs(now.timeIntervalSince(last)) < 600, "\(first) … \(last)")
    }
}
