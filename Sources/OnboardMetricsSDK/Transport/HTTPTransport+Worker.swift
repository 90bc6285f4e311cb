import Foundation

/// The worker thread of an ``HTTPTransport``: it owns the on-disk queue and does what the
/// transport's ``TransportStateMachine`` decides — moves recorded events to disk, starts one
/// request at a time and handles its answer.
///
/// The request itself runs in a task, so the thread never blocks on the network: a slow
/// collector does not hold up the disk writes that make room for ``HTTPTransport/record(_:)``.
/// Not Sendable, and needs not be: it lives and dies on its thread.
struct TransportWorker {
    let transport: HTTPTransport
    let outbox: TransportOutbox
    /// The batch posted and not yet answered.
    private var inFlight: TransportBatch?

    /// A worker for `transport` over its opened queue.
    init(transport: HTTPTransport, outbox: TransportOutbox) {
        self.transport = transport
        self.outbox = outbox
    }

    /// Counts the backlog on disk, then runs the machine's actions until it says stop.
    mutating func run() {
        let backlog = outbox.scanBacklog()
        transport.perform { $0.backlogScanned(backlog) }
        while true {
            switch transport.withMachine({ $0.nextAction(now: Date()) }) {
            case .handleAnswer(let outcome):
                handle(outcome)
            case .persist(let events):
                persist(events, last: false)
            case .sendNextBatch(let maximumCount, let maximumBytes):
                send(maximumCount: maximumCount, maximumBytes: maximumBytes)
            case .wait(let date):
                transport.waitForWork(until: date)
            case .stop(let leftovers):
                // The disk was failing: one last try, so that the next transport may send them.
                if !leftovers.isEmpty { persist(leftovers, last: true) }
                outbox.close()
                transport.perform { $0.stopped() }
                return
            }
        }
    }

    /// Appends events to the on-disk queue and reports how it went.
    private func persist(_ events: [Event], last: Bool) {
        transport.beforeDiskWrite()
        do {
            let dropped = try outbox.append(events)
            transport.perform { $0.persisted(dropped: dropped) }
        } catch {
            let message = "\(error)"
            transport.perform { $0.persistFailed(events, error: message, last: last, now: Date()) }
        }
    }

    /// Takes the next batch from the queue and posts it; the answer comes back through the machine.
    private mutating func send(maximumCount: Int, maximumBytes: Int) {
        guard let batch = outbox.nextBatch(maximumCount: maximumCount, maximumBytes: maximumBytes) else {
            transport.perform { $0.batchUnavailable() }
            return
        }
        inFlight = batch
        transport.withMachine { $0.batchTaken(now: Date()) }
        // Stamped per attempt: the server corrects clock skew with it.
        transport.post(batch.body(sentAt: transport.configuration.clock()))
    }

    /// Has the machine decide on the answer, changes the queue as it says, then reports it done.
    private mutating func handle(_ outcome: Result<BatchPoster.Reply, any Error>) {
        var waited: TimeInterval?
        if let batch = inFlight {
            // Read only when there is a Retry-After to read: a test clock may step at each reading.
            let clock = TransportStateMachine.retryAfterValue(of: outcome).map { _ in transport.configuration.clock() }
            let random = transport.random()
            let plan = transport.withMachine { $0.answer(outcome, for: batch, clock: clock, random: random) }
            for line in plan.log { transport.configuration.log(line) }
            switch plan.verdict {
            case .settle:
                outbox.settle(batch)
            case .split:
                let (first, second) = batch.halves()
                outbox.putBack([first, second])
            case .retry(let delay, _):
                outbox.putBack([batch])
                waited = transport.retryDelay(delay)
            }
        }
        inFlight = nil
        transport.perform { [waited] in $0.answerApplied(waited: waited, now: Date()) }
    }
}
