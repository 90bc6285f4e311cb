import OnboardMetricsReader

/// What discovery needs to know of one unit (a session, or a user's merged sessions): when it
/// started, its flow, the highlights it was shown and the times it used features — not its events.
///
/// Merging is order-independent (earliest times win, uses are collected), because a user's
/// sessions leave the reader in the order they close, not the order they started.
struct DiscoveryTrace: Sendable {
    /// The first showing of one highlight and its first dismissal.
    struct Showing: Sendable {
        var time: Int64
        /// The feature named by the earliest of the highlight's events that named one.
        var feature: String?
        var dismissedAt: Int64?
        var reason: String?
        /// When the event that named `feature` happened (meaningless without one): a merge keeps
        /// the earliest, so that it gives one answer in whatever order a person's sessions come.
        var featureAt: Int64 = 0
    }

    /// Start of the unit (its earliest session), microseconds since 1970.
    var start: Int64
    /// The flow of the earliest session (`nil` when it named none).
    var flowID: String?
    /// By highlight id.
    var shown: [String: Showing] = [:]
    /// By feature id: every time it was used.
    var uses: [String: [Int64]] = [:]
    /// The first exposure to the holdout experiment (time, variant), when asked for one.
    var exposure: (time: Int64, variant: String)?

    init(_ session: RecordedSession, holdout: String? = nil) {
        start = session.startTime
        flowID = session.flowID
        for event in session.events {
            switch event.kind {
            case .experimentExposure:
                guard let holdout, event.name == holdout, exposure == nil,
                    let variant = event.properties["variant"]?.stringValue
                else { continue }
                exposure = (event.time, variant)
            case .highlightShown:
                guard let id = event.name else { continue }
                let feature = event.properties["feature"]?.stringValue
                if let existing = shown[id] {
                    if event.time < existing.time {
                        shown[id]?.time = event.time
                    }
                    if existing.feature == nil, let feature {
                        shown[id]?.feature = feature
                        shown[id]?.featureAt = event.time
                    }
                } else {
                    shown[id] = Showing(time: event.time, feature: feature, featureAt: event.time)
                }
            case .highlightDismissed:
                // Dismissals come after their showing in a session's order, so it is known here.
                guard let id = event.name, shown[id] != nil, shown[id]?.dismissedAt == nil else { continue }
                shown[id]?.dismissedAt = event.time
                shown[id]?.reason = event.properties["reason"]?.stringValue ?? "(no reason)"
                if shown[id]?.feature == nil, let feature = event.properties["feature"]?.stringValue {
                    shown[id]?.feature = feature
                    shown[id]?.featureAt = event.time
                }
            case .featureUsed:
                guard let feature = event.name else { continue }
                uses[feature, default: []].append(event.time)
            default:
                continue
            }
        }
    }

    /// Adds another session of the same user.
    mutating func merge(_ other: DiscoveryTrace) {
        // Ties broken by value, so merging is commutative (shards merge a user's traces in any order).
        if (other.start, other.flowID ?? "") < (start, flowID ?? "") {
            start = other.start
            flowID = other.flowID
        }
        for (id, showing) in other.shown {
            guard let mine = shown[id] else {
                shown[id] = showing
                continue
            }
            var merged =
                (showing.time, showing.dismissedAt ?? .max, showing.reason ?? "")
                    < (mine.time, mine.dismissedAt ?? .max, mine.reason ?? "") ? showing : mine
            // The earliest naming of a feature, ties by name: `merged.feature ?? mine.feature ??
            // showing.feature` forgot which session named it, and three sessions merged in two
            // orders gave two features (a review).
            let earliest = [mine, showing].compactMap { one in one.feature.map { (one.featureAt, $0) } }.min {
                $0.0 != $1.0 ? $0.0 < $1.0 : $0.1.utf8.lexicographicallyPrecedes($1.1.utf8)
            }
            merged.feature = earliest?.1
            merged.featureAt = earliest?.0 ?? 0
            shown[id] = merged
        }
        for (feature, times) in other.uses { uses[feature, default: []] += times }
        if let theirs = other.exposure, exposure.map({ (theirs.time, theirs.variant) < ($0.time, $0.variant) }) ?? true
        {
            exposure = theirs
        }
    }

    /// Whether the feature was used within `[from, from + window]`, and the first such time.
    func firstUse(of feature: String, from: Int64, window: Int64) -> Int64? {
        uses[feature]?.filter { $0 >= from && $0 <= from + window }.min()
    }

    /// Whether the feature was used strictly before `time`.
    func usedBefore(_ feature: String, _ time: Int64) -> Bool {
        uses[feature]?.contains { $0 < time } ?? false
    }
}
