/// Escaping and number text shared by the HTML and SVG builders.
///
/// Every piece of text that reaches a report — step ids, highlight ids, breakdown values, flow
/// titles — comes from recorded data or user files, so all of it goes through ``escape(_:)``.
package enum HTML {
    /// Text safe in element content and in double- or single-quoted attribute values.
    package static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// An id fragment made of letters, digits and '-' only, for `id`/`aria-labelledby` references.
    package static func identifier(_ text: String) -> String {
        let mapped = text.lowercased().unicodeScalars.map { scalar -> Character in
            (scalar.properties.isAlphabetic && scalar.isASCII) || ("0"..."9").contains(scalar) ? Character(scalar) : "-"
        }
        return String(mapped)
    }

    /// A number for SVG coordinates: two decimals at most, never exponent notation.
    static func coordinate(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    /// The exact value of a number for a `data-value` attribute (what tests compare with JSON).
    package static func exact(_ value: Double?) -> String? {
        value.map { $0 == $0.rounded() && abs($0) < 1e15 ? String(Int($0)) : String($0) }
    }
}
