import Foundation
import OnboardMetricsReader
import OnboardMetricsSDK

/// Collects what a ``PathReport`` needs: after a drop, every person's events (as labels) and each
/// onboarding's replayed state and last flow event; between two steps, each unit's path.
///
/// A person's sessions may come from any source or shard, so after a drop the events of every
/// person are kept until the read ends and merged by person, packed (a few bytes an event).
public struct PathAggregator: Sendable {
    /// Where an event sits in a person's stream: time, then its session's start, then seq.
    struct Position: Sendable, Hashable, Comparable {
        var time: Int64
        var sessionStart: Int64
        /// The event's seq (an `int4` column).
        var seq: Int32

        static func < (lhs: Self, rhs: Self) -> Bool {
            (lhs.time, lhs.sessionStart, lhs.seq) < (rhs.time, rhs.sessionStart, rhs.seq)
        }
    }

    /// One event of a person, labelled: 24 bytes. After a drop every event read is kept, and as
    /// a `String` each label took a string of its own (2 GB at 10M events).
    struct Entry: Sendable {
        var position: Position
        /// The label's number in ``PathAggregator/labels``.
        var label: UInt32
    }

    /// One onboarding session of the flow.
    struct Onboarding: Sendable {
        var outcome: FunnelOutcome
        /// The session's last event of the flow (within the window).
        var anchor: Position

        var start: Int64 { outcome.start }
    }

    /// After a drop, what is kept per person: their events, sorted by position, and their
    /// onboardings. Packed in ``PathAggregator/people`` (`PathAggregator+PersonPacking`).
    struct Person: Sendable {
        var entries: [Entry] = []
        var onboardings: [Onboarding] = []
    }

    /// Between two steps, per user: the paths of a person's earliest sessions, as label numbers
    /// (one path, but for sessions that start at the same microsecond; the report takes the
    /// smallest by its labels, so that merging in any order agrees). Packed in
    /// ``PathAggregator/firstPaths`` (`PathAggregator+FirstPathPacking`).
    struct FirstPath: Sendable {
        var start: Int64 = 0
        var paths: [[UInt32]] = []
    }

    let flow: FlowDefinition
    let options: PathOptions
    let replay: FunnelReplay
    let windowLength: Int64
    var selection: SessionSelection
    /// After a drop, every person's events and onboardings to the end, packed.
    var people = PackedUnitStore<Person>(stepCount: 0)
    /// Reused to unpack a person the store merges.
    private var scratch = Person()
    /// Between two steps, per user: each person's earliest sessions' paths, packed.
    var firstPaths = PackedUnitStore<FirstPath>(stepCount: 0)
    private var firstPathScratch = FirstPath()
    /// The labels the entries' numbers stand for.
    var labels = StringNumbers()
    /// Between two steps, per session: units per path.
    var sessionPaths: [[String]: Int] = [:]

    /// An empty aggregate; `now` is the funnel's report end when `options.until` is `nil`.
    public init(flow: FlowDefinition, options: PathOptions, now: Date) {
        self.flow = flow
        self.options = options
        var funnel = FunnelOptions()
        funnel.window = options.window
        funnel.inactivity = options.inactivity
        self.replay = FunnelReplay(
            flow: flow, options: funnel, reportEnd: RecordedEvent.microseconds(options.until ?? now))
        self.windowLength = DurationText.microseconds(options.window)
        self.selection = SessionSelection(flowID: flow.id, since: options.since, until: options.until)
    }

    public mutating func add(_ session: RecordedSession) {
        switch options.mode {
        case .afterDrop:
            addAfterDrop(session)
        case .between(let from, let to):
            guard selection.accepts(session), let path = path(of: session, from: from, to: to) else { return }
            switch options.unit {
            case .session:
                sessionPaths[path, default: 0] += 1
            case .user:
                let offered = FirstPath(start: session.startTime, paths: [path.map { labels.number(of: $0) }])
                firstPaths.merge(offered, user: session.userID, scratch: &firstPathScratch)
            }
        }
    }

    private mutating func addAfterDrop(_ session: RecordedSession) {
        let start = session.startTime
        var person = Person()
        person.entries.reserveCapacity(session.events.count)
        for event in session.events {
            person.entries.append(
                Entry(
                    position: Position(time: event.time, sessionStart: start, seq: Int32(clamping: event.seq)),
                    label: labels.number(of: Self.label(event, flowID: flow.id))))
        }
        person.entries.sort { $0.position < $1.position }
        if selection.accepts(session) {
            let last = session.events.last { $0.flowID == flow.id && $0.time <= start + windowLength }
            let anchor = last.map { Position(time: $0.time, sessionStart: start, seq: Int32(clamping: $0.seq)) }
            person.onboardings.append(
                Onboarding(
                    outcome: FunnelOutcome(replay.replay(session)),
                    anchor: anchor ?? Position(time: start, sessionStart: start, seq: -1)))
        }
        people.merge(person, user: session.userID, scratch: &scratch)
    }

    /// The session's events strictly between the first view of `from` and the first view of `to`
    /// after it (within the window), up to the depth; `nil` when it never went from one to the other.
    private func path(of session: RecordedSession, from: String, to: String) -> [String]? {
        let start = session.startTime
        var between: [String]?
        for event in session.events {
            guard event.time <= start + windowLength else { break }
            let isView = event.kind == .stepViewed && (event.flowID == nil || event.flowID == flow.id)
            if between == nil {
                if isView, event.stepID == from { between = [] }
                continue
            }
            if isView, event.stepID == to {
                guard let found = between else { return nil }
                return found.isEmpty ? ["(nothing)"] : found
            }
            if let count = between?.count, count < options.depth {
                between?.append(Self.label(event, flowID: flow.id))
            }
        }
        return nil
    }

    /// `kind:name` (see ``PathReport``).
    static func label(_ event: RecordedEvent, flowID: String) -> String {
        let kind = event.kind.rawValue
        let flowPrefix = event.flowID.map { $0 == flowID ? "" : $0 + "/" } ?? ""
        switch event.kind {
        case .stepViewed, .stepCompleted, .stepSkipped, .stepBack:
            return kind + ":" + flowPrefix + (event.stepID ?? "")
        case .sessionStarted, .flowCompleted, .flowAbandoned:
            return event.flowID.map { kind + ":" + $0 } ?? kind
        default:
            return event.name.map { kind + ":" + $0 } ?? kind
        }
    }
}
