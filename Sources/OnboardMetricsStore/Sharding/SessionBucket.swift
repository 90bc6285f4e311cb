import Foundation

/// The logical bucket of a session: where its events live in a sharded deployment.
///
/// `bucket = (uuid_hash(session_id) + 2³¹) >> 26`, one of ``count`` (64) equal slices of the
/// int32 range of PostgreSQL's `uuid_hash` — Jenkins' lookup3 over the uuid's 16 bytes, read as
/// little-endian words as PostgreSQL does on the platforms it runs on. The same value comes from
/// the SQL function `onboardmetrics_bucket(uuid)` (migration 0003), so SQL, the tool and Citus
/// (which slices `uuid_hash` the same way into `shard_count` shards) agree on where a session is.
public enum SessionBucket {
    /// Logical buckets. Fixed: changing it would move every session.
    public static let count = 64

    /// The bucket of a session id, in `0..<64`.
    public static func of(_ sessionID: UUID) -> Int {
        Int((UInt32(bitPattern: hash(sessionID)) ^ 0x8000_0000) >> 26)
    }

    /// PostgreSQL's `uuid_hash` of an id (`hash_any` over its 16 bytes).
    public static func hash(_ id: UUID) -> Int32 {
        let bytes = id.uuid
        func word(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8) -> UInt32 {
            UInt32(b0) | UInt32(b1) << 8 | UInt32(b2) << 16 | UInt32(b3) << 24
        }
        var a: UInt32 = 0x9e37_79b9 &+ 16 &+ 3_923_095
        var b = a
        var c = a
        // One full 12-byte block, then the last 4 bytes into `a` (hashfn.c's `case 4`).
        a &+= word(bytes.0, bytes.1, bytes.2, bytes.3)
        b &+= word(bytes.4, bytes.5, bytes.6, bytes.7)
        c &+= word(bytes.8, bytes.9, bytes.10, bytes.11)
        mix(&a, &b, &c)
        a &+= word(bytes.12, bytes.13, bytes.14, bytes.15)
        final(&a, &b, &c)
        return Int32(bitPattern: c)
    }

    private static func rotate(_ x: UInt32, _ k: UInt32) -> UInt32 { (x << k) | (x >> (32 - k)) }

    private static func mix(_ a: inout UInt32, _ b: inout UInt32, _ c: inout UInt32) {
        a &-= c
        a ^= rotate(c, 4)
        c &+= b
        b &-= a
        b ^= rotate(a, 6)
        a &+= c
        c &-= b
        c ^= rotate(b, 8)
        b &+= a
        a &-= c
        a ^= rotate(c, 16)
        c &+= b
        b &-= a
        b ^= rotate(a, 19)
        a &+= c
        c &-= b
        c ^= rotate(b, 4)
        b &+= a
    }

    private static func final(_ a: inout UInt32, _ b: inout UInt32, _ c: inout UInt32) {
        c ^= b
        c &-= rotate(b, 14)
        a ^= c
        a &-= rotate(c, 11)
        b ^= a
        b &-= rotate(a, 25)
        c ^= b
        c &-= rotate(b, 16)
        a ^= c
        a &-= rotate(c, 4)
        b ^= a
        b &-= rotate(a, 14)
        c ^= b
        c &-= rotate(b, 24)
    }
}
