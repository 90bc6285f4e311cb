import Foundation
import Testing

@testable import OnboardMetricsSDK

@Suite struct JSONEventParserTests {
    private func parse(_ line: String) throws -> Event {
        var bytes = Array(line.utf8)
        return try bytes.withUnsafeMutableBufferPointer { try JSONEventParser().parse(UnsafeBufferPointer($0)) }
    }

    private func error(_ line: String) -> EventValidationError? {
        do {
            _ = try parse(line)
            return nil
        } catch {
            return error as? EventValidationError
        }
    }

    private static let sample = Event(
        eventID: UUID(uuidString: "019c1359-4d70-7abc-8def-0123456789ab") ?? UUID(),
        sessionID: UUID(uuidString: "3f0e8d7a-1b2c-4d5e-8f90-112233445566") ?? UUID(), userID: "user \"7\"\n",
        seq: 3, kind: .highlightDismissed, flowID: "spotlight-share", flowVersion: 2, stepID: "share",
        name: "share-button",
        occurredAt: Date(timeIntervalSince1970: 1_769_850_902.125), sentAt: Date(timeIntervalSince1970: 1_769_850_903),
        receivedAt: Date(timeIntervalSince1970: 1_769_850_904.5),
        properties: [
            "reason": "closed", "n": 3, "pi": 3.25, "ok": true, "none": .null, "list": .array([1, "ü", .object([:])]),
            "nested": .object(["emoji": "🎉", "big": -12_345_678_901]),
        ])

    @Test func readsWhatEventJSONLineWrites() throws {
        let event = try parse(Self.sample.jsonLine)
        #expect(event == Self.sample)
        #expect(event == (try Event.decode(jsonLine: Self.sample.jsonLine)))
    }

    @Test func everyKindReadsAndNearMissesOfKeysAndKindsAreRefused() throws {
        let base =
            #""event_id":"019c1359-4d70-7abc-8def-0123456789ab","session_id":"3f0e8d7a-1b2c-4d5e-8f90-112233445566","#
            + #""user_id":"u","seq":1,"occurred_at":"2026-01-31T09:15:02Z""#
        for kind in EventKind.allCases {
            #expect(try parse("{\(base),\"kind\":\"\(kind.rawValue)\"}").kind == kind)
        }
        // The same length and first byte as a real kind or key: matched on the whole spelling.
        for near in ["step_viewex", "Step_viewed", "customs", "custo", "session_starteD"] {
            #expect(error("{\(base),\"kind\":\"\(near)\"}")?.reason == "unknown kind \"\(near)\"")
        }
        for near in ["user_ix", "sent_ax", "step_ix", "propertiez", "occurred_az", "nam", "kinD"] {
            let failure = error("{\(base),\"kind\":\"custom\",\"\(near)\":null}")
            #expect(failure?.field == near)
            #expect(failure?.reason == "is not a key of the event format")
        }
    }

    @Test func readsMinimalEventsWithWhitespaceNullsAndEscapes() throws {
        let line = """
             { "event_id" : "019C1359-4D70-7ABC-8DEF-0123456789AB", "session_id":"3f0e8d7a-1b2c-4d5e-8f90-112233445566",
              "user_id":"u\\u00e9\\ud83c\\udf89\\/", "seq":0, "kind":"custom", "name":null, "step_id":null,
              "occurred_at":"2026-01-31 09:15:02", "properties":null }\t
            """.replacingOccurrences(of: "\n", with: "")
        let event = try parse(line)
        #expect(event.userID == "ué🎉/")
        #expect(event.eventID == Self.sample.eventID)
        #expect(event.name == nil)
        #expect(event.properties.isEmpty)
        #expect(event.occurredAt == Date(timeIntervalSince1970: 1_769_850_902))
    }

    @Test func badLinesNameTheirProblem() {
        let good = Self.sample.jsonLine
        #expect(error("{not json")?.code == .malformed)
        #expect(error(String(good.dropLast()))?.code == .malformed)
        #expect(error(good + " trailing")?.reason.contains("text after") == true)
        #expect(error(good.replacingOccurrences(of: "highlight_dismissed", with: "exploded"))?.field == "kind")
        #expect(
            error(good.replacingOccurrences(of: "\"event_id\":\"019c1359-4d70-7abc-8def-0123456789ab\",", with: ""))
                == EventValidationError(.missing, field: "event_id", reason: "is missing"))
        #expect(error(good.replacingOccurrences(of: "019c1359-4d70", with: "019c1359x4d70"))?.field == "event_id")
        #expect(error(good.replacingOccurrences(of: "\"seq\":3", with: "\"seq\":3.5"))?.code == .malformed)
        #expect(error(good.replacingOccurrences(of: "2026-01-31T09:15:02.125Z", with: "soon"))?.field == "occurred_at")
        #expect(error(good.replacingOccurrences(of: "\"seq\"", with: "\"sequence\""))?.field == "sequence")
        #expect(error(good.replacingOccurrences(of: "\"properties\":{", with: "\"properties\":[{"))?.code == .malformed)
        #expect(error(good.replacingOccurrences(of: "user", with: "us\u{0}er"))?.code == .nulCharacter)
        #expect(error(good.replacingOccurrences(of: "closed", with: "clo\u{1}sed"))?.code == .malformed)
        // A key given twice (issue 31): refused, naming it — at the top and inside properties.
        let twice = error(good.replacingOccurrences(of: "\"seq\":3", with: "\"seq\":3,\"seq\":4"))
        #expect(twice?.field == "seq" && twice?.reason == "appears twice")
        let inner = error(
            good.replacingOccurrences(of: "\"reason\":\"closed\"", with: "\"reason\":\"closed\",\"reason\":\"x\""))
        #expect(inner?.field == "properties" && inner?.reason.contains("\"reason\" appears twice") == true)
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(error(good.replacingOccurrences(of: "\"closed\"", with: deep))?.reason.contains("nested") == true)
    }

    @Test func escapedNULReachesTheValidator() throws {
        let line = Self.sample.jsonLine.replacingOccurrences(of: "closed", with: "clo\\u0000sed")
        let event = try parse(line)
        #expect(throws: EventValidationError.self) { try EventValidator().validate(event, now: Date()) }
    }

    @Test func invalidUTF8IsRejectedWithItsField() {
        let line =
            #"{"event_id":"019ab0c1-0000-7000-8000-000000000001","session_id":"4f9d43f3-72e1-4877-a260-157c15fed96a","user_id":"u\#u{1}","seq":1,"kind":"flow_abandoned","occurred_at":"2026-11-23T12:00:00.000Z"}"#
        for bad: [UInt8] in [[0xFF], [0xC3, 0x28], [0xED, 0xA0, 0x80], [0xC0, 0xAF]] {
            var bytes = Array(line.utf8)
            let at = bytes.firstIndex(of: 1) ?? 0
            bytes.replaceSubrange(at...at, with: bad)
            let error = bytes.withUnsafeBufferPointer { buffer in
                #expect(throws: EventValidationError.self) { try JSONEventParser().parse(buffer) }
            }
            #expect(error?.field == "user_id")
            #expect(error?.reason.contains("invalid UTF-8") == true)
        }
        // Inside properties, too, and after an escape.
        let properties =
            Array(#"{"event_id":"019ab0c1-0000-7000-8000-000000000001","properties":{"k":"a\n"#.utf8) + [0xFF]
            + Array(#""}}"#.utf8)
        let error = properties.withUnsafeBufferPointer { buffer in
            #expect(throws: EventValidationError.self) { try JSONEventParser().parse(buffer) }
        }
        #expect(error?.field == "properties")
    }
}
