import Foundation

/// Encodes rows in PostgreSQL's binary `COPY` format and hands them to the server in chunks,
/// so a bulk write of any size holds at most one chunk in memory.
///
/// Obtain one from ``PostgresConnection/copyIn(_:_:)``. For each row call ``beginRow(fieldCount:)``,
/// one `write` per column in the `COPY` column order, then ``endRow()``.
public struct BinaryCopyWriter {
    /// PGCOPY signature, flags field and header-extension length.
    package static let header: [UInt8] =
        Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00] + [0, 0, 0, 0] + [0, 0, 0, 0]

    private var buffer: [UInt8]
    private let chunkSize: Int
    private let sink: ([UInt8]) throws -> Void
    private var rowStart = 0
    private var expectedFields = 0
    private var writtenFields = 0
    /// Rows completed so far.
    public private(set) var rowCount = 0

    package init(chunkSize: Int = 512 * 1024, sink: @escaping ([UInt8]) throws -> Void) {
        self.chunkSize = chunkSize
        self.sink = sink
        buffer = Self.header
        buffer.reserveCapacity(chunkSize + 64 * 1024)
    }

    /// Starts a row of `fieldCount` columns.
    public mutating func beginRow(fieldCount: Int) {
        rowStart = buffer.count
        expectedFields = fieldCount
        writtenFields = 0
        buffer.appendBigEndian(Int16(fieldCount))
    }

    /// Ends the row begun last; sends a chunk to the server when enough rows are buffered.
    /// - Throws: `PostgresError` `.invalidValue` when the row has the wrong number of fields, or the server's error.
    public mutating func endRow() throws {
        guard writtenFields == expectedFields else {
            let count = writtenFields
            buffer.removeSubrange(rowStart...)
            throw PostgresError(.invalidValue, "COPY row has \(count) fields, expected \(expectedFields)")
        }
        rowCount += 1
        if buffer.count >= chunkSize { try flush() }
    }

    /// Discards a row begun but not ended (e.g. after one of its values was refused).
    public mutating func discardRow() {
        if rowStart <= buffer.count { buffer.removeSubrange(rowStart...) }
        writtenFields = 0
    }

    /// Writes one value of any supported type, NULL included.
    /// - Throws: `PostgresError` `.invalidValue` for text with a NUL byte.
    public mutating func write(_ value: PostgresValue) throws {
        let lengthAt = buffer.count
        buffer.appendBigEndian(Int32(-1))
        if try value.appendBinary(to: &buffer) {
            patchLength(at: lengthAt)
        }
        writtenFields += 1
    }

    /// Writes SQL NULL.
    public mutating func writeNull() {
        buffer.appendBigEndian(Int32(-1))
        writtenFields += 1
    }

    /// Writes a uuid.
    public mutating func write(uuid: UUID) {
        buffer.appendBigEndian(Int32(16))
        buffer.appendUUID(uuid)
        writtenFields += 1
    }

    /// Writes text, or NULL for `nil`.
    /// - Throws: `PostgresError` `.invalidValue` when the text holds a NUL byte.
    public mutating func write(text: String?) throws {
        guard let text else { return writeNull() }
        let lengthAt = buffer.count
        buffer.appendBigEndian(Int32(0))
        do {
            try buffer.appendText(text)
        } catch {
            buffer.removeSubrange(lengthAt...)
            throw error
        }
        patchLength(at: lengthAt)
        writtenFields += 1
    }

    /// Writes jsonb from JSON text.
    /// - Throws: `PostgresError` `.invalidValue` when the text holds a NUL byte.
    public mutating func write(jsonb: String) throws {
        try write(jsonbAppending: { $0.append(contentsOf: jsonb.utf8) })
    }

    /// Writes jsonb whose JSON text `append` adds to the row directly, with no String in
    /// between (profiled: building one per event was 3 % of the collector's CPU).
    /// - Throws: `PostgresError` `.invalidValue` when the text holds a NUL byte.
    package mutating func write(jsonbAppending append: (inout [UInt8]) -> Void) throws {
        let lengthAt = buffer.count
        buffer.appendBigEndian(Int32(0))
        buffer.append(1)
        let textAt = buffer.count
        append(&buffer)
        let hasNUL = buffer.withUnsafeBufferPointer { all in
            all.baseAddress.map { memchr($0 + textAt, 0, all.count - textAt) != nil } ?? false
        }
        guard !hasNUL else {
            buffer.removeSubrange(lengthAt...)
            throw PostgresError.nulInText
        }
        patchLength(at: lengthAt)
        writtenFields += 1
    }

    /// Writes an int2.
    public mutating func write(int16: Int16) {
        buffer.appendBigEndian(Int32(2))
        buffer.appendBigEndian(int16)
        writtenFields += 1
    }

    /// Writes an int4.
    public mutating func write(int32: Int32) {
        buffer.appendBigEndian(Int32(4))
        buffer.appendBigEndian(int32)
        writtenFields += 1
    }

    /// Writes an int8.
    public mutating func write(int64: Int64) {
        buffer.appendBigEndian(Int32(8))
        buffer.appendBigEndian(int64)
        writtenFields += 1
    }

    /// Writes a float8.
    public mutating func write(float64: Double) {
        buffer.appendBigEndian(Int32(8))
        buffer.appendBigEndian(float64.bitPattern)
        writtenFields += 1
    }

    /// Writes a bool.
    public mutating func write(bool: Bool) {
        buffer.appendBigEndian(Int32(1))
        buffer.append(bool ? 1 : 0)
        writtenFields += 1
    }

    /// Writes a timestamptz, or NULL for `nil`.
    public mutating func write(timestamp: Date?) {
        guard let timestamp else { return writeNull() }
        write(timestampMicroseconds: PostgresValue.postgresMicroseconds(timestamp))
    }

    /// Writes a timestamptz given as microseconds since 2000-01-01 UTC (PostgreSQL's own form).
    public mutating func write(timestampMicroseconds: Int64) {
        buffer.appendBigEndian(Int32(8))
        buffer.appendBigEndian(timestampMicroseconds)
        writtenFields += 1
    }

    /// Sends what is buffered.
    package mutating func flush() throws {
        guard !buffer.isEmpty else { return }
        try sink(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Appends the end-of-data marker and sends the rest.
    package mutating func finish() throws {
        buffer.appendBigEndian(Int16(-1))
        try flush()
    }

    @inline(__always)
    private mutating func patchLength(at position: Int) {
        let length = Int32(buffer.count - position - 4).bigEndian
        Swift.withUnsafeBytes(of: length) { bytes in
            for offset in 0..<4 { buffer[position + offset] = bytes[offset] }
        }
    }
}
