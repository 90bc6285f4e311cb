import Foundation

extension SessionTrace {
    /// Builds one session's trace row by row, from the columns' bytes as a COPY hands them over:
    /// the one encoder (``SessionTrace/encode(_:)`` runs owned rows through it). Copying every
    /// string of every row into arrays of its own and numbering them through a dictionary keyed
    /// by those arrays took most of the CPU of a trace rebuild.
    package struct Encoder {
        /// The trace's strings, one after another, and where each starts and ends.
        private var stringBytes: [UInt8] = []
        private var stringEnds: [Int] = []
        /// Numbers of the strings by a hash of their bytes, once there are too many for a scan.
        private var numbers: [UInt64: [Int]] = [:]
        private var body: [UInt8] = []
        private var previous: Int64 = 0
        /// Events appended so far.
        package private(set) var count = 0
        /// The first and last event ids appended.
        package private(set) var first: UUID?
        package private(set) var last: UUID?
        /// Whether an event id is not a UUIDv7.
        package private(set) var irregular = false

        /// Beyond this many strings a lookup hashes instead of scanning.
        private static let scanLimit = 24

        package init() {}

        /// Forgets the trace under way (keeping the buffers), for the next session.
        package mutating func reset() {
            stringBytes.removeAll(keepingCapacity: true)
            stringEnds.removeAll(keepingCapacity: true)
            numbers.removeAll()
            body.removeAll(keepingCapacity: true)
            previous = 0
            count = 0
            first = nil
            last = nil
            irregular = false
        }

        /// Appends an event, given in event-id order; fields as ``SessionTrace/Row`` describes them.
        package mutating func append(
            eventID: UUID, userID: UnsafeRawBufferPointer?, seq: Int32, kind: UnsafeRawBufferPointer,
            flowID: UnsafeRawBufferPointer?, flowVersion: Int32?, stepID: UnsafeRawBufferPointer?,
            name: UnsafeRawBufferPointer?, occurred: Int64, sent: Int64?, received: Int64?,
            properties: UnsafeRawBufferPointer?
        ) {
            // Numbered in the order the layout lists them, so numbers follow first use.
            let strings = (
                number(userID), number(kind), number(flowID), number(stepID), number(name), number(properties)
            )
            append(
                eventID: eventID, strings: strings, seq: seq, flowVersion: flowVersion, occurred: occurred, sent: sent,
                received: received)
        }

        /// Appends an owned row (``SessionTrace/encode(_:)``).
        package mutating func append(_ row: Row) {
            func owned(_ string: [UInt8]?) -> UInt64 {
                string.map { bytes in bytes.withUnsafeBytes { number($0) } } ?? 0
            }
            let strings = (
                owned(row.userID), owned(row.kind), owned(row.flowID), owned(row.stepID), owned(row.name),
                owned(row.properties)
            )
            append(
                eventID: row.eventID, strings: strings, seq: row.seq, flowVersion: row.flowVersion,
                occurred: row.occurred, sent: row.sent, received: row.received)
        }

        private mutating func append(
            eventID: UUID, strings: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64), seq: Int32, flowVersion: Int32?,
            occurred: Int64, sent: Int64?,
            received: Int64?
        ) {
            if first == nil { first = eventID }
            last = eventID
            if eventID.version7Milliseconds == nil { irregular = true }
            count += 1
            withUnsafeBytes(of: eventID.uuid) { body.append(contentsOf: $0) }
            let flags: UInt64 = (sent != nil ? 1 : 0) | (received != nil ? 2 : 0) | (flowVersion != nil ? 4 : 0)
            body.appendVarint(flags)
            body.appendVarint(strings.0)
            body.appendVarint(strings.1)
            body.appendVarint(strings.2)
            body.appendVarint(strings.3)
            body.appendVarint(strings.4)
            body.appendVarint(strings.5)
            body.appendSigned(Int64(seq))
            if let flowVersion { body.appendSigned(Int64(flowVersion)) }
            body.appendSigned(occurred &- previous)
            previous = occurred
            if let sent { body.appendSigned(sent &- occurred) }
            if let received { body.appendSigned(received &- occurred) }
        }

        /// The trace of the events appended.
        package var trace: [UInt8] {
            var trace: [UInt8] = [SessionTrace.version]
            trace.reserveCapacity(stringBytes.count + stringEnds.count * 2 + body.count + 16)
            trace.appendVarint(UInt64(stringEnds.count))
            var start = 0
            for end in stringEnds {
                trace.appendVarint(UInt64(end - start))
                trace.append(contentsOf: stringBytes[start..<end])
                start = end
            }
            trace.appendVarint(UInt64(count))
            trace.append(contentsOf: body)
            return trace
        }

        /// The string's number (1-based, 0 for NULL), numbered in order of first use, so the
        /// same rows always give the same bytes.
        private mutating func number(_ string: UnsafeRawBufferPointer?) -> UInt64 {
            guard let string else { return 0 }
            if stringEnds.count <= Self.scanLimit {
                if let found = scan(string) { return UInt64(found + 1) }
            } else {
                let hash = string.contentHash
                for candidate in numbers[hash, default: []] where equals(candidate, string) {
                    return UInt64(candidate + 1)
                }
                numbers[hash, default: []].append(stringEnds.count)
            }
            stringBytes.append(contentsOf: string)
            stringEnds.append(stringBytes.count)
            if stringEnds.count == Self.scanLimit + 1 {
                // From now on by hash: index the strings so far.
                for index in stringEnds.indices {
                    let hash = stringBytes[start(of: index)..<stringEnds[index]].withUnsafeBytes { $0.contentHash }
                    numbers[hash, default: []].append(index)
                }
            }
            return UInt64(stringEnds.count)
        }

        private func scan(_ string: UnsafeRawBufferPointer) -> Int? {
            for index in stringEnds.indices where equals(index, string) { return index }
            return nil
        }

        /// Where string `index` (0-based) starts in `stringBytes`.
        private func start(of index: Int) -> Int {
            index == 0 ? 0 : stringEnds[index - 1]
        }

        private func equals(_ index: Int, _ string: UnsafeRawBufferPointer) -> Bool {
            let first = start(of: index)
            guard stringEnds[index] - first == string.count else { return false }
            return stringBytes.withUnsafeBytes { bytes in
                guard let base = bytes.baseAddress, let other = string.baseAddress else { return string.isEmpty }
                return memcmp(base + first, other, string.count) == 0
            }
        }
    }
}
