import Foundation
import Observation
import OnboardMetricsSDK
import OnboardMetricsTesting
import Testing

/// The observable model a SwiftUI view binds to, driven without UI.
@MainActor
@Suite struct OnboardingModelTests {
    static let flow = FlowDefinition(
        id: "welcome-tour", version: 1,
        steps: [
            Step("welcome"),
            Step("health-data", when: "healthDataAvailable"),
            Step("notifications", skippable: true),
            Step("account"),
        ])

    @Test func theModelPublishesPositionSkippabilityAndProgress() throws {
        let sink = RecordingSink()
        let model = OnboardingModel(flow: Self.flow, user: "u1", context: ["healthDataAvailable": false], sink: sink)
        model.start()
        #expect(model.currentStep?.id == "welcome")
        #expect(model.progress == FlowNavigator.Progress(total: 3, done: 0))
        #expect(!model.canSkip)
        #expect(!model.canGoBack)

        model.next()
        // health-data does not apply: notifications, which may be skipped.
        #expect(model.currentStep?.id == "notifications")
        #expect(model.canSkip)
        #expect(model.canGoBack)
        #expect(model.progress.done == 1)

        model.skip()
        #expect(model.currentStep?.id == "account")
        #expect(model.progress.fraction == 2.0 / 3.0)
        model.complete()
        #expect(model.isCompleted)
        #expect(model.currentStep == nil)
        #expect(model.progress.fraction == 1)
        #expect(
            sink.transcript == [
                "session_started", "step_viewed welcome", "step_completed welcome", "step_viewed notifications",
                "step_skipped notifications", "step_viewed account", "step_completed account", "flow_completed",
            ])
    }

    @Test func aRefusedMoveIsKeptInLastErrorAndChangesNothing() throws {
        let sink = RecordingSink()
        let model = OnboardingModel(flow: Self.flow, user: "u2", context: [:], sink: sink)
        model.start()
        let before = sink.events.count
        model.skip()  // welcome is not skippable
        #expect((model.lastError as? FlowError)?.code == .notSkippable)
        #expect(model.currentStep?.id == "welcome")
        #expect(sink.events.count == before)
        model.next()
        #expect(model.lastError == nil)
    }

    @Test func viewsReadingTheStepAreToldWhenAMoveChangesIt() throws {
        let model = OnboardingModel(flow: Self.flow, user: "u3", sink: RecordingSink())
        model.start()
        let changed = LockedBox(false)
        // What SwiftUI does for a view's body: track the properties it reads.
        withObservationTracking {
            _ = model.currentStep
        } onChange: {
            changed.withLock { $0 = true }
        }
        model.highlightShown("nothing-declared")  // refused: no highlight declared, step unchanged
        #expect(!changed.withLock { $0 })
        model.next()
        #expect(changed.withLock { $0 })
    }

    /// Issue 32: the model recorded `session_started` in its initializer, and SwiftUI evaluates a
    /// `@State` initializer on every init of the view — phantom sessions.
    @Test func makingTheModelRecordsNothingUntilItStartsAndItStartsOnce() throws {
        let sink = RecordingSink()
        // A view initialised five times: five models, only the kept one is started.
        let models = (0..<5).map { _ in OnboardingModel(flow: Self.flow, user: "u4", sink: sink) }
        #expect(sink.events.isEmpty)
        let model = models[0]
        #expect(model.status == .notStarted && model.currentStep == nil && model.session == nil)
        #expect(model.progress.done == 0)
        // A move before the start is refused, and records nothing.
        model.next()
        #expect((model.lastError as? FlowError)?.code == .notRunning)
        #expect(sink.events.isEmpty)
        model.start()
        model.start()  // the view appearing again
        #expect(model.lastError == nil)
        #expect(sink.transcript == ["session_started", "step_viewed welcome"])
        #expect(model.currentStep?.id == "welcome" && model.status == .running)
        #expect(Set(sink.events.map(\.sessionID)).count == 1)
    }

    @Test func aModelOnAStoreShowsTheResumedStepAfterARelaunch() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("model-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sink = RecordingSink()
        let catalog = try FlowCatalog([Self.flow])
        do {
            let model = OnboardingModel(
                flow: "welcome-tour", store: try SessionStore(directory: folder, flows: catalog, sink: sink),
                context: ["healthDataAvailable": true])
            model.start()
            model.next()
            #expect(model.currentStep?.id == "health-data")
        }
        let model = OnboardingModel(
            flow: "welcome-tour", store: try SessionStore(directory: folder, flows: catalog, sink: sink))
        #expect(model.status == .notStarted)
        model.start()
        #expect(model.currentStep?.id == "health-data")
        #expect(model.canGoBack)
        #expect(model.progress == FlowNavigator.Progress(total: 4, done: 1))
        #expect(sink.events.count == 4)
        model.next()
        #expect(sink.transcript.suffix(2) == ["step_completed health-data", "step_viewed notifications"])
        #expect(Set(sink.events.map(\.sessionID)).count == 1)
    }
}
