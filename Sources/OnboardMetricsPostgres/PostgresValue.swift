import Foundation

/// A value sent to or read from PostgreSQL, in the types OnboardMetrics uses.
///
/// Values travel in PostgreSQL's binary format, as parameters (never spliced into SQL text)
/// and in binary `COPY`.
public enum PostgresValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int16(Int16)
    case int32(Int32)
    case int64(Int64)
    case float64(Double)
    case text(String)
    case uuid(UUID)
    /// A `timestamptz`, microsecond precision.
    case timestamp(Date)
    /// A `jsonb` document, as JSON text.
    case jsonb(String)
    case bytea([UInt8])
}

extension PostgresValue {
    /// The value as a `String` when it is text or JSON.
    public var string: String? {
        switch self {
        case .text(let value), .jsonb(let value): value
        default: nil
        }
    }

    /// The value as an `Int` when it is an integer of any width.
    public var int: Int? {
        switch self {
        case .int16(let value): Int(value)
        case .int32(let value): Int(value)
        case .int64(let value): Int(value)
        default: nil
        }
    }

    /// The value as a `Double` when it is a number.
    public var double: Double? {
        switch self {
        case .float64(let value): value
        case .int16, .int32, .int64: int.map(Double.init)
        default: nil
        }
    }

    /// The value as a `Bool` when it is a boolean.
    public var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The value as a `UUID` when it is a uuid.
    public var uuid: UUID? {
        if case .uuid(let value) = self { return value }
        return nil
    }

    /// The value as a `Date` when it is a timestamptz.
    public var date: Date? {
        if case .timestamp(let value) = self { return value }
        return nil
    }

    /// Whether the value is SQL NULL.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

/// PostgreSQL's built-in type OIDs for the types this package encodes and decodes.
package enum PostgresTypeOID {
    package static let bool: UInt32 = 16
    package static let bytea: UInt32 = 17
    package static let name: UInt32 = 19
    package static let int8: UInt32 = 20
    package static let int2: UInt32 = 21
    package static let int4: UInt32 = 23
    package static let text: UInt32 = 25
    package static let oid: UInt32 = 26
    package static let json: UInt32 = 114
    package static let float4: UInt32 = 700
    package static let float8: UInt32 = 701
    package static let bpchar: UInt32 = 1042
    package static let varchar: UInt32 = 1043
    package static let timestamp: UInt32 = 1114
    package static let timestamptz: UInt32 = 1184
    package static let uuid: UInt32 = 2950
    package static let jsonb: UInt32 = 3802
    package static let void: UInt32 = 2278
}

/// Microseconds between the Unix epoch and PostgreSQL's epoch, 2000-01-01 00:00:00 UTC.
package let postgresEpochOffsetMicroseconds: Int64 = 946_684_800_000_000

extension PostgresValue {
    /// The type OID the value is sent as; 0 lets the server infer it (for NULL).
    package var typeOID: UInt32 {
        switch self {
        case .null: 0
        case .bool: PostgresTypeOID.bool
        case .int16: PostgresTypeOID.int2
        case .int32: PostgresTypeOID.int4
        case .int64: PostgresTypeOID.int8
        case .float64: PostgresTypeOID.float8
        case .text: PostgresTypeOID.text
        case .uuid: PostgresTypeOID.uuid
        case .timestamp: PostgresTypeOID.timestamptz
        case .jsonb: PostgresTypeOID.jsonb
        case .bytea: PostgresTypeOID.bytea
        }
    }

    /// Appends the binary wire form (without length prefix); returns false for NULL.
    /// - Throws: `PostgresError` `.invalidValue` for text containing a NUL byte, which PostgreSQL cannot store.
    package func appendBinary(to buffer: inout [UInt8]) throws -> Bool {
        switch self {
        case .null:
            return false
        case .bool(let value):
            buffer.append(value ? 1 : 0)
        case .int16(let value):
            buffer.appendBigEndian(value)
        case .int32(let value):
            buffer.appendBigEndian(value)
        case .int64(let value):
            buffer.appendBigEndian(value)
        case .float64(let value):
            buffer.appendBigEndian(value.bitPattern)
        case .text(let value):
            try buffer.appendText(value)
        case .uuid(let value):
            buffer.appendUUID(value)
        case .timestamp(let value):
            buffer.appendBigEndian(Self.postgresMicroseconds(value))
        case .jsonb(let value):
            buffer.append(1)  // jsonb binary format version
            try buffer.appendText(value)
        case .bytea(let value):
            buffer.append(contentsOf: value)
        }
        return true
    }

    /// Microseconds since 2000-01-01 UTC, rounded to the nearest microsecond. A date beyond 64
    /// bits of them (about 292,000 years) is clamped there, which PostgreSQL reads as `infinity`
    /// or `-infinity`, rather than trapping.
    package static func postgresMicroseconds(_ date: Date) -> Int64 {
        let microseconds = (date.timeIntervalSince1970 * 1_000_000).rounded() - Double(postgresEpochOffsetMicroseconds)
        guard microseconds.isFinite else { return microseconds > 0 ? .max : .min }
        guard microseconds < 9.2e18 else { return .max }
        guard microseconds > -9.2e18 else { return .min }
        return Int64(microseconds)
    }

