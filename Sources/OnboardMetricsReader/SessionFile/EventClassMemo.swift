/// The classes of one reading thread's events, by their kind and the numbers of their flow, step,
/// name and properties in a session file: a few thousand slots, each holding the last values that fell
/// in it (an event whose slot holds others has its class worked out again, so the count of
/// distinct values costs time, never memory or a wrong class).
struct EventClassMemo {
    private struct Slot {
        /// The kind's number plus one: 0 marks a slot never filled. The others are the event's
        /// values' numbers in the file's tables, then the class they were given.
        var kind: UInt64 = 0
        var flow: UInt64 = 0
        var step: UInt64 = 0
        var name: UInt64 = 0
        var properties: UInt64 = 0
        var value: UInt64 = 0
    }

    private static let bits = 12
    private var slots = [Slot](repeating: Slot(), count: 1 << bits)

    /// The class of an event with these numbers, from `compute` when not held.
    @inline(__always)
    mutating func value(
        kind: Int, flow: UInt64, step: UInt64, name: UInt64, properties: UInt64, compute: () throws -> UInt64
    ) rethrows -> UInt64 {
        let kind = UInt64(kind) &+ 1
        // Fibonacci hashing of the numbers mixed: tables number values in order of first use,
        // so nearby numbers must land apart.
        let mixed =
            (kind &* 0x9E37_79B9_7F4A_7C15) ^ (flow &* 0xD6E8_FEB8_6659_FD93) ^ (step &* 0xC2B2_AE3D_27D4_EB4F)
            ^ (name &* 0x1656_67B1_9E37_79F9) ^ (properties &* 0x85EB_CA77_C2B2_AE63)
        let index = Int(truncatingIfNeeded: (mixed &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - Self.bits))
        let slot = slots[index]
        if slot.kind == kind, slot.flow == flow, slot.step == step, slot.name == name, slot.properties == properties {
            return slot.value
        }
        let value = try compute()
        slots[index] = Slot(kind: kind, flow: flow, step: step, name: name, properties: properties, value: value)
        return value
    }
}
