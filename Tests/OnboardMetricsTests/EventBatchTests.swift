import Foundation
import Testing

@testable import OnboardMetricsFormats
@testable import OnboardMetricsSDK

/// The collector's batch body: well-formed batches keep every event apart, so one bad event is
/// rejected with its field named and the rest go on; a body that is not a batch is refused whole.
@Suite struct EventBatchTests {
    static let first = Event(
        eventID: UUID(uuidString: "019ba27c-d0ac-77e1-9215-9249245f2e8a") ?? UUID(),
        sessionID: UUID(uuidString: "4f9d43f3-72e1-4877-a260-157c15fed96a") ?? UUID(), userID: "user-0", seq: 1,
        kind: .sessionStarted, flowID: "health-study", flowVersion: 1,
        occurredAt: Date(timeIntervalSince1970: 1_767_957_647.532),
        properties: ["context": .object(["platform": .string("ios")])])

    static func parse(_ text: String, maximumEvents: Int = 100) throws -> EventBatch {
        try Array(text.utf8).withUnsafeBufferPointer { try EventBatch.parse($0, maximumEvents: maximumEvents) }
    }

    @Test func eventsRoundTripInOrderWithTheBatchSentAt() throws {
        var second = Self.first
        second.eventID = UUID(uuidString: "019ba27c-d0ad-7000-8000-000000000001") ?? UUID()
        second.seq = 2
        second.kind = .stepViewed
        second.stepID = "welcome"
        second.properties = [:]
        let body = """
            {"sent_at":"2026-01-09T11:20:48.734Z","events":[\(Self.first.jsonLine),
             \(second.jsonLine)]}
            """
        let batch = try Self.parse(body)
        #expect(batch.sentAt == Timestamp.parse("2026-01-09T11:20:48.734Z"))
        let events = batch.items.compactMap { if case .event(let event) = $0 { event } else { nil } }
        #expect(events == [Self.first, second])
    }

    @Test func aBadEventIsRejectedAloneWithItsField() throws {
        let missingUser =
            #"{"event_id":"019ba27c-d0ac-77e1-9215-000000000002","session_id":"4f9d43f3-72e1-4877-a260-157c15fed96a","seq":1,"kind":"custom","occurred_at":"2026-01-09T11:20:47.532Z","properties":{}}"#
        let badKind =
            #"{"event_id":"019ba27c-d0ac-77e1-9215-000000000003","session_id":"4f9d43f3-72e1-4877-a260-157c15fed96a","user_id":"u","seq":1,"kind":"clicked","occurred_at":"2026-01-09T11:20:47.532Z","properties":{}}"#
        let body =
            #"{"events":["#
            + [String(Self.first.jsonLine), missingUser, "42", badKind].joined(separator: ",") + "]}"
        let batch = try Self.parse(body)
        #expect(batch.sentAt == nil)
        #expect(batch.items.count == 4)
        guard case .event = batch.items[0] else { Issue.record("the good event was lost"); return }
        guard case .invalid(let id1, let error1) = batch.items[1] else {
            Issue.record("missing user_id accepted"); return
        }
        #expect(id1 == UUID(uuidString: "019ba27c-d0ac-77e1-9215-000000000002"))
        #expect(error1.code == .missing && error1.field == "user_id")
        guard case .invalid(nil, let error2) = batch.items[2] else {
            Issue.record("a number accepted as an event"); return
        }
        #expect(error2.code == .malformed)
        guard case .invalid(_, let error3) = batch.items[3] else { Issue.record("unknown kind accepted"); return }
        #expect(error3.field == "kind" && error3.reason.contains("clicked"))
    }

    @Test(arguments: [
        ("", "not valid JSON"),
        ("[1,2]", "a batch is a JSON object"),
        (#"{"events":[{"event_id":"x"}"#, "not valid JSON"),
        (#"{"sent_at":"yesterday","events":[]}"#, "sent_at is not an ISO 8601 timestamp"),
        (#"{"sent_at":"2026-01-09T11:20:48Z"}"#, "no events array"),
        (#"{"evnts":[]}"#, #"unknown key "evnts""#),
        (#"{"events":[]} trailing"#, "text after the batch object"),
    ])
    func notABatchIsRefusedWhole(body: String, message: String) {
        #expect {
            try Self.parse(body)
        } throws: { error in
            guard let error = error as? CollectorError else { return false }
            return error.code == .malformedBatch && error.message.contains(message)
        }
    }

    @Test func tooManyEventsIsFoundBeforeParsingThem() throws {
        let line = String(Self.first.jsonLine)
        let body = #"{"events":["# + Array(repeating: line, count: 4).joined(separator: ",") + "]}"
        #expect(try Self.parse(body, maximumEvents: 4).items.count == 4)
        #expect {
            try Self.parse(body, maximumEvents: 3)
        } throws: { ($0 as? CollectorError)?.code == .tooManyEvents }
    }

    /// Valid events are read in one pass; everything else the checked way. The edges where the two
    /// could differ: the nesting limit, NUL bytes, escapes, and a kind that is not one.
    @Test func eventsAtTheParsersEdgesGetTheSameOutcomeAsAlone() throws {
        func event(_ id: Int, properties: String = "{}", kind: String = "custom", user: String = "u") -> String {
            #"{"event_id":"019ba27c-d0ac-77e1-9215-\#(String(format: "%012d", id))","session_id":"4f9d43f3-72e1-4877-a260-157c15fed96a","user_id":"\#(user)","seq":\#(id),"kind":"\#(kind)","occurred_at":"2026-01-09T11:20:47.532Z","properties":\#(properties)}"#
        }
        func nested(_ levels: Int) -> String {
            #"{"a":"# + String(repeating: "[", count: levels) + String(repeating: "]", count: levels) + "}"
        }
        // Counting the event and its properties, values nest at most 64 levels in a batch.
        let batch = try Self.parse(
            "{\"events\":["
                + [
                    event(1, properties: nested(62)), event(2, kind: #"custo\u006d"#), event(3, user: "a\u{0}b"),
                    event(4, kind: "click\u{1}"), event(5),
                ].joined(separator: ",") + "]}")
        #expect(batch.items.count == 5)
        let accepted = batch.items.compactMap { if case .event(let event) = $0 { event.seq } else { nil } }
        #expect(accepted == [1, 2, 5])
        if case .event(let escaped) = batch.items[1] { #expect(escaped.kind == .custom) }
        guard case .invalid(_, let nul) = batch.items[2], case .invalid(_, let control) = batch.items[3] else {
            Issue.record("a NUL byte or a control character accepted"); return
        }
        #expect(nul.code == .nulCharacter)
        #expect(control.field == "kind" && control.code == .malformed)
        #expect {
            try Self.parse("{\"events\":[" + event(6, properties: nested(63)) + "]}")
        } throws: { error in
            (error as? CollectorError)?.code == .malformedBatch
                && ((error as? CollectorError)?.message.contains("nested more than 64 levels") ?? false)
        }
    }
}
