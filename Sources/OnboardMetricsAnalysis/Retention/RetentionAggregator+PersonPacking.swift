/// A person's retention record as bytes, for ``PackedUnitStore``: each value a varint, times and
/// starts as differences from the one before (the times are sorted, so a session's two take a
/// few bytes).
///
/// Why: as a dictionary entry with two arrays and a string a person, the records of the 765k
/// people of 10M events took about 250 bytes each. Exact: differences wrap, so every value comes
/// back as it was.
///
/// Layout: the onboarding count; per onboarding its outcome (`FunnelOutcome+Packing`, with bits
/// for the flow version and the variant), then those when present; the time count and each time
/// less the previous; the exposure's variant count (0 for none), then its time and the variants'
/// numbers.
extension RetentionAggregator.Person: PackableUnit {
    private enum Bit {
        static let flowVersion: UInt8 = 1 << 3
        static let variant: UInt8 = 1 << 4
    }

    init(stepCount: Int) {}

    var breakdown: String? { nil }

    func pack(into bytes: inout [UInt8], breakdownNumber: UInt32) {
        PackedBytes.appendVarint(UInt64(onboardings.count), to: &bytes)
        var previousStart: Int64 = 0
        for onboarding in onboardings {
            var flags: UInt8 = 0
            if onboarding.flowVersion != nil { flags |= Bit.flowVersion }
            if onboarding.variant != nil { flags |= Bit.variant }
            onboarding.outcome.pack(into: &bytes, previousStart: previousStart, flags: flags)
            if let version = onboarding.flowVersion { PackedBytes.appendZigZag(Int64(version), to: &bytes) }
            if let variant = onboarding.variant { PackedBytes.appendVarint(UInt64(variant), to: &bytes) }
            previousStart = onboarding.outcome.start
        }
        PackedBytes.appendVarint(UInt64(times.count), to: &bytes)
        var previous: Int64 = 0
        for time in times {
            PackedBytes.appendZigZag(time &- previous, to: &bytes)
            previous = time
        }
        PackedBytes.appendVarint(UInt64(exposure?.variants.count ?? 0), to: &bytes)
        if let exposure {
            PackedBytes.appendZigZag(exposure.time, to: &bytes)
            for variant in exposure.variants { PackedBytes.appendVarint(UInt64(variant), to: &bytes) }
        }
    }

    mutating func unpack(from reader: inout PackedBytes.Reader, breakdown: (UInt32) -> String) {
        onboardings.removeAll(keepingCapacity: true)
        var previousStart: Int64 = 0
        for _ in 0..<Int(reader.varint()) {
            let (outcome, header) = FunnelOutcome.unpack(from: &reader, previousStart: previousStart)
            let version = header & Bit.flowVersion != 0 ? Int(truncatingIfNeeded: reader.zigZag()) : nil
            let variant = header & Bit.variant != 0 ? UInt32(truncatingIfNeeded: reader.varint()) : nil
            onboardings.append(
                RetentionAggregator.Onboarding(
                    outcome: outcome, flowVersion: version, variant: variant))
            previousStart = outcome.start
        }
        times.removeAll(keepingCapacity: true)
        var previous: Int64 = 0
        for _ in 0..<Int(reader.varint()) {
            previous &+= reader.zigZag()
            times.append(previous)
        }
        let variantCount = Int(reader.varint())
        if variantCount == 0 {
            exposure = nil
        } else {
            let time = reader.zigZag()
            exposure = (time, (0..<variantCount).map { _ in UInt32(truncatingIfNeeded: reader.varint()) })
        }
    }

    /// Adds the record of the same person read elsewhere; the times stay sorted, and the earlier
    /// exposure is kept (on a tie, the variants of both).
    mutating func merge(_ other: Self) {
        onboardings.append(contentsOf: other.onboardings)
        times.append(contentsOf: other.times)
        times.sort()
        guard let theirs = other.exposure else { return }
        guard let mine = exposure, mine.time <= theirs.time else {
            exposure = theirs
            return
        }
        if mine.time == theirs.time {
            exposure?.variants = Array(Set(mine.variants + theirs.variants)).sorted()
        }
    }
}
