import Foundation
import Testing

@testable import OnboardMetricsSDK

/// The bounds on skew correction (issue 31, N3): a day at most, never from a message that says it
/// was sent before its event happened.
@Suite struct ClockCorrectionTests {
    static let hour: Int64 = 3_600_000_000
    static let now: Int64 = 1_795_000_000_000_000  // 2026-11-18, microseconds

    @Test func anOffsetWithinADayIsTrustedToTheMicrosecond() {
        // An app 3 h behind, a batch sent 10 minutes after the event, 0.4 s on the network.
        let occurred = Self.now - 3 * Self.hour
        let sent = occurred + 600_000_000
        let received = sent + 3 * Self.hour + 400_000
        #expect(ClockCorrection.offset(occurred: occurred, sent: sent, received: received) == 3 * Self.hour + 400_000)
        // Exactly a day either way still corrects; a microsecond more does not.
        #expect(ClockCorrection.offset(occurred: 0, sent: 0, received: 24 * Self.hour) == 24 * Self.hour)
        #expect(ClockCorrection.offset(occurred: 0, sent: 24 * Self.hour, received: 0) == -24 * Self.hour)
        #expect(ClockCorrection.offset(occurred: 0, sent: 0, received: 24 * Self.hour + 1) == nil)
        #expect(ClockCorrection.offset(occurred: 0, sent: 24 * Self.hour + 1, received: 0) == nil)
    }

    @Test func aMessageSentBeforeItsEventCorrectsNothing() {
        // The repro: events stamped now, the batch's sent_at 2000-01-01 (26 years of offset).
        let sent2000: Int64 = 946_684_800_000_000
        #expect(ClockCorrection.offset(occurred: Self.now, sent: sent2000, received: Self.now) == nil)
        // Within the tolerance a clock step is allowed; beyond it the stamps disagree.
        let tolerance = ClockCorrection.tolerance
        #expect(ClockCorrection.offset(occurred: Self.now, sent: Self.now - tolerance, received: Self.now) == tolerance)
        #expect(ClockCorrection.offset(occurred: Self.now, sent: Self.now - tolerance - 1, received: Self.now) == nil)
        // A missing stamp, or stamps no arithmetic may take, correct nothing and trap nowhere.
        #expect(ClockCorrection.offset(occurred: Self.now, sent: nil, received: Self.now) == nil)
        #expect(ClockCorrection.offset(occurred: Self.now, sent: Self.now, received: nil) == nil)
        #expect(ClockCorrection.offset(occurred: .min, sent: .min, received: .max) == nil)
        #expect(ClockCorrection.offset(occurred: .max, sent: .max, received: .min) == nil)
    }

    @Test func correctedTimeKeepsTheClientsStampWhenTheOffsetIsImplausible() throws {
        let occurred = Date(timeIntervalSince1970: 1_795_000_000)
        func event(sent: Date?, received: Date?) -> Event {
            Event(
                eventID: UUID(), sessionID: UUID(), userID: "u", seq: 1, kind: .stepViewed, flowID: "f",
                flowVersion: 1, stepID: "s", occurredAt: occurred, sentAt: sent, receivedAt: received)
        }
        // 2 h of skew, 0.25 s of network: Segment's received - (sent - occurred).
        let skewed = event(sent: occurred.addingTimeInterval(5), received: occurred.addingTimeInterval(7_205.25))
        #expect(abs(skewed.correctedTime.timeIntervalSince(occurred) - 7_200.25) < 0.000_002)
        // sent_at 2000-01-01: the event stays where the app put it, not in 2053.
        let forged = event(sent: Date(timeIntervalSince1970: 946_684_800), received: occurred)
        #expect(forged.correctedTime == occurred)
        // sent_at 25 h ahead of the server: more than a day, not corrected.
        let ahead = event(sent: occurred.addingTimeInterval(90_000), received: occurred)
        #expect(ahead.correctedTime == occurred)
        #expect(event(sent: nil, received: occurred.addingTimeInterval(50)).correctedTime == occurred)
    }
}
