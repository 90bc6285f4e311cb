import Foundation
import Testing

@testable import OnboardMetricsSDK
@testable import OnboardMetricsStatistics

/// The validator's checks: times (issue 14, defects 1 and 10), NULs in properties with their
/// path, and the size of the properties (measured exactly only near the limit).
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

    static func event(properties: [String: JSONValue]) -> Event {
        var event = event(idAt: 1_795_000_000_000, occurredAt: now)
        event.properties = properties
        return event
    }

    static func error(_ event: Event) -> EventValidationError? {
        do {
            try EventValidator().validate(event, now: now)
            return nil
        } catch {
            return error as? EventValidationError
        }
    }

    @Test func aNULInNestedPropertiesIsNamedByItsPath() {
        let nested: [String: JSONValue] = [
            "device": .object(["model": .string("iPhone"), "tags": .array([.string("a"), .string("b\u{0}c")])]),
            "plan": .string("pro"),
        ]
        let error = Self.error(Self.event(properties: nested))
        #expect(error?.code == .nulCharacter)
        #expect(error?.field == "properties.device.tags[1]")
        #expect(Self.error(Self.event(properties: ["bad\u{0}key": .bool(true)]))?.field == "properties")
        #expect(Self.error(Self.event(properties: ["outer": .object(["k\u{0}": .null])]))?.field == "properties.outer")
        #expect(Self.error(Self.event(properties: ["plan": .string("pro"), "n": .number(3)])) == nil)
    }

    /// 11,000 control characters are 11,000 bytes of UTF-8 but 66,000 of JSON (`\u0001` each):
    /// over the limit although the raw strings are far below it.
    @Test func propertiesAreMeasuredAsJSONAroundTheLimit() {
        let escaped = String(repeating: "\u{1}", count: 11_000)
        let error = Self.error(Self.event(properties: ["blob": .string(escaped)]))
        #expect(error?.code == .tooLarge)
        #expect(error?.field == "properties")
        #expect(error?.reason.contains("66011 bytes") == true)
        // Far over the bound's estimate, still under the limit once written: accepted.
        let plain = String(repeating: "x", count: 60_000)
        #expect(EventValidator.jsonSizeBound(of: ["blob": .string(plain)]) > EventValidator.maximumPropertiesBytes)
        #expect(Self.error(Self.event(properties: ["blob": .string(plain)])) == nil)
        #expect(
            Self.error(Self.event(properties: ["blob": .string(plain + String(repeating: "y", count: 6_000))])) != nil)
    }

    /// The bound is never below the written size, for random properties (escapes, numbers, nesting).
    @Test func theSizeBoundIsNeverBelowTheWrittenSize() {
        var random = SplitMix64(seed: 11)
        let alphabet: [String] = ["a", "\"", "\\", "\n", "\u{1}", "é", "😀", "\u{7f}"]
        func string() -> String {
            (0..<Int(random.next() % 12)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }.joined()
        }
        func value(depth: Int) -> JSONValue {
            switch random.next() % (depth > 2 ? 4 : 6) {
            case 0: return .null
            case 1: return .bool(random.next() % 2 == 0)
            case 2: return .number(Double(Int64(bitPattern: random.next())) / Double(1 + random.next() % 1_000))
            case 3: return .string(string())
            case 4: return .array((0..<Int(random.next() % 4)).map { _ in value(depth: depth + 1) })
            default:
                return .object(
                    Dictionary((0..<Int(random.next() % 4)).map { _ in (string(), value(depth: depth + 1)) }) { a, _ in
                        a
                    })
            }
        }
        for _ in 0..<500 {
            let object = Dictionary((0..<Int(random.next() % 6)).map { _ in (string(), value(depth: 0)) }) { a, _ in a }
            var json: [UInt8] = []
            JSONWriter.appendObject(object, to: &json)
            #expect(EventValidator.jsonSizeBound(of: object) >= json.count)
        }
    }
}
