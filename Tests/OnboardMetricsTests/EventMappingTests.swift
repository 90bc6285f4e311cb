import Foundation
import Testing

@testable import OnboardMetricsAnalysis
@testable import OnboardMetricsCollector
@testable import OnboardMetricsFormats
@testable import OnboardMetricsReader
@testable import OnboardMetricsSDK

/// Segment and PostHog calls into the onboarding vocabulary: the naming convention, screens,
/// mapping files, users, times, sessions and stable ids.
@Suite struct EventMappingTests {
    static let received = Date(timeIntervalSince1970: 1_790_000_000)

    static func segment(_ json: String, mapping: EventMapping = EventMapping()) throws -> Event {
        let batch = try Array(#"{"sentAt":"2026-09-21T14:13:30.000Z","batch":[\#(json)]}"#.utf8)
            .withUnsafeBufferPointer {
                try SegmentBatch.parseBatch($0, maximumEvents: 10, timestamps: TimestampParser())
            }
        guard case .message(let message) = try #require(batch.items.first) else {
            throw EventValidationError(.malformed, field: "", reason: "\(batch.items)")
        }
        return try mapping.event(for: message, receivedAt: received)
    }

    static func posthog(_ json: String) throws -> [SegmentBatch.Item] {
        try Array(json.utf8).withUnsafeBufferPointer {
            try PostHogBatch.parse($0, maximumEvents: 10, timestamps: TimestampParser()).items
        }
    }

    @Test func unknownNamesAreCustomEventsAndConventionalNamesOnboardingKinds() throws {
        let custom = try Self.segment(
            #"{"type":"track","event":"App Opened","userId":"u1","messageId":"m1","timestamp":"2026-09-21T14:13:29.000Z"}"#
        )
        #expect(custom.kind == .custom && custom.name == "App Opened" && custom.userID == "u1")
        let viewed = try Self.segment(
            #"{"type":"track","event":"onboarding_step_viewed","anonymousId":"a1","messageId":"m2","properties":{"flow":"signup","flowVersion":"2","stepId":"welcome"}}"#
        )
        #expect(viewed.kind == .stepViewed && viewed.flowID == "signup" && viewed.flowVersion == 2)
        #expect(viewed.stepID == "welcome" && viewed.userID == "a1")
        let exposure = try Self.segment(
            #"{"type":"track","event":"Experiment Viewed","userId":"u1","properties":{"experiment_id":"copy","variation_name":"short"}}"#
        )
        #expect(exposure.kind == .experimentExposure && exposure.name == "copy")
        #expect(exposure.properties["variant"] == "short")
        let dismissed = try Self.segment(
            #"{"type":"track","event":"HighlightDismissed","userId":"u1","properties":{"highlight_id":"share","feature_id":"sharing","reason":"closed"}}"#
        )
        #expect(dismissed.kind == .highlightDismissed && dismissed.name == "share")
        #expect(dismissed.properties["feature"] == "sharing" && dismissed.properties["reason"] == "closed")
        let started = try Self.segment(
            #"{"type":"track","event":"Onboarding Started","userId":"u1","properties":{"flow_id":"signup","platform":"ios","healthDataAvailable":true}}"#
        )
        #expect(started.kind == .sessionStarted && started.flowID == "signup")
        #expect(started.properties["context"] == ["platform": "ios", "healthDataAvailable": true])
        // The names the app sent stay on what the convention made of them (issue 32), a custom
        // event's in its name as before.
        #expect(started.properties["$event"] == "Onboarding Started")
        #expect(viewed.properties["$event"] == "onboarding_step_viewed")
        #expect(exposure.properties["$event"] == "Experiment Viewed")
        #expect(custom.properties["$event"] == nil)
        // An ad-hoc funnel over those names finds them.
        let matcher = AdHocStepMatcher(steps: ["Onboarding Started", "onboarding_step_viewed", "App Opened"])
        #expect(matcher.mask(RecordedEvent(started)) == 1)
        #expect(matcher.mask(RecordedEvent(viewed)) == 2)
        #expect(matcher.mask(RecordedEvent(custom)) == 4)
    }

    @Test func aConventionalEventWithoutItsPropertyIsRejectedNamingIt() throws {
        let error = #expect(throws: EventValidationError.self) {
            try Self.segment(#"{"type":"track","event":"Step Viewed","userId":"u1","properties":{"flow_id":"f"}}"#)
        }
        #expect(error?.field == "properties.step_id")
        let noUser = #expect(throws: EventValidationError.self) {
            try Self.segment(#"{"type":"track","event":"App Opened"}"#)
        }
        #expect(noUser?.field == "userId")
    }

