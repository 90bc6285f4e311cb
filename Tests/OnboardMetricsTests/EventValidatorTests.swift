import Foundation
import Testing

@testable import OnboardMetrics
@testable import OnboardMetricsSDK

/// The validator's time checks (issue 14, defects 1 and 10).
@Suite struct EventValidatorTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)

    static func event(idAt milliseconds: Int64, occurredAt: Date) -> Event {
        var random = SplitMix64(seed: 3)
        var ids = UUIDv7Generator()
        return Event(
            eventID: ids.next(milliseconds: milliseconds, using: &random),
            sessionID: UUIDv7Generator.randomV4(using: &random), userID: "u", seq: 0, kind: .flowAbandoned,
            occurredAt: occurredAt)
    }

    @Test(arguments: [Int64(1_900_000_000_000), 5_000_000_000_000, 946_684_800_000, 1_794_000_000_000])
    func anIDTimeFarFromOccurredAtIsRejectedAsTheEventID(milliseconds: Int64) {
        let event = Self.event(idAt: milliseconds, occurredAt: Self.now)
        let error = #expect(throws: EventValidationError.self) { try EventValidator().validate(event, now: Self.now) }
        #expect(error?.field == "event_id")
        #expect(error?.code == .absurdTimestamp)
    }

    @Test func anIDWithinADayOfOccurredAtIsAccepted() throws {
        let at = Timestamp.milliseconds(Self.now)
        try EventValidator().validate(Self.event(idAt: at - 3_600_000, occurredAt: Self.now), now: Self.now)
        try EventValidator().validate(Self.event(idAt: at + 3_600_000, occurredAt: Self.now), now: Self.now)
    }

    @Test(arguments: [Date(timeIntervalSince1970: -62_135_596_800), Date(timeIntervalSince1970: 253_402_300_799)])
    func anAbsurdReceivedAtIsRejected(receivedAt: Date) {
        var event = Self.event(idAt: Timestamp.milliseconds(Self.now), occurredAt: Self.now)
        event.receivedAt = receivedAt
        let error = #expect(throws: EventValidationError.self) { try EventValidator().validate(event, now: Self.now) }
        #expect(error?.field == "received_at")
    }
}
