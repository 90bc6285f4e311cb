import Foundation
import Logging
import OnboardMetricsPostgres
import OnboardMetricsSDK

// The writer threads: each asks the machine for its next step and performs its I/O (connect,
// write, isolate refused events, spool, drain), reporting every outcome back.
extension EventRecorder {
    /// What one writer thread holds: its connection and what it learned from its batches. Used
    /// only by that thread.
    struct WriterContext {
        let number: Int
        var connection: PostgresConnection?
        var partitions = PartitionPlanner()
        /// What the last batches showed (resends, the probe refused), for choosing how to write the next.
        var writeHints = EventStore.WriteHints()
        /// The month whose partitions (it and the next) were last made sure of, off the batch path.
        var preparedMonth = Int64.min
        var random = SystemRandomNumberGenerator()
    }

    typealias Queued = RecorderStateMachine.Queued

    func runWriter(_ number: Int) {
        var writer = WriterContext(number: number)
        while true {
            let step = update { state in
                state.machine.nextStep(writer: number, now: Date(), stamp: configuration.clock())
            }
            let work: RecorderStateMachine.Work
            switch step {
            case .wait(let until):
                _ = wakeups[number].wait(timeout: .now() + max(0, until.timeIntervalSinceNow))
                continue
            case .work(let next): work = next
            }
            if work.connect { connect(&writer) }
            if writer.connection != nil, update({ state in (state.machine.claimSpoolDrain(writer: number), .init()) }) {
                drainSpool(&writer)
            }
            if !work.batch.isEmpty { send(work.batch, &writer) }
            let (stop, dropped) = update { state in
                let (stop, dropped, effects) = state.machine.endRound(writer: number, work: work)
                state.publish(metrics)
                return ((stop, dropped), effects)
            }
            if dropped > 0 {
                // Nowhere left to put them: say so rather than hang the shutdown.
                configuration.logger.error(
                    "shutting down with the database unreachable and no spool: events dropped",
                    metadata: ["dropped": "\(dropped)"])
            }
            if stop { break }
        }
        writer.connection?.close()
        writer.connection = nil
        guard update({ state in state.machine.writerStopped(number) }) else { return }
        spool?.close()
        update { state in
            let effects = state.machine.finish()
            state.publish(metrics)
            return ((), effects)
        }
    }

    private func connect(_ writer: inout WriterContext) {
        let number = writer.number
        do {
            writer.connection = try PostgresConnection(configuration: configuration.database)
            let failures = update { state in state.machine.connected(writer: number) }
            if failures > 0 {
                configuration.logger.notice(
                    "reconnected to the database", metadata: ["failed_attempts": "\(failures)", "writer": "\(number)"])
            }
        } catch {
            writer.connection = nil
            let random = Double.random(in: 0...1, using: &writer.random)
            let retry = update { state in state.machine.connectFailed(writer: number, now: Date(), random: random) }
            log(retry, error, writer: number)
        }
    }

    /// The connection failed while writing: drop it and back off.
    private func failed(_ error: any Error, _ writer: inout WriterContext) {
        writer.connection?.close()
        writer.connection = nil
        let number = writer.number
        let random = Double.random(in: 0...1, using: &writer.random)
        let retry = update { state in state.machine.failed(writer: number, now: Date(), random: random) }
        log(retry, error, writer: number)
    }

    private func log(_ retry: RecorderStateMachine.Retry, _ error: any Error, writer: Int) {
        guard retry.log else { return }
        configuration.logger.warning(
            "database unavailable; retrying",
            metadata: [
                "error": "\(error)", "failed_attempts": "\(retry.failures)",
                "retry_in_seconds": "\(String(format: "%.2f", retry.delay))", "writer": "\(writer)",
            ])
    }

    /// Writes a batch to the database, or to the spool when the database is not reachable.
    private func send(_ batch: [Queued], _ writer: inout WriterContext) {
        let events = batch.map(\.event)
        if writer.connection != nil {
            do {
                let result = try write(events, &writer)
                update { state in
                    (
                        (),
                        state.machine.settle(
                            batch.map(\.ordinal), committed: result.inserted, duplicates: result.duplicates)
                    )
                }
                return
            } catch let error as PostgresError where !error.isTransient {
                let isolation = isolate(events[...], &writer)
                let unsent = Set(isolation.unsent)
                let done = batch.indices.filter { !unsent.contains($0) }.map { batch[$0].ordinal }
                update { state in
                    let effects = state.machine.settle(
                        done, committed: isolation.inserted, duplicates: isolation.duplicates,
                        rejected: isolation.refused.count)
                    return ((), effects)
                }
                // The connection failed while the refused events were being isolated: the rest wait.
                if !unsent.isEmpty { spoolOrRequeue(isolation.unsent.map { batch[$0] }, &writer) }
                return
            } catch {
                failed(error, &writer)
            }
        }
        spoolOrRequeue(batch, &writer)
    }

