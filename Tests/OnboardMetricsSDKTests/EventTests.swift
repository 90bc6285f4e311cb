import Foundation
import Testing

@testable import OnboardMetricsSDK

@Suite struct EventTests {
    static let sample = Event(
        eventID: UUIDv7Generator.make(milliseconds: 1_767_571_200_123, randA: 0x123, randB: 0xABCD_EF01_2345_6789),
        sessionID: UUID(uuid: (1, 2, 3, 4, 5, 6, 0x47, 8, 0x89, 10, 11, 12, 13, 14, 15, 16)), userID: "u \"1\"\n",
        seq: 3, kind: .highlightDismissed, flowID: "spotlight-share", flowVersion: 2, stepID: "spotlight",
        name: "share-button", occurredAt: Date(timeIntervalSince1970: 1_767_571_200.123),
        sentAt: Date(timeIntervalSince1970: 1_767_571_205.5), receivedAt: nil,
        properties: ["reason": "closed", "feature": "share", "count": 2, "ratio": 0.25, "nested": ["a": [true, nil]]])

    @Test func jsonLineIsCanonicalAndRoundTrips() throws {
        let line = Self.sample.jsonLine
        #expect(
            line
                == #"{"event_id":"019b8b74-187b-7123-abcd-ef0123456789","session_id":"01020304-0506-4708-890a-0b0c0d0e0f10","user_id":"u \"1\"\n","seq":3,"kind":"highlight_dismissed","flow_id":"spotlight-share","flow_version":2,"step_id":"spotlight","name":"share-button","occurred_at":"2026-01-05T00:00:00.123Z","sent_at":"2026-01-05T00:00:05.500Z","properties":{"count":2,"feature":"share","nested":{"a":[true,null]},"ratio":0.25,"reason":"closed"}}"#
        )
        #expect(try Event.decode(jsonLine: line) == Self.sample)
        // JSONEncoder output (Codable) decodes to the same event.
        let encoded = try JSONEncoder().encode(Self.sample)
        #expect(try JSONDecoder().decode(Event.self, from: encoded) == Self.sample)
    }

    @Test func optionalFieldsMayBeNullOrMissing() throws {
        let line =
            #"{"event_id":"019b8b74-187b-7123-abcd-ef0123456789","session_id":"01020304-0506-4708-890a-0b0c0d0e0f10","user_id":"u","seq":1,"kind":"custom","flow_id":null,"name":"tap","occurred_at":"2026-01-05T01:00:00+01:00","sent_at":null}"#
        let event = try Event.decode(jsonLine: line)
        #expect(event.flowID == nil)
        #expect(event.sentAt == nil)
        #expect(event.properties.isEmpty)
        #expect(event.occurredAt == Date(timeIntervalSince1970: 1_767_571_200))
    }

    @Test(arguments: [
        #"{"event_id":"x","session_id":"01020304-0506-4708-890a-0b0c0d0e0f10","user_id":"u","seq":1,"kind":"custom","occurred_at":"2026-01-05T00:00:00Z"}"#,
        #"{"event_id":"019b8b74-187b-7123-abcd-ef0123456789","session_id":"01020304-0506-4708-890a-0b0c0d0e0f10","user_id":"u","seq":1,"kind":"clicked","occurred_at":"2026-01-05T00:00:00Z"}"#,
        #"{"event_id":"019b8b74-187b-7123-abcd-ef0123456789","session_id":"01020304-0506-4708-890a-0b0c0d0e0f10","user_id":"u","seq":1,"kind":"custom","occurred_at":"yesterday"}"#,
        #"{"event_id":"019b8b74-187b-7123-abcd-ef0123456789","session_id":"01020304-0506-4708-890a-0b0c0d0e0f10","seq":1,"kind":"custom","occurred_at":"2026-01-05T00:00:00Z"}"#,
    ])
    func badLinesAreRejected(line: String) {
        #expect(throws: (any Error).self) { try Event.decode(jsonLine: line) }
    }

    @Test(arguments: [
        ("2026-01-05T00:00:00.123Z", 1_767_571_200_123), ("1970-01-01T00:00:00.000Z", 0),
        ("2024-02-29T23:59:59.999Z", 1_709_251_199_999), ("1969-12-31T23:59:59.999Z", -1),
    ])
    func timestampsFormatAndParse(text: String, milliseconds: Int64) throws {
        var bytes: [UInt8] = []
        Timestamp.append(milliseconds: milliseconds, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == text)
        let parsed = try #require(Timestamp.parse(text))
        #expect(Timestamp.milliseconds(parsed) == milliseconds)
    }

    @Test(arguments: ["2026-13-01T00:00:00Z", "2026-01-05", "2026-02-30T00:00:00Z", "2026-01-05T00:00:00.Z", "x"])
    func malformedTimestamps(text: String) {
        #expect(Timestamp.parse(text) == nil)
    }

    @Test func timestampsWithoutAZoneAreUTCAsEveryReaderReadsThem() throws {
        // One timestamp reader: the format's, ingest's and the collector's agree.
        let parsed = try #require(Timestamp.parse("2026-01-05T00:00:00"))
        #expect(Timestamp.milliseconds(parsed) == 1_767_571_200_000)
        #expect(TimestampParser().parse("2026-01-05T00:00:00") == parsed)
    }

    @Test func everyKindHasItsSnakeCaseName() {
        #expect(
            EventKind.allCases.map(\.rawValue) == [
                "session_started", "step_viewed", "step_completed", "step_skipped", "step_back", "highlight_shown",
                "highlight_dismissed", "feature_used", "flow_completed", "flow_abandoned", "experiment_exposure",
                "custom",
            ])
    }

    @Test func skewCorrection() {
        var event = Self.sample
        event.occurredAt = Date(timeIntervalSince1970: 1000)
        event.sentAt = Date(timeIntervalSince1970: 1010)
        event.receivedAt = Date(timeIntervalSince1970: 5000)
        #expect(event.correctedTime == Date(timeIntervalSince1970: 4990))
        event.receivedAt = nil
        #expect(event.correctedTime == event.occurredAt)
    }
}
