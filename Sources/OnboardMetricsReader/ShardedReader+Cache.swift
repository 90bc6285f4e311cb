import Foundation

extension ShardedReader {
    /// The sessions a ``SessionCache`` keeps, read in `parts` shares side by side
    /// (as many as the reader has connections), each into a consumer of its own. Person links and
    /// the cohort are applied here, as ``TraceReader`` applies them while it decodes.
    func read<Consumer: SessionConsumer>(
        _ snapshot: SessionCache.Snapshot, parts: Int, progress: @escaping @Sendable (Int) -> Void,
        _ make: @escaping @Sendable () throws -> Consumer
    ) async throws -> [Consumer] {
        let sessions = snapshot.storage
        let runs = snapshot.runs
        let count = max(1, min(parts, sessions.count))
        let people = reader.people
        let cohort = reader.cohort
        let consumers = try await withThrowingTaskGroup(of: (Int, Consumer).self) { group in
            for part in 0..<count {
                group.addTask {
                    var consumer = try make()
                    // This share's part of the storage, where live.
                    let share = (sessions.count * part / count)..<(sessions.count * (part + 1) / count)
                    for run in runs where run.overlaps(share) {
                        let range = run.clamped(to: share)
                        if people == nil, cohort == nil {
                            try consumer.add(contentsOf: sessions[range])
                        } else {
                            for var session in sessions[range] {
                                if let people { session.userID = people.person(of: session.userID) }
                                guard cohort?.admits(session) ?? true else { continue }
                                try consumer.add(session)
                            }
                        }
                    }
                    return (part, consumer)
                }
            }
            var consumers: [Consumer?] = Array(repeating: nil, count: count)
            for try await (index, consumer) in group { consumers[index] = consumer }
            return consumers.compactMap { $0 }
        }
        progress(snapshot.events)
        return consumers
    }
}
