import Foundation

/// Durations as people write them on a command line: `7d`, `30m`, `12h`, `90s`, `2w`, `1.5h`,
/// `1h30m` (groups of a number and a unit, added up). Units: `s`, `m`, `h`, `d` (24 h), `w` (7 d).
public enum DurationText {
    /// Why a text is not a duration.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong.
        public struct Code: Hashable, Sendable, CustomStringConvertible {
            private let name: String
            private init(_ name: String) { self.name = name }
            public var description: String { name }

            /// The text is empty.
            public static let empty = Code("empty")
            /// A group lacks its number, or the number is malformed.
            public static let invalidNumber = Code("invalidNumber")
            /// A group lacks its unit, or the unit is not one of s, m, h, d, w.
            public static let unknownUnit = Code("unknownUnit")
            /// The total is zero or not finite.
            public static let notPositive = Code("notPositive")
            /// The total is longer than ``DurationText/maximumSeconds``.
            public static let tooLong = Code("tooLong")
        }

        /// What is wrong.
        public var code: Code
        /// A sentence for people, quoting the text.
        public var message: String

        /// Creates an error.
        public init(_ code: Code, _ message: String) {
            self.code = code
            self.message = message
        }

        public var description: String { message }
    }

    /// Longest duration accepted: 100 years (36500d). Reports count time in microseconds as
    /// 64-bit integers; far longer windows would overflow them and mean nothing anyway.
    public static let maximumSeconds: TimeInterval = 36_500 * 86_400

    /// Seconds as whole microseconds, clamped to 0...``maximumSeconds`` (a library caller may
    /// pass any Double; converting an out-of-range one to Int64 would trap).
    package static func microseconds(_ seconds: TimeInterval) -> Int64 {
        guard seconds > 0 else { return 0 }
        return Int64(min(seconds, maximumSeconds) * 1_000_000)
    }

    private static let unitSeconds: [Character: Double] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400, "w": 604_800]

    /// The duration `text` denotes, in seconds (always positive).
    /// - Throws: ``ParseError`` naming what is wrong.
    public static func parse(_ text: String) throws(ParseError) -> TimeInterval {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard !trimmed.isEmpty else { throw ParseError(.empty, "empty duration (use e.g. 7d, 12h, 30m)") }
        var total = 0.0
        var number = ""
        for character in trimmed {
            if character.isASCII, character.isNumber || character == "." {
                number.append(character)
                continue
            }
            guard let seconds = unitSeconds[character] else {
                throw ParseError(
                    .unknownUnit, "'\(text)': unknown unit '\(character)' (use s, m, h, d or w, e.g. 7d, 12h, 30m)")
            }
            guard let value = Double(number) else {
                throw ParseError(.invalidNumber, "'\(text)': expected a number before '\(character)'")
            }
            total += value * seconds
            number = ""
        }
        guard number.isEmpty else {
            throw ParseError(.unknownUnit, "'\(text)': '\(number)' lacks a unit (use s, m, h, d or w, e.g. 7d)")
        }
        guard total > 0, total.isFinite else { throw ParseError(.notPositive, "'\(text)': duration must be positive") }
        guard total <= maximumSeconds else {
            throw ParseError(.tooLong, "'\(text)': duration must be at most 100 years (36500d)")
        }
        return total
    }

    /// A compact form of `seconds` that ``parse(_:)`` reads back: `7d`, `1d12h`, `30m`, `1h30m`,
    /// `45s`; fractions of a second are rounded to the nearest second (a minimum of `0s`).
    public static func format(_ seconds: TimeInterval) -> String {
        guard seconds.isFinite, abs(seconds) < 1e15 else { return String(seconds) }
        var remaining = Int(seconds.rounded())
        guard remaining > 0 else { return "0s" }
        var text = ""
        for (unit, size) in [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)] where remaining >= size {
            text += "\(remaining / size)\(unit)"
            remaining %= size
        }
        return text
    }
}
