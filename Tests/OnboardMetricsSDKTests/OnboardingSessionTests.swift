import Foundation
import OnboardMetricsTesting
import Testing

@testable import OnboardMetricsSDK

@Suite struct OnboardingSessionTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func flow(_ name: String) throws -> FlowDefinition {
        let url = packageRoot.appendingPathComponent("examples/flows/\(name).json")
        return try FlowDefinition.decode(from: Data(contentsOf: url))
    }

    static let fixedClock: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_790_000_000) }

    @Test func healthStudyWithoutHealthDataSkipsThatStepAndRecordsEveryMove() throws {
        let sink = RecordingSink()
        let session = try OnboardingSession.start(
            flow: Self.flow("health-study"), user: "u1",
            context: ["healthDataAvailable": false, "notificationsAuthorized": false],
            variants: ["welcome-copy": "b"], exposure: .atStart, sink: sink, clock: Self.fixedClock)
        #expect(session.currentStep?.id == "welcome")
        try session.next()
        #expect(session.currentStep?.id == "modules")
        try session.next()
        // health-data does not apply: notifications comes next.
        #expect(session.currentStep?.id == "notifications")
        try session.skip()
        try session.showCustom("privacy-policy")
        #expect(session.currentStep?.id == "consent")
        try session.next()
        try session.complete()
        #expect(session.status == .completed)

        let events = sink.events
        #expect(
            events.map(\.kind.rawValue) == [
                "session_started", "experiment_exposure", "step_viewed",
                "step_completed", "step_viewed",
                "step_completed", "step_viewed",
                "step_skipped", "step_viewed",
                "custom",
                "step_completed", "step_viewed",
                "step_completed", "flow_completed",
            ])
        #expect(events.map(\.seq) == Array(1...events.count))
        #expect(Set(events.map(\.sessionID)) == [session.sessionID])
        #expect(Set(events.map(\.eventID)).count == events.count)
        #expect(events.allSatisfy { $0.eventID.version7Milliseconds == 1_790_000_000_000 })
        #expect(events[1].properties["variant"] == "b")
        #expect(!events.contains { $0.stepID == "health-data" })
    }

    @Test func illegalMovesThrowAndRecordNothing() throws {
        let sink = RecordingSink()
        let session = try OnboardingSession.start(
            flow: Self.flow("health-study"), user: "u1", context: ["healthDataAvailable": true], sink: sink,
            clock: Self.fixedClock)
        let before = sink.events.count
        let skip = #expect(throws: FlowError.self) { try session.skip() }  // welcome is not skippable
        #expect(skip?.code == .notSkippable)
        let jump = #expect(throws: FlowError.self) { try session.goTo("nowhere") }
        #expect(jump?.code == .unknownStep)
        let complete = #expect(throws: FlowError.self) { try session.complete() }
        #expect(complete?.code == .notLastStep)
        #expect(sink.events.count == before)
        #expect(session.currentStep?.id == "welcome")
    }

    @Test func aMoveWithOneInvalidEventRecordsNothingAndKeepsSeq() throws {
        // next() from "a" records step_completed a (valid) and step_viewed of a step whose id is
        // too long for the format (invalid): the move is refused whole.
        let long = String(repeating: "s", count: EventValidator.maximumNameLength + 1)
        let flow = FlowDefinition(
            id: "atomic", version: 1, steps: [Step("a", jumps: ["c"]), Step(long), Step("c")])
        let sink = RecordingSink()
        let session = try OnboardingSession.start(flow: flow, user: "u1", sink: sink, clock: Self.fixedClock)
        #expect(sink.transcript == ["session_started", "step_viewed a"])
        let refused = #expect(throws: EventValidationError.self) { try session.next() }
        #expect(refused?.field == "step_id")
        #expect(sink.transcript == ["session_started", "step_viewed a"])
        #expect(session.currentStep?.id == "a")
        try session.goTo("c")
        #expect(sink.transcript == ["session_started", "step_viewed a", "step_completed a", "step_viewed c"])
        // No number was used up by the refused move.
        #expect(sink.events.map(\.seq) == [1, 2, 3, 4])
    }

    @Test func jumpAndBackFollowTheNavigator() throws {
        let sink = RecordingSink()
        let session = try OnboardingSession.start(
            flow: Self.flow("health-study"), user: "u2", context: [:], sink: sink, clock: Self.fixedClock)
        try session.goTo("consent")
        #expect(session.currentStep?.id == "consent")
        try session.back()
        #expect(session.currentStep?.id == "welcome")
        try session.abandon()
        #expect(session.status == .abandoned)
        #expect(sink.events.last?.kind == .flowAbandoned)
    }

    @Test func sessionsReplayWithoutDeviations() throws {
        // What a live session records replays as a legal run through the same navigator.
        let sink = RecordingSink()
        let flow = try Self.flow("health-study")
        let context: [String: JSONValue] = ["healthDataAvailable": true, "notificationsAuthorized": true]
        let session = try OnboardingSession.start(
            flow: flow, user: "u3", context: context, sink: sink, clock: Self.fixedClock)
        try session.next()
        try session.next()
        try session.skip()
        try session.next()
        try session.complete()
        var replay = FlowNavigator(flow: flow, context: context)
        let deviations = sink.events.flatMap { replay.observe($0.draft) }
        #expect(deviations.isEmpty)
        #expect(replay.status == .completed)
    }
}
