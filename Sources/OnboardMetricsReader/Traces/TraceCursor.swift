import Foundation

/// Walks a ``SessionTrace`` event by event, in place: strings are views into the trace's bytes,
/// valid while those bytes are.
package struct TraceCursor {
    private let bytes: UnsafeRawBufferPointer
    private var position = 0
    private var strings: [UnsafeRawBufferPointer] = []
    private var remaining = 0
    private var previousOccurred: Int64 = 0

    /// The current event's columns (after ``next()`` returned true).
    package private(set) var eventID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    package private(set) var seq: Int32 = 0
    package private(set) var flowVersion: Int32?
    package private(set) var occurred: Int64 = 0
    package private(set) var sent: Int64?
    package private(set) var received: Int64?
    /// The current event's strings by their number in the trace (1-based, 0 for NULL): a reader
    /// that turns each of a trace's strings into a value once keys its values by these.
    package private(set) var userNumber = 0
    package private(set) var kindNumber = 0
    package private(set) var flowNumber = 0
    package private(set) var stepNumber = 0
    package private(set) var nameNumber = 0
    package private(set) var propertiesNumber = 0

    package var userID: UnsafeRawBufferPointer? { string(userNumber) }
    package var kind: UnsafeRawBufferPointer { string(kindNumber) ?? UnsafeRawBufferPointer(start: nil, count: 0) }
    package var flowID: UnsafeRawBufferPointer? { string(flowNumber) }
    package var stepID: UnsafeRawBufferPointer? { string(stepNumber) }
    package var name: UnsafeRawBufferPointer? { string(nameNumber) }
    package var properties: UnsafeRawBufferPointer? { string(propertiesNumber) }
    /// How many strings the trace holds (numbers run 1...stringCount).
    package var stringCount: Int { strings.count }
    /// How many events follow the current one.
    package var eventsAfter: Int { remaining }

    /// String `number` of the trace (a number ``next()`` checked), `nil` for 0 (NULL).
    package func string(_ number: Int) -> UnsafeRawBufferPointer? {
        number > 0 ? strings[number - 1] : nil
    }

    /// A cursor before the first event of `bytes`.
    package init(_ bytes: UnsafeRawBufferPointer) throws(TraceError) {
        try self.init(bytes, storage: [])
    }

    /// A cursor before the first event of `bytes` that keeps the trace's string views in
    /// `storage` (emptied first): a reader of many traces hands the same array from one to the
    /// next (``takeStorage()``), where every trace allocated one of its own.
    package init(_ bytes: UnsafeRawBufferPointer, storage: consuming [UnsafeRawBufferPointer]) throws(TraceError) {
        self.bytes = bytes
        strings = storage
        strings.removeAll(keepingCapacity: true)
        guard !bytes.isEmpty, bytes[0] == SessionTrace.version else {
            throw TraceError(.unknownVersion, "trace version \(bytes.first.map(String.init) ?? "missing")")
        }
        position = 1
        let count = try length()
        strings.reserveCapacity(count)
        for _ in 0..<count {
            let size = try length()
            guard position + size <= bytes.count else { throw TraceError(.truncated, "a string past the end") }
            strings.append(UnsafeRawBufferPointer(rebasing: bytes[position..<(position + size)]))
            position += size
        }
        remaining = try length()
    }

    /// Moves to the next event; false after the last.
    package mutating func next() throws(TraceError) -> Bool {
        guard remaining > 0 else {
            guard position == bytes.count else { throw TraceError(.truncated, "bytes after the last event") }
            return false
        }
        remaining -= 1
        guard position + 16 <= bytes.count else { throw TraceError(.truncated, "an event id past the end") }
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &raw) {
            $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[position..<(position + 16)]))
        }
        eventID = UUID(uuid: raw)
        position += 16
        let flags = try varint()
        userNumber = try stringNumber()
        kindNumber = try stringNumber()
        guard kindNumber > 0 else { throw TraceError(.badString, "an event without a kind") }
        flowNumber = try stringNumber()
        stepNumber = try stringNumber()
        nameNumber = try stringNumber()
        propertiesNumber = try stringNumber()
        seq = try int32()
        flowVersion = flags & 4 != 0 ? try int32() : nil
        occurred = previousOccurred &+ (try signed())
        previousOccurred = occurred
        sent = flags & 1 != 0 ? occurred &+ (try signed()) : nil
        received = flags & 2 != 0 ? occurred &+ (try signed()) : nil
        return true
    }

    /// The array that held the trace's string views, emptied, for the next trace's cursor.
    package mutating func takeStorage() -> [UnsafeRawBufferPointer] {
        var storage: [UnsafeRawBufferPointer] = []
        swap(&storage, &strings)
        storage.removeAll(keepingCapacity: true)
        return storage
    }

    /// The current event, owned.
    package var row: SessionTrace.Row {
        SessionTrace.Row(
            eventID: eventID, userID: userID.map(Array.init), seq: seq, kind: Array(kind),
            flowID: flowID.map(Array.init),
            flowVersion: flowVersion, stepID: stepID.map(Array.init), name: name.map(Array.init), occurred: occurred,
            sent: sent, received: received, properties: properties.map(Array.init))
    }

    /// Read inline, without checking for the end at every byte, where the longest number (ten
    /// bytes) fits before it: most do. The rest, and every error, in ``longVarint()``.
    @inline(__always)
    private mutating func varint() throws(TraceError) -> UInt64 {
        if bytes.count - position >= 10 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            var at = position
            repeat {
                let byte = bytes[at]
                at += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 {
                    position = at
                    return value
                }
                shift += 7
            } while shift < 64
        }
        return try longVarint()
    }

    private mutating func longVarint() throws(TraceError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            guard shift < 64 else { break }
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
        throw TraceError(.truncated, "a number past the end")
    }

    private mutating func length() throws(TraceError) -> Int {
        let value = try varint()
        guard value <= UInt64(bytes.count) else { throw TraceError(.truncated, "a count of \(value)") }
        return Int(value)
    }

    private mutating func signed() throws(TraceError) -> Int64 {
        let value = try varint()
        return Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
    }

    private mutating func int32() throws(TraceError) -> Int32 {
        let value = try signed()
        guard let narrow = Int32(exactly: value) else { throw TraceError(.truncated, "\(value) is no int4") }
        return narrow
    }

    private mutating func stringNumber() throws(TraceError) -> Int {
        let number = try varint()
        guard number <= UInt64(strings.count) else {
            throw TraceError(.badString, "string \(number) of \(strings.count)")
        }
        return Int(number)
    }
}
