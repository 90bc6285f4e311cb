import Foundation
import Testing

@testable import OnboardMetricsAnalysis
@testable import OnboardMetricsReader
@testable import OnboardMetricsRendering
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStatistics

/// Retention after onboarding: hand-built people with the counts worked out in comments, and
/// random people checked against a reference written apart from the aggregator.
@Suite struct RetentionReportTests {
    static let flow = FlowDefinition(id: "study", version: 1, steps: [Step("welcome"), Step("done")])
    static let t0: Int64 = 1_790_000_000_000_000  // µs since 1970
    static let hour: Int64 = 3_600_000_000
    static let day: Int64 = 24 * hour

    /// An onboarding session of `study` at `start`: views welcome; completes the flow when asked.
    static func onboarding(_ number: Int, user: String, start: Int64, completes: Bool, version: Int = 1)
        -> RecordedSession
    {
        var events = [
            RecordedEvent(kind: .sessionStarted, flowID: "study", flowVersion: version, time: start, seq: 0),
            RecordedEvent(
                kind: .stepViewed, flowID: "study", flowVersion: version, stepID: "welcome", time: start + 1_000_000,
                seq: 1),
        ]
        if completes {
            events.append(
                RecordedEvent(
                    kind: .stepCompleted, flowID: "study", flowVersion: version, stepID: "welcome",
                    time: start + 2_000_000, seq: 2))
            events.append(
                RecordedEvent(
                    kind: .flowCompleted, flowID: "study", flowVersion: version, time: start + 3_000_000, seq: 3))
        }
        return RecordedSession(
            sessionID: id(number), userID: user, flowID: "study", flowVersion: version, context: [:], events: events)
    }

    /// A session outside any flow with one custom event at each time.
    static func activity(_ number: Int, user: String, at times: [Int64], flowID: String? = nil) -> RecordedSession {
        RecordedSession(
            sessionID: id(number), userID: user, flowID: flowID, flowVersion: nil, context: [:],
            events: times.enumerated().map { index, time in
                RecordedEvent(kind: .custom, flowID: flowID, name: "opened", time: time, seq: index)
            })
    }

    static func id(_ number: Int) -> UUID {
        UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", number)) ?? UUID()
    }

    static let handBuilt: [RecordedSession] = [
        // A completes at t0; active a day and an hour later (day 1) and exactly 7 days later (day 7).
        onboarding(1, user: "A", start: t0, completes: true),
        activity(2, user: "A", at: [t0 + day + hour, t0 + 7 * day]),
        // B drops at t0 + 1h; active exactly 2 days after its start: day 2, not day 1.
        onboarding(3, user: "B", start: t0 + hour, completes: false),
        activity(4, user: "B", at: [t0 + hour + 2 * day]),
        // C drops at t0 + 9d: with the data ending at t0 + 10d only day 0 is observed whole.
        onboarding(5, user: "C", start: t0 + 9 * day, completes: false),
        // D drops at t0, comes back at t0 + 3h and completes; active at t0 + 1d + 30m.
        onboarding(6, user: "D", start: t0, completes: false),
        onboarding(7, user: "D", start: t0 + 3 * hour, completes: true),
        activity(8, user: "D", at: [t0 + day + 30 * 60_000_000]),
        // E only ever ran another flow: not a unit.
        activity(9, user: "E", at: [t0, t0 + day], flowID: "other"),
    ]

    static func options(_ unit: FunnelOptions.Unit, days: [Int] = [0, 1, 7]) -> RetentionOptions {
        var options = RetentionOptions()
        options.unit = unit
        options.days = days
        options.until = Date(timeIntervalSince1970: Double(t0 + 10 * day) / 1_000_000)
        return options
    }

    static func counts(_ report: RetentionReport) -> [String: [[Int]]] {
        Dictionary(
            uniqueKeysWithValues: report.groups.map { group in
                (group.group, group.days.map { [$0.eligible, $0.retained] })
            })
    }

