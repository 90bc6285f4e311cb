/// The candidate names (events and context values) a correlation aggregate has met, numbered in
/// the order met, so that a unit keeps four-byte numbers rather than strings.
///
/// Why: per user every person's trace is kept until the read ends, and as a dictionary of names
/// and a set of context strings each it took about 1.2 KB a person (1.5 GB at 10M events).
struct CorrelationNames: Sendable {
    private(set) var names: [String] = []
    private var numbers: [String: UInt32] = [:]

    /// The number of `name`, given it when new.
    mutating func number(of name: String) -> UInt32 {
        if let number = numbers[name] { return number }
        let number = UInt32(names.count)
        names.append(name)
        numbers[name] = number
        return number
    }

    subscript(number: UInt32) -> String { names[Int(number)] }
}
