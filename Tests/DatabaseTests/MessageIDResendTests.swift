import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import OnboardMetricsCollector
@testable import OnboardMetricsFormats
@testable import OnboardMetricsPostgres
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

/// Segment and PostHog messages sent without a time of their own are timed when the collector
/// receives them; a resend is received later, and was stored again under an id made from that
/// later time (issue 59). Their id is now resolved from the message id alone (`messageId`,
/// `uuid`; migration 0010): every resend is stored once, through the collector and with the
/// writer role's rights only, while the same message id from two users stays two events.
@Suite struct MessageIDResendTests {
    @Test func messagesWithoutATimeAreStoredOnceHoweverLateTheResend() async throws {
        let configuration = try await TestDatabase.migrated("message_id_resend")
        let key = try await TestDatabase.withConnection(configuration) {
            try AppKeyStore().create(name: "resend", on: $0).secret
        }
        let recorder = try EventRecorder(
            configuration: EventRecorderTests.recorderConfiguration(configuration, spool: nil))
        let app = try await CollectorRoutesTests.application(configuration, recorder: recorder, metrics: ServeMetrics())
        @Sendable func segment(sentAt: Date) -> String {
            """
            {"sentAt":"\(Timestamp.string(sentAt))","batch":[
            {"type":"track","userId":"u1","event":"Opened","messageId":"m1"},
            {"type":"track","userId":"u1","event":"Tapped","messageId":"m2"},
            {"type":"track","userId":"u2","event":"Opened","messageId":"m1"},
            {"type":"screen","userId":"u2","name":"Welcome","messageId":"m3"}]}
            """
        }
        // PostHog: one without a time at all, one with only an offset (the time its client saw
        // before sending), each resent.
        @Sendable func posthog(offset: Int) -> String {
            #"""
            {"api_key":"\#(key)","batch":[
            {"event":"opened","distinct_id":"p1","uuid":"0190a1b2-0000-4000-8000-000000000001","properties":{}},
            {"event":"tapped","distinct_id":"p1","uuid":"0190a1b2-0000-4000-8000-000000000002","offset":\#(offset),"properties":{}}]}
            """#
        }
        let basic: HTTPFields = [
            .authorization: "Basic " + Data("\(key):".utf8).base64EncodedString(), .contentType: "application/json",
        ]
        let json: HTTPFields = [.contentType: "application/json"]
        _ = try await recorder.withRunning {
            try await app.test(.router) { client in
                // Each batch three times, 30 ms apart: every receipt has a time of its own.
                for attempt in 0..<3 {
                    for (path, headers, body) in [
                        ("/v1/batch", basic, segment(sentAt: Date())),
                        ("/batch/", json, posthog(offset: 500 + 30 * attempt)),
                    ] {
                        try await client.execute(
                            uri: path, method: .post, headers: headers, body: ByteBuffer(string: body)
                        ) { response in
                            #expect(response.status == .ok, "\(path): \(String(buffer: response.body))")
                        }
                    }
                    try await Task.sleep(for: .milliseconds(30))
                }
            }
        }
        let rows = try await TestDatabase.withConnection(configuration) { connection in
            try connection.query(
                "SELECT user_id, name FROM events WHERE kind <> 'session_started' ORDER BY user_id, name"
            )
            .map { "\($0["user_id"].string ?? "") \($0["name"].string ?? "")" }
        }
        #expect(rows == ["p1 opened", "p1 tapped", "u1 Opened", "u1 Tapped", "u2 Opened", "u2 Welcome"])
        let remembered = try await TestDatabase.withConnection(configuration) { connection in
            try connection.query("SELECT count(*) AS n FROM message_ids").first?["n"].int
        }
        #expect(remembered == 6)
    }

    /// The store resolves the ids with the collector role's rights alone, for the same message
    /// received a day apart, and a repeat inside one batch is one event.
    @Test func theWriterRoleResolvesAResendADayLater() async throws {
        let configuration = try await TestDatabase.migrated("message_id_writer_role")
        var message = AnalyticsMessage(source: .segment, type: .track)
        message.userID = "w1"
        message.name = "Opened"
        message.messageID = "late-1"
        let mapping = EventMapping()
        let first = try mapping.event(for: message, receivedAt: Date())
        let dayLater = try mapping.event(for: message, receivedAt: Date().addingTimeInterval(86_400))
        #expect(first.eventID != dayLater.eventID)  // as received: the times differ
        let results = try await TestDatabase.withConnection(configuration) { connection in
            try connection.query("SET ROLE onboardmetrics_writer")
            defer { _ = try? connection.query("RESET ROLE") }  // the connection closes next anyway
            let store = EventStore()
            var hints = EventStore.WriteHints()
            let stored = try store.write([first, first], on: connection, receivedAt: Date(), hints: &hints)
            let resent = try store.write([dayLater], on: connection, receivedAt: Date(), hints: &hints)
            return [stored, resent]
        }
        #expect(
            results == [
                EventStore.WriteResult(inserted: 1, duplicates: 1), EventStore.WriteResult(inserted: 0, duplicates: 1),
            ])
        let ids = try await TestDatabase.withConnection(configuration) { connection in
            try connection.query("SELECT event_id FROM events").compactMap { $0["event_id"].uuid }
        }
        #expect(ids == [first.eventID])
    }
}
