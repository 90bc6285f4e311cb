import Foundation

/// Results go to stdout; diagnostics and progress to stderr, unless quiet.
struct Console: Sendable {
    var quiet = false

    /// A progress or status line on stderr.
    func status(_ line: String) {
        guard !quiet else { return }
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// A result on stdout.
    func print(_ text: String) {
        FileHandle.standardOutput.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
    }

    /// A result on stdout written in the pieces `body` hands over (a long list is never one
    /// string), ended by a newline as ``print(_:)`` ends one.
    func stream(_ body: ((String) throws -> Void) throws -> Void) throws {
        var last = ""
        try body { piece in
            guard !piece.isEmpty else { return }
            FileHandle.standardOutput.write(Data(piece.utf8))
            last = piece
        }
        if !last.hasSuffix("\n") { FileHandle.standardOutput.write(Data("\n".utf8)) }
    }

    /// Encodes a value as stable JSON (sorted keys, ISO 8601 dates) on stdout.
    func printJSON<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}
