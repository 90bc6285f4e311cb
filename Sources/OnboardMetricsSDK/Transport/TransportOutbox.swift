import Foundation

/// The on-disk queue of ``HTTPTransport``: events are appended to a ``Spool`` and sent from it in
/// order; a spool segment is deleted once every event in it is settled (accepted or rejected by
/// the server). Only the transport's worker thread uses it.
///
/// Sending is strictly sequential (one batch in flight, retries and split halves go first), so
/// events settle in queue order and a count from the front is enough to know which segments are
/// done. Memory holds at most about a batch plus one segment of events.
package final class TransportOutbox {
    private struct LoadedSegment {
        let name: String
        /// Events read from the segment's file.
        let count: Int
        /// Index in `window` just past the segment's last event.
        var end: Int
        /// Deleted by the spool's byte cap while loaded: its events are still sent from memory.
        var gone = false
    }

    private let spool: Spool
    /// Events of the loaded segments, in order; `window[..<settled]` are settled.
    private var window: [Event] = []
    private var settled = 0
    /// Next event of `window` not yet in a batch.
    private var cursor = 0
    private var loaded: [LoadedSegment] = []
    /// Batches taken but not settled (a failed attempt's, or halves of a too-large one), sent first.
    private var ready: [TransportBatch] = []
    /// Whether events were appended since the spool's active segment was last sealed.
    private var activeHasData = false

    /// Whether a batch was put back (a retry, or halves of a split one): it goes before anything else.
    package var hasPutBack: Bool { !ready.isEmpty }

    /// Wraps an open spool.
    package init(spool: Spool) {
        self.spool = spool
    }

    /// Counts the events an earlier owner of the folder left (reading every segment once).
    package func scanBacklog() -> Int {
        spool.sealActiveSegment()
        return spool.sealedSegments().reduce(0) { $0 + spool.read(segment: $1).events.count }
    }

    /// Appends events durably (one fsynced spool record).
    /// - Returns: events dropped for good because the spool went over its byte cap.
    /// - Throws: `RecorderError` `.spool` when the write fails.
    package func append(_ events: [Event]) throws -> Int {
        let dropped = try spool.append(events)
        activeHasData = true
        guard dropped > 0 else { return 0 }
        // Segments loaded into memory are still sent from there, so their events are not lost.
        var kept = 0
        for index in loaded.indices where !loaded[index].gone {
            guard !FileManager.default.fileExists(atPath: spool.directory + "/" + loaded[index].name) else { continue }
            loaded[index].gone = true
            kept += loaded[index].count
        }
        return max(0, dropped - kept)
    }

    /// The next batch to send: a retried or split one first, else up to `maximumCount` events and
    /// `maximumBytes` of body from the queue (always at least one event, however large).
    package func nextBatch(maximumCount: Int, maximumBytes: Int) -> TransportBatch? {
        if !ready.isEmpty { return ready.removeFirst() }
        load(atLeast: maximumCount)
        var batch = TransportBatch()
        while cursor < window.count, batch.count < maximumCount {
            var line: [UInt8] = []
            window[cursor].appendJSONLine(to: &line)
            if !batch.isEmpty, batch.bytes(adding: line.count) > maximumBytes { break }
            batch.append(window[cursor], line: line)
            cursor += 1
        }
        return batch.isEmpty ? nil : batch
    }

    /// Puts batches back at the front, to be sent before anything else (in the given order).
    package func putBack(_ batches: [TransportBatch]) {
        ready.insert(contentsOf: batches, at: 0)
    }

    /// Marks the oldest unsettled batch (the one just answered) settled; deletes finished segments.
    package func settle(_ batch: TransportBatch) {
        settled = min(settled + batch.count, window.count)
        while let first = loaded.first, first.end <= settled {
            if !first.gone { spool.remove(segment: first.name) }
            loaded.removeFirst()
        }
        // Drop settled events from memory; indices shift down.
        guard settled > 0 else { return }
        window.removeFirst(settled)
        cursor -= settled
        for index in loaded.indices { loaded[index].end -= settled }
        settled = 0
    }

    /// Closes the spool (sealing its active segment and releasing the folder's lock).
    package func close() {
        spool.close()
    }

    /// Reads segments into the window until it holds `count` unsent events or the spool is drained.
    private func load(atLeast count: Int) {
        while window.count - cursor < count {
            let loadedNames = Set(loaded.map(\.name))
            var next = spool.sealedSegments().first { !loadedNames.contains($0) }
            if next == nil, activeHasData {
                spool.sealActiveSegment()
                activeHasData = false
                next = spool.sealedSegments().first { !loadedNames.contains($0) }
            }
            guard let name = next else { return }
            let events = spool.read(segment: name).events
            if events.isEmpty {
                spool.remove(segment: name)
                continue
            }
            window += events
            loaded.append(LoadedSegment(name: name, count: events.count, end: window.count))
        }
    }
}
