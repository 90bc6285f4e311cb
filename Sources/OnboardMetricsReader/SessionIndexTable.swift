import Foundation

/// A map from session id to a small integer slot: open addressing with linear probing and
/// backward-shift deletion. Replaces `Dictionary<UUID, Int>` on the replay hot path, where
/// SipHash per lookup cost more than the rest of the grouping; session ids are random (version 4)
/// or hashed (version 8), so their low bits, multiplied, spread well.
struct SessionIndexTable {
    private var high: [UInt64]
    private var low: [UInt64]
    private var slots: [Int32]  // -1: empty
    private var mask: Int
    private(set) var count = 0

    init(capacity: Int = 1024) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        high = Array(repeating: 0, count: size)
        low = high
        slots = Array(repeating: -1, count: size)
        mask = size - 1
    }

    @inline(__always)
    private static func halves(_ id: UUID) -> (UInt64, UInt64) {
        withUnsafeBytes(of: id.uuid) {
            ($0.loadUnaligned(fromByteOffset: 0, as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        }
    }

    @inline(__always)
    private func home(_ h: UInt64, _ l: UInt64) -> Int {
        Int(truncatingIfNeeded: ((h ^ l) &* 0x9E37_79B9_7F4A_7C15) >> 17) & mask
    }

    /// The slot of `id`, or nil.
    func slot(of id: UUID) -> Int? {
        let (h, l) = Self.halves(id)
        var position = home(h, l)
        while slots[position] >= 0 {
            if high[position] == h && low[position] == l { return Int(slots[position]) }
            position = (position + 1) & mask
        }
        return nil
    }

    /// Stores `slot` for `id` (which must not be present).
    mutating func insert(_ id: UUID, slot: Int) {
        if (count + 1) * 2 > slots.count { grow() }
        let (h, l) = Self.halves(id)
        var position = home(h, l)
        while slots[position] >= 0 { position = (position + 1) & mask }
        high[position] = h
        low[position] = l
        slots[position] = Int32(slot)
        count += 1
    }

    /// Removes `id` if present.
    mutating func remove(_ id: UUID) {
        let (h, l) = Self.halves(id)
        var position = home(h, l)
        while slots[position] >= 0 {
            if high[position] == h && low[position] == l { break }
            position = (position + 1) & mask
        }
        guard slots[position] >= 0 else { return }
        // Backward-shift deletion keeps every probe chain unbroken without tombstones.
        var hole = position
        var next = (hole + 1) & mask
        while slots[next] >= 0 {
            let desired = home(high[next], low[next])
            let distanceToNext = (next - desired) & mask
            let distanceToHole = (hole - desired) & mask
            if distanceToHole < distanceToNext || distanceToHole == 0 {
                high[hole] = high[next]
                low[hole] = low[next]
                slots[hole] = slots[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        slots[hole] = -1
        count -= 1
    }

    private mutating func grow() {
        let oldHigh = high
        let oldLow = low
        let oldSlots = slots
        let size = slots.count * 2
        high = Array(repeating: 0, count: size)
        low = high
        slots = Array(repeating: -1, count: size)
        mask = size - 1
        count = 0
        for index in oldSlots.indices where oldSlots[index] >= 0 {
            var position = home(oldHigh[index], oldLow[index])
            while slots[position] >= 0 { position = (position + 1) & mask }
            high[position] = oldHigh[index]
            low[position] = oldLow[index]
            slots[position] = oldSlots[index]
            count += 1
        }
    }
}
