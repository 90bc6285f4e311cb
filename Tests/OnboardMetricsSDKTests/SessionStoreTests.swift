import Foundation
import OnboardMetricsTesting
import Testing

@testable import OnboardMetricsSDK

/// Sessions that outlive the process: each "launch" makes a new store on the same folder and
/// drops every object of the previous one.
@Suite struct SessionStoreTests {
    static func tour(version: Int = 1) -> FlowDefinition {
        FlowDefinition(
            id: "welcome-tour", version: version,
            steps: [
                Step("welcome"),
                Step("notifications", skippable: true),
                Step("share", highlights: [Highlight("share-button", feature: "share")]),
                Step("account"),
            ])
    }

    static func folder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("sessions-\(UUID().uuidString)").path
    }

    static func launch(
        _ folder: String, sink: RecordingSink, clock: ManualClock, flows: [FlowDefinition] = [tour()]
    ) throws -> SessionStore {
        var configuration = SessionStore.Configuration()
        configuration.clock = clock.closure
        return try SessionStore(
            directory: folder, flows: FlowCatalog(flows), sink: sink, configuration: configuration)
    }

    @Test func aRelaunchWithinTheTimeoutResumesTheSameSessionWithoutANewView() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sink = RecordingSink()
        let clock = ManualClock()
        do {
            let store = try Self.launch(folder, sink: sink, clock: clock)
            let session = try store.start(flow: "welcome-tour", context: ["platform": "ios"])
            clock.advance(by: 5)
            try session.next()
            clock.advance(by: 5)
            try session.skip()
        }
        // The app is killed; ten minutes later it is opened again.
        clock.advance(by: 600)
        let store = try Self.launch(folder, sink: sink, clock: clock)
        let session = try store.start(flow: "welcome-tour", context: ["platform": "changed"])
        #expect(session.currentStep?.id == "share")
        #expect(session.canGoBack)
        try session.next()

        let events = sink.events
        #expect(
            sink.transcript == [
                "session_started", "step_viewed welcome", "step_completed welcome", "step_viewed notifications",
                "step_skipped notifications", "step_viewed share", "step_completed share", "step_viewed account",
            ])
        #expect(Set(events.map(\.sessionID)) == [session.sessionID])
        #expect(events.map(\.seq) == Array(1...8))
        #expect(events.filter { $0.kind == .stepViewed && $0.stepID == "share" }.count == 1)
        // The saved context, not the one passed at the relaunch.
        #expect(events[0].properties["context"] == ["platform": "ios"])
        // The recording replays without deviations: the resumed position is the real one.
        var replay = FlowNavigator(flow: Self.tour(), context: ["platform": "ios"])
        #expect(replay.observe(contentsOf: events.map(\.draft)).isEmpty)
    }

    @Test func aRelaunchPastTheTimeoutClosesTheSessionAtItsLastActivity() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sink = RecordingSink()
        let clock = ManualClock()
        let firstID: UUID
        let lastActivity: Date
        do {
            let store = try Self.launch(folder, sink: sink, clock: clock)
            let session = try store.start(flow: "welcome-tour")
            clock.advance(by: 20)
            try session.next()
            firstID = session.sessionID
            lastActivity = clock.now
        }
        clock.advance(by: 2 * 3600)
        let store = try Self.launch(folder, sink: sink, clock: clock)
        let session = try store.start(flow: "welcome-tour")

        #expect(session.sessionID != firstID)
        let closing = try #require(sink.events.first { $0.kind == .flowAbandoned })
        #expect(closing.sessionID == firstID)
        #expect(closing.occurredAt == lastActivity)
        #expect(closing.stepID == "notifications")
        #expect(closing.seq == 5)
        #expect(closing.properties["reason"] == "inactivity")
        let fresh = sink.events.filter { $0.sessionID == session.sessionID }
        #expect(fresh.map(\.kind) == [.sessionStarted, .stepViewed])
        #expect(fresh.first?.occurredAt == clock.now)
        #expect(fresh.map(\.seq) == [1, 2])
    }

    @Test func aSessionOfAFlowVersionTheAppNoLongerHasIsClosedAndANewOneStarts() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sink = RecordingSink()
        let clock = ManualClock()
        do {
            let store = try Self.launch(folder, sink: sink, clock: clock)
            try store.start(flow: "welcome-tour").next()
        }
        clock.advance(by: 60)
        let store = try Self.launch(folder, sink: sink, clock: clock, flows: [Self.tour(version: 2)])
        let session = try store.start(flow: "welcome-tour")
        #expect(session.currentStep?.id == "welcome")
        #expect(
            sink.transcript.suffix(3) == [
                "flow_abandoned notifications inactivity", "session_started", "step_viewed welcome",
            ])
        let closing = try #require(sink.events.first { $0.kind == .flowAbandoned })
        #expect(closing.flowVersion == 1)
        #expect(store.diagnostics.map(\.code) == [.flowChanged])
    }

    @Test func aCorruptFileGivesADiagnosticAndAFreshStart() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sink = RecordingSink()
        let clock = ManualClock()
        do {
            let store = try Self.launch(folder, sink: sink, clock: clock)
            try store.start(flow: "welcome-tour").next()
        }
        let file = folder + "/sessions/welcome-tour.json"
        try Data("{\"format\":1,\"session_id\":".utf8).write(to: URL(fileURLWithPath: file))
        try Data("not json".utf8).write(to: URL(fileURLWithPath: folder + "/identity.json"))
        sink.removeAll()

        let store = try Self.launch(folder, sink: sink, clock: clock)
        let session = try store.start(flow: "welcome-tour")
        #expect(sink.transcript == ["session_started", "step_viewed welcome"])
        #expect(sink.events.allSatisfy { $0.sessionID == session.sessionID })
        #expect(store.diagnostics.map(\.code) == [.corrupt, .corrupt])
        #expect(FileManager.default.fileExists(atPath: file + ".corrupt"))
        // The fresh session is saved again, readable by the next launch.
        let data = try #require(FileManager.default.contents(atPath: file))
        #expect(try SessionRecord.decode(data).sessionID == session.sessionID)
    }

    @Test func aFeatureUsedAfterTheOnboardingJoinsItsSessionWithoutTheObject() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sink = RecordingSink()
        let clock = ManualClock()
        let onboarding: UUID
        do {
            let store = try Self.launch(folder, sink: sink, clock: clock)
            let session = try store.start(flow: "welcome-tour")
            try session.next()
            try session.skip()
            try session.highlightShown("share-button")
            try session.next()
            try session.complete()
            onboarding = session.sessionID
        }
        // Two days later, another launch: the user shares for the first time.
        clock.advance(by: 2 * 86_400)
        let store = try Self.launch(folder, sink: sink, clock: clock)
        try store.featureUsed("share")
        try store.highlightDismissed("share-button", reason: .actionPerformed, flow: "welcome-tour")
        let later = sink.events.suffix(2)
        #expect(later.map(\.kind) == [.featureUsed, .highlightDismissed])
        #expect(later.allSatisfy { $0.sessionID == onboarding })
        #expect(later.map(\.seq) == [12, 13])
        #expect(later.first?.occurredAt == clock.now)

        // Past the attach window, the user's session stream takes them.
        clock.advance(by: 6 * 86_400)
        let next = try Self.launch(folder, sink: sink, clock: clock)
        try next.featureUsed("share")
        let detached = try #require(sink.events.last)
        #expect(detached.sessionID == DerivedSessionID.stream(user: next.userID))
        #expect(detached.kind == .featureUsed)
        #expect(throws: FlowError.self) { try next.highlightShown("undeclared", flow: "welcome-tour") }
    }

    @Test func startingTwiceInOneProcessGivesTheSameSession() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sink = RecordingSink()
        let store = try Self.launch(folder, sink: sink, clock: ManualClock())
        let first = try store.start(flow: "welcome-tour")
        let second = try store.start(flow: "welcome-tour")
        #expect(first === second)
        #expect(store.session(flow: "welcome-tour") === first)
        #expect(sink.events.count == 2)
        #expect(throws: SessionStoreError.self) { try store.start(flow: "nope") }
    }
}
