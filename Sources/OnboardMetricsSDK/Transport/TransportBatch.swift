import Foundation

/// Events that ``HTTPTransport`` sends in one request, with their JSONL forms, which are made once
/// and reused for every (re)send of the batch.
package struct TransportBatch: Sendable {
    /// Bytes of the body around the events: `{"sent_at":"2026-11-23T12:00:00.123Z","events":[]}`.
    package static let envelopeBytes = 50

    /// The events, in queue order.
    package private(set) var events: [Event] = []
    /// Each event's `jsonLine` as UTF-8.
    package private(set) var lines: [[UInt8]] = []
    /// The size of the body this batch makes.
    package private(set) var bytes = envelopeBytes

    /// An empty batch.
    package init() {}

    /// Number of events.
    package var count: Int { events.count }
    /// Whether the batch holds no event.
    package var isEmpty: Bool { events.isEmpty }

    /// The size of the body after adding an event whose JSON line is `lineBytes` long.
    package func bytes(adding lineBytes: Int) -> Int {
        bytes + lineBytes + (events.isEmpty ? 0 : 1)
    }

    /// Adds an event with its JSON line.
    package mutating func append(_ event: Event, line: [UInt8]) {
        bytes = bytes(adding: line.count)
        events.append(event)
        lines.append(line)
    }

    /// The request body `{"sent_at":"…","events":[…]}`, stamped with `sentAt`.
    package func body(sentAt: Date) -> Data {
        var body: [UInt8] = []
        body.reserveCapacity(bytes)
        body += Array(#"{"sent_at":""#.utf8)
        Timestamp.append(milliseconds: Timestamp.milliseconds(sentAt), to: &body)
        body += Array(#"","events":["#.utf8)
        for (index, line) in lines.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body += line
        }
        body += Array("]}".utf8)
        return Data(body)
    }

    /// The first half (rounded up) and the rest, for a batch the server found too large.
    package func halves() -> (TransportBatch, TransportBatch) {
        let middle = (events.count + 1) / 2
        var first = TransportBatch()
        var second = TransportBatch()
        for index in events.indices {
            if index < middle {
                first.append(events[index], line: lines[index])
            } else {
                second.append(events[index], line: lines[index])
            }
        }
        return (first, second)
    }
}
