import Foundation

/// A position in one line of JSON, with the few reads the event parser needs.
///
/// Hand-written because `JSONDecoder` per line costs several microseconds and would make the
/// parser, not PostgreSQL, the bottleneck of `funnel ingest`.
package struct JSONCursor {
    /// Deepest nesting accepted inside properties, so a hostile line cannot exhaust the stack.
    static let maximumDepth = 64

    let bytes: UnsafeBufferPointer<UInt8>
    package var index = 0

    package init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    package var atEnd: Bool { index >= bytes.count }

    package mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 32, 9, 10, 13: index += 1
            default: return
            }
        }
    }

    /// The next byte after whitespace, not consumed.
    package mutating func peek() -> UInt8? {
        skipWhitespace()
        return index < bytes.count ? bytes[index] : nil
    }

    package mutating func expect(_ byte: UInt8) throws {
        guard peek() == byte else { throw error("expected '\(Character(Unicode.Scalar(byte)))'") }
        index += 1
    }

    /// Consumes `byte` if it comes next.
    package mutating func consume(_ byte: UInt8) -> Bool {
        guard peek() == byte else { return false }
        index += 1
        return true
    }

    /// Consumes the literal `null` if it comes next.
    package mutating func consumeNull() -> Bool {
        guard peek() == 110, index + 4 <= bytes.count, bytes[index + 1] == 117, bytes[index + 2] == 108,
            bytes[index + 3] == 108
        else { return false }
        index += 4
        return true
    }

    package func error(_ reason: String) -> EventValidationError {
        EventValidationError(.malformed, field: "", reason: "invalid JSON at column \(index + 1): \(reason)")
    }

    /// Reads a string and hands its raw bytes (between the quotes) to `body` when it has no
    /// escapes, which avoids building a String for values parsed further (UUIDs, timestamps).
    mutating func withRawString<T>(_ body: (UnsafeBufferPointer<UInt8>) throws -> T) throws -> T {
        try expect(34)
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 34 {
                let raw = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                return try body(raw)
            }
            if byte == 92 {
                // Rare: escapes in an id or a timestamp. Decode and hand over the decoded bytes.
                index = start - 1
                var decoded = Array(try string().utf8)
                return try decoded.withUnsafeMutableBufferPointer { try body(UnsafeBufferPointer($0)) }
            }
            index += 1
        }
        throw error("unterminated string")
    }

    /// Reads a string value.
    package mutating func string() throws -> String {
        try expect(34)
        let start = index
        // Any byte at or above 0x80 seen: only then is the text checked as UTF-8.
        var high: UInt8 = 0
        // Fast path: no escapes, so the bytes between the quotes are the string.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 34 {
                let raw = UnsafeBufferPointer(rebasing: bytes[start..<index])
                if high >= 0x80, let bad = UTF8Validation.firstInvalidOffset(raw) {
                    index = start + bad
                    throw error("invalid UTF-8 in a string")
                }
                index += 1
                return String(decoding: raw, as: UTF8.self)
            }
            if byte == 92 { break }
            if byte < 0x20 { throw error("control character in a string") }
            high |= byte
            index += 1
        }
        var decoded = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case 34:
                if high >= 0x80, let bad = decoded.withUnsafeBufferPointer(UTF8Validation.firstInvalidOffset) {
                    throw error("invalid UTF-8 in a string (its byte \(bad + 1))")
                }
                return String(decoding: decoded, as: UTF8.self)
            case 92: try appendEscape(to: &decoded)
            case 0..<0x20: throw error("control character in a string")
            default:
                high |= byte
                decoded.append(byte)
            }
        }
        throw error("unterminated string")
    }

    private mutating func appendEscape(to decoded: inout [UInt8]) throws {
        guard index < bytes.count else { throw error("unterminated string") }
        let byte = bytes[index]
        index += 1
        switch byte {
        case 34, 92, 47: decoded.append(byte)
        case 98: decoded.append(8)
        case 102: decoded.append(12)
        case 110: decoded.append(10)
        case 114: decoded.append(13)
        case 116: decoded.append(9)
        case 117:
            var scalar = try hex4()
            if (0xD800..<0xDC00).contains(scalar) {
                // A high surrogate must be followed by an escaped low one.
                guard index + 1 < bytes.count, bytes[index] == 92, bytes[index + 1] == 117 else {
                    throw error("unpaired surrogate in \\u escape")
                }
                index += 2
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate in \\u escape") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw error("unpaired surrogate in \\u escape")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
            decoded.append(contentsOf: String(Character(unicode)).utf8)
        default:
            throw error("invalid escape")
        }
    }

    private mutating func hex4() throws -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case 48...57: digit = UInt32(byte - 48)
            case 65...70: digit = UInt32(byte - 55)
            case 97...102: digit = UInt32(byte - 87)
            default: throw error("invalid \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    /// Reads an integer (no fraction, no exponent).
    mutating func integer() throws -> Int {
        skipWhitespace()
        let negative = index < bytes.count && bytes[index] == 45
        if negative { index += 1 }
        let start = index
        var value = 0
        while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
            let (product, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = product.addingReportingOverflow(Int(bytes[index] - 48))
            guard !overflow1, !overflow2 else { throw error("integer out of range") }
            value = sum
            index += 1
        }
        guard index > start else { throw error("expected an integer") }
        if index < bytes.count, bytes[index] == 46 || bytes[index] == 101 || bytes[index] == 69 {
            throw error("expected an integer, found a fraction or exponent")
        }
        return negative ? -value : value
    }

    /// Reads a number.
    mutating func number() throws -> Double {
        skipWhitespace()
        let start = index
        if index < bytes.count, bytes[index] == 45 { index += 1 }
        var integral = true
        let digitsStart = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte >= 48 && byte <= 57 {
                index += 1
            } else if byte == 46 || byte == 101 || byte == 69 || byte == 43 || byte == 45 {
                integral = false
                index += 1
            } else {
                break
            }
        }
        guard index > digitsStart else { throw error("expected a value") }
        let raw = UnsafeBufferPointer(rebasing: bytes[start..<index])
        if integral, raw.count <= 16 {
            // Exact as a Double below 2^53; skips the slower general conversion.
            var value = 0
            for byte in raw where byte != 45 { value = value * 10 + Int(byte - 48) }
            return Double(raw[0] == 45 ? -value : value)
        }
        guard let value = Double(String(decoding: raw, as: UTF8.self)), value.isFinite else {
            throw error("invalid number")
        }
        return value
    }

    /// Reads any JSON value.
    package mutating func value(depth: Int = 0) throws -> JSONValue {
        guard depth < Self.maximumDepth else { throw error("nested more than \(Self.maximumDepth) levels") }
        switch peek() {
        case 34: return .string(try string())
        case 123: return .object(try object(depth: depth + 1))
        case 91:
            index += 1
            var array: [JSONValue] = []
            if consume(93) { return .array(array) }
            repeat { array.append(try value(depth: depth + 1)) } while consume(44)
            try expect(93)
            return .array(array)
        case 116: return try literal("true", .bool(true))
        case 102: return try literal("false", .bool(false))
        case 110: return try literal("null", .null)
        case .some: return .number(try number())
        case nil: throw error("expected a value")
        }
    }

    /// Steps over any JSON value, checking its syntax, without building it.
    package mutating func skipValue(depth: Int = 0) throws {
        guard depth < Self.maximumDepth else { throw error("nested more than \(Self.maximumDepth) levels") }
        switch peek() {
        case 34: try withRawString { _ in }
        case 123:
            index += 1
            if consume(125) { return }
            repeat {
                try withRawString { _ in }
                try expect(58)
                try skipValue(depth: depth + 1)
            } while consume(44)
            try expect(125)
        case 91:
            index += 1
            if consume(93) { return }
            repeat { try skipValue(depth: depth + 1) } while consume(44)
            try expect(93)
        case 116: _ = try literal("true", .null)
        case 102: _ = try literal("false", .null)
        case 110: _ = try literal("null", .null)
        case .some: _ = try number()
        case nil: throw error("expected a value")
        }
    }

    /// Reads an object.
    package mutating func object(depth: Int = 0) throws -> [String: JSONValue] {
        try expect(123)
        var object: [String: JSONValue] = [:]
        if consume(125) { return object }
        repeat {
            let key = try string()
            try expect(58)
            // A key given twice is ambiguous (a second writeKey, userId or batch would win silently).
            if object.updateValue(try value(depth: depth), forKey: key) != nil {
                throw error("the key \(String(key.prefix(60)).debugDescription) appears twice in an object")
            }
        } while consume(44)
        try expect(125)
        return object
    }

    private mutating func literal(_ word: StaticString, _ result: JSONValue) throws -> JSONValue {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count,
            memcmp(word.utf8Start, bytes.baseAddress.map { $0 + index } ?? word.utf8Start, count) == 0
        else { throw error("expected a value") }
        index += count
        return result
    }
}