    /// The date for microseconds since 2000-01-01 UTC (summed as doubles: `infinity` is
    /// `Int64.max`, and shifting it to 1970 in integers overflowed).
    package static func date(postgresMicroseconds: Int64) -> Date {
        Date(
            timeIntervalSince1970: (Double(postgresMicroseconds) + Double(postgresEpochOffsetMicroseconds)) / 1_000_000)
    }

    /// Decodes a binary field of the given type.
    /// - Throws: `PostgresError` `.invalidValue` for a type it does not decode or bytes of the wrong size.
    package static func decodeBinary(_ bytes: UnsafeRawBufferPointer, typeOID: UInt32, column: String) throws
        -> PostgresValue
    {
        func requireSize(_ size: Int) throws {
            guard bytes.count == size else {
                throw PostgresError(
                    .invalidValue,
                    "column \"\(column)\": expected \(size) bytes for type \(typeOID), got \(bytes.count)")
            }
        }
        switch typeOID {
        case PostgresTypeOID.bool:
            try requireSize(1)
            return .bool(bytes[0] != 0)
        case PostgresTypeOID.int2:
            try requireSize(2)
            return .int16(Int16(bitPattern: bytes.readBigEndian(UInt16.self, at: 0)))
        case PostgresTypeOID.int4:
            try requireSize(4)
            return .int32(Int32(bitPattern: bytes.readBigEndian(UInt32.self, at: 0)))
        case PostgresTypeOID.oid:
            try requireSize(4)
            return .int64(Int64(bytes.readBigEndian(UInt32.self, at: 0)))
        case PostgresTypeOID.int8:
            try requireSize(8)
            return .int64(Int64(bitPattern: bytes.readBigEndian(UInt64.self, at: 0)))
        case PostgresTypeOID.float4:
            try requireSize(4)
            return .float64(Double(Float(bitPattern: bytes.readBigEndian(UInt32.self, at: 0))))
        case PostgresTypeOID.float8:
            try requireSize(8)
            return .float64(Double(bitPattern: bytes.readBigEndian(UInt64.self, at: 0)))
        case PostgresTypeOID.text, PostgresTypeOID.varchar, PostgresTypeOID.bpchar, PostgresTypeOID.name:
            return .text(String(decoding: bytes, as: UTF8.self))
        case PostgresTypeOID.json:
            return .jsonb(String(decoding: bytes, as: UTF8.self))
        case PostgresTypeOID.jsonb:
            guard bytes.count >= 1, bytes[0] == 1 else {
                throw PostgresError(.invalidValue, "column \"\(column)\": unknown jsonb binary version")
            }
            return .jsonb(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[1...]), as: UTF8.self))
        case PostgresTypeOID.uuid:
            try requireSize(16)
            return .uuid(bytes.readUUID(at: 0))
        case PostgresTypeOID.timestamptz, PostgresTypeOID.timestamp:
            try requireSize(8)
            let micros = Int64(bitPattern: bytes.readBigEndian(UInt64.self, at: 0))
            return .timestamp(date(postgresMicroseconds: micros))
        case PostgresTypeOID.bytea:
            return .bytea(Array(bytes))
        case PostgresTypeOID.void:
            return .null
        default:
            throw PostgresError(
                .invalidValue,
                "column \"\(column)\" has type OID \(typeOID), which is not decoded; cast it in SQL (e.g. ::text or ::float8)"
            )
        }
    }
}

extension Array where Element == UInt8 {
    @inline(__always)
    package mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        // Byte by byte: for a few bytes, `append(contentsOf:)` costs a call that is not inlined
        // (7 % of the recorder's CPU went to it, profiled).
        var shift = T.bitWidth - 8
        while shift >= 0 {
            append(UInt8(truncatingIfNeeded: value >> shift))
            shift -= 8
        }
    }

    /// Appends UTF-8 text, refusing NUL bytes, which PostgreSQL text cannot hold.
    @inline(__always)
    package mutating func appendText(_ value: String) throws {
        var value = value
        try value.withUTF8 { utf8 in
            if utf8.contains(0) { throw PostgresError.nulInText }
            append(contentsOf: utf8)
        }
    }

    @inline(__always)
    package mutating func appendUUID(_ value: UUID) {
        Swift.withUnsafeBytes(of: value.uuid) { bytes in
            for byte in bytes { append(byte) }
        }
    }
}

extension UnsafeRawBufferPointer {
    @inline(__always)
    package func readBigEndian<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
        T(bigEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    @inline(__always)
    package func readUUID(at offset: Int) -> UUID {
        UUID(uuid: loadUnaligned(fromByteOffset: offset, as: uuid_t.self))
    }
}

extension PostgresError {
    /// Text (or JSON text) with a NUL byte, which PostgreSQL's text types cannot hold.
    package static var nulInText: PostgresError {
        PostgresError(.invalidValue, "text contains a NUL byte (\\u0000), which PostgreSQL cannot store")
    }
}
