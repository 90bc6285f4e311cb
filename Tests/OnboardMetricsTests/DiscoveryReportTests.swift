import Foundation
import Testing

@testable import OnboardMetricsAnalysis
@testable import OnboardMetricsReader
@testable import OnboardMetricsRendering
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStatistics

@Suite struct DiscoveryReportTests {
    enum Move: Sendable {
        case show(String)
        case dismiss(String, String)
        case use(String)
    }

    static let base: Int64 = 1_790_000_000_000_000
    static let hour: Int64 = 3_600_000_000
    static let day: Int64 = 24 * hour

    /// A session starting `startOffset` after `base`, with moves at the given offsets from its start.
    static func session(
        _ number: Int, user: String? = nil, flowID: String = "s", startOffset: Int64 = 0,
        _ moves: [(Int64, Move)] = []
    ) -> RecordedSession {
        let start = base + startOffset + Int64(number) * 1_000_000
        var events = [RecordedEvent(kind: .sessionStarted, flowID: flowID, time: start, seq: 0)]
        for (index, (offset, move)) in moves.enumerated() {
            let time = start + offset
            let seq = index + 1
            switch move {
            case .show(let id):
                events.append(
                    RecordedEvent(
                        kind: .highlightShown, flowID: flowID, name: id, time: time, seq: seq,
                        properties: ["feature": .string(feature(of: id))]))
            case .dismiss(let id, let reason):
                events.append(
                    RecordedEvent(
                        kind: .highlightDismissed, flowID: flowID, name: id, time: time, seq: seq,
                        properties: ["feature": .string(feature(of: id)), "reason": .string(reason)]))
            case .use(let feature):
                events.append(RecordedEvent(kind: .featureUsed, flowID: flowID, name: feature, time: time, seq: seq))
            }
        }
        return RecordedSession(
            sessionID: UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", number)) ?? UUID(),
            userID: user ?? "user-\(number)", flowID: flowID, flowVersion: 1, context: [:], events: events)
    }

    static func feature(of highlight: String) -> String { highlight == "h" ? "f" : "g" }

    /// One session per rule.
    static let sessions: [RecordedSession] = [
        // Shown, closed, used an hour later: discovered.
        session(1, [(10_000_000, .show("h")), (12_000_000, .dismiss("h", "closed")), (hour, .use("f"))]),
        // Used before the showing: already knew (not dismissed).
        session(2, [(5_000_000, .use("f")), (10_000_000, .show("h"))]),
        // Used eight days after the showing: outside the 7-day window.
        session(
            3, [(10_000_000, .show("h")), (11_000_000, .dismiss("h", "actionPerformed")), (8 * day, .use("f"))]),
        // Shown, never dismissed, never used.
        session(4, [(10_000_000, .show("h"))]),
        // Never shown, used after two hours: baseline use.
        session(5, [(2 * hour, .use("f"))]),
        // Never shown, never used.
        session(6),
        // Another flow: not comparable.
        session(7, flowID: "other", [(hour, .use("f"))]),
        // Never shown, used after nine days: outside its window.
        session(8, [(9 * day, .use("f"))]),
    ]

