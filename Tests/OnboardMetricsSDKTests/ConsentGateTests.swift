import Foundation
import OnboardMetricsSDK
import OnboardMetricsTesting
import Testing

/// The consent gate on disk (issue 32, item 4): held events survive a relaunch and are sent once,
/// in order, when consent is granted; denied, nothing of the user reaches the sink.
@Suite struct ConsentGateTests {
    static let flow = FlowDefinition(id: "f", version: 1, steps: [Step("consent"), Step("account")])

    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("consent-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func heldEventsSurviveARelaunchAndGoOnceInOrderWhenGranted() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let sink = RecordingSink()
        let gate = try ConsentGate(directory: folder.path, policy: .holdUntilGranted, sink: sink)
        #expect(gate.consent == .pending)
        let session = try OnboardingSession.start(flow: Self.flow, user: "member-1", sink: gate)
        try session.next()
        #expect(sink.events.isEmpty)
        #expect(gate.heldCount == 4)

        // Relaunch: a new gate over the same folder still holds them, still pending.
        let relaunched = try ConsentGate(directory: folder.path, policy: .holdUntilGranted, sink: sink)
        #expect(relaunched.consent == .pending && relaunched.heldCount == 4)
        try relaunched.setConsent(.granted)
        #expect(
            sink.transcript == [
                "session_started", "step_viewed consent", "step_completed consent", "step_viewed account",
            ])
        #expect(relaunched.heldCount == 0)
        try relaunched.setConsent(.granted)  // nothing sent twice
        #expect(sink.events.count == 4)
        // Granted is remembered, and later events go straight through.
        let third = try ConsentGate(directory: folder.path, policy: .holdUntilGranted, sink: sink)
        #expect(third.consent == .granted)
        try third.record(contentsOf: [sink.events[0]])
        #expect(sink.events.count == 4 && sink.resent == 1)  // it reached the sink (which keeps an id once)
    }

    @Test func deniedSendsNothingAndOptOutForgetsTheInstallation() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let sink = RecordingSink()
        let gate = try ConsentGate(directory: folder.path, policy: .holdUntilGranted, sink: sink)
        let session = try OnboardingSession.start(flow: Self.flow, user: "member-2", sink: gate)
        try gate.setConsent(.denied)
        try session.next()
        try session.complete()
        #expect(sink.events.isEmpty)
        #expect(gate.heldCount == 0)
        #expect(try ConsentGate(directory: folder.path, policy: .holdUntilGranted, sink: sink).consent == .denied)

        // Anonymous while pending, then opt-out: a new anonymous id, nothing more sent.
        let other = try Self.folder()
        defer { try? FileManager.default.removeItem(at: other) }
        let anonymous = try ConsentGate(directory: other.path, policy: .anonymousWhilePending, sink: sink)
        _ = try OnboardingSession.start(flow: Self.flow, user: "member-3", context: ["email": "x@y.z"], sink: anonymous)
        let before = Set(sink.events.map(\.userID))
        #expect(before.count == 1 && before.first?.hasPrefix("anon-") == true && !before.contains("member-3"))
        #expect(sink.events.allSatisfy { $0.properties.isEmpty })
        try anonymous.optOut()
        _ = try OnboardingSession.start(flow: Self.flow, user: "member-3", sink: anonymous)
        #expect(sink.events.count == 2)
        #expect(anonymous.consent == .denied)
    }
}
