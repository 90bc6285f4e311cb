import Foundation
import Testing

@testable import OnboardMetricsSDK

/// The consent decisions without I/O (issue 32, item 4).
@Suite struct ConsentStateMachineTests {
    static func event(_ kind: EventKind, user: String = "member-1", properties: [String: JSONValue] = [:]) -> Event {
        Event(
            eventID: UUID(), sessionID: UUID(), userID: user, seq: 1, kind: kind, flowID: "f", flowVersion: 1,
            stepID: kind.isStepEvent ? "s" : nil, name: kind == .experimentExposure ? "exp" : nil,
            occurredAt: Date(timeIntervalSince1970: 1_790_000_000), properties: properties)
    }

    @Test func everyAnswerUnderEachPolicy() {
        let events = [Self.event(.stepViewed)]
        var hold = ConsentStateMachine(consent: .pending, policy: .holdUntilGranted)
        #expect(hold.record(events, anonymousID: "anon") == .hold(events))
        #expect(hold.set(.granted) == .releaseHeld)
        #expect(hold.record(events, anonymousID: "anon") == .forward(events))
        #expect(hold.set(.denied) == .discardHeld)
        #expect(hold.record(events, anonymousID: "anon") == .discard)
        #expect(hold.set(.pending) == .none)
        #expect(hold.record(events, anonymousID: "anon") == .hold(events))

        var denied = ConsentStateMachine(consent: .pending, policy: .holdUntilGranted)
        #expect(denied.set(.denied) == .discardHeld)
        #expect(denied.record(events, anonymousID: "anon") == .discard)
        // Granted again after a release the sink refused: the held events are tried again.
        var again = ConsentStateMachine(consent: .granted, policy: .holdUntilGranted)
        #expect(again.set(.granted) == .releaseHeld)
    }

    @Test func pendingEventsGoAnonymouslyUnderThatPolicy() {
        let started = Self.event(.sessionStarted, properties: ["context": .object(["email": "a@b.c"])])
        let exposure = Self.event(.experimentExposure, properties: ["variant": "short", "email": "a@b.c"])
        let machine = ConsentStateMachine(consent: .pending, policy: .anonymousWhilePending)
        guard case .forward(let sent) = machine.record([started, exposure], anonymousID: "anon-7") else {
            Issue.record("pending events were not forwarded")
            return
        }
        #expect(sent.map(\.userID) == ["anon-7", "anon-7"])
        #expect(sent[0].properties.isEmpty)  // no context
        #expect(sent[1].properties == ["variant": "short"])  // what the kind needs, nothing else
        #expect(sent.map(\.eventID) == [started.eventID, exposure.eventID])
    }
}
