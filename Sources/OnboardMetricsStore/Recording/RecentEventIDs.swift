import OnboardMetricsSDK

/// The event ids a recorder's writers took most recently, so that a batch repeating one of them
/// probes the primary key before its COPY instead of finding the repeat by a failed COPY.
///
/// Why: a collector's batches are made of whole requests, and an app's resend of an event sent a
/// moment before often falls into another request, so into another batch; its COPY then fails on
/// the primary key, rolls back and is copied again after a probe (30 times in the benchmark's
/// 1.78M events, BENCHMARKS.md, fifth round of issue 16). A probe first costs only the probe.
///
/// A direct-mapped table: an id takes the slot its hash picks, overwriting what was there, so it
/// remembers most of the last `2^bits` ids, for a hash and a slot read and write an id, 16 bytes a
/// slot. Forgetting an id only means the old way (the failed COPY); a false match, only a probe.
/// Ids come from untrusted clients: a crafted set that shares slots only makes it forget.
struct RecentEventIDs: Sendable {
    private var high: [UInt64]
    private var low: [UInt64]
    /// 64 minus the table's bits: a slot is the top bits of the mixed id.
    private let shift: UInt64

    /// A table of `2^bits` slots (default 131,072: a few seconds of a collector's traffic, 2 MB).
    init(bits: Int = 17) {
        let bits = max(1, min(bits, 24))
        high = Array(repeating: 0, count: 1 << bits)
        low = Array(repeating: 0, count: 1 << bits)
        shift = UInt64(64 - bits)
    }

    /// Whether any of `events` has the id of an event noted before; then notes them all. Repeats
    /// inside `events` do not count (the store drops them before its COPY).
    mutating func noteRepeats(of events: [Event]) -> Bool {
        var repeats = false
        for event in events {
            let (first, second) = EventStore.orderKey(event.eventID)
            let slot = self.slot(first, second)
            if high[slot] == first, low[slot] == second {
                repeats = true
                break
            }
        }
        for event in events {
            let (first, second) = EventStore.orderKey(event.eventID)
            let slot = self.slot(first, second)
            high[slot] = first
            low[slot] = second
        }
        return repeats
    }

    /// Fibonacci hashing: the top bits of the id's halves, combined and multiplied by 2^64/φ, so
    /// that ids differing in any bit spread over the table.
    private func slot(_ first: UInt64, _ second: UInt64) -> Int {
        Int(truncatingIfNeeded: ((((first &* 0x9E37_79B9_7F4A_7C15) ^ second) &* 0x9E37_79B9_7F4A_7C15) >> shift))
    }
}
