import Foundation
import NIOConcurrencyHelpers
import OnboardMetricsSDK

extension SyntheticGenerator {
    /// Lines of a block of consecutive sessions, rendered on one worker.
    struct Chunk: Sendable {
        var bytes: [UInt8] = []
        var lateBytes: [UInt8] = []
        var summary = GenerationSummary()
        var users: [Int] = []
        /// Distinct events by kind, indexed like `EventKind.allCases` (cheaper than a
        /// string-keyed dictionary per event).
        var kinds = [Int](repeating: 0, count: EventKind.allCases.count)
    }

    /// The chunks workers fill in, each its own slot, and the buffers of an earlier round.
    private struct Slots: Sendable {
        private let state: NIOLockedValueBox<(chunks: [Chunk?], buffers: [[UInt8]])>
        init(_ count: Int, buffers: [[UInt8]]) {
            state = NIOLockedValueBox(
                (
                    Array(repeating: nil, count: count),
                    buffers + Array(repeating: [], count: max(0, count - buffers.count))
                ))
        }
        func put(_ chunk: Chunk, at index: Int) { state.withLockedValue { $0.chunks[index] = chunk } }
        /// The buffer of an earlier round for slot `index`, to reuse its capacity: fresh
        /// multi-megabyte buffers cost page faults on every block.
        func buffer(_ index: Int) -> [UInt8] {
            state.withLockedValue { state in
                var buffer: [UInt8] = []
                swap(&buffer, &state.buffers[index])
                return buffer
            }
        }
        func take() -> [Chunk] { state.withLockedValue { $0.chunks.compactMap { $0 } } }
    }

    /// Generates `sessions` sessions as JSONL, applying the transport faults, and hands the bytes
    /// to `write` in chunks of a few megabytes, in session order. Late events come last, as they
    /// would arrive.
    ///
    /// Blocks of sessions are rendered on `workers` threads; since every session depends only on
    /// the seed and its index, the bytes are the same for any number of workers.
    public func run(
        sessions: Int, workers: Int = ProcessInfo.processInfo.activeProcessorCount,
        write: ([UInt8]) throws -> Void
    ) throws -> GenerationSummary {
        let workers = max(1, workers)
        let block = 2048
        // Several blocks per worker and round, so one slow block does not leave the others idle.
        let slotsPerRound = workers == 1 ? 1 : workers * 4
        var summary = GenerationSummary()
        var users = Set<Int>()
        var lateBytes: [UInt8] = []
        var next = 0
        var pool: [[UInt8]] = []
        while next < sessions {
            let starts = stride(from: next, to: min(sessions, next + block * slotsPerRound), by: block).map { $0 }
            let slots = Slots(starts.count, buffers: pool)
            pool.removeAll()
            let generator = self
            DispatchQueue.concurrentPerform(iterations: starts.count) { slot in
                let start = starts[slot]
                // A private copy per worker: sharing the flows' storage across threads makes
                // every retain and release fight over the same cache lines.
                let local = workers > 1 ? generator.privateCopy() : generator
                slots.put(local.render(start..<min(sessions, start + block), into: slots.buffer(slot)), at: slot)
            }
            for var chunk in slots.take() {
                if !chunk.bytes.isEmpty { try write(chunk.bytes) }
                chunk.bytes.removeAll(keepingCapacity: true)
                pool.append(chunk.bytes)
                lateBytes += chunk.lateBytes
                summary.add(chunk.summary)
                users.formUnion(chunk.users)
            }
            next = min(sessions, next + block * slotsPerRound)
        }
        if !lateBytes.isEmpty { try write(lateBytes) }
        summary.users = users.count
        return summary
    }

    /// The same generator with its own copies of every array and string (via a JSON round trip).
    func privateCopy() -> SyntheticGenerator {
        let encoder = JSONEncoder()
        let decoder = JSONDecoder()
        guard let flows = try? decoder.decode([FlowDefinition].self, from: encoder.encode(scenario.flows)),
            let model = try? decoder.decode(BehaviourModel.self, from: encoder.encode(scenario.model)),
            let copy = try? SyntheticGenerator(
                scenario: Scenario(name: scenario.name, flows: flows, model: model), seed: seed)
        else { return self }
        return copy
    }

