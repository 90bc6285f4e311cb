/// A person's events and onboardings after a drop as bytes, for ``PackedUnitStore``: each field
/// a varint of its difference from the one before (the events are sorted, so most take a byte
/// or two; a time, three or four).
///
/// Why: kept as 24-byte entries in an array a person, the events of every person took 634 MB at
/// 10M events. Exact: differences wrap, so every value comes back as it was.
///
/// Layout: the event count; per event the time, session start and seq, each less the previous
/// event's (zigzag), and the label's number; the onboarding count; per onboarding its outcome
/// (`FunnelOutcome+Packing`) and its anchor's time, session start (each less the start) and seq.
extension PathAggregator.Person: PackableUnit {
    init(stepCount: Int) {}

    var breakdown: String? { nil }

    func pack(into bytes: inout [UInt8], breakdownNumber: UInt32) {
        PackedBytes.appendVarint(UInt64(entries.count), to: &bytes)
        var previous = PathAggregator.Position(time: 0, sessionStart: 0, seq: 0)
        for entry in entries {
            let position = entry.position
            PackedBytes.appendZigZag(position.time &- previous.time, to: &bytes)
            PackedBytes.appendZigZag(position.sessionStart &- previous.sessionStart, to: &bytes)
            PackedBytes.appendZigZag(Int64(position.seq) - Int64(previous.seq), to: &bytes)
            PackedBytes.appendVarint(UInt64(entry.label), to: &bytes)
            previous = position
        }
        PackedBytes.appendVarint(UInt64(onboardings.count), to: &bytes)
        var previousStart: Int64 = 0
        for onboarding in onboardings {
            let outcome = onboarding.outcome
            outcome.pack(into: &bytes, previousStart: previousStart)
            PackedBytes.appendZigZag(onboarding.anchor.time &- outcome.start, to: &bytes)
            PackedBytes.appendZigZag(onboarding.anchor.sessionStart &- outcome.start, to: &bytes)
            PackedBytes.appendZigZag(Int64(onboarding.anchor.seq), to: &bytes)
            previousStart = outcome.start
        }
    }

    mutating func unpack(from reader: inout PackedBytes.Reader, breakdown: (UInt32) -> String) {
        entries.removeAll(keepingCapacity: true)
        var previous = PathAggregator.Position(time: 0, sessionStart: 0, seq: 0)
        for _ in 0..<Int(reader.varint()) {
            previous.time &+= reader.zigZag()
            previous.sessionStart &+= reader.zigZag()
            previous.seq = Int32(truncatingIfNeeded: Int64(previous.seq) &+ reader.zigZag())
            entries.append(PathAggregator.Entry(position: previous, label: UInt32(truncatingIfNeeded: reader.varint())))
        }
        onboardings.removeAll(keepingCapacity: true)
        var previousStart: Int64 = 0
        for _ in 0..<Int(reader.varint()) {
            let (outcome, _) = FunnelOutcome.unpack(from: &reader, previousStart: previousStart)
            let time = outcome.start &+ reader.zigZag()
            let sessionStart = outcome.start &+ reader.zigZag()
            let seq = Int32(truncatingIfNeeded: reader.zigZag())
            onboardings.append(
                PathAggregator.Onboarding(
                    outcome: outcome, anchor: PathAggregator.Position(time: time, sessionStart: sessionStart, seq: seq))
            )
            previousStart = outcome.start
        }
    }

    /// Adds the same person read elsewhere; the events stay sorted.
    mutating func merge(_ other: Self) {
        entries.append(contentsOf: other.entries)
        entries.sort { $0.position < $1.position }
        onboardings.append(contentsOf: other.onboardings)
    }
}
