/// Finds the events the database refuses for good in a batch it refused: the batch is written
/// again whole, then, while refused, split in halves until each refused event stands alone; every
/// part that is not refused is written.
/// A value the recorder's writer drives: it writes ``next`` and reports the outcome; the isolation
/// decides what to write next. No I/O here, so the rule is tested without a database.
///
/// A failure of the connection itself (a crash, a restart) refuses nothing: what is not written by
/// then is ``unsent`` and must wait, not be lost.
struct RefusalIsolation: Sendable, Hashable {
    /// How a write of a part went.
    enum Outcome: Sendable, Hashable {
        /// Written: events new and already stored.
        case written(inserted: Int, duplicates: Int)
        /// Refused for good (not a connection failure).
        case refused
        /// The connection failed: neither this part nor the rest is written.
        case connectionFailed
    }

    /// Parts still to write, as index ranges into the batch, the next first.
    private var pending: [Range<Int>]
    /// Events written new.
    private(set) var inserted = 0
    /// Events the database already had.
    private(set) var duplicates = 0
    /// Indexes of the events refused for good (each alone in its part).
    private(set) var refused: [Int] = []
    /// Indexes of the events not written because the connection failed on the way.
    private(set) var unsent: [Int] = []

    /// The isolation of a batch of `count` events that was refused.
    init(batchOf count: Int) {
        pending = count > 0 ? [0..<count] : []
    }

    /// The part to write next, or `nil` when the batch is done.
    var next: Range<Int>? { pending.first }

    /// Records how ``next`` went.
    mutating func record(_ outcome: Outcome) {
        guard let part = pending.first else { return }
        pending.removeFirst()
        switch outcome {
        case .written(let new, let repeated):
            inserted += new
            duplicates += repeated
        case .refused:
            if part.count == 1 {
                refused.append(part.lowerBound)
            } else {
                pending.insert(contentsOf: Self.halves(part), at: 0)
            }
        case .connectionFailed:
            unsent += Array(part) + pending.flatMap { Array($0) }
            pending = []
        }
    }

    private static func halves(_ part: Range<Int>) -> [Range<Int>] {
        let middle = part.lowerBound + part.count / 2
        return [part.lowerBound..<middle, middle..<part.upperBound]
    }
}
