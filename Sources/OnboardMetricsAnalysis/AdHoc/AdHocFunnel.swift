import Foundation
import OnboardMetricsReader
import OnboardMetricsSDK

/// A funnel over event or step names, for logs without a flow definition (`funnel report --steps a,b,c`).
///
/// **Matching.** A step name `S` matches an event when any of these holds:
/// - the event's `name` equals `S` (custom events, feature ids, highlight ids, experiment keys);
/// - the event is `step_viewed` and its `step_id` equals `S`;
/// - the event's kind raw value equals `S` (e.g. `flow_completed`).
///
/// A step written `KIND:VALUE` with a known kind (e.g. `feature_used:export`,
/// `step_completed:consent`) matches only events of that kind whose `name` — or `step_id`, for the
/// step kinds `step_viewed`, `step_completed`, `step_skipped`, `step_back` — equals `VALUE`.
/// Names are compared exactly (case-sensitive). One event may match several steps; it still fills
/// at most one step of a chain.
///
/// **Event order.** A unit's events are processed by (skew-corrected time, seq); events that share
/// a time form a tie group, taken as PostHog's funnels take it: when they all match the same
/// steps, one after another; otherwise each event is expanded into one entry per step it matches,
/// the entries are taken in step order, an entry cannot extend a chain that already holds its
/// event, and events matching no step drop out of the group (so they do not break a strict chain
/// either). Ten steps over four event names, all logged at one instant, thus convert through all
/// ten. Across sessions of a user, `seq` ties keep the sessions' start order. (Any order is not
/// affected: it counts distinct steps within a window.)
///
/// **Chains** (PostHog's and ClickHouse `windowFunnel`'s rules). Each occurrence of step 1 starts a
/// chain; an event matching step k+1 extends a chain that has reached step k if it comes no later
/// than `window` after the chain's start (`time - start <= window`). A unit reaches depth d when some
/// chain reaches step d; the furthest chain wins. See ``Order`` for how events between steps count.
///
/// **Times.** The reported chain is the first one (in event order) to reach the unit's depth; among
/// chains reaching that depth with the same event, the one that started latest, which is the one
/// both PostHog and ClickHouse keep and gives the shortest conversion times.
public struct AdHocFunnel: Sendable, Hashable {
    /// How events between matched steps count.
    public enum Order: String, Sendable, Hashable, Codable, CaseIterable {
        /// Steps in the given order; other events (and repeats) may come between them.
        case ordered
        /// Steps in the given order with nothing between: any event of the unit that does not
        /// match the chain's next step breaks that chain (ClickHouse's `strict_order`, applied per
        /// chain as PostHog does: a later step-1 occurrence starts a new chain). Events that match
        /// no step count too, e.g. `session_started` or a `step_completed`.
        case strict
        /// Steps in any order: the depth is the most distinct steps matched by events within one
        /// window (from the first of them), each event filling at most one step. Row k of the
        /// report then means "any k of the steps".
        case any
    }

    /// How far a unit got: the depth (steps reached, 0 when step 1 never occurred) and the times
    /// (microseconds since 1970) of the reported chain's steps, `times.count == depth`.
    public struct Reach: Sendable, Hashable {
        /// Steps reached, 0...steps.count.
        public var depth: Int
        /// When each reached step happened in the reported chain.
        public var times: [Int64]

        /// Creates a reach.
        public init(depth: Int, times: [Int64]) {
            self.depth = depth
            self.times = times
        }
    }

    /// The step names, in funnel order.
    public let steps: [String]
    /// How events between steps count.
    public let order: Order
    /// The conversion window from a chain's start, seconds.
    public let window: TimeInterval
    /// Sessions or users.
    public let unit: FunnelOptions.Unit

    let windowMicroseconds: Int64
    let matcher: AdHocStepMatcher

    /// The most steps a funnel may have.
    public static let maximumSteps = 64

    /// Creates a funnel.
    /// - Parameters:
    ///   - steps: 1 to 64 non-empty step names (see the type's documentation for matching).
    ///   - order: `.ordered` (default), `.strict` or `.any`.
    ///   - window: conversion window from a chain's start, seconds (default 7 days).
    ///   - unit: `.session` (default) or `.user` (all of a user's sessions' events together).
    /// - Throws: ``AdHocFunnelError`` for no steps, too many steps, an empty name, or a window that
    ///   is negative or not finite.
    public init(
        steps: [String], order: Order = .ordered, window: TimeInterval = 7 * 86_400, unit: FunnelOptions.Unit = .session
    ) throws {
        guard !steps.isEmpty else { throw AdHocFunnelError(.noSteps, "an ad-hoc funnel needs at least one step") }
        guard steps.count <= Self.maximumSteps else {
            throw AdHocFunnelError(
                .tooManySteps, "an ad-hoc funnel has at most \(Self.maximumSteps) steps, not \(steps.count)")
        }
        if let index = steps.firstIndex(where: { $0.isEmpty }) {
            throw AdHocFunnelError(.emptyStepName, "step \(index + 1) has an empty name")
        }
        guard window.isFinite, window >= 0 else {
            throw AdHocFunnelError(.invalidWindow, "the window must be a finite, non-negative number of seconds")
        }
        self.steps = steps
        self.order = order
        self.window = window
        self.unit = unit
        // A window beyond a century is as good as unbounded; capping keeps microseconds in range.
        self.windowMicroseconds = DurationText.microseconds(window)
        self.matcher = AdHocStepMatcher(steps: steps)
    }

