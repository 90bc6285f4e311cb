import Foundation
import OnboardMetricsSDK

/// Reads what ``SlimWriter`` wrote, every read checked against the end: a session file is input
/// (a disk may have torn it, anyone with the user's rights may have changed it), so a bad one is a
/// ``SessionFileError``, never a trap.
struct SlimReader {
    let buffer: UnsafeRawBufferPointer
    let end: Int
    var offset: Int

    init(_ buffer: UnsafeRawBufferPointer, from offset: Int = 0) {
        self.buffer = buffer
        end = buffer.count
        self.offset = offset
    }

    var isAtEnd: Bool { offset >= end }

    @inline(__always) mutating func byte() throws -> UInt8 {
        guard offset < end else { throw SessionFileError.truncated }
        defer { offset += 1 }
        return buffer[offset]
    }

    @inline(__always) mutating func varint() throws -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while offset < end, shift < 64 {
            let byte = buffer[offset]
            offset += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
        throw SessionFileError.truncated
    }

    /// A varint that must be below `limit` (a count or a number into a table).
    @inline(__always) mutating func number(below limit: Int) throws -> Int {
        let value = try varint()
        guard value < UInt64(limit) else { throw SessionFileError.malformed("a number out of range") }
        return Int(value)
    }

    @inline(__always) mutating func zigzag() throws -> Int64 {
        let value = try varint()
        return Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
    }

    @inline(__always) mutating func optional() throws -> Int? {
        let value = try varint()
        guard value != 0 else { return nil }
        let number = Int64(bitPattern: (value - 1) >> 1) ^ -Int64(bitPattern: (value - 1) & 1)
        return Int(number)
    }

    @inline(__always) mutating func uuid() throws -> UUID {
        guard end - offset >= 16 else { throw SessionFileError.truncated }
        defer { offset += 16 }
        // 16 bytes loaded at once: byte by byte into a tuple was 2 % of a warm report.
        return UUID(uuid: buffer.loadUnaligned(fromByteOffset: offset, as: uuid_t.self))
    }

    /// `count` bytes in place, checked.
    mutating func bytes(_ count: Int) throws -> UnsafeRawBufferPointer {
        guard count >= 0, end - offset >= count else { throw SessionFileError.truncated }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + count)])
    }

    mutating func string() throws -> String {
        let count = try number(below: end - offset + 1)
        return String(decoding: try bytes(count), as: UTF8.self)
    }

    /// A JSON value; nesting deeper than `depth` is refused (a recursion a file could make
    /// unbounded).
    mutating func json(depth: Int = 64) throws -> JSONValue {
        guard depth > 0 else { throw SessionFileError.malformed("JSON nested too deep") }
        switch try byte() {
        case 0: return .null
        case 1: return .bool(false)
        case 2: return .bool(true)
        case 3:
            let raw = try bytes(8)
            var bits: UInt64 = 0
            withUnsafeMutableBytes(of: &bits) { $0.copyMemory(from: raw) }
            return .number(Double(bitPattern: UInt64(littleEndian: bits)))
        case 4: return .string(try string())
        case 5:
            let count = try number(below: end - offset + 1)
            var items: [JSONValue] = []
            items.reserveCapacity(min(count, 64))  // a count from the file: room grows as items are read
            for _ in 0..<count { items.append(try json(depth: depth - 1)) }
            return .array(items)
        case 6:
            return .object(try object(depth: depth))
        default: throw SessionFileError.malformed("an unknown JSON tag")
        }
    }

    /// An object's members (after its tag).
    mutating func object(depth: Int = 64) throws -> [String: JSONValue] {
        let count = try number(below: end - offset + 1)
        var members: [String: JSONValue] = [:]
        members.reserveCapacity(min(count, 64))
        for _ in 0..<count {
            let key = try string()
            members[key] = try json(depth: depth - 1)
        }
        return members
    }
}
