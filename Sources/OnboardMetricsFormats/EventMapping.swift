import Foundation
import OnboardMetricsSDK

/// Turns calls of third-party analytics SDKs (``AnalyticsMessage``) into events of the onboarding
/// vocabulary. Every call lands: by default as a `custom` event with its name, so ad-hoc funnels
/// over the names work at once. A naming convention, and optionally a mapping file, make some of
/// them onboarding events:
///
/// | Event name (any case, spaces, `_` or camelCase) | kind | from properties |
/// |---|---|---|
/// | `Onboarding Started`, `Flow Started` | `session_started` | `flow_id`, `flow_version`; the other properties (or a `context` object) are the session's context |
/// | `Onboarding Step Viewed`, `Step Viewed` | `step_viewed` | `flow_id`, `flow_version`, `step_id` |
/// | `… Step Completed` / `Skipped` / `Back` | `step_completed` / `step_skipped` / `step_back` | the same |
/// | `Onboarding Completed`, `Flow Completed` | `flow_completed` | `flow_id` |
/// | `Onboarding Abandoned`, `Flow Abandoned` | `flow_abandoned` | `flow_id` |
/// | `Highlight Shown` / `Highlight Dismissed` | `highlight_shown` / `highlight_dismissed` | `highlight_id`, `feature_id`, `reason` |
/// | `Feature Used` | `feature_used` | `feature_id` |
/// | `Experiment Viewed` (Segment's spec event) | `experiment_exposure` | `experiment_id`, `variation_name` (or `variant`) |
///
/// `flow`, `flowId`, `step`, `stepId`, `highlight`, `feature`, `experiment`, `experiment_name`,
/// `variation_id`... are read too. A screen call (or PostHog `$screen`) whose properties name a
/// flow is a `step_viewed` of the step `step_id` or, without one, the screen's name. Other screens
/// and pages are custom events named by the screen; identify, group and alias calls are custom
/// events `$identify`, `$groupidentify`, `$create_alias` with the traits as properties.
///
/// An event made another kind keeps the name it was sent with in the property `$event`, which an
/// ad-hoc funnel step matches as it matches a custom event's name.
///
/// A mapping file (JSON) names events and screens explicitly; its rules come first:
/// `{"events": {"Signup Shown": {"kind": "step_viewed", "flow_id": "signup", "step_id": "intro"}},
///   "screens": {"Welcome": {"kind": "step_viewed", "flow_id": "signup", "step_id": "welcome"}}}`;
/// a rule's keys are `kind` (required), `flow_id`, `flow_version`, `step_id`, `name`, and what a
/// rule leaves out is read from the properties as above.
package struct EventMapping: Sendable, Hashable {
    /// What one event or screen name becomes.
    package struct Rule: Sendable, Hashable {
        package var kind: EventKind
        package var flowID: String?
        package var flowVersion: Int?
        package var stepID: String?
        package var name: String?

        package init(
            kind: EventKind, flowID: String? = nil, flowVersion: Int? = nil, stepID: String? = nil, name: String? = nil
        ) {
            self.kind = kind
            self.flowID = flowID
            self.flowVersion = flowVersion
            self.stepID = stepID
            self.name = name
        }
    }

    /// Rules by exact event name (`track` calls, PostHog events).
    package var events: [String: Rule] = [:]
    /// Rules by exact screen or page name.
    package var screens: [String: Rule] = [:]

    /// The naming convention alone.
    package init(events: [String: Rule] = [:], screens: [String: Rule] = [:]) {
        self.events = events
        self.screens = screens
    }

    static let flowKeys = ["flow_id", "flowId", "flow"]
    static let versionKeys = ["flow_version", "flowVersion"]
    static let stepKeys = ["step_id", "stepId", "step"]
    static let highlightKeys = ["highlight_id", "highlightId", "highlight"]
    static let featureKeys = ["feature_id", "featureId", "feature"]
    static let experimentKeys = ["experiment_id", "experimentId", "experiment", "experiment_name", "experimentName"]
    static let variantKeys = ["variant", "variation_name", "variationName", "variation_id", "variationId"]
    static let reasonKeys = ["reason", "dismiss_reason", "dismissReason"]

    /// The kind an event name stands for under the naming convention; nil for other names.
    /// The property that keeps the name a call was sent with when the event became another kind.
    package static let sentNameProperty = "$event"

    package static func conventionalKind(_ name: String) -> EventKind? {
        let key = String(name.lowercased().unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) })
        switch key {
        case "onboardingstarted", "flowstarted": return .sessionStarted
        case "onboardingstepviewed", "stepviewed": return .stepViewed
        case "onboardingstepcompleted", "stepcompleted": return .stepCompleted
        case "onboardingstepskipped", "stepskipped": return .stepSkipped
        case "onboardingstepback", "stepback": return .stepBack
        case "onboardingcompleted", "flowcompleted": return .flowCompleted
        case "onboardingabandoned", "flowabandoned": return .flowAbandoned
        case "highlightshown": return .highlightShown
        case "highlightdismissed": return .highlightDismissed
        case "featureused": return .featureUsed
        case "experimentviewed": return .experimentExposure
        default: return nil
        }
    }

    /// The event for `message`, not yet validated.
    /// - Parameter receivedAt: the server's clock (the collector); nil to take the message's own
    ///   `receivedAt` (an export), or, without one, its client time.
    /// - Throws: `EventValidationError` naming the field when the user, or a property the kind
    ///   needs, is missing.
    package func event(for message: AnalyticsMessage, receivedAt: Date?) throws -> Event {
        let userField = message.source == .segment ? "userId" : "distinct_id"
        guard let user = message.user else {
            throw EventValidationError(
                .missing, field: userField,
                reason: message.source == .segment ? "is missing, and so is anonymousId" : "is missing")
        }
        let received = receivedAt ?? message.receivedAt
        var properties = message.properties
        let rule: Rule
        var name = message.name
        switch message.type {
        case .track:
            let eventName = message.name ?? ""
            rule = events[eventName] ?? Self.conventionalKind(eventName).map { Rule(kind: $0) } ?? Rule(kind: .custom)
        case .screen, .page:
            let screenName = message.name ?? ""
            if let explicit = screens[screenName] {
                rule = explicit
            } else if properties.text(Self.flowKeys) != nil, properties.text(Self.stepKeys) ?? message.name != nil {
                rule = Rule(kind: .stepViewed, stepID: properties.text(Self.stepKeys) ?? message.name)
            } else {
                rule = Rule(kind: .custom)
                if name == nil { name = message.type == .screen ? "$screen" : "$pageview" }
            }
            properties["$type"] = .string(message.type.rawValue)
        case .identify, .group, .alias:
            let identityName = ["identify": "$identify", "group": "$groupidentify", "alias": "$create_alias"][
                message.type.rawValue]
            name = identityName
            rule = events[identityName ?? ""] ?? Rule(kind: .custom)
            // The anonymous id an identify call links to its user, as PostHog's $identify carries it:
            // reports per user merge the two into one person (PersonLinks).
            if message.type == .identify, let anonymous = message.anonymousID, !anonymous.isEmpty,
                let userID = message.userID, !userID.isEmpty, anonymous != userID,
                properties["$anon_distinct_id"] == nil
            {
                properties["$anon_distinct_id"] = .string(anonymous)
            }
        }

        var flowID = rule.flowID
        var flowVersion = rule.flowVersion
        var stepID = rule.stepID
        var eventName: String?
        let kindLabel = "\(message.name.map { JSONEventParser.quoted($0) + " " } ?? "")(\(rule.kind.rawValue))"
        func required(_ value: String?, _ keys: [String]) throws -> String {
            guard let value, !value.isEmpty else {
                throw EventValidationError(
                    .missing, field: "properties.\(keys[0])", reason: "is required for \(kindLabel)")
            }
            return value
        }
        if rule.kind != .custom {
            flowID = flowID ?? properties.text(Self.flowKeys)
            if flowVersion == nil, let text = properties.text(Self.versionKeys) {
                guard let version = Int(text) else {
                    throw EventValidationError(
                        .malformed, field: "properties.flow_version", reason: "is not an integer: \(text)")
                }
                flowVersion = version
            }
        }
        switch rule.kind {
        case .custom:
            eventName = rule.name ?? name
        case .sessionStarted:
            if properties.object("context") == nil {
                // The other properties are what the app knew at the start: the session's context.
                let skipped = Set(Self.flowKeys + Self.versionKeys + ["$type"])
                properties["context"] = .object(
                    properties.filter { !skipped.contains($0.key) && !$0.key.hasPrefix("$") })
            }
        case .stepViewed, .stepCompleted, .stepSkipped, .stepBack:
            stepID = try required(stepID ?? properties.text(Self.stepKeys), Self.stepKeys)
        case .highlightShown, .highlightDismissed:
            eventName = try required(rule.name ?? properties.text(Self.highlightKeys), Self.highlightKeys)
            if properties["feature"]?.stringValue == nil, let feature = properties.text(Self.featureKeys) {
                properties["feature"] = .string(feature)
            }
            if rule.kind == .highlightDismissed, properties["reason"]?.stringValue == nil,
                let reason = properties.text(Self.reasonKeys)
            {
                properties["reason"] = .string(reason)
            }
        case .featureUsed:
            eventName = try required(rule.name ?? properties.text(Self.featureKeys), Self.featureKeys)
        case .experimentExposure:
            eventName = try required(rule.name ?? properties.text(Self.experimentKeys), Self.experimentKeys)
            properties["variant"] = .string(try required(properties.text(Self.variantKeys), ["variation_name"]))
        case .flowCompleted, .flowAbandoned:
            break
        }

        // Times: the client's, corrected by the reader with sent_at and received_at (Segment's
        // and PostHog's rule); PostHog's offset when no time was sent; else the server's.
        var occurredAt = message.occurredAt
        var sentAt = message.sentAt
        // Timed by this server's receipt, which a resend does not repeat: the id is resolved by
        // the writer from the message id alone (``StableID/messageEventID(milliseconds:content:)``).
        let timedOnReceipt = occurredAt == nil && receivedAt != nil
        if occurredAt == nil {
            sentAt = nil
            if let offset = message.offsetMilliseconds, let received {
                occurredAt = received.addingTimeInterval(-offset / 1000)
            } else {
                occurredAt = received
            }
        }
        guard let occurredAt else {
            throw EventValidationError(.missing, field: "timestamp", reason: "is missing")
        }
        // The name the app sent stays on an event the convention or the mapping made something
        // else, so an ad-hoc funnel over the app's own names still finds it.
        if rule.kind != .custom, let sent = message.name, !sent.isEmpty {
            properties[Self.sentNameProperty] = .string(sent)
        }
        let milliseconds = Timestamp.milliseconds(occurredAt)
        let sessionID =
            message.sessionKey.map { StableID.sessionID(for: $0) } ?? DerivedSessionID.stream(user: user)
        return Event(
            eventID: Self.eventID(message, user: user, milliseconds: milliseconds, timedOnReceipt: timedOnReceipt),
            sessionID: sessionID,
            userID: user, seq: 0, kind: rule.kind, flowID: flowID, flowVersion: flowVersion, stepID: stepID,
            name: eventName, occurredAt: occurredAt, sentAt: sentAt, receivedAt: received, properties: properties)
    }

    /// A UUIDv7 at the event's time whose other bits hash the message id (`messageId`, `uuid`), so
    /// a resent message is stored once; without an id, the message's content stands in.
    ///
    /// A message timed on its receipt (it came without a time) and with an id gets a message id
    /// (``StableID/messageEventID(milliseconds:content:)``) hashed from the source, user and its id
    /// alone, which the writer turns into the id its first receipt was stored under: a resend is
    /// stored once though it arrives later. Without an id, nothing tells a resend from a repeat.
    static func eventID(
        _ message: AnalyticsMessage, user: String, milliseconds: Int64, timedOnReceipt: Bool = false
    ) -> UUID {
        var content = Array("\(message.source.rawValue)\u{1F}".utf8)
        if let id = message.messageID, !id.isEmpty, timedOnReceipt {
            content += Array(user.utf8)
            content.append(0x1E)
            content += Array(id.utf8)
            return StableID.messageEventID(milliseconds: milliseconds, content: content)
        }
        if let id = message.messageID, !id.isEmpty {
            content += Array(id.utf8)
        } else {
            for part in [message.type.rawValue, message.name ?? "", user, String(milliseconds)] {
                content += Array(part.utf8)
                content.append(0x1E)
            }
            JSONWriter.appendObject(message.properties, to: &content)
        }
        return StableID.eventID(milliseconds: milliseconds, content: content)
    }
}
