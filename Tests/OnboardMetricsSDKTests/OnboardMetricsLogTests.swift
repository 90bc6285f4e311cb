import Foundation
import OnboardMetricsTesting
import Testing

@testable import OnboardMetricsSDK

/// The debug switch: off by default, and on it tells what the store decided.
@Suite(.serialized) struct OnboardMetricsLogTests {
    @Test func whenEnabledTheStoreTellsWhatItDecided() throws {
        let folder = SessionStoreTests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let lines = LockedBox<[String]>([])
        OnboardMetricsLog.enable { line in lines.withLock { $0.append(line) } }
        defer { OnboardMetricsLog.disable() }
        #expect(OnboardMetricsLog.isEnabled)
        let clock = ManualClock()
        let session = try SessionStoreTests.launch(folder, sink: RecordingSink(), clock: clock)
            .start(flow: "welcome-tour")
        clock.advance(by: 3600)
        _ = try SessionStoreTests.launch(folder, sink: RecordingSink(), clock: clock).start(flow: "welcome-tour")
        let logged = lines.withLock { $0 }
        #expect(logged.contains("started session \(session.sessionID) of welcome-tour"))
        #expect(logged.contains { $0.hasPrefix("session \(session.sessionID) of welcome-tour abandoned") })
    }

    @Test func whenDisabledNothingIsMade() {
        OnboardMetricsLog.disable()
        #expect(!OnboardMetricsLog.isEnabled)
        OnboardMetricsLog.log(
            { () -> String in
                Issue.record("the line was made although the log is off")
                return ""
            }())
    }
}