    @Test func countsEveryRulePerSession() throws {
        let report = try DiscoveryAggregator().report(of: Self.sessions)
        #expect(report.units == 8)
        let row = try #require(report.highlights.first)
        #expect(report.highlights.count == 1)
        #expect(row.highlight == "h" && row.feature == "f")
        #expect(row.shown == 4)
        #expect(row.alreadyKnew == 1)
        #expect(row.eligible == 3)
        #expect(row.discovered == 1)
        #expect(row.rate == 1.0 / 3)
        #expect(row.interval == ConfidenceInterval.wilson(successes: 1, trials: 3))
        #expect(row.timeToDiscovery.count == 1)
        #expect(row.timeToDiscovery.median == 3_590)
        #expect(row.baseline.flows == ["s"])
        #expect(row.baseline.units == 3)
        #expect(row.baseline.used == 1)
        #expect(row.baseline.rate == 1.0 / 3)
        #expect(row.uplift == 0)
        #expect(
            row.upliftInterval
                == ConfidenceInterval.newcombeDifference(successes1: 1, trials1: 3, successes2: 1, trials2: 3))
        let reasons = row.dismissed.map { "\($0.reason) \($0.units) \($0.eligible) \($0.discovered)" }
        #expect(
            reasons == [
                "actionPerformed 1 1 0", "closed 1 1 1", "displayCountExceeded 0 0 0", "displayDurationExceeded 0 0 0",
                "(not dismissed) 2 1 0",
            ])
    }

    @Test func orderOfSessionsDoesNotMatter() throws {
        #expect(
            try DiscoveryAggregator().report(of: Self.sessions)
                == DiscoveryAggregator().report(of: Self.sessions.reversed()))
    }

    /// A session shown highlight "h" 10 s after its start, naming `feature`, with feature uses at the offsets.
    static func shown(_ number: Int, naming feature: String?, _ uses: [(Int64, String)]) -> RecordedSession {
        let start = Self.base + Int64(number) * 1_000_000
        var events = [
            RecordedEvent(kind: .sessionStarted, flowID: "s", time: start, seq: 0),
            RecordedEvent(
                kind: .highlightShown, flowID: "s", name: "h", time: start + 10_000_000, seq: 1,
                properties: feature.map { ["feature": .string($0)] } ?? [:]),
        ]
        for (index, (offset, used)) in uses.enumerated() {
            events.append(
                RecordedEvent(kind: .featureUsed, flowID: "s", name: used, time: start + offset, seq: index + 2))
        }
        return RecordedSession(
            sessionID: UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", number)) ?? UUID(),
            userID: "user-\(number)", flowID: "s", flowVersion: 1, context: [:],
            events: events.sorted { ($0.time, $0.seq) < ($1.time, $1.seq) })
    }

    /// The baseline of the row's feature takes away the shown units' use of that feature, not of
    /// the one each showing named: a unit shown "h" naming "a" that used "b", and one naming "b"
    /// that used "b", left a baseline of -1 use of "a" among 1 unit (a review).
    @Test func theBaselineCountsTheRowsFeature() throws {
        let sessions = [
            Self.shown(1, naming: "a", [(Self.hour, "b")]), Self.shown(2, naming: "b", [(Self.hour, "b")]),
            Self.session(3),
        ]
        let row = try #require(try DiscoveryAggregator().report(of: sessions).highlights.first)
        #expect(row.feature == "a")
        #expect(row.baseline.units == 1 && row.baseline.used == 0 && row.baseline.rate == 0)
    }

    /// Showings of one highlight that name two features, and two that name none: the highlight's
    /// feature is the smaller name, and the unnamed showings count against it, whatever order the
    /// sessions come or are merged in.
    @Test func showingsThatNameNoFeatureCountAgainstTheSmallestNamedOne() throws {
        let sessions = [
            Self.shown(1, naming: "f", [(Self.hour, "f")]),  // discovered f
            Self.shown(2, naming: "e", []),  // not discovered
            Self.shown(3, naming: nil, [(Self.hour, "e")]),  // counts against "e": discovered
            Self.shown(4, naming: nil, [(5_000_000, "f")]),  // used f before, but the feature is e: eligible
        ]
        var reports: [DiscoveryReport] = []
        for order in Self.permutations(sessions) {
            reports.append(try DiscoveryAggregator().report(of: order))
            var left = DiscoveryAggregator()
            var right = DiscoveryAggregator()
            for session in order.prefix(2) { left.add(session) }
            for session in order.dropFirst(2) { right.add(session) }
            right.merge(left)
            reports.append(right.report())
        }
        let row = try #require(reports[0].highlights.first)
        #expect(row.feature == "e")
        #expect(row.shown == 4 && row.alreadyKnew == 0 && row.discovered == 2)
        #expect(reports.allSatisfy { $0 == reports[0] })
    }

    /// Canonically equivalent names ("é" as one scalar or two) are equal to `<`: the smaller is
    /// chosen by bytes, so it is the same in either order.
    @Test func theSmallerNameIsChosenByItsBytes() {
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        #expect(composed == decomposed)
        #expect(DiscoveryAggregator.smaller(composed, decomposed) == DiscoveryAggregator.smaller(decomposed, composed))
        #expect(DiscoveryAggregator.smaller(composed, decomposed).map { Array($0.utf8) } == Array(decomposed.utf8))
        #expect(DiscoveryAggregator.smaller(nil, "b") == "b" && DiscoveryAggregator.smaller("a", "b") == "a")
    }

    static func permutations<Element>(_ items: [Element]) -> [[Element]] {
        guard let first = items.first else { return [[]] }
        return permutations(Array(items.dropFirst())).flatMap { rest in
            (0...rest.count).map { index in
                var order = rest
                order.insert(first, at: index)
                return order
            }
        }
    }

    @Test func windowIsAnOption() throws {
        var options = DiscoveryOptions()
        options.window = 10 * 86_400
        let row = try #require(try DiscoveryAggregator(options: options).report(of: Self.sessions).highlights.first)
        #expect(row.discovered == 2)
        #expect(row.baseline.used == 2)
    }

    @Test func perUserMergesSessions() throws {
        // One user: used f in a first session, shown h in a second a day later → already knew.
        // Per session the second session is eligible and the first one is baseline.
        let sessions = [
            Self.session(1, user: "u", [(Self.hour, .use("f"))]),
            Self.session(2, user: "u", startOffset: Self.day, [(10_000_000, .show("h")), (Self.hour, .use("f"))]),
            Self.session(3, user: "v", [(10_000_000, .show("h"))]),
            Self.session(4, user: "v", startOffset: Self.day, [(Self.hour, .use("f"))]),
            Self.session(5, user: "w"),
        ]
        let perSession = try #require(try DiscoveryAggregator().report(of: sessions).highlights.first)
        #expect(perSession.shown == 2 && perSession.alreadyKnew == 0 && perSession.discovered == 1)
        #expect(perSession.baseline.units == 3 && perSession.baseline.used == 2)

        var options = DiscoveryOptions()
        options.unit = .user
        let report = try DiscoveryAggregator(options: options).report(of: sessions)
        #expect(report.units == 3)
        let perUser = try #require(report.highlights.first)
        // u knew; v discovered a day later in another session; w is the baseline.
        #expect(perUser.shown == 2 && perUser.alreadyKnew == 1 && perUser.discovered == 1)
        #expect(perUser.timeToDiscovery.median == Double(Self.day + Self.hour - 10_000_000 + 1_000_000) / 1_000_000)
        #expect(perUser.baseline.units == 1 && perUser.baseline.used == 0)
    }

    @Test func highlightFilterAndSeveralHighlights() throws {
        let sessions =
            Self.sessions + [
                Self.session(20, [(1_000_000, .show("k")), (2_000_000, .dismiss("k", "displayDurationExceeded"))])
            ]
        #expect(try DiscoveryAggregator().report(of: sessions).highlights.map(\.highlight) == ["h", "k"])
        var options = DiscoveryOptions()
        options.highlight = "k"
        let report = try DiscoveryAggregator(options: options).report(of: sessions)
        let row = try #require(report.highlights.first)
        #expect(report.highlights.count == 1 && row.feature == "g" && row.shown == 1 && row.discovered == 0)
        // The other sessions of flow s never saw k: they are its baseline.
        #expect(row.baseline.units == 7)
        #expect(row.dismissed.first { $0.reason == "displayDurationExceeded" }?.units == 1)
    }

    @Test func unitsByStartTime() throws {
        var options = DiscoveryOptions()
        options.since = Date(timeIntervalSince1970: Double(Self.base + 3_000_000) / 1_000_000)
        let report = try DiscoveryAggregator(options: options).report(of: Self.sessions)
        #expect(report.units == 6)
        #expect(report.highlights.first?.shown == 2)
    }

    @Test func jsonKeysAreStableSnakeCase() throws {
        let report = try DiscoveryAggregator().report(of: Self.sessions)
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(try report.rendered(.json).utf8)) as? [String: Any])
        #expect(Set(json.keys) == ["unit", "window_seconds", "level", "units", "highlights"])
        let row = try #require((json["highlights"] as? [[String: Any]])?.first)
        #expect(
            Set(row.keys) == [
                "highlight", "feature", "shown", "already_knew", "eligible", "discovered", "rate", "interval",
                "time_to_discovery", "dismissed", "baseline", "uplift", "uplift_interval",
            ])
        #expect(Set(try #require(row["interval"] as? [String: Any]).keys) == ["lower", "upper", "level"])
        #expect(
            Set(try #require(row["baseline"] as? [String: Any]).keys) == [
                "flows", "units", "used", "rate", "interval",
            ])
        let reason = try #require((row["dismissed"] as? [[String: Any]])?.first)
        #expect(Set(reason.keys) == ["reason", "units", "eligible", "discovered", "rate"])
        #expect(Set(try #require(row["time_to_discovery"] as? [String: Any]).keys) == ["count", "median", "p90"])
        #expect(try report.rendered(.csv).hasPrefix("highlight,feature,shown,already knew"))
        #expect(try report.rendered(.text).contains("Feature discovery per session, window 7d: 8 sessions"))
        #expect(try DiscoveryAggregator().report(of: []).rendered(.text).hasSuffix("no highlight was shown"))
    }
}
