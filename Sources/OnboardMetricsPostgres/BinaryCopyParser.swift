/// Splits a binary `COPY` byte stream into rows, whatever the chunk boundaries are.
///
/// The server usually sends one row per message, the header glued to the first; the parser
/// does not rely on that: a row cut across chunks is kept until its end arrives.
package struct BinaryCopyParser {
    private var pending: [UInt8] = []
    private var sawHeader = false
    private var fields: [(Int, Int)] = []
    /// True once the end-of-data marker was read.
    package private(set) var finished = false
    /// Rows handed out so far.
    package private(set) var rowCount = 0

    package init() {}

    /// Feeds a chunk and calls `body` for each complete row in it.
    package mutating func consume(_ chunk: UnsafeRawBufferPointer, _ body: (BinaryCopyRow) throws -> Void) throws {
        if pending.isEmpty {
            let used = try parse(chunk, body)
            if used < chunk.count { pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[used...])) }
        } else {
            pending.append(contentsOf: chunk)
            let data = pending
            let used = try data.withUnsafeBytes { try parse($0, body) }
            pending.removeSubrange(0..<used)
        }
    }

    /// Checks that the stream ended cleanly.
    package func finish() throws {
        guard finished, pending.isEmpty else {
            throw PostgresError(.protocolViolation, "binary COPY stream ended in the middle of a row")
        }
    }

    /// Parses as many complete items as `bytes` holds; returns how many bytes were used.
    private mutating func parse(_ bytes: UnsafeRawBufferPointer, _ body: (BinaryCopyRow) throws -> Void) throws -> Int {
        var position = 0
        if !sawHeader {
            let fixedHeader = BinaryCopyWriter.header.count  // signature + flags + extension length
            guard bytes.count >= fixedHeader else { return 0 }
            guard bytes.prefix(11).elementsEqual(BinaryCopyWriter.header.prefix(11)) else {
                throw PostgresError(.protocolViolation, "binary COPY stream does not start with the PGCOPY signature")
            }
            let extensionLength = Int(bytes.readBigEndian(UInt32.self, at: 15))
            guard bytes.count >= fixedHeader + extensionLength else { return 0 }
            position = fixedHeader + extensionLength
            sawHeader = true
        }
        while position + 2 <= bytes.count, !finished {
            let fieldCount = Int(Int16(bitPattern: bytes.readBigEndian(UInt16.self, at: position)))
            if fieldCount == -1 {
                finished = true
                position += 2
                break
            }
            var cursor = position + 2
            fields.removeAll(keepingCapacity: true)
            var complete = true
            for _ in 0..<fieldCount {
                guard cursor + 4 <= bytes.count else {
                    complete = false
                    break
                }
                let length = Int(Int32(bitPattern: bytes.readBigEndian(UInt32.self, at: cursor)))
                cursor += 4
                if length < 0 {
                    fields.append((cursor, -1))
                    continue
                }
                guard cursor + length <= bytes.count else {
                    complete = false
                    break
                }
                fields.append((cursor, length))
                cursor += length
            }
            guard complete else { break }
            try fields.withUnsafeBufferPointer { try body(BinaryCopyRow(bytes: bytes, fields: $0)) }
            rowCount += 1
            position = cursor
        }
        return position
    }
}
