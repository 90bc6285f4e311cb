/// Strings numbered in the order first met, so that what a report holds for every person or
/// every event is a four-byte number, not a string: breakdown values in ``PackedUnitStore``,
/// candidate names in the correlation's traces, event labels in the paths after a drop.
///
/// Why: per user those are held to the end of the read; as strings (a dictionary and a set a
/// person, a string an event) they took 1.5–2 GB at 10M events.
struct StringNumbers: Sendable {
    private(set) var strings: [String] = []
    private var numbers: [String: UInt32] = [:]

    /// The number of `string`, given it when new.
    mutating func number(of string: String) -> UInt32 {
        if let number = numbers[string] { return number }
        let number = UInt32(strings.count)
        strings.append(string)
        numbers[string] = number
        return number
    }

    subscript(number: UInt32) -> String { strings[Int(number)] }

    /// `other`'s numbers as this one numbers their strings (numbering those it lacks), to merge
    /// what two aggregates numbered apart.
    mutating func renumbering(_ other: StringNumbers) -> [UInt32] {
        other.strings.map { number(of: $0) }
    }
}
