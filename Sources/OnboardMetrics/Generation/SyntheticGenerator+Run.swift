extension SyntheticGenerator {
    /// Generates `sessions` sessions as JSONL, applying the transport faults, and hands the bytes
    /// to `write` in chunks of a few megabytes. Late events come last, as they would arrive.
    public func run(sessions: Int, write: ([UInt8]) throws -> Void) throws -> GenerationSummary {
        let faults = scenario.model.faults
        let chunk = 4 << 20
        var buffer: [UInt8] = []
        buffer.reserveCapacity(chunk + (64 << 10))
        var lateLines: [UInt8] = []
        var summary = GenerationSummary()
        var users = Set<Int>()
        var lines: [[UInt8]] = []
        var line: [UInt8] = []
        line.reserveCapacity(512)
        for index in 0..<sessions {
            let session = session(index)
            var random = stream(index, salt: 2)
            summary.sessions += 1
            users.insert(session.userIndex)
            if session.inProgress { summary.inProgressSessions += 1 }
            if session.completed { summary.completedSessions += 1 }
            if session.skewed { summary.skewedSessions += 1 }
            if let variant = session.variant { summary.variants[variant, default: 0] += 1 }
            lines.removeAll(keepingCapacity: true)
            for var event in session.events {
                summary.events += 1
                summary.eventsByKind[event.kind.rawValue, default: 0] += 1
                let late = random.bernoulli(faults.late)
                let duplicate = random.bernoulli(faults.duplicate)
                if late, let sent = event.sentAt, let received = event.receivedAt {
                    let delay = Double(random.integer(in: 3_600_000..<172_800_000)) / 1000
                    event.sentAt = sent.addingTimeInterval(delay)
                    event.receivedAt = received.addingTimeInterval(delay)
                }
                line.removeAll(keepingCapacity: true)
                event.appendJSONLine(to: &line)
                line.append(0x0A)
                if late {
                    summary.lateEvents += 1
                    lateLines += line
                } else {
                    lines.append(line)
                }
                if duplicate {
                    // A retried batch: the same line again, a little later in the stream.
                    summary.duplicates += 1
                    lines.append(line)
                }
            }
            if lines.count >= 2, random.bernoulli(faults.outOfOrder) {
                let position = Int(random.next() % UInt64(lines.count - 1))
                lines.swapAt(position, position + 1)
                summary.outOfOrderSessions += 1
            }
            for item in lines { buffer += item }
            summary.lines += lines.count
            if buffer.count >= chunk {
                try write(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        summary.lines += summary.lateEvents
        buffer += lateLines
        if !buffer.isEmpty { try write(buffer) }
        summary.users = users.count
        return summary
    }

    /// The parameters file content for a run that produced `summary`.
    public func report(sessions: Int, summary: GenerationSummary) -> GenerationReport {
        GenerationReport(
            scenario: scenario.name, seed: seed, sessions: sessions, periodEnd: Timestamp.string(periodEndDate),
            flows: scenario.flows.map { "\($0.id)@\($0.version)" }, model: scenario.model, summary: summary)
    }
}
