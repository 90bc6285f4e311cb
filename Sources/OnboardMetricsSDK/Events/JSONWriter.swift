import Foundation

/// Minimal, allocation-light JSON writing into a byte buffer, with sorted object keys so output
/// is deterministic.
package enum JSONWriter {
    @inline(__always) package static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? 48 + nibble : 87 + nibble
    }

    /// Appends a literal (keys and punctuation) in one copy.
    @inline(__always) package static func appendLiteral(_ literal: StaticString, to bytes: inout [UInt8]) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    package static func appendString(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        // Fast path: most strings (ids, names) need no escaping and are copied in one go.
        let copied =
            string.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
                for byte in utf8 where byte < 0x20 || byte == 34 || byte == 92 { return false }
                bytes.append(contentsOf: utf8)
                return true
            } ?? false
        if copied {
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [92, 34])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [92, 92])
            case 0x0A: bytes.append(contentsOf: [92, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [92, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [92, UInt8(ascii: "t")])
            case 0..<0x20:
                bytes.append(contentsOf: [92, UInt8(ascii: "u"), 48, 48, hexDigit(byte >> 4), hexDigit(byte & 15)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    package static func appendInt(_ value: Int, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        let magnitude = value.magnitude
        var divisor: UInt = 1
        while divisor <= magnitude / 10 { divisor *= 10 }
        // Writes the digits in place, most significant first, without a temporary buffer.
        while divisor > 0 {
            bytes.append(UInt8(48 + (magnitude / divisor) % 10))
            divisor /= 10
        }
    }

    package static func appendNumber(_ value: Double, to bytes: inout [UInt8]) {
        if value.isNaN || value.isInfinite {
            // JSON has no NaN or infinity.
            bytes.append(contentsOf: "null".utf8)
        } else if value == value.rounded(), abs(value) < 9_007_199_254_740_992 {
            appendInt(Int(value), to: &bytes)
        } else {
            bytes.append(contentsOf: String(value).utf8)
        }
    }

    package static func appendUUID(_ uuid: UUID, to bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 36) { buffer in
            withUnsafeBytes(of: uuid.uuid) { raw in
                var out = 0
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        buffer[out] = UInt8(ascii: "-")
                        out += 1
                    }
                    buffer[out] = hexDigit(raw[index] >> 4)
                    buffer[out + 1] = hexDigit(raw[index] & 15)
                    out += 2
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(buffer))
        }
    }

    package static func appendObject(_ object: [String: JSONValue], to bytes: inout [UInt8]) {
        if object.isEmpty {
            appendLiteral("{}", to: &bytes)
            return
        }
        bytes.append(UInt8(ascii: "{"))
        if object.count == 1, let (key, value) = object.first {
            // One pair (common in properties) needs no sorted copy.
            appendString(key, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            appendValue(value, to: &bytes)
            bytes.append(UInt8(ascii: "}"))
            return
        }
        var first = true
        // Sorted pairs, not sorted keys looked up again: one hash fewer per key.
        for (key, value) in object.sorted(by: { $0.key < $1.key }) {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            appendString(key, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            appendValue(value, to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    package static func appendValue(_ value: JSONValue, to bytes: inout [UInt8]) {
        switch value {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let flag): bytes.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let number): appendNumber(number, to: &bytes)
        case .string(let string): appendString(string, to: &bytes)
        case .array(let array):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in array.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                appendValue(element, to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let object): appendObject(object, to: &bytes)
        }
    }
}
