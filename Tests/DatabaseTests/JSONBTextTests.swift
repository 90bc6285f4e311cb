import Foundation
import Testing

@testable import OnboardMetricsPostgres
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

/// `JSONBText` against PostgreSQL's own `jsonb` output of the text the event writers send: the
/// bytes a trace encoded from kept events stores for properties must be those a trace read back
/// from the table stores.
@Suite struct JSONBTextTests {
    /// PostgreSQL's text for each object, sent as ``JSONWriter`` writes it (as the COPY does).
    static func serverText(of objects: [[String: JSONValue]], database: String) async throws -> [String] {
        var array: [UInt8] = [UInt8(ascii: "[")]
        for (index, object) in objects.enumerated() {
            if index > 0 { array.append(UInt8(ascii: ",")) }
            JSONWriter.appendObject(object, to: &array)
        }
        array.append(UInt8(ascii: "]"))
        let text = String(decoding: array, as: UTF8.self)
        let configuration = try await TestDatabase.fresh(database)
        return try await TestDatabase.withConnection(configuration) { connection in
            try connection.query(
                "SELECT value::text FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY ORDER BY ordinality",
                [.text(text)]
            ).map { $0[0].string ?? "" }
        }
    }

    /// Our bytes, and the server's text as bytes: compared as bytes, not as `String`s (which
    /// are equal when only canonically equivalent).
    static func ours(_ object: [String: JSONValue]) -> [UInt8] {
        var bytes: [UInt8] = []
        JSONBText.appendObject(object, to: &bytes)
        return bytes
    }

    /// Values a writer keeps as they are and ones jsonb rewrites: key order (shorter first),
    /// escapes it spells differently, numbers it prints without an exponent or with its scale.
    static let chosen: [[String: JSONValue]] = [
        [:],
        ["b": .number(1), "aa": .number(2), "a": .string("x"), "ab": .null, "ä": .bool(true), "z": .bool(false)],
        ["nested": .object(["zz": .array([]), "y": .object([:]), "x": .array([.number(1), .string("é"), .null])])],
        [
            "esc": .string(
                "quote \" backslash \\ slash / tab \t nl \n cr \r bs \u{08} ff \u{0C} bell \u{07} us \u{1F} del \u{7F}")
        ],
        ["unicode": .string("日本語 🙂 \u{2028} \u{2029} e\u{301}")],
        [
            "numbers": .array([
                .number(0), .number(-0.0), .number(0.1), .number(-2.5), .number(1e-5), .number(1.2345e-7),
                .number(123_456.789), .number(9_007_199_254_740_992), .number(9_007_199_254_740_993),
                .number(1e16), .number(1.5e20), .number(-1e300), .number(5e-324), .number(.greatestFiniteMagnitude),
                .number(0.000_1), .number(1e-4), .number(100), .number(-7), .number(.nan), .number(.infinity),
            ])
        ],
        ["": .string(""), " ": .string(" ")],
    ]

    @Test func chosenValuesMatchTheServersText() async throws {
        let server = try await Self.serverText(of: Self.chosen, database: "jsonb_text_chosen")
        #expect(server.count == Self.chosen.count)
        for (object, text) in zip(Self.chosen, server) {
            #expect(Self.ours(object) == Array(text.utf8))
        }
    }

    /// Random nested objects: keys of every length, strings with any of the first 256 code
    /// points and some beyond, numbers of every magnitude.
    @Test func randomObjectsMatchTheServersText() async throws {
        var random = SeededRandom(seed: 33)
        let objects = (0..<400).map { _ in Self.object(depth: 0, using: &random) }
        let server = try await Self.serverText(of: objects, database: "jsonb_text_random")
        #expect(server.count == objects.count)
        var mismatches = 0
        for (object, text) in zip(objects, server) where Self.ours(object) != Array(text.utf8) {
            mismatches += 1
            if mismatches <= 3 {
                Issue.record("ours \(String(decoding: Self.ours(object), as: UTF8.self)) against the server's \(text)")
            }
        }
        #expect(mismatches == 0)
    }

    static func object(depth: Int, using random: inout SeededRandom) -> [String: JSONValue] {
        var object: [String: JSONValue] = [:]
        for _ in 0..<Int.random(in: 0...6, using: &random) {
            object[string(maxLength: 6, using: &random)] = value(depth: depth + 1, using: &random)
        }
        return object
    }

    static func value(depth: Int, using random: inout SeededRandom) -> JSONValue {
        switch Int.random(in: 0..<(depth < 3 ? 8 : 6), using: &random) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2, 3: return .number(number(using: &random))
        case 4, 5: return .string(string(maxLength: 12, using: &random))
        case 6:
            return .array(
                (0..<Int.random(in: 0...4, using: &random)).map { _ in value(depth: depth + 1, using: &random) })
        default: return .object(object(depth: depth, using: &random))
        }
    }

    static func number(using random: inout SeededRandom) -> Double {
        switch Int.random(in: 0..<5, using: &random) {
        case 0: return Double(Int.random(in: -1_000_000...1_000_000, using: &random))
        case 1: return Double(Int.random(in: -10_000...10_000, using: &random)) / 100
        case 2:
            return Double.random(in: -1...1, using: &random) * pow(10, Double(Int.random(in: -30...30, using: &random)))
        // Any finite positive double below 2^512, subnormals included.
        case 3: return Double(bitPattern: random.next() >> 2)
        default: return Double.random(in: -1e17...1e17, using: &random).rounded()
        }
    }

    static func string(maxLength: Int, using random: inout SeededRandom) -> String {
        var scalars = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...maxLength, using: &random) {
            // No NUL: jsonb refuses it, and the writers refuse events holding one.
            let value =
                Bool.random(using: &random)
                ? UInt32.random(in: 1...0xFF, using: &random) : UInt32.random(in: 0x100...0x2FFF, using: &random)
            if let scalar = Unicode.Scalar(value) { scalars.append(scalar) }
        }
        return String(scalars)
    }
}
