import Foundation
import Testing

@testable import OnboardMetricsSDK

/// The shared helpers of the `TransportStateMachine…Tests` suites, which drive the machine as the
/// worker thread and the app would, with no thread, network or disk: each suite conforms.
protocol TransportStateMachineTestCase {}

extension TransportStateMachineTestCase {
    typealias Machine = TransportStateMachine
    typealias Outcome = Result<BatchPoster.Reply, any Error>

    /// A machine with `count` events on disk that a waiting flush asks to send; the batch the
    /// worker will take, and the flush's id.
    static func queued(
        _ count: Int, _ edit: (inout HTTPTransport.Configuration) -> Void = { _ in }
    ) -> (machine: Machine, batch: TransportBatch, flush: Machine.WaiterID?) {
        var machine = Self.machine(edit)
        let events = Self.events(count)
        _ = machine.record(events, now: t0)
        let flush = Self.waitingFlush(&machine, now: t0)
        Self.persist(&machine, now: t0)
        return (machine, Self.batch(events), flush)
    }

    /// 2026-10-21T07:28:00Z.
    static var t0: Date { Date(timeIntervalSince1970: 1_792_567_680) }

    /// The settings of a configuration like the transport tests' (partial batches only on flush,
    /// backoff from 1 s to 8 s), edited.
    static func settings(_ edit: (inout HTTPTransport.Configuration) -> Void = { _ in }) -> Machine.Settings {
        var configuration = HTTPTransport.Configuration(
            endpoint: URL(fileURLWithPath: "/collector"), appKey: "key-1", queueDirectory: "/unused")
        configuration.flushInterval = 3600
        configuration.initialBackoff = 1
        configuration.maximumBackoff = 8
        edit(&configuration)
        return Machine.Settings(configuration: configuration)
    }

    /// A machine made at ``t0`` whose backlog on disk (`backlog` events) is already counted.
    static func machine(
        backlog: Int = 0, _ edit: (inout HTTPTransport.Configuration) -> Void = { _ in }
    ) -> Machine {
        var machine = Machine(settings: settings(edit), now: t0)
        _ = machine.backlogScanned(backlog)
        return machine
    }

    static func events(_ count: Int, offset: Int = 0) -> [Event] {
        let session = UUID()
        return (0..<count).map { index in
            Event(
                eventID: UUID(), sessionID: session, userID: "u1", seq: offset + index + 1, kind: .custom,
                name: "e\(offset + index)", occurredAt: t0.addingTimeInterval(Double(offset + index)),
                properties: ["i": 1])
        }
    }

    static func batch(_ events: [Event]) -> TransportBatch {
        var batch = TransportBatch()
        for event in events { batch.append(event, line: Array(event.jsonLine.utf8)) }
        return batch
    }

    static func reply(_ status: Int, headers: [String: String] = [:], body: Data = Data()) -> Outcome {
        .success((status, headers, body))
    }

    static func failure(
        _ status: Int, code: String, message: String, headers: [String: String] = [:]
    ) -> Outcome {
        reply(status, headers: headers, body: HTTPTransportFixtures.failureBody(code: code, message: message))
    }

    /// A `200` whose results accept every event of `batch` but those at `rejected`.
    static func accepted(_ batch: TransportBatch, rejecting rejected: Set<Int> = []) -> Outcome {
        reply(
            200, headers: ["content-type": "application/json"],
            body: HTTPTransportFixtures.acceptedBody(batch.events, rejecting: rejected))
    }

    /// Plays the worker's disk write: expects the machine to ask for one at `now`, and reports
    /// it done. Returns the events written.
    @discardableResult
    static func persist(
        _ machine: inout Machine, now: Date, sourceLocation: SourceLocation = #_sourceLocation
    ) -> [Event] {
        guard case .persist(let events) = machine.nextAction(now: now) else {
            Issue.record("the machine did not ask for a disk write", sourceLocation: sourceLocation)
            return []
        }
        _ = machine.persisted(dropped: 0)
        return events
    }

    /// Plays the worker from taking a batch to the decision on its answer: expects the machine to
    /// ask for a batch at `now`, takes `batch`, delivers `outcome` and has the machine decide.
    static func post(
        _ machine: inout Machine, _ batch: TransportBatch, answer outcome: Outcome, now: Date, clock: Date? = nil,
        random: Double = 0.5, sourceLocation: SourceLocation = #_sourceLocation
    ) -> Machine.AnswerPlan? {
        guard case .sendNextBatch = machine.nextAction(now: now) else {
            Issue.record("the machine did not ask for a batch", sourceLocation: sourceLocation)
            return nil
        }
        machine.batchTaken(now: now)
        let arrived = machine.answerArrived(outcome)
        #expect(arrived.resumeFlushes.isEmpty, sourceLocation: sourceLocation)
        guard case .handleAnswer = machine.nextAction(now: now) else {
            Issue.record("the machine did not hand over the answer", sourceLocation: sourceLocation)
            return nil
        }
        return machine.answer(outcome, for: batch, clock: clock ?? t0, random: random)
    }

    /// ``post(_:_:answer:now:clock:random:sourceLocation:)``, then the worker reports the queue
    /// changed (a retry waits the delay chosen). Returns the decision and the actions.
    static func exchange(
        _ machine: inout Machine, _ batch: TransportBatch, answer outcome: Outcome, now: Date, clock: Date? = nil,
        random: Double = 0.5, sourceLocation: SourceLocation = #_sourceLocation
    ) -> (plan: Machine.AnswerPlan, actions: Machine.Actions)? {
        guard
            let plan = post(
                &machine, batch, answer: outcome, now: now, clock: clock, random: random,
                sourceLocation: sourceLocation)
        else { return nil }
        return (plan, machine.answerApplied(waited: nil, now: now))
    }

    /// The id of a flush that waits, or `nil` (with an issue) when it returned at once.
    static func waitingFlush(
        _ machine: inout Machine, now: Date, sourceLocation: SourceLocation = #_sourceLocation
    ) -> Machine.WaiterID? {
        guard case .waiting(let id, _) = machine.flush(now: now) else {
            Issue.record("the flush returned at once", sourceLocation: sourceLocation)
            return nil
        }
        return id
    }
}
