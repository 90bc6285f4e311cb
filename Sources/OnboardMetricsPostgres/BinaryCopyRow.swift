import Foundation

/// One row of a binary `COPY ... TO STDOUT`, read in place from the server's bytes.
///
/// Valid only inside the closure given to ``PostgresConnection/copyOut(_:_:)``: copy out what
/// you keep. The caller knows the column types (binary COPY does not carry them), so each
/// accessor names its type and checks the field's size; NULL reads as `nil`.
public struct BinaryCopyRow {
    private let bytes: UnsafeRawBufferPointer
    /// (offset, length) per field; length -1 is NULL.
    private let fields: UnsafeBufferPointer<(Int, Int)>

    package init(bytes: UnsafeRawBufferPointer, fields: UnsafeBufferPointer<(Int, Int)>) {
        self.bytes = bytes
        self.fields = fields
    }

    /// The number of columns.
    public var count: Int { fields.count }

    /// Whether a column is NULL.
    public func isNull(_ column: Int) -> Bool { fields[column].1 < 0 }

    /// The raw bytes of a column, or `nil` for NULL.
    public func rawBytes(_ column: Int) -> UnsafeRawBufferPointer? {
        let (offset, length) = fields[column]
        guard length >= 0 else { return nil }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)])
    }

    private func fixed(_ column: Int, size: Int, type: String) throws -> Int? {
        let (offset, length) = fields[column]
        guard length >= 0 else { return nil }
        guard length == size else {
            throw PostgresError(.invalidValue, "COPY column \(column): \(length) bytes where \(type) has \(size)")
        }
        return offset
    }

    /// A uuid column.
    public func uuid(_ column: Int) throws -> UUID? {
        try fixed(column, size: 16, type: "uuid").map { bytes.readUUID(at: $0) }
    }

    /// A text (or varchar, name) column.
    public func text(_ column: Int) -> String? {
        rawBytes(column).map { String(decoding: $0, as: UTF8.self) }
    }

    /// A jsonb column, as JSON text.
    public func jsonb(_ column: Int) throws -> String? {
        guard let raw = rawBytes(column) else { return nil }
        guard raw.count >= 1, raw[0] == 1 else {
            throw PostgresError(.invalidValue, "COPY column \(column): unknown jsonb binary version")
        }
        return String(decoding: UnsafeRawBufferPointer(rebasing: raw[1...]), as: UTF8.self)
    }

    /// An int2 column.
    public func int16(_ column: Int) throws -> Int16? {
        try fixed(column, size: 2, type: "int2").map { Int16(bitPattern: bytes.readBigEndian(UInt16.self, at: $0)) }
    }

    /// An int4 column.
    public func int32(_ column: Int) throws -> Int32? {
        try fixed(column, size: 4, type: "int4").map { Int32(bitPattern: bytes.readBigEndian(UInt32.self, at: $0)) }
    }

    /// An int8 column.
    public func int64(_ column: Int) throws -> Int64? {
        try fixed(column, size: 8, type: "int8").map { Int64(bitPattern: bytes.readBigEndian(UInt64.self, at: $0)) }
    }

    /// A float8 column.
    public func float64(_ column: Int) throws -> Double? {
        try fixed(column, size: 8, type: "float8").map { Double(bitPattern: bytes.readBigEndian(UInt64.self, at: $0)) }
    }

    /// A bool column.
    public func bool(_ column: Int) throws -> Bool? {
        try fixed(column, size: 1, type: "bool").map { bytes[$0] != 0 }
    }

    /// A timestamptz column as microseconds since 2000-01-01 UTC (cheapest to compare and subtract).
    public func timestampMicroseconds(_ column: Int) throws -> Int64? {
        try fixed(column, size: 8, type: "timestamptz").map {
            Int64(bitPattern: bytes.readBigEndian(UInt64.self, at: $0))
        }
    }

    /// A timestamptz column as a `Date`.
    public func timestamp(_ column: Int) throws -> Date? {
        try timestampMicroseconds(column).map { PostgresValue.date(postgresMicroseconds: $0) }
    }

    /// Any supported column, decoded by its type OID.
    public func value(_ column: Int, typeOID: UInt32) throws -> PostgresValue {
        guard let raw = rawBytes(column) else { return .null }
        return try PostgresValue.decodeBinary(raw, typeOID: typeOID, column: "\(column)")
    }
}
