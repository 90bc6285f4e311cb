/// Each user's merged unit (a ``FunnelUnitState``, a ``CorrelationTrace``, a `funnel users`
/// unit) until a `--per user` report counts them, packed.
///
/// Why: a person's sessions may come at any point of the read, so every person's state is held
/// to the end. As funnel states in a dictionary (six arrays each, seven allocations a session)
/// they took about 860 bytes a person: 820 MB for the 765k people of 10M events. Packed
/// (``PackableUnit``) into large shared buffers, a unit takes the bytes of what the person did,
/// and a dictionary entry points at it.
struct PackedUnitStore<Unit: PackableUnit>: Sendable {
    /// Where each user's state starts: the chunk in the high 32 bits, the offset in the low.
    private var positions: [String: UInt64] = [:]
    /// The packed states, in buffers of about `chunkSize` bytes that are never reallocated (one
    /// growing buffer would hold two copies of everything while it grows). A state merged with
    /// another is packed anew at the end; the old bytes stay, unused: at most one state for each
    /// session merged into an earlier one (76k of 842k sessions at 10M generated events).
    private var chunks: [[UInt8]] = []
    private var breakdowns = StringNumbers()
    /// Reused to pack each state before it is copied into a chunk.
    private var packed: [UInt8] = []
    private let stepCount: Int
    private let chunkSize: Int

    /// `chunkSize` is only made small by tests, to cross chunks with few states.
    init(stepCount: Int, chunkSize: Int = 1 << 20) {
        self.stepCount = stepCount
        self.chunkSize = chunkSize
    }

    /// How many users the store holds.
    var count: Int { positions.count }

    /// Everything the store holds, leaving it empty (same step count): a report counts the units
    /// of the store returned, changing the aggregator that held it, and they are let go once read.
    mutating func takeAll() -> PackedUnitStore {
        let all = self
        self = PackedUnitStore(stepCount: stepCount, chunkSize: chunkSize)
        return all
    }

    /// Merges `state` into what the store holds for `user` (``PackableUnit/merge(_:)``), or
    /// keeps it as their first; `scratch` (with the flow's step count) is reused to unpack.
    mutating func merge(_ state: Unit, user: String, scratch: inout Unit) {
        guard let position = positions[user] else {
            positions[user] = append(state)
            return
        }
        unpack(at: position, into: &scratch)
        scratch.merge(state)
        positions[user] = append(scratch)
    }

    /// Merges every user of `other` into this store, each unit of `other` first passed to
    /// `adapt` (to renumber what the two number differently).
    mutating func merge(_ other: PackedUnitStore, adapting adapt: (inout Unit) -> Void = { _ in }) {
        var scratch = Unit(stepCount: stepCount)
        other.forEach { user, theirs in
            var unit = theirs
            adapt(&unit)
            merge(unit, user: user, scratch: &scratch)
        }
    }

    /// Calls `body` with each user and their state, in no particular order (one state is reused).
    func forEach(_ body: (String, Unit) -> Void) {
        var state = Unit(stepCount: stepCount)
        for (user, position) in positions {
            unpack(at: position, into: &state)
            body(user, state)
        }
    }

    private func unpack(at position: UInt64, into state: inout Unit) {
        chunks[Int(position >> 32)].withUnsafeBytes { bytes in
            var reader = PackedBytes.Reader(bytes: bytes, offset: Int(position & 0xFFFF_FFFF))
            state.unpack(from: &reader) { breakdowns[$0] }
        }
    }

    private mutating func append(_ state: Unit) -> UInt64 {
        let number = state.breakdown.map { breakdowns.number(of: $0) } ?? 0
        packed.removeAll(keepingCapacity: true)
        state.pack(into: &packed, breakdownNumber: number)
        if chunks.isEmpty || chunks[chunks.count - 1].count + packed.count > chunks[chunks.count - 1].capacity {
            // A state larger than a chunk (a flow of tens of thousands of steps) gets its own.
            chunks.append([])
            chunks[chunks.count - 1].reserveCapacity(max(chunkSize, packed.count))
        }
        let chunk = chunks.count - 1
        let offset = chunks[chunk].count
        chunks[chunk].append(contentsOf: packed)
        return UInt64(chunk) << 32 | UInt64(offset)
    }
}
