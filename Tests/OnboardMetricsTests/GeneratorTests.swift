import Foundation
import Testing

@testable import OnboardMetricsGeneration
@testable import OnboardMetricsSDK

@Suite struct GeneratorTests {
    /// Tolerance for an observed share of `n` trials with true probability `p`: 4.5 binomial
    /// standard errors, so a correct generator fails a given check about once in 150 000 runs.
    static func tolerance(_ p: Double, _ n: Int) -> Double {
        4.5 * (p * (1 - p) / Double(max(n, 1))).squareRoot()
    }

    static func bytes(_ scenario: Scenario, sessions: Int, seed: UInt64) throws -> [UInt8] {
        let generator = try SyntheticGenerator(scenario: scenario, seed: seed)
        var output: [UInt8] = []
        _ = try generator.run(sessions: sessions) { output += $0 }
        return output
    }

    static func clean(_ scenario: Scenario, inProgress: Bool = false) -> Scenario {
        var copy = scenario
        copy.model.faults = .none
        if !inProgress { copy.model.timing.inProgressShare = 0 }
        return copy
    }

    @Test(arguments: Scenario.all.map(\.name))
    func sameSeedSameBytes(name: String) throws {
        let scenario = try #require(Scenario.named(name))
        let first = try Self.bytes(scenario, sessions: 300, seed: 42)
        let second = try Self.bytes(scenario, sessions: 300, seed: 42)
        let other = try Self.bytes(scenario, sessions: 300, seed: 43)
        #expect(first == second)
        #expect(first != other)
        #expect(!first.isEmpty)
    }

    @Test(arguments: Scenario.all.map(\.name))
    func linesDecodeAndSessionsReplayWithoutDeviations(name: String) throws {
        let scenario = Self.clean(try #require(Scenario.named(name)), inProgress: true)
        let generator = try SyntheticGenerator(scenario: scenario, seed: 9)
        var output: [UInt8] = []
        let summary = try generator.run(sessions: 400) { output += $0 }
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == summary.lines)
        var bySession: [UUID: [Event]] = [:]
        var ids = Set<UUID>()
        for line in lines {
            let event = try Event.decode(jsonLine: line)
            #expect(event.jsonLine == String(line), "JSONL is not canonical")
            #expect(ids.insert(event.eventID).inserted)
            #expect(event.eventID.uuidString.dropFirst(14).first == "7", "not a UUIDv7")
            bySession[event.sessionID, default: []].append(event)
        }
        #expect(bySession.count == 400)
        let catalog = try FlowCatalog(scenario.flows)
        for (_, events) in bySession {
            #expect(events.map(\.seq) == Array(1...events.count))
            #expect(zip(events, events.dropFirst()).allSatisfy { $0.eventID.uuidString < $1.eventID.uuidString })
            let start = try #require(events.first)
            #expect(start.kind == .sessionStarted)
            guard let context = start.sessionContext, let flow = catalog[start.flowID ?? ""] else {
                Issue.record("session_started without context or flow")
                continue
            }
            var navigator = FlowNavigator(flow: flow, catalog: catalog, context: context)
            let deviations = navigator.observe(contentsOf: events.map(\.draft))
            #expect(deviations.isEmpty, "\(deviations)")
            #expect(events.allSatisfy { $0.occurredAt < generator.periodEndDate })
        }
    }

    @Test func workersDoNotChangeTheBytes() throws {
        let generator = try SyntheticGenerator(scenario: Scenario.healthStudy, seed: 8)
        var one: [UInt8] = []
        var three: [UInt8] = []
        _ = try generator.run(sessions: 2000, workers: 1) { one += $0 }
        _ = try generator.run(sessions: 2000, workers: 3) { three += $0 }
        #expect(one == three)
    }

    @Test func sessionsCanBeRegeneratedAlone() throws {
        let generator = try SyntheticGenerator(scenario: Self.clean(Scenario.modularLogin), seed: 5)
        var output: [UInt8] = []
        _ = try generator.run(sessions: 50) { output += $0 }
        let fromRun = String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
        let alone = (0..<50).flatMap { generator.session($0).events.map(\.jsonLine) }
        #expect(fromRun == alone)
    }