    @Test func perUserCountsFollowTheDefinition() throws {
        let report = try RetentionAggregator(flow: Self.flow, options: Self.options(.user), now: Date())
            .report(of: Self.handBuilt)
        #expect(report.units == 4)
        #expect(report.groups.map(\.group) == ["completed", "dropped"])
        // completed: A and D, both from t0 (D's first session; its second completed it).
        //   day 0: 2/2; day 1: A (t0+1d+1h), D (t0+1d+30m) 2/2; day 7: A only (t0+7d, inclusive) 1/2.
        // dropped: B (t0+1h) and C (t0+9d).
        //   day 0: both observed (10d - 9d = 1d), both active 2/2; day 1: B only observed, not active
        //   (its event is at start + 2d) 0/1; day 7: B 0/1.
        #expect(
            Self.counts(report) == ["completed": [[2, 2], [2, 2], [2, 1]], "dropped": [[2, 2], [1, 0], [1, 0]]])
        let day1 = try #require(report.differences.first { $0.day == 1 })
        #expect(day1.group == "completed" && day1.reference == "dropped")
        #expect(day1.difference == 1.0)
        // Newcombe's interval of 2/2 - 0/1 from the two Wilson intervals (z = 1.959964):
        // Wilson(2/2) = [0.342380, 1], Wilson(0/1) = [0, 0.793451];
        // lower = 1 - sqrt((1 - 0.342372)^2 + (0.793450 - 0)^2) = -0.030547, upper = 1.
        let interval = try #require(day1.interval)
        #expect(abs(interval.lower - -0.030547) < 1e-5)
        #expect(abs(interval.upper - 1) < 1e-9)
        #expect(report.dataEnd == Self.options(.user).until)
    }

    @Test func perSessionEveryOnboardingStartsItsOwnClock() throws {
        let report = try RetentionAggregator(flow: Self.flow, options: Self.options(.session), now: Date())
            .report(of: Self.handBuilt)
        #expect(report.units == 5)
        // completed: A (t0), D's second (t0+3h). day 1 of D's second is [t0+1d+3h, t0+2d+3h): its
        //   event at t0+1d+30m is day 0. day 0 2/2, day 1 1/2, day 7 1/2.
        // dropped: B, C, D's first (t0). day 0 3/3; day 1: B no, C unobserved, D's first yes: 1/2;
        //   day 7: B no, D's first no: 0/2.
        #expect(
            Self.counts(report) == ["completed": [[2, 2], [2, 1], [2, 1]], "dropped": [[3, 3], [2, 1], [2, 0]]])
    }

    @Test func groupsByVariantAndVersion() throws {
        var options = Self.options(.user)
        options.grouping = .variant("copy")
        let exposed = RecordedSession(
            sessionID: Self.id(20), userID: "A", flowID: nil, flowVersion: nil, context: [:],
            events: [
                RecordedEvent(
                    kind: .experimentExposure, name: "copy", time: Self.t0 - Self.hour, seq: 0,
                    properties: ["variant": .string("short")])
            ])
        let byVariant = try RetentionAggregator(flow: Self.flow, options: options, now: Date())
            .report(of: Self.handBuilt + [exposed])
        #expect(byVariant.groups.map(\.group) == ["(not exposed)", "short"])
        #expect(byVariant.groups.map(\.units) == [3, 1])
        options.grouping = .flowVersion
        let versions = try RetentionAggregator(flow: Self.flow, options: options, now: Date())
            .report(of: Self.handBuilt + [Self.onboarding(21, user: "F", start: Self.t0, completes: true, version: 10)])
        // Numbers sort as numbers: 1 before 10; the lowest version is the reference.
        #expect(versions.groups.map(\.group) == ["1", "10"])
        #expect(versions.differences.allSatisfy { $0.reference == "1" })
    }

    /// Two sessions of one person exposed at the same microsecond to different variants: the
    /// person's variant is the smaller name, whichever session is read first and whichever part
    /// reads it (the parts number variants in the order they meet them).
    @Test func aTiedExposureGoesToTheSmallerVariantInAnyOrder() throws {
        var options = Self.options(.user)
        options.grouping = .variant("copy")
        let exposures = ["short", "long"].enumerated().map { index, variant in
            RecordedSession(
                sessionID: Self.id(30 + index), userID: "A", flowID: nil, flowVersion: nil, context: [:],
                events: [
                    RecordedEvent(
                        kind: .experimentExposure, name: "copy", time: Self.t0 - Self.hour, seq: 0,
                        properties: ["variant": .string(variant)])
                ])
        }
        let onboarding = Self.onboarding(1, user: "A", start: Self.t0, completes: true)
        let aggregator = RetentionAggregator(flow: Self.flow, options: options, now: Date())
        for order in [exposures, exposures.reversed()] {
            let whole = try aggregator.report(of: [onboarding] + order)
            #expect(whole.groups.map(\.group) == ["long"])
            // Each part numbers its own variant 0 and the other's 1 once merged.
            var first = aggregator
            first.add(order[0])
            first.add(onboarding)
            var second = aggregator
            second.add(order[1])
            first.merge(second)
            #expect(try first.report().groups.map(\.group) == ["long"])
        }
    }

    /// A reference written apart from the aggregator: per person the earliest onboarding start,
    /// completed when any of their onboarding sessions holds `flow_completed`, day N from
    /// floor((t - start) / day) over every event of theirs.
    static func reference(_ sessions: [RecordedSession], options: RetentionOptions) -> [String: [[Int]]] {
        let until = Int64((options.until ?? .distantFuture).timeIntervalSince1970 * 1_000_000)
        var starts: [String: Int64] = [:]
        var completed: Set<String> = []
        var times: [String: [Int64]] = [:]
        for session in sessions {
            times[session.userID, default: []] += session.events.map(\.time)
            guard session.flowID == "study", let first = session.events.first, first.time < until else { continue }
            starts[session.userID] = min(starts[session.userID] ?? .max, first.time)
            if session.events.contains(where: { $0.kind == .flowCompleted }) { completed.insert(session.userID) }
        }
        var result: [String: [[Int]]] = [:]
        for (user, start) in starts {
            let group = completed.contains(user) ? "completed" : "dropped"
            var row = result[group] ?? options.days.map { _ in [0, 0] }
            for (index, day) in options.days.enumerated() where until - start >= Int64(day + 1) * Self.day {
                row[index][0] += 1
                let active = (times[user] ?? []).contains { $0 >= start && ($0 - start) / Self.day == Int64(day) }
                if active { row[index][1] += 1 }
            }
            result[group] = row
        }
        return result
    }

    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func randomPeopleMatchTheReferenceAndMergeExactly(seed: UInt64) throws {
        var random = Xoshiro256StarStar(seed: seed)
        var sessions: [RecordedSession] = []
        var number = 100
        for person in 0..<80 {
            let user = "p\(person)"
            for _ in 0..<Int.random(in: 0...2, using: &random) {
                number += 1
                // Onboarding in the first 20 days, a few seconds long: never in progress at the end.
                let start = Self.t0 + Int64.random(in: 0..<(20 * Self.day), using: &random)
                sessions.append(
                    Self.onboarding(number, user: user, start: start, completes: Bool.random(using: &random)))
            }
            for _ in 0..<Int.random(in: 0...6, using: &random) {
                number += 1
                let times = (0..<Int.random(in: 1...3, using: &random)).map { _ in
                    Self.t0 + Int64.random(in: 0..<(40 * Self.day), using: &random)
                }.sorted()
                sessions.append(Self.activity(number, user: user, at: times))
            }
        }
        var options = Self.options(.user, days: [0, 1, 2, 7, 14, 30])
        options.until = Date(timeIntervalSince1970: Double(Self.t0 + 40 * Self.day) / 1_000_000)
        let aggregator = RetentionAggregator(flow: Self.flow, options: options, now: Date())
        let whole = try aggregator.report(of: sessions)
        #expect(Self.counts(whole) == Self.reference(sessions, options: options))
        #expect(whole.units > 20)
        // Three parts in a shuffled order, merged, give the same report.
        var parts = [aggregator, aggregator, aggregator]
        for session in sessions.shuffled(using: &random) { parts[Int.random(in: 0..<3, using: &random)].add(session) }
        var merged = parts[2]
        merged.merge(parts[0])
        merged.merge(parts[1])
        #expect(try merged.report() == whole)
    }

    /// The times kept of a session answer every one-day lookup as all its times do: sessions
    /// of up to 12 events, unordered, whose first and last lie exactly a second to two days apart
    /// (a day and a microsecond among them), windows from before the session to after it, edges
    /// included.
    @Test func theTimesKeptOfASessionFindActivityAsAllItsTimes() {
        var random = Xoshiro256StarStar(seed: 9)
        var pruned = 0
        for _ in 0..<3_000 {
            let span =
                [Self.hour / 3_600, Self.hour, Self.day - 1, Self.day, Self.day + 1, 2 * Self.day]
                .randomElement(using: &random) ?? Self.day
            let inside = (0..<Int.random(in: 0...10, using: &random)).map { _ in
                Self.t0 + Int64.random(in: 0...span, using: &random)
            }
            let events = ([Self.t0 + span, Self.t0] + inside).shuffled(using: &random).enumerated().map {
                RecordedEvent(kind: .custom, time: $1, seq: $0)
            }
            var all = RetentionAggregator.Person()
            all.times = events.map(\.time).sorted()
            var kept = RetentionAggregator.Person()
            kept.times = RetentionAggregator.activityTimes(events).sorted()
            if kept.times.count < all.times.count { pruned += 1 }
            // Windows starting on every time, just after it, and a day before and after it.
            let starts = all.times.flatMap { [$0, $0 + 1, $0 - Self.day, $0 - Self.day + 1, $0 + Self.day] }
            for from in starts {
                #expect(
                    kept.hasEvent(from: from, before: from + Self.day)
                        == all.hasEvent(from: from, before: from + Self.day))
            }
        }
        #expect(pruned > 1_000)
    }

    @Test func rendersEveryFormat() throws {
        let report = try RetentionAggregator(flow: Self.flow, options: Self.options(.user), now: Date())
            .report(of: Self.handBuilt)
        let json = try report.rendered(.json)
        #expect(json.contains("\"data_end\""))
        #expect(json.contains("\"retained\""))
        let csv = try report.rendered(.csv)
        #expect(csv.split(separator: "\n").count == 1 + 6)
        #expect(try report.rendered(.text).contains("vs dropped"))
        let html = report.html()
        #expect(html.contains("<svg"))
        #expect(html.contains("data-key=\"completed/7\""))
    }
}
