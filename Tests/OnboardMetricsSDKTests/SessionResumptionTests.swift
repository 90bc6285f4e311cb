import Foundation
import Testing

@testable import OnboardMetricsSDK

/// The decisions for a saved session, as a table: no clock but the one passed in, no files.
@Suite struct SessionResumptionTests {
    static let lastActivity = Date(timeIntervalSince1970: 1_790_000_000)
    static let started = lastActivity.addingTimeInterval(-600)

    static func record(status: FlowNavigator.Status = .running, version: Int = 3) -> SessionRecord {
        SessionRecord(
            sessionID: UUID(uuidString: "6F9619FF-8B86-4011-B42D-00C04FC964FF") ?? UUID(), userID: "anon-1",
            flowID: "health-study", flowVersion: version, context: [:], variants: [:], exposed: [], seq: 7,
            startedAt: started, lastActivity: lastActivity,
            navigator: FlowNavigator.Snapshot(
                status: status.rawValue,
                frames: [
                    .init(
                        flowID: "health-study", flowVersion: version, index: 2, stepID: "notifications", viewed: true,
                        done: false, history: [0, 1])
                ]))
    }

    struct StartCase: Sendable, CustomTestStringConvertible {
        var name: String
        var saved: SessionRecord?
        var flowVersion: Int
        var secondsAfterLastActivity: TimeInterval
        var expected: SessionResumption.Start
        var testDescription: String { name }
    }

    static let startCases: [StartCase] = [
        StartCase(
            name: "no file: a new session", saved: nil, flowVersion: 3, secondsAfterLastActivity: 0, expected: .start),
        StartCase(
            name: "5 minutes idle: resumed", saved: record(), flowVersion: 3, secondsAfterLastActivity: 300,
            expected: .resume),
        StartCase(
            name: "exactly 30 minutes idle: still resumed", saved: record(), flowVersion: 3,
            secondsAfterLastActivity: 1800, expected: .resume),
        StartCase(
            name: "30 minutes and a second: abandoned at the last activity", saved: record(), flowVersion: 3,
            secondsAfterLastActivity: 1801, expected: .abandonThenStart(at: lastActivity)),
        StartCase(
            name: "three days idle: abandoned at the last activity, not now", saved: record(), flowVersion: 3,
            secondsAfterLastActivity: 3 * 86_400, expected: .abandonThenStart(at: lastActivity)),
        StartCase(
            name: "the app ships another version: abandoned", saved: record(), flowVersion: 4,
            secondsAfterLastActivity: 60, expected: .abandonThenStart(at: lastActivity)),
        StartCase(
            name: "clock went backwards: resumed", saved: record(), flowVersion: 3, secondsAfterLastActivity: -3600,
            expected: .resume),
        StartCase(
            name: "completed: a new session, nothing closed", saved: record(status: .completed), flowVersion: 3,
            secondsAfterLastActivity: 60, expected: .start),
        StartCase(
            name: "abandoned already: a new session", saved: record(status: .abandoned), flowVersion: 3,
            secondsAfterLastActivity: 7200, expected: .start),
    ]

    @Test(arguments: startCases) func atLaunch(_ row: StartCase) {
        let rules = SessionResumption()
        let now = Self.lastActivity.addingTimeInterval(row.secondsAfterLastActivity)
        #expect(rules.start(row.saved, flowVersion: row.flowVersion, now: now) == row.expected)
    }

    @Test func aShorterTimeoutIsHonoured() {
        let rules = SessionResumption(inactivityTimeout: 60)
        #expect(rules.start(Self.record(), flowVersion: 3, now: Self.lastActivity.addingTimeInterval(59)) == .resume)
        #expect(
            rules.start(Self.record(), flowVersion: 3, now: Self.lastActivity.addingTimeInterval(61))
                == .abandonThenStart(at: Self.lastActivity))
    }

    @Test func eventsAfterTheOnboardingJoinItsSessionWithinTheAttachWindow() {
        let rules = SessionResumption()
        let day: TimeInterval = 86_400
        #expect(rules.attach(nil, now: Self.lastActivity) == .detach)
        #expect(rules.attach(Self.record(), now: Self.lastActivity.addingTimeInterval(60)) == .attach)
        #expect(
            rules.attach(Self.record(), now: Self.lastActivity.addingTimeInterval(2 * 3600))
                == .abandonThenAttach(at: Self.lastActivity))
        #expect(rules.attach(Self.record(status: .completed), now: Self.started.addingTimeInterval(6 * day)) == .attach)
        #expect(
            rules.attach(Self.record(status: .completed), now: Self.started.addingTimeInterval(7 * day + 1)) == .detach)
        #expect(
            rules.attach(Self.record(), now: Self.started.addingTimeInterval(8 * day))
                == .abandonThenDetach(at: Self.lastActivity))
    }

    @Test func closingARecordDatesFlowAbandonedAtTheLastActivity() throws {
        var record = Self.record()
        var random = SystemRandomNumberGenerator()
        let event = record.abandon(using: &random)
        #expect(event.kind == .flowAbandoned)
        #expect(event.occurredAt == Self.lastActivity)
        #expect(event.eventID.version7Milliseconds == 1_790_000_000_000)
        #expect(event.seq == 8)
        #expect(event.stepID == "notifications")
        #expect(event.sessionID == record.sessionID)
        #expect(!record.isRunning)
        try EventValidator().validate(event, now: Self.lastActivity)
    }
}
