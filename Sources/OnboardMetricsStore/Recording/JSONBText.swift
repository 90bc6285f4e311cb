import Foundation
import OnboardMetricsSDK

/// The text PostgreSQL gives back for a `jsonb` value (`jsonb_out`, and `jsonb_send` after its
/// version byte), written from the value itself: what a trace built from events held in memory
/// stores for their properties, byte for byte what a trace read back from the table stores
/// (`StoredSessions`). PostgreSQL 15's `JsonbToCString`: an object's keys shorter first, then
/// bytewise; `", "` and `": "` between items; strings escaped by `escape_json`; numbers as
/// `numeric_out` prints what `numeric_in` read from ``JSONWriter``'s text.
/// Checked against the server's own output by `JSONBTextTests`.
package enum JSONBText {
    /// Appends the jsonb text of an object.
    package static func appendObject(_ object: [String: JSONValue], to bytes: inout [UInt8]) {
        if object.isEmpty {
            bytes.append(contentsOf: "{}".utf8)
            return
        }
        bytes.append(UInt8(ascii: "{"))
        if object.count == 1, let (key, value) = object.first {
            // One pair (most properties) needs no sorted copy.
            appendPair(key, value, to: &bytes)
        } else {
            // Shorter keys first, then bytewise (jsonb's lengthCompareJsonbStringValue).
            let pairs = object.sorted { left, right in
                let (a, b) = (left.key.utf8, right.key.utf8)
                return a.count != b.count ? a.count < b.count : a.lexicographicallyPrecedes(b)
            }
            for (index, pair) in pairs.enumerated() {
                if index > 0 { bytes.append(contentsOf: ", ".utf8) }
                appendPair(pair.key, pair.value, to: &bytes)
            }
        }
        bytes.append(UInt8(ascii: "}"))
    }

    private static func appendPair(_ key: String, _ value: JSONValue, to bytes: inout [UInt8]) {
        appendString(key, to: &bytes)
        bytes.append(contentsOf: ": ".utf8)
        appendValue(value, to: &bytes)
    }

    static func appendValue(_ value: JSONValue, to bytes: inout [UInt8]) {
        switch value {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let flag): bytes.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let number): appendNumber(number, to: &bytes)
        case .string(let string): appendString(string, to: &bytes)
        case .array(let array):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in array.enumerated() {
                if index > 0 { bytes.append(contentsOf: ", ".utf8) }
                appendValue(element, to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let object): appendObject(object, to: &bytes)
        }
    }

    /// `escape_json`: the two-character escapes it knows, `\u00xx` (lower-case hex) for the other
    /// control characters, every other byte as it is.
    static func appendString(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        // Most strings (ids, names) need no escaping and are copied in one go.
        let copied =
            string.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
                for byte in utf8 where byte < 0x20 || byte == 34 || byte == 92 { return false }
                bytes.append(contentsOf: utf8)
                return true
            } ?? false
        if !copied {
            for byte in string.utf8 {
                switch byte {
                case 0x08: bytes.append(contentsOf: #"\b"#.utf8)
                case 0x0C: bytes.append(contentsOf: #"\f"#.utf8)
                case 0x0A: bytes.append(contentsOf: #"\n"#.utf8)
                case 0x0D: bytes.append(contentsOf: #"\r"#.utf8)
                case 0x09: bytes.append(contentsOf: #"\t"#.utf8)
                case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
                case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
                case 0..<0x20:
                    bytes.append(contentsOf: #"\u00"#.utf8)
                    bytes.append(JSONWriter.hexDigit(byte >> 4))
                    bytes.append(JSONWriter.hexDigit(byte & 15))
                default: bytes.append(byte)
                }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// The number as `numeric_out` prints the `numeric` that `numeric_in` reads from
    /// ``JSONWriter``'s text for it: the same digits, as many after the point as the text had
    /// less its exponent (never fewer than none), no exponent.
    static func appendNumber(_ value: Double, to bytes: inout [UInt8]) {
        var text: [UInt8] = []
        JSONWriter.appendNumber(value, to: &text)
        guard let exponentAt = text.firstIndex(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) else {
            if !text.contains(UInt8(ascii: ".")) {
                // An integer, or `null`: jsonb prints it as written.
                bytes.append(contentsOf: text)
                return
            }
            appendDecimal(text[...], exponent: 0, to: &bytes)
            return
        }
        let exponent = Int(String(decoding: text[(exponentAt + 1)...], as: UTF8.self)) ?? 0
        appendDecimal(text[..<exponentAt], exponent: exponent, to: &bytes)
    }

    /// `mantissa` (`[-]digits[.digits]`) times ten to `exponent`, written out in full.
    private static func appendDecimal(_ mantissa: ArraySlice<UInt8>, exponent: Int, to bytes: inout [UInt8]) {
        var mantissa = mantissa
        let negative = mantissa.first == UInt8(ascii: "-")
        if negative { mantissa = mantissa.dropFirst() }
        let point = mantissa.firstIndex(of: UInt8(ascii: ".")) ?? mantissa.endIndex
        let integer = mantissa[..<point]
        let fraction = point < mantissa.endIndex ? mantissa[(point + 1)...] : []
        let digits = Array(integer) + Array(fraction)
        // Digits left of the point once the exponent is applied, and after it (numeric's dscale).
        let left = integer.count + exponent
        let scale = max(0, fraction.count - exponent)
        var whole: [UInt8]
        var decimals: [UInt8]
        if left <= 0 {
            whole = []
            decimals = [UInt8](repeating: UInt8(ascii: "0"), count: -left) + digits
        } else if left >= digits.count {
            whole = digits + [UInt8](repeating: UInt8(ascii: "0"), count: left - digits.count)
            decimals = []
        } else {
            whole = Array(digits[..<left])
            decimals = Array(digits[left...])
        }
        if decimals.count > scale { decimals.removeLast(decimals.count - scale) }
        while decimals.count < scale { decimals.append(UInt8(ascii: "0")) }
        while whole.count > 1, whole.first == UInt8(ascii: "0") { whole.removeFirst() }
        if whole.isEmpty { whole = [UInt8(ascii: "0")] }
        let zero = whole == [UInt8(ascii: "0")] && decimals.allSatisfy { $0 == UInt8(ascii: "0") }
        if negative && !zero { bytes.append(UInt8(ascii: "-")) }
        bytes.append(contentsOf: whole)
        if !decimals.isEmpty {
            bytes.append(UInt8(ascii: "."))
            bytes.append(contentsOf: decimals)
        }
    }
}
