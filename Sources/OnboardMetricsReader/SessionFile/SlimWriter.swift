import Foundation
import OnboardMetricsSDK

/// Writes the slim form's primitives (``SessionFile``): varints, zigzag varints, UTF-8 strings with
/// their length, JSON values. The one writer of the form; ``SlimReader`` is its one reader.
struct SlimWriter {
    var bytes: [UInt8] = []

    /// LEB128, as the traces write theirs (`appendVarint`).
    mutating func varint(_ value: UInt64) { bytes.appendVarint(value) }

    mutating func zigzag(_ value: Int64) { bytes.appendSigned(value) }

    /// An optional 32-bit number as one varint: 0 for none, the value's zigzag plus one otherwise.
    mutating func optional(_ value: Int?) {
        guard let value else { return varint(0) }
        varint(UInt64(bitPattern: (Int64(value) << 1) ^ (Int64(value) >> 63)) + 1)
    }

    mutating func uuid(_ value: UUID) { withUnsafeBytes(of: value.uuid) { bytes += $0 } }

    mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            varint(UInt64(utf8.count))
            bytes += utf8
        }
    }

    /// Objects' members in the order of their keys' bytes, so that equal objects are equal bytes.
    mutating func json(_ value: JSONValue) {
        switch value {
        case .null: bytes.append(0)
        case .bool(let flag): bytes.append(flag ? 2 : 1)
        case .number(let number):
            bytes.append(3)
            withUnsafeBytes(of: number.bitPattern.littleEndian) { bytes += $0 }
        case .string(let text):
            bytes.append(4)
            string(text)
        case .array(let items):
            bytes.append(5)
            varint(UInt64(items.count))
            for item in items { json(item) }
        case .object(let members):
            bytes.append(6)
            varint(UInt64(members.count))
            for (key, member) in members.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
                string(key)
                json(member)
            }
        }
    }
}
