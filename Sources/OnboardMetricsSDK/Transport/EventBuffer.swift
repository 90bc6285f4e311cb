/// The transport's memory buffer: events in recording order, where dropping the oldest is O(1)
/// (an index moves; the storage is compacted once half of it is dropped), so that a full buffer
/// costs ``HTTPTransport/record(_:)`` no more than an empty one. A plain array's `removeFirst`
/// moved every buffered event on each call once the buffer was full (`scripts/bench-sdk.sh`:
/// 6 % of the run in `memmove`). Not thread-safe: the transport guards it with its lock.
struct EventBuffer {
    private var storage: [Event] = []
    /// Index of the oldest event kept; `storage[..<head]` were dropped.
    private var head = 0

    var count: Int { storage.count - head }
    var isEmpty: Bool { head == storage.count }

    mutating func append(contentsOf events: [Event]) {
        storage.append(contentsOf: events)
    }

    /// Puts events back before the oldest (a disk write that failed).
    mutating func prepend(contentsOf events: [Event]) {
        storage.replaceSubrange(..<head, with: events)
        head = 0
    }

    /// Drops the `count` oldest events.
    mutating func dropOldest(_ count: Int) {
        head = min(storage.count, head + max(0, count))
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1_024, head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
    }

    /// Every event, oldest first; the buffer is left empty.
    mutating func takeAll() -> [Event] {
        defer {
            storage = []
            head = 0
        }
        return head == 0 ? storage : Array(storage[head...])
    }
}
