import Foundation

/// Ids that are the same every time they are made from the same input, so that ingesting a file
/// twice gives the same session and event ids and the second run adds nothing.
///
/// The hash is fixed here (two FNV-1a 64 lanes, each finished with the SplitMix64 mixer), not
/// Swift's `Hasher`, which is seeded per process.
package enum StableID {
    /// `text` as a UUID when it is one; otherwise a version 8 (RFC 9562 "custom") UUID hashed from it.
    package static func sessionID(for text: String) -> UUID {
        if let uuid = UUID(uuidString: text) { return uuid }
        let (high, low) = hash128(Array("session\u{1F}".utf8) + Array(text.utf8))
        return uuid(high: high, low: low, version: 0x80)
    }

    /// A UUIDv7 whose time is `milliseconds` and whose remaining 74 bits are a hash of `content`,
    /// so the id sorts (and partitions) by event time and repeats exactly for the same content.
    package static func eventID(milliseconds: Int64, content: [UInt8]) -> UUID {
        let (high, low) = hash128(content)
        return UUIDv7Generator.make(milliseconds: milliseconds, randA: UInt16(truncatingIfNeeded: high), randB: low)
    }

    /// The id of a message that came without its own time (Segment's `timestamp`, PostHog's
    /// `timestamp`): its time is when it was first received, which a resend does not repeat, so the
    /// writer looks the id up by its ``UUID/messageKey`` (the bits after the time, a hash of the
    /// message's id) and stores a resend under the id the first receipt got. Version 8 with a fixed
    /// tag in the 12 bits after the version, so no other id is taken for one; 62 bits of hash.
    package static func messageEventID(milliseconds: Int64, content: [UInt8]) -> UUID {
        let (_, low) = hash128(content)
        var id = UUIDv7Generator.make(milliseconds: milliseconds, randA: 0, randB: low).uuid
        id.6 = messageTag.0
        id.7 = messageTag.1
        return UUID(uuid: id)
    }

    /// Bytes 6 and 7 of a ``messageEventID(milliseconds:content:)``: version 8, tag 0xD1D.
    package static let messageTag: (UInt8, UInt8) = (0x8D, 0x1D)

    /// A 128-bit hash of `bytes`.
    package static func hash128(_ bytes: [UInt8]) -> (UInt64, UInt64) {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325
        var b: UInt64 = 0x8422_2325_cbf2_9ce4
        for byte in bytes {
            a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            b = (b ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            b = b ^ (b >> 29)
        }
        let length = UInt64(bytes.count)
        return (mix(a ^ length), mix(b &+ length &* 0x9E37_79B9_7F4A_7C15))
    }

    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private static func uuid(high: UInt64, low: UInt64, version: UInt8) -> UUID {
        UUID(
            uuid: (
                UInt8(truncatingIfNeeded: high >> 56), UInt8(truncatingIfNeeded: high >> 48),
                UInt8(truncatingIfNeeded: high >> 40), UInt8(truncatingIfNeeded: high >> 32),
                UInt8(truncatingIfNeeded: high >> 24), UInt8(truncatingIfNeeded: high >> 16),
                version | UInt8(truncatingIfNeeded: high >> 8) & 0x0F, UInt8(truncatingIfNeeded: high),
                0x80 | UInt8(truncatingIfNeeded: low >> 56) & 0x3F, UInt8(truncatingIfNeeded: low >> 48),
                UInt8(truncatingIfNeeded: low >> 40), UInt8(truncatingIfNeeded: low >> 32),
                UInt8(truncatingIfNeeded: low >> 24), UInt8(truncatingIfNeeded: low >> 16),
                UInt8(truncatingIfNeeded: low >> 8), UInt8(truncatingIfNeeded: low)
            ))
    }

    /// Parses the 36-character UUID form (either case) from bytes; nil otherwise.
    package static func parseUUID(_ b: UnsafeBufferPointer<UInt8>) -> UUID? {
        guard b.count == 36, b[8] == 45, b[13] == 45, b[18] == 45, b[23] == 45 else { return nil }
        // Two 64-bit halves rather than a byte array: no allocation per id. The groups are read
        // straight, with one validity check at the end (profiled: 2.6 % of the collector's CPU
        // with a check per digit).
        var high: UInt64 = 0
        var low: UInt64 = 0
        var invalid: UInt8 = 0
        func add(_ range: Range<Int>, to half: inout UInt64) {
            for index in range {
                let value = nibble(b[index])
                invalid |= value
                half = half << 4 | UInt64(value & 0x0F)
            }
        }
        add(0..<8, to: &high)
        add(9..<13, to: &high)
        add(14..<18, to: &high)
        add(19..<23, to: &low)
        add(24..<36, to: &low)
        guard invalid & 0x10 == 0 else { return nil }
        return UUID(
            uuid: (
                UInt8(truncatingIfNeeded: high >> 56), UInt8(truncatingIfNeeded: high >> 48),
                UInt8(truncatingIfNeeded: high >> 40), UInt8(truncatingIfNeeded: high >> 32),
                UInt8(truncatingIfNeeded: high >> 24), UInt8(truncatingIfNeeded: high >> 16),
                UInt8(truncatingIfNeeded: high >> 8), UInt8(truncatingIfNeeded: high),
                UInt8(truncatingIfNeeded: low >> 56), UInt8(truncatingIfNeeded: low >> 48),
                UInt8(truncatingIfNeeded: low >> 40), UInt8(truncatingIfNeeded: low >> 32),
                UInt8(truncatingIfNeeded: low >> 24), UInt8(truncatingIfNeeded: low >> 16),
                UInt8(truncatingIfNeeded: low >> 8), UInt8(truncatingIfNeeded: low)
            ))
    }

    /// A hex digit's value, or 0x10 (a flag bit) when the byte is not one. Without branches: ids are
    /// random, so a branch on digit-or-letter was mispredicted about every other digit (profiled:
    /// the two ids of an event took 157 ns with the branch, 125 ns without).
    @inline(__always) private static func nibble(_ byte: UInt8) -> UInt8 {
        let isDigit: UInt8 = byte &- 48 < 10 ? 1 : 0
        let isLetter: UInt8 = (byte | 0x20) &- 97 < 6 ? 1 : 0
        // '0'...'9' are 0x30...0x39 (byte >> 6 == 0); 'A'...'F' and 'a'...'f' end in 1...6 (byte >> 6 == 1).
        let value = ((byte & 0x0F) &+ 9 &* (byte >> 6)) & 0x0F
        let flag: UInt8 = isDigit | isLetter == 0 ? 0x10 : 0
        return value | flag
    }
}
