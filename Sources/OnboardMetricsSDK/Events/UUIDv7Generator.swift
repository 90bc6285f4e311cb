import Foundation

/// Makes time-ordered UUIDs (RFC 9562 version 7) from a clock reading and a random source passed
/// in, so ids are reproducible in tests and in the generator.
///
/// Within one millisecond (or when the clock goes backwards) the 12-bit `rand_a` field counts up
/// from the previous id (RFC 9562 §6.2 method 1), so ids made by one generator are strictly
/// increasing.
public struct UUIDv7Generator: Sendable {
    private var lastMilliseconds: Int64 = .min
    private var lastCounter: UInt16 = 0

    /// Creates a generator with no history.
    public init() {}

    /// The next id for the clock reading `date`, with randomness from `random`.
    public mutating func next(at date: Date, using random: inout some RandomNumberGenerator) -> UUID {
        next(milliseconds: Timestamp.milliseconds(date), using: &random)
    }

    /// The next id for `milliseconds` since 1970.
    public mutating func next(milliseconds: Int64, using random: inout some RandomNumberGenerator) -> UUID {
        var millis = milliseconds
        var counter: UInt16
        if millis <= lastMilliseconds {
            millis = lastMilliseconds
            counter = lastCounter &+ 1
            if counter > 0xFFF {
                // The counter ran out: borrow the next millisecond, as RFC 9562 allows.
                millis += 1
                counter = UInt16.random(in: 0...0x7FF, using: &random)
            }
        } else {
            // Start low in the counter space so many ids fit in one millisecond.
            counter = UInt16.random(in: 0...0x7FF, using: &random)
        }
        lastMilliseconds = millis
        lastCounter = counter
        let low = random.next() as UInt64
        return UUIDv7Generator.make(milliseconds: millis, randA: counter, randB: low)
    }

    package static func make(milliseconds: Int64, randA: UInt16, randB: UInt64) -> UUID {
        let ms = UInt64(bitPattern: milliseconds) & 0xFFFF_FFFF_FFFF
        let b = randB
        return UUID(
            uuid: (
                UInt8(truncatingIfNeeded: ms >> 40), UInt8(truncatingIfNeeded: ms >> 32),
                UInt8(truncatingIfNeeded: ms >> 24), UInt8(truncatingIfNeeded: ms >> 16),
                UInt8(truncatingIfNeeded: ms >> 8), UInt8(truncatingIfNeeded: ms),
                0x70 | UInt8(truncatingIfNeeded: randA >> 8) & 0x0F, UInt8(truncatingIfNeeded: randA),
                0x80 | UInt8(truncatingIfNeeded: b >> 56) & 0x3F, UInt8(truncatingIfNeeded: b >> 48),
                UInt8(truncatingIfNeeded: b >> 40), UInt8(truncatingIfNeeded: b >> 32),
                UInt8(truncatingIfNeeded: b >> 24), UInt8(truncatingIfNeeded: b >> 16),
                UInt8(truncatingIfNeeded: b >> 8), UInt8(truncatingIfNeeded: b)
            ))
    }

    /// A random (version 4) UUID from `random`, for session ids.
    public static func randomV4(using random: inout some RandomNumberGenerator) -> UUID {
        let high = random.next() as UInt64
        let low = random.next() as UInt64
        return UUID(
            uuid: (
                UInt8(truncatingIfNeeded: high >> 56), UInt8(truncatingIfNeeded: high >> 48),
                UInt8(truncatingIfNeeded: high >> 40), UInt8(truncatingIfNeeded: high >> 32),
                UInt8(truncatingIfNeeded: high >> 24), UInt8(truncatingIfNeeded: high >> 16),
                0x40 | UInt8(truncatingIfNeeded: high >> 8) & 0x0F, UInt8(truncatingIfNeeded: high),
                0x80 | UInt8(truncatingIfNeeded: low >> 56) & 0x3F, UInt8(truncatingIfNeeded: low >> 48),
                UInt8(truncatingIfNeeded: low >> 40), UInt8(truncatingIfNeeded: low >> 32),
                UInt8(truncatingIfNeeded: low >> 24), UInt8(truncatingIfNeeded: low >> 16),
                UInt8(truncatingIfNeeded: low >> 8), UInt8(truncatingIfNeeded: low)
            ))
    }
}