    /// For every step of the health study: among sessions that viewed it, the share that dropped
    /// there and the share that skipped it match the model for the session's platform and variant.
    @Test func stepOutcomesMatchTheModel() throws {
        let scenario = Self.clean(Scenario.healthStudy)
        let generator = try SyntheticGenerator(scenario: scenario, seed: 2026)
        let model = scenario.model
        let experiment = try #require(model.experiment)
        struct Tally {
            var viewed = 0, dropped = 0, skipped = 0
            var jumped = 0, continued = 0
        }
        var tallies: [String: Tally] = [:]
        var variants: [String: Int] = [:]
        var ineligibleViews = 0
        let sessions = 8_000
        for index in 0..<sessions {
            let session = generator.session(index)
            guard case .object(let context)? = session.events.first?.properties["context"] else { continue }
            let platform = context["platform"]?.stringValue ?? "?"
            let variant = session.variant ?? "none"
            variants[variant, default: 0] += 1
            for step in ExampleFlows.healthStudy.steps {
                let views = session.events.filter { $0.kind == .stepViewed && $0.stepID == step.id }
                guard !views.isEmpty else { continue }
                if !step.applies(to: context) { ineligibleViews += 1 }
                let decision = session.events.first {
                    ($0.kind == .stepCompleted || $0.kind == .stepSkipped) && $0.stepID == step.id
                }
                let key = "\(step.id)|\(platform)|\(variant)"
                tallies[key, default: Tally()].viewed += 1
                switch decision?.kind {
                case nil: tallies[key, default: Tally()].dropped += 1
                case .stepSkipped?: tallies[key, default: Tally()].skipped += 1
                default:
                    tallies[key, default: Tally()].continued += 1
                    if decision?.properties["via"] == "jump" { tallies[key, default: Tally()].jumped += 1 }
                }
            }
        }
        #expect(ineligibleViews == 0)
        var checked = 0
        for (key, tally) in tallies {
            let parts = key.split(separator: "|").map(String.init)
            let behaviour = model.behaviour(flow: "health-study", step: parts[0])
            var (drop, skip) = behaviour.probabilities(for: ["platform": .string(parts[1])])
            if let index = experiment.variants.firstIndex(of: parts[2]), experiment.step == parts[0] {
                drop += experiment.dropDelta[index]
            }
            let skippable = ExampleFlows.healthStudy.step(parts[0])?.skippable ?? false
            let dropRate = Double(tally.dropped) / Double(tally.viewed)
            #expect(abs(dropRate - drop) <= Self.tolerance(drop, tally.viewed), "drop \(key): \(dropRate) vs \(drop)")
            let expectedSkip = skippable ? skip : 0
            let skipRate = Double(tally.skipped) / Double(tally.viewed)
            #expect(
                abs(skipRate - expectedSkip) <= Self.tolerance(expectedSkip, tally.viewed),
                "skip \(key): \(skipRate) vs \(expectedSkip)")
            for (_, p) in behaviour.jumps {
                let jumpRate = Double(tally.jumped) / Double(tally.continued)
                #expect(abs(jumpRate - p) <= Self.tolerance(p, tally.continued), "jump \(key): \(jumpRate) vs \(p)")
            }
            checked += 1
        }
        #expect(checked >= 30)
        let treated = Double(variants["short-copy", default: 0]) / Double(sessions)
        #expect(abs(treated - 0.5) <= Self.tolerance(0.5, sessions))
    }

    /// Conditional steps: a step is viewed by exactly the sessions whose context satisfies its
    /// condition (among those that got that far), in the proportion the context model implies.
    @Test func conditionalStepsFollowTheContextModel() throws {
        let scenario = Self.clean(Scenario.modularLogin)
        let generator = try SyntheticGenerator(scenario: scenario, seed: 31)
        let mfaShare = try #require(scenario.model.context.first { $0.name == "mfaEnabled" })
        let p = mfaShare.weights[0] / mfaShare.weights.reduce(0, +)
        var reached = 0
        var viewed = 0
        for index in 0..<6_000 {
            let session = generator.session(index)
            guard case .object(let context)? = session.events.first?.properties["context"] else { continue }
            let completedCredentials = session.events.contains {
                $0.kind == .stepCompleted && $0.stepID == "credentials"
            }
            let sawTwoFactor = session.events.contains { $0.kind == .stepViewed && $0.stepID == "two-factor" }
            #expect(!sawTwoFactor || context["mfaEnabled"] == true)
            if completedCredentials {
                reached += 1
                if sawTwoFactor { viewed += 1 }
                #expect(sawTwoFactor == (context["mfaEnabled"] == true))
            }
        }
        let share = Double(viewed) / Double(reached)
        #expect(abs(share - p) <= Self.tolerance(p, reached), "\(share) vs \(p)")
    }

    /// Sessions started in the in-progress window before the end of the period are as frequent
    /// as the model says, and nothing is recorded after the end.
    @Test func inProgressShareMatchesTheModel() throws {
        let scenario = Self.clean(Scenario.healthStudy, inProgress: true)
        let generator = try SyntheticGenerator(scenario: scenario, seed: 12)
        let timing = scenario.model.timing
        let windowStart = generator.periodEndDate.addingTimeInterval(-timing.inProgressMinutes * 60)
        let sessions = 8_000
        var late = 0
        var cut = 0
        for index in 0..<sessions {
            let session = generator.session(index)
            let start = try #require(session.events.first?.occurredAt)
            if start >= windowStart { late += 1 }
            if session.inProgress {
                cut += 1
                #expect(start >= windowStart)
                #expect(!session.completed)
            }
            #expect(session.events.allSatisfy { $0.occurredAt < generator.periodEndDate })
        }
        let share = Double(late) / Double(sessions)
        #expect(abs(share - timing.inProgressShare) <= Self.tolerance(timing.inProgressShare, sessions))
        #expect(cut > 0 && cut <= late)
    }

    @Test func highlightReasonsAndShowingsMatchTheModel() throws {
        let scenario = Self.clean(Scenario.spotlight)
        let generator = try SyntheticGenerator(scenario: scenario, seed: 77)
        var viewedSpotlight = 0
        var shown: [String: Int] = [:]
        var reasons: [String: [String: Int]] = [:]
        var useAfterAction = (trials: 0, used: 0)
        for index in 0..<6_000 {
            let events = generator.session(index).events
            if events.contains(where: { $0.kind == .stepViewed && $0.stepID == "spotlight" }) { viewedSpotlight += 1 }
            let knew = Set(
                events.prefix { $0.kind != .highlightShown }.filter { $0.kind == .featureUsed }.compactMap(\.name))
            for event in events where event.kind == .highlightShown { shown[event.name ?? "", default: 0] += 1 }
            for event in events where event.kind == .highlightDismissed {
                let reason = event.properties["reason"]?.stringValue ?? "?"
                reasons[event.name ?? "", default: [:]][reason, default: 0] += 1
                if event.name == "share-button", reason == "actionPerformed", !knew.contains("share") {
                    useAfterAction.trials += 1
                    if events.contains(where: { $0.kind == .featureUsed && $0.name == "share" && $0.seq > event.seq }) {
                        useAfterAction.used += 1
                    }
                }
            }
        }
        for behaviour in scenario.model.highlights {
            let count = shown[behaviour.highlight, default: 0]
            let showRate = Double(count) / Double(viewedSpotlight)
            #expect(abs(showRate - behaviour.show) <= Self.tolerance(behaviour.show, viewedSpotlight))
            let total = behaviour.reasons.values.reduce(0, +)
            for (reason, weight) in behaviour.reasons {
                let p = weight / total
                let observed = Double(reasons[behaviour.highlight]?[reason] ?? 0) / Double(count)
                #expect(abs(observed - p) <= Self.tolerance(p, count), "\(behaviour.highlight) \(reason)")
            }
        }
        let p = scenario.model.highlights[0].useAfter["actionPerformed"] ?? 0
        let rate = Double(useAfterAction.used) / Double(useAfterAction.trials)
        #expect(abs(rate - p) <= Self.tolerance(p, useAfterAction.trials))
    }

    @Test func faultsAndInProgressSharesMatchTheModel() throws {
        let scenario = Scenario.boardCreation
        let generator = try SyntheticGenerator(scenario: scenario, seed: 11)
        var output: [UInt8] = []
        let sessions = 6_000
        let summary = try generator.run(sessions: sessions) { output += $0 }
        #expect(summary.sessions == sessions)
        let faults = scenario.model.faults
        var seen = Set<Substring>()
        var duplicates = 0
        var late = 0
        var lastSeq: [Substring: Int] = [:]
        var swapped = Set<Substring>()
        var lines = 0
        for line in String(decoding: output, as: UTF8.self).split(separator: "\n") {
            lines += 1
            // Cheap field extraction: the format puts event_id, session_id and seq first.
            let eventID = line.dropFirst(13).prefix(36)
            let sessionID = line.dropFirst(65).prefix(36)
            if !seen.insert(eventID).inserted {
                duplicates += 1
                continue
            }
            // Field extraction by hand: JSONDecoder on every line is slow in debug builds.
            let occurred = try #require(Timestamp.parse(String(try Self.field("occurred_at", in: line))))
            let sent = try #require(Timestamp.parse(String(try Self.field("sent_at", in: line))))
            if sent.timeIntervalSince(occurred) >= 3600 {
                late += 1
                continue
            }
            let seq = try #require(Int(try Self.field("seq", in: line)))
            if let previous = lastSeq[sessionID], seq < previous { swapped.insert(sessionID) }
            lastSeq[sessionID] = seq
        }
        #expect(lines == summary.lines)
        #expect(duplicates == summary.duplicates)
        #expect(late == summary.lateEvents)
        #expect(swapped.count <= summary.outOfOrderSessions)
        let events = summary.events
        #expect(abs(Double(duplicates) / Double(events) - faults.duplicate) <= Self.tolerance(faults.duplicate, events))
        #expect(abs(Double(late) / Double(events) - faults.late) <= Self.tolerance(faults.late, events))
        let outOfOrder = Double(summary.outOfOrderSessions) / Double(sessions)
        #expect(abs(outOfOrder - faults.outOfOrder) <= Self.tolerance(faults.outOfOrder, sessions))
        let skewed = Double(summary.skewedSessions) / Double(sessions)
        #expect(abs(skewed - faults.clockSkew) <= Self.tolerance(faults.clockSkew, sessions))
        // In-progress sessions are those started in the window before the end; only some of them
        // are still running at the end, so the cut-off count is at most that share.
        let share = scenario.model.timing.inProgressShare
        let inProgress = Double(summary.inProgressSessions) / Double(sessions)
        #expect(inProgress > 0)
        #expect(inProgress <= share + Self.tolerance(share, sessions))
    }

    /// The value of `key` in a line of the JSONL format (string values without quotes).
    static func field(_ key: String, in line: Substring) throws -> Substring {
        let range = try #require(line.firstRange(of: "\"\(key)\":"))
        var value = line[range.upperBound...]
        if value.first == "\"" {
            value = value.dropFirst()
            return value.prefix { $0 != "\"" }
        }
        return value.prefix { $0 != "," && $0 != "}" }
    }

    @Test func skewCorrectionRecoversTrueTime() throws {
        var scenario = Self.clean(Scenario.enterprise)
        scenario.model.faults.clockSkew = 1
        let skewed = try SyntheticGenerator(scenario: scenario, seed: 3).session(0)
        #expect(skewed.skewed)
        // received - (sent - occurred) undoes the client's clock offset: the shift from the
        // client time is the skew (at least a minute) up to network latency (under 0.5 s).
        let shifts = skewed.events.map { $0.correctedTime.timeIntervalSince($0.occurredAt) }
        let smallest = try #require(shifts.min())
        let largest = try #require(shifts.max())
        #expect(largest - smallest < 0.5)
        #expect(abs(smallest) >= 59.5)
        let plain = try SyntheticGenerator(scenario: Self.clean(Scenario.enterprise), seed: 3).session(0)
        #expect(!plain.skewed)
        #expect(plain.events.allSatisfy { (0..<0.5).contains($0.correctedTime.timeIntervalSince($0.occurredAt)) })
    }

    @Test func parametersFileRoundTrips() throws {
        let generator = try SyntheticGenerator(scenario: Scenario.spotlight, seed: 1)
        let summary = try generator.run(sessions: 100) { _ in }
        let data = try generator.report(sessions: 100, summary: summary).jsonData()
        let decoded = try JSONDecoder().decode(GenerationReport.self, from: data)
        #expect(decoded.model == Scenario.spotlight.model)
        #expect(decoded.summary == summary)
        #expect(decoded.periodEnd == "2026-02-02T00:00:00.000Z")
    }
}