    /// The steps of `--steps a,b,c` (and the dashboard's `steps=a,b,c`): split at commas, each
    /// trimmed of spaces (`a,,b` is two steps; a name of spaces alone stays, empty, for
    /// ``init(steps:order:window:unit:)`` to refuse).
    public static func steps(parsing text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The steps an event matches, as a bit set (bit i for step i).
    public func matchedSteps(_ event: RecordedEvent) -> UInt64 {
        matcher.mask(event)
    }
}

/// An invalid ad-hoc funnel.
public struct AdHocFunnelError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// No steps were given.
        public static let noSteps = Code("noSteps")
        /// More than ``AdHocFunnel/maximumSteps`` steps.
        public static let tooManySteps = Code("tooManySteps")
        /// A step name is empty.
        public static let emptyStepName = Code("emptyStepName")
        /// The window is negative or not finite.
        public static let invalidWindow = Code("invalidWindow")
    }

    /// What kind of failure this is.
    public var code: Code
    /// A message for people.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

/// Maps an event to the bit set of the steps it matches.
struct AdHocStepMatcher: Sendable, Hashable {
    /// Plain step names: matched against `name`, `step_id` of `step_viewed`, and the kind.
    private var plain: [String: UInt64] = [:]
    /// The same names in a list, looked through one by one when there are few: comparing a few
    /// short strings costs less than hashing one (hashing was a tenth of a warm `/funnel`).
    private var plainList: [PlainName] = []
    /// `KIND:VALUE` steps, by kind then value.
    private var qualified: [EventKind: [String: UInt64]] = [:]
    /// The plain steps each kind's raw value matches: worked out once, since building and
    /// hashing the kind's name on every event was a few percent of an ad-hoc report.
    private var byKind: [EventKind: UInt64] = [:]

    /// Up to this many plain names are looked through rather than hashed.
    private static let listed = 8

    private struct PlainName: Sendable, Hashable {
        var name: String
        var bits: UInt64
    }

    init(steps: [String]) {
        for (index, step) in steps.enumerated() {
            let bit = UInt64(1) << UInt64(index)
            if let colon = step.firstIndex(of: ":"), let kind = EventKind(rawValue: String(step[..<colon])) {
                qualified[kind, default: [:]][String(step[step.index(after: colon)...]), default: 0] |= bit
            } else {
                plain[step, default: 0] |= bit
            }
        }
        // Sorted, so that equal step lists make equal matchers.
        if plain.count <= Self.listed {
            plainList = plain.map { PlainName(name: $0.key, bits: $0.value) }.sorted { $0.name < $1.name }
        }
        for kind in EventKind.allCases { byKind[kind] = plain[kind.rawValue] }
    }

    /// The steps a plain name matches.
    @inline(__always)
    private func bits(_ name: String) -> UInt64 {
        guard plain.count <= Self.listed else { return plain[name] ?? 0 }
        var bits: UInt64 = 0
        for entry in plainList where entry.name == name { bits |= entry.bits }
        return bits
    }

    func mask(_ event: RecordedEvent) -> UInt64 {
        let one = CollectionOfOne(event)
        return mask(in: one, at: one.startIndex)
    }

    /// The steps `events[index]` matches. Each field is read where it is used, in place: copying
    /// the event to pass it (retaining its strings and properties) was a tenth of a warm `/funnel`.
    @inline(__always)
    func mask<Events: RandomAccessCollection>(in events: Events, at index: Events.Index) -> UInt64
    where Events.Element == RecordedEvent {
        mask(
            kind: events[index].kind, stepID: events[index].stepID, name: events[index].name,
            properties: events[index].properties)
    }

    /// The steps an event of these values matches (what a session file's read works out once per
    /// distinct values: ``AdHocFunnelAggregator``'s event class).
    @inline(__always)
    func mask(kind: EventKind, stepID: String?, name: String?, properties: [String: JSONValue]) -> UInt64 {
        var mask: UInt64 = 0
        if let name { mask |= bits(name) }
        // The name a Segment or PostHog call was sent with, kept when the mapping made it an
        // onboarding kind (EventMapping's `$event`).
        if kind != .custom, !properties.isEmpty, case .string(let sent)? = properties["$event"] {
            mask |= bits(sent)
        }
        if kind == .stepViewed, let stepID { mask |= bits(stepID) }
        if !byKind.isEmpty, let bits = byKind[kind] { mask |= bits }
        if !qualified.isEmpty, let values = qualified[kind] {
            // Step kinds carry the step in step_id; the others carry their subject in name.
            let value = kind.isStepEvent ? stepID : name
            if let value, let bits = values[value] { mask |= bits }
        }
        return mask
    }
}