    static let kindIndex: [EventKind: Int] = Dictionary(
        uniqueKeysWithValues: EventKind.allCases.enumerated().map { ($1, $0) })

    /// Renders sessions `range` with their faults.
    func render(_ range: Range<Int>, into buffer: [UInt8] = []) -> Chunk {
        let faults = scenario.model.faults
        var chunk = Chunk()
        chunk.bytes = buffer
        chunk.bytes.removeAll(keepingCapacity: true)
        chunk.bytes.reserveCapacity(range.count * 2048)
        // The lines of a session with swapped lines live in `sessionBytes`; `lines` holds their
        // ranges, so swapping moves ranges, not arrays.
        var sessionBytes: [UInt8] = []
        sessionBytes.reserveCapacity(16 << 10)
        var lines: [Range<Int>] = []
        for index in range {
            let session = session(index)
            var random = stream(index, salt: 2)
            chunk.summary.sessions += 1
            chunk.users.append(session.userIndex)
            if session.inProgress { chunk.summary.inProgressSessions += 1 }
            if session.completed { chunk.summary.completedSessions += 1 }
            if session.skewed { chunk.summary.skewedSessions += 1 }
            if let variant = session.variant { chunk.summary.variants[variant, default: 0] += 1 }
            // Drawn up front so sessions without a swap (nearly all) are written straight into the
            // chunk; only the others go through `sessionBytes` and line ranges.
            let swap = random.bernoulli(faults.outOfOrder) && session.events.count >= 2
            let swapDraw = random.next()
            lines.removeAll(keepingCapacity: true)
            sessionBytes.removeAll(keepingCapacity: true)
            var written = 0
            for var event in session.events {
                chunk.summary.events += 1
                chunk.kinds[Self.kindIndex[event.kind] ?? 0] += 1
                let late = random.bernoulli(faults.late)
                let duplicate = random.bernoulli(faults.duplicate)
                if late, let sent = event.sentAt, let received = event.receivedAt {
                    let delay = Double(random.integer(in: 3_600_000..<172_800_000)) / 1000
                    event.sentAt = sent.addingTimeInterval(delay)
                    event.receivedAt = received.addingTimeInterval(delay)
                    chunk.summary.lateEvents += 1
                    event.appendJSONLine(to: &chunk.lateBytes)
                    chunk.lateBytes.append(0x0A)
                    continue
                }
                // A duplicate is the same line again, right after the first copy (a retried batch).
                let copies = duplicate ? 2 : 1
                if duplicate { chunk.summary.duplicates += 1 }
                written += copies
                for _ in 0..<copies {
                    if swap {
                        let start = sessionBytes.count
                        event.appendJSONLine(to: &sessionBytes)
                        sessionBytes.append(0x0A)
                        lines.append(start..<sessionBytes.count)
                    } else {
                        event.appendJSONLine(to: &chunk.bytes)
                        chunk.bytes.append(0x0A)
                    }
                }
            }
            if swap && lines.count >= 2 {
                let position = Int(swapDraw % UInt64(lines.count - 1))
                lines.swapAt(position, position + 1)
                chunk.summary.outOfOrderSessions += 1
            }
            for line in lines { chunk.bytes += sessionBytes[line] }
            chunk.summary.lines += written
        }
        chunk.summary.lines += chunk.summary.lateEvents
        for (kind, count) in zip(EventKind.allCases, chunk.kinds) where count > 0 {
            chunk.summary.eventsByKind[kind.rawValue] = count
        }
        return chunk
    }

    /// The parameters file content for a run that produced `summary`.
    public func report(sessions: Int, summary: GenerationSummary) -> GenerationReport {
        GenerationReport(
            scenario: scenario.name, seed: seed, sessions: sessions, periodEnd: Timestamp.string(periodEndDate),
            flows: scenario.flows.map { "\($0.id)@\($0.version)" }, model: scenario.model, summary: summary)
    }
}
