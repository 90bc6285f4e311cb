extension UnsafeRawBufferPointer {
    /// A 64-bit hash of the bytes, for tables that then compare the bytes themselves (interned
    /// properties, a trace's strings, `funnel verify`'s stored traces): FNV-1a over 8-byte words,
    /// then the last bytes. Byte by byte it was a few percent of a report. Not stable across
    /// versions: never store it.
    var contentHash: UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var offset = 0
        while offset + 8 <= count {
            hash = (hash ^ loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0x100_0000_01b3
            offset += 8
        }
        while offset < count {
            hash = (hash ^ UInt64(self[offset])) &* 0x100_0000_01b3
            offset += 1
        }
        return hash
    }
}
