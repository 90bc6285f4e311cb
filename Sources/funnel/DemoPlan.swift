import Foundation
import Logging
import NIOConcurrencyHelpers
import OnboardMetrics

/// What `funnel demo` records: per scenario, a generator and a number of sessions.
struct DemoPlan: Sendable {
    struct Part: Sendable {
        var generator: SyntheticGenerator
        var sessions: Int
    }

    let parts: [Part]
    var total: Int { parts.reduce(0) { $0 + $1.sessions } }
    /// The end of the generated period (the latest over the scenarios): what the reports are as of.
    var periodEnd: Date { parts.map(\.generator.periodEndDate).max() ?? Date() }

    init(sessions: Int, seed: UInt64, shares: [(scenario: Scenario, share: Double)]) throws {
        var parts: [Part] = []
        var left = sessions
        for (index, entry) in shares.enumerated() {
            // The last scenario takes the rounding rest, so the parts add up to `sessions`.
            let count = index == shares.count - 1 ? left : max(1, Int((Double(sessions) * entry.share).rounded()))
            left -= count
            parts.append(Part(generator: try SyntheticGenerator(scenario: entry.scenario, seed: seed), sessions: count))
        }
        self.parts = parts
    }

    /// Session `index` of a part, its users named after the scenario so that scenarios do not
    /// share users.
    func events(part: Part, index: Int) -> [Event] {
        let prefix = part.generator.scenario.name + "-"
        return part.generator.session(index).events.map { event in
            var event = event
            event.userID = prefix + event.userID
            return event
        }
    }

    /// Stores every scenario's flows, so `funnel report --flow health-study` finds them, and its
    /// experiment's variants, so `funnel dashboard` lists it and opens `/experiments/KEY`.
    func storeFlows(on connection: PostgresConnection) throws {
        for flow in parts.flatMap(\.generator.scenario.flows) { try FlowStore().save(flow, on: connection) }
        for experiment in parts.compactMap(\.generator.scenario.model.experiment) {
            try ExperimentStore().save(
                ExperimentDefinition(key: experiment.key, variants: experiment.variants, weights: experiment.weights),
                on: connection)
        }
    }

    /// Whether the last session of every part is in the database. They are recorded after
    /// everything else has been committed, so their presence means the whole data set is.
    func isRecorded(on connection: PostgresConnection) throws -> Bool {
        for part in parts {
            guard let marker = events(part: part, index: part.sessions - 1).first else { continue }
            if try !EventStore().containsSession(marker.sessionID, on: connection) { return false }
        }
        return true
    }

    /// Generates and records every session through an `EventRecorder`, the parts' last sessions
    /// last; `progress` gets the sessions done so far.
    func record(into configuration: PostgresConfiguration, progress: @escaping @Sendable (Int) -> Void)
        async throws -> EventRecorder.Counters
    {
        var settings = EventRecorder.Configuration(database: configuration)
        // The demo can always regenerate its data: a spool would only leave files behind.
        settings.spoolDirectory = nil
        settings.batchSize = 10_000
        settings.logger.logLevel = .critical  // the demo reports what matters itself
        let recorder = try EventRecorder(configuration: settings)
        let plan = self
        let total = total
        return try await recorder.withRunning {
            try await Self.record(plan, into: recorder, progress: progress)
            progress(total)
        }.1
    }

    private static func record(
        _ plan: DemoPlan, into recorder: EventRecorder, progress: @escaping @Sendable (Int) -> Void
    ) async throws {
        let done = Counter()
        let workers = ProcessInfo.processInfo.activeProcessorCount
        for part in plan.parts {
            let block = 1_000
            let blocks = (part.sessions - 1 + block - 1) / block
            // Sessions are generated on every core, each worker a BlockingIO call (record() waits
            // when the recorder's queue is full); the recorder takes events from any thread.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<max(1, workers) {
                    group.addTask {
                        try await BlockingIO.run {
                            for number in stride(from: worker, to: blocks, by: max(1, workers)) {
                                let range = (number * block)..<min(part.sessions - 1, (number + 1) * block)
                                for index in range {
                                    for event in plan.events(part: part, index: index) { try recorder.record(event) }
                                }
                                progress(done.add(range.count))
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        await recorder.flush()
        try await BlockingIO.run {
            for part in plan.parts {
                for event in plan.events(part: part, index: part.sessions - 1) { try recorder.record(event) }
            }
        }
    }
}

/// A running count of sessions done, over the workers.
private struct Counter: Sendable {
    private let done = NIOLockedValueBox(0)

    func add(_ amount: Int) -> Int {
        done.withLockedValue { done in
            done += amount
            return done
        }
    }
}
