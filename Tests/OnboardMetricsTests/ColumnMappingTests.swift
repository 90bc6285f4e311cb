import Foundation
import Testing

@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

@Suite struct ColumnMappingTests {
    private let specifications = ["user_id=uid", "session_id=sid", "event=action", "occurred_at=ts", "step=screen"]

    private func events(_ rows: [[String]], header: [String] = ["uid", "sid", "action", "ts", "screen", "country"])
        throws -> [Result<Event, EventValidationError>]
    {
        var builder = try CSVEventBuilder(
            header: header, mapping: try ColumnMapping(specifications: specifications), timestamps: TimestampParser())
        return rows.map { row in
            do {
                return .success(try builder.event(from: row))
            } catch let error as EventValidationError {
                return .failure(error)
            } catch {
                return .failure(EventValidationError(.malformed, field: "", reason: "\(error)"))
            }
        }
    }

    @Test func specificationsParse() throws {
        let mapping = try ColumnMapping(specifications: specifications)
        #expect(mapping.columns[.userID] == "uid")
        #expect(mapping.columns[.step] == "screen")
        #expect(mapping.columns[.flowID] == nil)
    }

    @Test(arguments: [
        (["user_id=a", "session_id=b", "event=c"], "occurred_at=COLUMN"),
        (["user_id=a", "session_id=b", "event=c", "occurred_at=d", "colour=e"], "unknown field 'colour'"),
        (["user_id", "session_id=b", "event=c", "occurred_at=d"], "expected FIELD=COLUMN"),
        (["user_id=a", "user_id=b", "session_id=b", "event=c", "occurred_at=d"], "given twice"),
        (["user_id=", "session_id=b", "event=c", "occurred_at=d"], "column name is empty"),
    ])
    func badSpecificationsAreRefused(specifications: [String], message: String) {
        do {
            _ = try ColumnMapping(specifications: specifications)
            Issue.record("expected an error")
        } catch let error as IngestError {
            #expect(error.code == .mapping)
            #expect(error.message.contains(message), "\(error.message)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func aColumnTheHeaderLacksIsNamed() throws {
        let mapping = try ColumnMapping(specifications: specifications)
        #expect(throws: IngestError.self) { try mapping.indices(in: ["uid", "sid", "action", "ts"]) }
    }

    @Test func rowsBecomeEventsWithKindsSeqsAndProperties() throws {
        let results = try events([
            ["u1", "s-1", "step_viewed", "2026-01-31 09:15:02", "welcome", "DE"],
            ["u1", "s-1", "tapped_share", "2026-01-31 09:15:03", "", ""],
            ["u2", "s-2", "step_completed", "2026-01-31T09:15:04Z", "welcome", "FR"],
            ["u1", "s-1", "step_completed", "2026-01-31 09:15:05", "welcome", "DE"],
        ])
        let events = try results.map { try $0.get() }
        #expect(events.map(\.kind) == [.stepViewed, .custom, .stepCompleted, .stepCompleted])
        #expect(events.map(\.seq) == [1, 2, 1, 3])
        #expect(events[1].name == "tapped_share")
        #expect(events[0].name == nil)
        #expect(events[0].stepID == "welcome")
        #expect(events[1].stepID == nil)
        #expect(events[0].properties == ["country": "DE"])
        #expect(events[1].properties.isEmpty)
        #expect(events[0].sessionID == events[1].sessionID)
        #expect(events[0].sessionID != events[2].sessionID)
        #expect(events[0].occurredAt == Date(timeIntervalSince1970: 1_769_850_902))
        // Event ids are UUIDv7 carrying the event time.
        #expect(events[0].eventID.uuidString.lowercased().hasPrefix("019c1355-95f0-7"))
        #expect(Set(events.map(\.eventID)).count == 4)
    }

    @Test func idsAreTheSameOnEveryRunAndIdenticalRowsStayDistinct() throws {
        let rows = [
            ["u1", "s-1", "tap", "2026-01-31 09:15:02", "", ""], ["u1", "s-1", "tap", "2026-01-31 09:15:02", "", ""],
        ]
        let first = try events(rows).map { try $0.get() }
        let second = try events(rows).map { try $0.get() }
        #expect(first == second)
        #expect(first[0].eventID != first[1].eventID)
        #expect(first[0].sessionID == StableID.sessionID(for: "s-1"))
    }

    @Test func idsDoNotDependOnColumnOrder() throws {
        let row = ["u1", "s-1", "tap", "2026-01-31 09:15:02", "", "DE"]
        let header = ["uid", "sid", "action", "ts", "screen", "country"]
        let order = [5, 3, 1, 0, 2, 4]
        let a = try events([row], header: header).map { try $0.get() }
        let b = try events([order.map { row[$0] }], header: order.map { header[$0] }).map { try $0.get() }
        #expect(a == b)
    }

    @Test func aUUIDSessionIsKept() throws {
        let session = "3f0e8d7a-1b2c-4d5e-8f90-112233445566"
        let event = try events([["u1", session, "tap", "2026-01-31 09:15:02", "", ""]])[0].get()
        #expect(event.sessionID == UUID(uuidString: session))
    }

    @Test func badRowsAreRefusedWithTheField() throws {
        let results = try events([
            ["u1", "s-1", "tap", "31/01/2026", "", ""], ["u1", "", "tap", "2026-01-31 09:15:02", "", ""],
            ["u1", "s-1", "tap"],
        ])
        let errors = results.compactMap { result -> EventValidationError? in
            if case .failure(let error) = result { return error }
            return nil
        }
        #expect(errors.map(\.field) == ["occurred_at", "session_id", ""])
        #expect(errors[2].reason.contains("3 fields"))
    }
}