    @Test func screensAreCustomUnlessAFlowOrTheMappingFileNamesThem() throws {
        let plain = try Self.segment(#"{"type":"screen","name":"Settings","userId":"u1"}"#)
        #expect(plain.kind == .custom && plain.name == "Settings" && plain.properties["$type"] == "screen")
        let inFlow = try Self.segment(
            #"{"type":"screen","name":"Welcome","userId":"u1","properties":{"flow_id":"signup"}}"#)
        #expect(inFlow.kind == .stepViewed && inFlow.stepID == "Welcome")
        let mapping = try EventMapping(
            json: Array(
                #"{"screens":{"Settings":{"kind":"step_viewed","flow_id":"setup","flow_version":3,"step_id":"prefs"}}}"#
                    .utf8), file: "m.json")
        let mapped = try Self.segment(#"{"type":"screen","name":"Settings","userId":"u1"}"#, mapping: mapping)
        #expect(mapped.kind == .stepViewed && mapped.flowID == "setup" && mapped.flowVersion == 3)
        #expect(mapped.stepID == "prefs")
    }

    @Test func mappingFilesRefuseUnknownKeysAndKindsWithTheirPath() {
        for (json, fragment) in [
            (#"{"events":{"A":{"kind":"step_viewed","stpe_id":"x"}}}"#, #"events["A"].stpe_id: unknown key"#),
            (#"{"events":{"A":{"kind":"viewed"}}}"#, #"events["A"].kind: unknown kind "viewed""#),
            (#"{"screen":{}}"#, "screen: unknown key"), (#"{"events":{"A":{}}}"#, #"events["A"]: kind is missing"#),
            (#"{"events":"#, "not a JSON object"),
        ] {
            let error = #expect(throws: EventMappingError.self) {
                try EventMapping(json: Array(json.utf8), file: "m.json")
            }
            #expect(error?.message.hasPrefix("m.json: ") == true)
            #expect(error?.message.contains(fragment) == true, "\(error?.message ?? "") for \(json)")
        }
    }

    @Test func timesFollowSegmentAndPostHogAndIdsAreStableAcrossResends() throws {
        let json =
            #"{"type":"track","event":"A","userId":"u1","messageId":"m-1","originalTimestamp":"2026-09-21T14:13:00.000Z"}"#
        let first = try Self.segment(json)
        let again = try Self.segment(json)
        #expect(first.eventID == again.eventID)
        #expect(first.eventID.version7Milliseconds == Timestamp.milliseconds(first.occurredAt))
        // Segment: received - (sentAt - originalTimestamp), with the batch's sentAt.
        #expect(first.sentAt == Timestamp.parse("2026-09-21T14:13:30.000Z"))
        #expect(first.correctedTime == Self.received.addingTimeInterval(-30))
        let other = try Self.segment(json.replacingOccurrences(of: "m-1", with: "m-2"))
        #expect(other.eventID != first.eventID)
        // Without a session from the client, a user's events share their session stream.
        #expect(DerivedSessionID.isStream(first.sessionID) && first.sessionID == other.sessionID)

        // PostHog: timestamp with the body's sent_at; $session_id is the session; uuid the dedupe key.
        let items = try Self.posthog(
            #"{"api_key":"k","sent_at":"2026-09-21T14:13:10Z","batch":[{"event":"$screen","distinct_id":"d1","uuid":"0192a1b2-0000-7000-8000-000000000001","timestamp":"2026-09-21T14:13:00Z","properties":{"$screen_name":"Welcome","$session_id":"0192a1b2-0000-7000-8000-00000000abcd"}},{"distinct_id":"d1"}]}"#
        )
        guard case .message(let message) = items[0], case .invalid(_, let error) = items[1] else {
            Issue.record("\(items)")
            return
        }
        #expect(message.type == .screen && message.name == "Welcome")
        let event = try EventMapping().event(for: message, receivedAt: Self.received)
        // The session is the user's $session_id: the same id sent under another user is another session.
        #expect(event.sessionID == StableID.sessionID(for: "d1\u{1F}0192a1b2-0000-7000-8000-00000000abcd"))
        let items2 = try Self.posthog(
            #"{"api_key":"k","batch":[{"event":"x","distinct_id":"d2","timestamp":"2026-09-21T14:13:00Z","properties":{"$session_id":"0192a1b2-0000-7000-8000-00000000abcd"}}]}"#
        )
        guard case .message(let intruder) = items2[0] else {
            Issue.record("\(items2)")
            return
        }
        #expect(try EventMapping().event(for: intruder, receivedAt: Self.received).sessionID != event.sessionID)
        #expect(event.correctedTime == Self.received.addingTimeInterval(-10))
        let noUser = #expect(throws: EventValidationError.self) {
            try EventMapping().event(for: AnalyticsMessage(source: .posthog, type: .track), receivedAt: Self.received)
        }
        #expect(noUser?.field == "distinct_id")
        #expect(error.field == "event" && error.code == .missing)
    }

    /// A number that cannot be a time is refused with its field before any arithmetic: 1e19
    /// milliseconds trapped when made an Int64 (a Segment call or a PostHog offset with it took
    /// `funnel serve` down, and every client's unacknowledged events with it).
    @Test(arguments: ["1e19", "-1e19", "1e300", "9.3e18", "1e16"])
    func numericTimesOutOfRangeAreRefusedNotATrap(number: String) throws {
        let batch = try Array(
            #"{"batch":[{"type":"track","event":"x","userId":"u","timestamp":\#(number)}]}"#.utf8
        ).withUnsafeBufferPointer { try SegmentBatch.parseBatch($0, maximumEvents: 10, timestamps: TimestampParser()) }
        guard case .invalid(_, let error) = try #require(batch.items.first) else {
            Issue.record("\(batch.items)")
            return
        }
        #expect(error.field == "timestamp" && error.code == .absurdTimestamp, "\(error)")
        let items = try Self.posthog(
            #"{"api_key":"k","batch":[{"event":"x","distinct_id":"u","offset":\#(number)},"#
                + #"{"event":"y","distinct_id":"u","timestamp":\#(number)},"#
                + #"{"event":"z","distinct_id":"u","timestamp":"2026-09-21T14:13:00Z"}]}"#)
        guard case .invalid(_, let offset) = items[0], case .invalid(_, let timestamp) = items[1],
            case .message = items[2]
        else {
            Issue.record("\(items)")
            return
        }
        #expect(offset.field == "offset" && offset.code == .absurdTimestamp)
        #expect(timestamp.field == "timestamp" && timestamp.code == .absurdTimestamp)
    }

    /// Milliseconds as Segment sends them, inside the range: read, then judged by the validator.
    /// Issue 31: only the first event's token of a PostHog array was checked, so one request with
    /// a valid key could carry events for any other token.
    @Test func everyPostHogEventThatNamesAKeyMustNameTheRequestsKey() throws {
        let array = try Array(
            #"[{"event":"a","distinct_id":"u","token":"key-1"},{"event":"b","distinct_id":"u","properties":{"token":"key-2"}},{"event":"c","distinct_id":"u"},{"event":"d","distinct_id":"u","api_key":"key-1"}]"#
                .utf8
        ).withUnsafeBufferPointer { try PostHogBatch.parse($0, maximumEvents: 10, timestamps: TimestampParser()) }
        #expect(array.apiKey == "key-1")
        let rejected = array.items.compactMap { item -> String? in
            if case .invalid(_, let error) = item { return error.field }
            return nil
        }
        #expect(rejected == ["token"])
        guard case .invalid = array.items[1] else {
            Issue.record("the event with another token was taken: \(array.items[1])")
            return
        }
        // The body's key decides; an event naming another is refused.
        let batch = try Self.posthog(
            #"{"api_key":"key-1","batch":[{"event":"a","distinct_id":"u","token":"key-9"},{"event":"b","distinct_id":"u"}]}"#
        )
        guard case .invalid(_, let error) = batch[0], case .message = batch[1] else {
            Issue.record("\(batch)")
            return
        }
        #expect(error.field == "token" && !error.reason.contains("key-9"))
    }

    @Test func numericTimesInRangeAreMilliseconds() throws {
        let event = try Self.segment(#"{"type":"track","event":"x","userId":"u","timestamp":1790000000000}"#)
        #expect(event.occurredAt == Date(timeIntervalSince1970: 1_790_000_000))
        // A date no client can send still converts without a trap (saturating).
        #expect(Timestamp.milliseconds(Date(timeIntervalSince1970: 1e17)) == .max)
        #expect(Timestamp.milliseconds(Date(timeIntervalSince1970: -1e17)) == .min)
    }

    @Test func bodiesAreToldApartAndBadOnesRefusedWhole() throws {
        #expect(Collector.isSegmentBatch(Array(#"{"sentAt":"x","batch":[]}"#.utf8)))
        #expect(!Collector.isSegmentBatch(Array(#"{"sent_at":"x","events":[]}"#.utf8)))
        #expect(!Collector.isSegmentBatch(Array("not json".utf8)))
        let error = #expect(throws: CollectorError.self) {
            try Array(#"{"batch":[{"type":"track"}"#.utf8).withUnsafeBufferPointer {
                try SegmentBatch.parseBatch($0, maximumEvents: 10, timestamps: TimestampParser())
            }
        }
        #expect(error?.code == .malformedBatch && error?.message.contains("byte") == true)
        // A second writeKey, userId or batch was resolved last-wins, silently (issue 31): refused whole.
        for body in [
            #"{"writeKey":"good","batch":[],"writeKey":"other"}"#,
            #"{"batch":[{"type":"track","event":"a","userId":"u1","userId":"u2"}]}"#,
            #"{"batch":[],"batch":[{"type":"track","event":"a","userId":"u"}]}"#,
        ] {
            let twice = #expect(throws: CollectorError.self) {
                try Array(body.utf8).withUnsafeBufferPointer {
                    try SegmentBatch.parseBatch($0, maximumEvents: 10, timestamps: TimestampParser())
                }
            }
            #expect(twice?.code == .malformedBatch && twice?.message.contains("appears twice") == true, "\(body)")
        }
        let tooMany = #expect(throws: CollectorError.self) {
            try Array(#"[{"event":"a"},{"event":"b"}]"#.utf8).withUnsafeBufferPointer {
                try PostHogBatch.parse($0, maximumEvents: 1, timestamps: TimestampParser())
            }
        }
        #expect(tooMany?.code == .tooManyEvents)
    }
}
