import Foundation
import OnboardMetricsReader
import OnboardMetricsSDK

/// Collects, per person, their onboarding sessions of the flow (replayed as the flow funnel
/// replays them), their first exposure to the grouping experiment and the times of all their
/// events, then counts a ``RetentionReport``.
///
/// A person's sessions may come from any source or shard, so the whole per-person record is kept
/// until the read ends and merged by person, packed (`RetentionAggregator+PersonPacking`): of the
/// event times, those ``activityTimes(_:)`` keeps (two a session, for sessions within a day).
public struct RetentionAggregator: Sendable {
    /// One onboarding session of the flow, replayed.
    struct Onboarding: Sendable {
        /// Of the replay, what a person's onboardings are merged by (the whole state took 500
        /// bytes an onboarding, held to the end).
        var outcome: FunnelOutcome
        var flowVersion: Int?
        /// The session's own first exposure to the grouping experiment's variant (its number in
        /// ``RetentionAggregator/variants``).
        var variant: UInt32?

        var start: Int64 { outcome.start }
    }

    /// What is kept per person.
    struct Person: Sendable {
        var onboardings: [Onboarding] = []
        /// Times of the person's events that activity days are read from (``activityTimes(_:)``),
        /// microseconds since 1970, sorted.
        var times: [Int64] = []
        /// The person's earliest exposure to the grouping experiment: its time and the numbers
        /// of the variants exposed then (one, but for a tie, which the report settles by name:
        /// numbers follow the read's order, names do not).
        var exposure: (time: Int64, variants: [UInt32])?
    }

    let flow: FlowDefinition
    let options: RetentionOptions
    let replay: FunnelReplay
    var selection: SessionSelection
    /// Every person's record to the end, packed.
    var people = PackedUnitStore<Person>(stepCount: 0)
    /// Reused to unpack a person the store merges.
    private var scratch = Person()
    /// The variants the onboardings' and exposures' numbers stand for.
    var variants = StringNumbers()
    /// The newest event time read; `Int64.min` before any.
    var newest = Int64.min

    /// An empty aggregate. `now` is the outcome's report end when `options.until` is `nil` (as for
    /// `funnel report`), so that the outcome groups are the flow funnel's.
    public init(flow: FlowDefinition, options: RetentionOptions, now: Date) {
        self.flow = flow
        self.options = options
        var funnel = FunnelOptions()
        funnel.window = options.window
        funnel.inactivity = options.inactivity
        self.replay = FunnelReplay(
            flow: flow, options: funnel, reportEnd: RecordedEvent.microseconds(options.until ?? now))
        self.selection = SessionSelection(flowID: flow.id, since: options.since, until: options.until)
    }

    /// The length of the windows a person's activity is looked up in: a unit is retained on day N
    /// when some event lies in [start + N days, start + N + 1 days).
    static let dayLength: Int64 = 86_400_000_000

    /// Of a session's event times, those that answer every activity lookup as all of them would:
    /// the first and the last when the session spans at most a day, else all.
    ///
    /// Why: keeping every time took eight bytes an event for every person to the end (80 MB at
    /// 10M events). Exact: say an event at `t` lies in a lookup's window `[a, a + day)`, with the
    /// session's first time `low <= t` and last `high >= t`. If the window held neither, then
    /// `low < a` and `high >= a + day`, so `high - low > day`: a session within a day always has
    /// its first or its last time in every window that holds one of its events.
    static func activityTimes(_ events: [RecordedEvent]) -> [Int64] {
        guard var low = events.first?.time else { return [] }
        var high = low
        for event in events {
            low = min(low, event.time)
            high = max(high, event.time)
        }
        guard high - low <= dayLength else { return events.map { $0.time } }
        return low == high ? [low] : [low, high]
    }

    var experiment: String? {
        if case .variant(let key) = options.grouping { return key }
        return nil
    }

    public mutating func add(_ session: RecordedSession) {
        guard let last = session.events.last else { return }
        newest = max(newest, last.time)
        var person = Person()
        person.times = Self.activityTimes(session.events).sorted()
        var sessionVariant: UInt32?
        if let experiment,
            let exposure = session.events.first(where: { $0.kind == .experimentExposure && $0.name == experiment }),
            let variant = exposure.properties["variant"]?.stringValue
        {
            let number = variants.number(of: variant)
            sessionVariant = number
            person.exposure = (exposure.time, [number])
        }
        if selection.accepts(session) {
            person.onboardings.append(
                Onboarding(
                    outcome: FunnelOutcome(replay.replay(session)), flowVersion: session.flowVersion,
                    variant: sessionVariant))
        }
        people.merge(person, user: session.userID, scratch: &scratch)
    }
}
