import Foundation
import OnboardMetricsReader

extension PathAggregator: SessionAggregator {
    public mutating func merge(_ other: PathAggregator) {
        // The other aggregate's label numbers, as this one numbers them.
        let renumbered = labels.renumbering(other.labels)
        people.merge(other.people) { person in
            for index in person.entries.indices {
                person.entries[index].label = renumbered[Int(person.entries[index].label)]
            }
        }
        firstPaths.merge(other.firstPaths) { first in
            for index in first.paths.indices { first.paths[index] = first.paths[index].map { renumbered[Int($0)] } }
        }
        sessionPaths.mergeValues(other.sessionPaths) { $0 += $1 }
        selection.merge(other.selection)
    }

    /// Every unit's path, counted.
    public mutating func report() throws -> PathReport {
        var counts: [[String]: Int] = [:]
        switch options.mode {
        case .afterDrop(let step):
            let stepIndex = step.flatMap(flow.index(of:))
            // Counts do not depend on the order people come in.
            people.forEach { _, person in
                guard !person.onboardings.isEmpty else { return }
                for anchor in droppedAnchors(of: person, at: stepIndex) {
                    counts[path(after: anchor, in: person.entries), default: 0] += 1
                }
            }
        case .between:
            counts = sessionPaths
            firstPaths.forEach { _, first in
                let paths = first.paths.map { $0.map { labels[$0] } }
                // Of tied first sessions, the smallest path by its labels.
                if let path = paths.min(by: { $0.joined(separator: "\u{1}") < $1.joined(separator: "\u{1}") }) {
                    counts[path, default: 0] += 1
                }
            }
        }
        let units = counts.values.reduce(0, +)
        let chart = Self.chart(counts)
        let ranked = counts.sorted {
            ($1.value, $0.key.joined(separator: "\u{1}")) < ($0.value, $1.key.joined(separator: "\u{1}"))
        }
        let paths = ranked.prefix(options.top).map {
            PathReport.Path(events: $0.key, units: $0.value, share: Double($0.value) / Double(units))
        }
        var between: [String]?
        var step: String?
        switch options.mode {
        case .afterDrop(let dropStep): step = dropStep
        case .between(let from, let to): between = [from, to]
        }
        return PathReport(
            flowID: flow.id, unit: options.unit, mode: between == nil ? "after_drop" : "between", step: step,
            between: between, depth: options.depth, windowSeconds: options.window, since: options.since,
            until: options.until, units: units, distinctPaths: counts.count, paths: Array(paths),
            nodes: chart.nodes, transitions: chart.transitions)
    }

    /// Where the units a person makes dropped: per session, each dropped onboarding's last flow
    /// event; per user, the latest onboarding's, when the person (merged) dropped.
    private func droppedAnchors(of person: Person, at step: Int?) -> [Position] {
        let matches = { (state: FunnelUnitState) in state.status == .dropped && (step == nil || state.lastStep == step)
        }
        switch options.unit {
        case .session:
            return person.onboardings.filter { matches($0.outcome.state) }.map(\.anchor).sorted()
        case .user:
            let sorted = person.onboardings.sorted { ($0.start, $0.anchor) < ($1.start, $1.anchor) }
            guard let first = sorted.first, let last = sorted.last else { return [] }
            var merged = first.outcome.state
            for other in sorted.dropFirst() { merged.merge(other.outcome.state) }
            return matches(merged) ? [last.anchor] : []
        }
    }

    /// The labels of up to `depth` entries after `anchor` within the window, `(end)` after the
    /// last when fewer came; `entries` sorted.
    private func path(after anchor: Position, in entries: [Entry]) -> [String] {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].position <= anchor { low = middle + 1 } else { high = middle }
        }
        var labels: [String] = []
        var index = low
        while index < entries.count, labels.count < options.depth,
            entries[index].position.time <= anchor.time + windowLength
        {
            // Events at one (time, session start, seq), from two sessions of the person that
            // started together, by their labels: their order in `entries` is the order the
            // parts of a read were merged in, which must not show in the report.
            var end = index + 1
            while end < entries.count, entries[end].position == entries[index].position { end += 1 }
            if end == index + 1 {
                labels.append(self.labels[entries[index].label])
            } else {
                let tied = entries[index..<end].map { self.labels[$0.label] }.sorted()
                labels += tied.prefix(options.depth - labels.count)
            }
            index = end
        }
        if labels.count < options.depth { labels.append("(end)") }
        return labels
    }

    /// Units per (position, event) and per (position, event, next event), the eight most common
    /// events of each position kept and the rest counted as `(other)`.
    static func chart(_ counts: [[String]: Int]) -> (nodes: [PathReport.Node], transitions: [PathReport.Transition]) {
        var perPosition: [Int: [String: Int]] = [:]
        for (path, units) in counts {
            for (index, label) in path.enumerated() { perPosition[index, default: [:]][label, default: 0] += units }
        }
        let kept = perPosition.mapValues { labels in
            Set(labels.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.prefix(8).map(\.key))
        }
        var nodes: [PathReport.Node: Int] = [:]
        var links: [PathReport.Transition: Int] = [:]
        for (path, units) in counts {
            let named = path.enumerated().map { index, label in kept[index]?.contains(label) == true ? label : "(other)"
            }
            for (index, label) in named.enumerated() {
                nodes[PathReport.Node(step: index + 1, event: label, units: 0), default: 0] += units
            }
            for index in named.indices.dropLast() {
                links[
                    PathReport.Transition(step: index + 1, from: named[index], to: named[index + 1], units: 0),
                    default: 0] +=
                    units
            }
        }
        let sortedNodes = nodes.map { node, units in
            var counted = node
            counted.units = units
            return counted
        }.sorted { ($0.step, $1.units, $0.event) < ($1.step, $0.units, $1.event) }
        let sortedLinks = links.map { link, units in
            var transition = link
            transition.units = units
            return transition
        }.sorted { ($0.step, $1.units, $0.from, $0.to) < ($1.step, $0.units, $1.from, $1.to) }
        return (sortedNodes, sortedLinks)
    }
}