    /// Writes what the database takes of a batch it refused, finding the refused events by
    /// halves (``RefusalIsolation``).
    private func isolate(_ events: ArraySlice<Event>, _ writer: inout WriterContext) -> RefusalIsolation {
        var isolation = RefusalIsolation(batchOf: events.count)
        while let part = isolation.next {
            let slice = events[(events.startIndex + part.lowerBound)..<(events.startIndex + part.upperBound)]
            do {
                let result = try write(Array(slice), &writer)
                isolation.record(.written(inserted: result.inserted, duplicates: result.duplicates))
            } catch let error as PostgresError where !error.isTransient && error.code != .connectionClosed {
                if part.count == 1 {
                    configuration.logger.error(
                        "event refused by the database",
                        metadata: ["event_id": "\(slice.first?.eventID.uuidString ?? "")", "error": "\(error)"])
                }
                isolation.record(.refused)
            } catch {
                if writer.connection != nil { failed(error, &writer) }
                isolation.record(.connectionFailed)
            }
        }
        return isolation
    }

    private func write(_ events: [Event], _ writer: inout WriterContext) throws -> EventStore.WriteResult {
        guard let connection = writer.connection else { throw PostgresError(.connectionClosed, "not connected") }
        let started = DispatchTime.now().uptimeNanoseconds
        defer { metrics.writeDuration.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - started)) }
        try ensurePartitions(for: events, &writer, on: connection)
        // A resend split from its original across batches: probe, rather than fail the COPY on it.
        if recentIDs.withLockedValue({ $0.noteRepeats(of: events) }) { writer.writeHints.resending = true }
        return try store.write(events, on: connection, receivedAt: configuration.clock(), hints: &writer.writeHints)
    }

    /// Creates the partitions the batch needs (a few at most, see ``PartitionPlanner``). The
    /// current and next month are made sure of once per month, with the partitions that already
    /// exist, so live traffic never waits for a partition to be created. (Writers may both create
    /// a month: the schema's function creates each partition once, under an advisory lock.)
    private func ensurePartitions(
        for events: [Event], _ writer: inout WriterContext, on connection: PostgresConnection
    ) throws {
        let now = configuration.clock()
        let month = PartitionPlanner.monthIndex(milliseconds: Timestamp.milliseconds(now))
        if month != writer.preparedMonth {
            writer.partitions.markKnown(try store.partitionMonths(on: connection))
            let upcoming = [month, month + 1].filter { !writer.partitions.isKnown($0) }
            try store.ensurePartitions(months: upcoming, on: connection)
            writer.partitions.markKnown(upcoming)
            writer.preparedMonth = month
        }
        try store.ensurePartitions(for: events, now: now, planner: &writer.partitions, on: connection)
    }

    /// Spools a batch (writer 0, when there is a spool) or hands it back to the queue.
    private func spoolOrRequeue(_ batch: [Queued], _ writer: inout WriterContext) {
        let number = writer.number
        guard let spool, update({ state in (state.machine.spools(writer: number), .init()) }) else {
            // No spool (or not writer 0): keep the events in memory, in front, and wait for the
            // database (or for writer 0 to spool them).
            update { state in ((), state.machine.requeue(batch)) }
            return
        }
        do {
            let dropped = try spool.append(batch.map(\.event))
            update { state in ((), state.machine.spooled(batch, dropped: dropped)) }
        } catch let error as RecorderError where error.code == .spoolFull {
            let first = update { state in (!state.machine.spoolFull, state.machine.spoolRefused(batch)) }
            if first {
                configuration.logger.error(
                    "the spool is full and the database unreachable: keeping events in memory, refusing new batches",
                    metadata: ["error": "\(error)", "events": "\(batch.count)"])
            }
        } catch {
            configuration.logger.error(
                "cannot spool; keeping the events in memory",
                metadata: ["error": "\(error)", "events": "\(batch.count)"])
            update { state in ((), state.machine.requeue(batch)) }
        }
    }

    /// Writes every sealed spool segment to the database, deleting each once committed. Called by
    /// the one writer that claimed the drain.
    private func drainSpool(_ writer: inout WriterContext) {
        var emptied: Bool?
        defer { update { state in ((), state.machine.drainEnded(spoolEmpty: emptied)) } }
        guard let spool else { return }
        spool.sealActiveSegment()
        for segment in spool.sealedSegments() {
            let events = spool.read(segment: segment)
            var index = 0
            while index < events.count {
                let chunk = Array(events[index..<min(index + configuration.batchSize, events.count)])
                do {
                    let result = try write(chunk, &writer)
                    update { state in
                        state.machine.drained(committed: result.inserted, duplicates: result.duplicates, rejected: 0)
                        return ((), RecorderStateMachine.Effects())
                    }
                } catch let error as PostgresError where !error.isTransient {
                    let isolation = isolate(chunk[...], &writer)
                    update { state in
                        state.machine.drained(
                            committed: isolation.inserted, duplicates: isolation.duplicates,
                            rejected: isolation.refused.count)
                        return ((), RecorderStateMachine.Effects())
                    }
                    // The connection failed meanwhile: keep the segment; what was written is deduplicated
                    // when it is read again.
                    if !isolation.unsent.isEmpty { return }
                } catch {
                    failed(error, &writer)
                    return
                }
                index += configuration.batchSize
            }
            spool.remove(segment: segment)
        }
        emptied = spool.isEmpty
    }
}
