import Testing

@testable import OnboardMetricsReader

/// Identity merging (issue 32, item 3, the server side): sets of linked ids, each named by its
/// smallest identified id, the same whatever order the links come in.
@Suite struct PersonLinksTests {
    static let links: [(String, String)] = [
        ("anon-1", "member-1"),  // identify after sign-up
        ("anon-2", "member-1"),  // the same member on a second device
        ("anon-3", "member-3"),
        ("member-3", "member-2"),  // alias: member-3 renamed to member-2
        ("anon-4", "anon-4"),  // a link to itself changes nothing
    ]

    static func resolved(_ links: [(String, String)]) -> PersonLinks {
        var people = PersonLinks()
        for (other, identified) in links { people.link(other, to: identified) }
        people.resolve()
        return people
    }

    @Test func linkedIdsAreOnePersonNamedByTheSmallestIdentifiedId() {
        let people = Self.resolved(Self.links)
        #expect(people.person(of: "anon-1") == "member-1")
        #expect(people.person(of: "anon-2") == "member-1")
        #expect(people.person(of: "member-1") == "member-1")
        // member-3 was identified (by anon-3's identify) and aliased to member-2: one person,
        // the smaller identified id names it.
        #expect(people.person(of: "anon-3") == "member-2")
        #expect(people.person(of: "member-3") == "member-2")
        #expect(people.person(of: "anon-4") == "anon-4")
        #expect(people.person(of: "never-linked") == "never-linked")
        #expect(people.mergedIDs == 4 && people.mergedPeople == 2)
    }

    @Test func theResultDependsOnlyOnTheSetOfLinks() {
        let expected = Self.resolved(Self.links)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            // Any order, any repetition: the same people.
            var shuffled = (Self.links + Self.links.prefix(2)).shuffled(using: &generator)
            if Bool.random(using: &generator) { shuffled.reverse() }
            let people = Self.resolved(shuffled)
            for id in ["anon-1", "anon-2", "anon-3", "member-1", "member-2", "member-3", "anon-4"] {
                #expect(people.person(of: id) == expected.person(of: id))
            }
            #expect(people.mergedIDs == expected.mergedIDs)
        }
    }
}
