/// Which user ids are one person: an anonymous id linked to the id the app identified the user
/// with (Segment `identify` with `anonymousId` and `userId`, `alias`; PostHog `$identify` with
/// `$anon_distinct_id`, `$create_alias`), merged over every link into sets (union–find).
///
/// Each set is one person, named by the smallest id among those a link identified (the smallest
/// of all when none was), so the result depends only on the set of links — not on the order the
/// events arrived in — and adding a link twice changes nothing.
public struct PersonLinks: Sendable, Hashable {
    private var parent: [String: String] = [:]
    private var identified: Set<String> = []
    /// Id → the person it belongs to, for ids that are not their own person.
    private var people: [String: String] = [:]
    private var resolved = true

    /// No links: every id its own person.
    public init() {}

    /// Links `other` (e.g. the anonymous id) to `identified`, the id the user was identified as.
    public mutating func link(_ other: String, to identified: String) {
        guard !other.isEmpty, !identified.isEmpty else { return }
        self.identified.insert(identified)
        guard other != identified else { return }
        let (a, b) = (root(other), root(identified))
        if a != b { parent[max(a, b)] = min(a, b) }
        resolved = false
    }

    /// Names every set's person; call once all links are in (``person(of:)`` needs it).
    public mutating func resolve() {
        guard !resolved else { return }
        var members: [String: [String]] = [:]
        for id in parent.keys { members[root(id), default: []].append(id) }
        people = [:]
        for (rootID, ids) in members {
            let all = ids + [rootID]
            let person = all.filter { identified.contains($0) }.min() ?? all.min() ?? rootID
            for id in all where id != person { people[id] = person }
        }
        resolved = true
    }

    /// The person `id` belongs to (itself when it was never linked).
    public func person(of id: String) -> String { people[id] ?? id }

    /// How many ids were merged into another id's person.
    public var mergedIDs: Int { people.count }
    /// How many people those merges made (sets of more than one id).
    public var mergedPeople: Int { Set(people.values).count }

    private mutating func root(_ id: String) -> String {
        var current = id
        var path: [String] = []
        while let next = parent[current], next != current {
            path.append(current)
            current = next
        }
        for node in path { parent[node] = current }
        if parent[current] == nil { parent[current] = current }
        return current
    }
}
