import Foundation
import OnboardMetricsTesting
import Testing

@testable import OnboardMetricsSDK

/// Hashing and bucketing against GrowthBook's published SDK test cases.
///
/// Source: github.com/growthbook/growthbook, packages/sdk-js/test/cases.json (specVersion 0.5.4,
/// commit 021bf498f75c8491c156184ca1b3a1fbafa1d64e), sections "hash", "getBucketRange" and
/// "chooseVariation", copied verbatim (names and values).
@Suite struct AssignmentTests {
    /// cases.json "hash": [seed, value, version, expected].
    static let hashCases: [(String, String, Int, Double?)] = [
        ("", "a", 1, 0.22),
        ("", "b", 1, 0.077),
        ("b", "a", 1, 0.946),
        ("ef", "d", 1, 0.652),
        ("asdf", "8952klfjas09ujk", 1, 0.549),
        ("", "123", 1, 0.011),
        ("", "___)((*\":&", 1, 0.563),
        ("seed", "a", 2, 0.0505),
        ("seed", "b", 2, 0.2696),
        ("foo", "ab", 2, 0.2575),
        ("foo", "def", 2, 0.2019),
        ("89123klj", "8952klfjas09ujkasdf", 2, 0.124),
        ("90850943850283058242805", "123", 2, 0.7516),
        ("()**(%$##$%#$#", "___)((*\":&", 2, 0.0128),
        ("abc", "def", 99, nil),
    ]

    @Test(arguments: hashCases.indices) func growthBookHashCases(_ index: Int) {
        let (seed, value, version, expected) = Self.hashCases[index]
        #expect(Assignment.hash(seed: seed, value: value, version: version) == expected)
    }

    /// Non-ASCII ids: cases.json has none, so the expected values come from GrowthBook's JavaScript
    /// `hashFnv32a`/`hash` (sdk-js src/util.ts: `charCodeAt`, i.e. UTF-16 code units) run under
    /// Node.js v18 on these inputs. They include a 2-byte UTF-8 letter, CJK, and an astral emoji
    /// (a surrogate pair: two code units), where hashing UTF-8 bytes or Unicode scalars would differ.
    static let nonASCIICases: [(String, String, Int, Double, UInt32)] = [
        ("", "müller", 1, 0.995, 1_766_802_995),
        ("consent-copy", "müller", 2, 0.5314, 3_242_211_835),
        ("consent-copy", "ユーザー42", 2, 0.1574, 623_195_867),
        ("", "ユーザー42", 1, 0.131, 930_566_131),
        ("exp", "😀user", 2, 0.6373, 4_046_660_778),
        ("", "😀user", 1, 0.067, 2_408_971_067),
        ("café", "Ωmega", 2, 0.7227, 2_164_746_273),
    ]

    @Test(arguments: nonASCIICases.indices) func nonASCIIIdsHashOverUTF16CodeUnits(_ index: Int) {
        let (seed, value, version, expected, rawHash) = Self.nonASCIICases[index]
        #expect(Assignment.fnv1a32(seed + value) == rawHash)
        #expect(Assignment.hash(seed: seed, value: value, version: version) == expected)
    }

    /// cases.json "getBucketRange": [name, [numVariations, coverage, weights], expected ranges].
    static let bucketCases: [(String, Int, Double, [Double]?, [[Double]])] = [
        ("normal 50/50", 2, 1, nil, [[0, 0.5], [0.5, 1]]),
        ("reduced coverage", 2, 0.5, nil, [[0, 0.25], [0.5, 0.75]]),
        ("zero coverage", 2, 0, nil, [[0, 0], [0.5, 0.5]]),
        ("4 variations", 4, 1, nil, [[0, 0.25], [0.25, 0.5], [0.5, 0.75], [0.75, 1]]),
        ("uneven weights", 2, 1, [0.4, 0.6], [[0, 0.4], [0.4, 1]]),
        ("uneven weights, 3 variations", 3, 1, [0.2, 0.3, 0.5], [[0, 0.2], [0.2, 0.5], [0.5, 1]]),
        (
            "uneven weights, reduced coverage, 3 variations", 3, 0.2, [0.2, 0.3, 0.5],
            [[0, 0.04], [0.2, 0.26], [0.5, 0.6]]
        ),
        ("negative coverage", 2, -0.2, nil, [[0, 0], [0.5, 0.5]]),
        ("coverage above 1", 2, 1.5, nil, [[0, 0.5], [0.5, 1]]),
        ("weights sum below 1", 2, 1, [0.4, 0.1], [[0, 0.5], [0.5, 1]]),
        ("weights sum above 1", 2, 1, [0.7, 0.6], [[0, 0.5], [0.5, 1]]),
        (
            "weights.length not equal to num variations", 4, 1, [0.4, 0.4, 0.2],
            [[0, 0.25], [0.25, 0.5], [0.5, 0.75], [0.75, 1]]
        ),
        ("weights sum almost equals 1", 2, 1, [0.4, 0.5999], [[0, 0.4], [0.4, 0.9999]]),
    ]

    @Test(arguments: bucketCases.indices) func growthBookBucketRangeCases(_ index: Int) {
        let (name, count, coverage, weights, expected) = Self.bucketCases[index]
        let ranges = Assignment.bucketRanges(count: count, coverage: coverage, weights: weights)
        #expect(ranges.count == expected.count, "\(name)")
        for (range, bounds) in zip(ranges, expected) {
            // The SDK's own test rounds to 6 decimals (floating-point sums such as 0.2 + 0.3 + ...).
            #expect(abs(range.lower - bounds[0]) < 1e-9 && abs(range.upper - bounds[1]) < 1e-9, "\(name): \(range)")
        }
    }

    /// cases.json "chooseVariation": [name, n, ranges, expected index (-1 = none)].
    static let chooseCases: [(String, Double, [[Double]], Int)] = [
        ("even range, 0.2", 0.2, [[0, 0.5], [0.5, 1]], 0),
        ("even range, 0.4", 0.4, [[0, 0.5], [0.5, 1]], 0),
        ("even range, 0.6", 0.6, [[0, 0.5], [0.5, 1]], 1),
        ("even range, 0.8", 0.8, [[0, 0.5], [0.5, 1]], 1),
        ("even range, 0", 0, [[0, 0.5], [0.5, 1]], 0),
        ("even range, 0.5", 0.5, [[0, 0.5], [0.5, 1]], 1),
        ("reduced range, 0.2", 0.2, [[0, 0.25], [0.5, 0.75]], 0),
        ("reduced range, 0.4", 0.4, [[0, 0.25], [0.5, 0.75]], -1),
        ("reduced range, 0.6", 0.6, [[0, 0.25], [0.5, 0.75]], 1),
        ("reduced range, 0.8", 0.8, [[0, 0.25], [0.5, 0.75]], -1),
        ("reduced range, 0.25", 0.25, [[0, 0.25], [0.5, 0.75]], -1),
        ("reduced range, 0.5", 0.5, [[0, 0.25], [0.5, 0.75]], 1),
        ("zero range", 0.5, [[0, 0.5], [0.5, 0.5], [0.5, 1]], 2),
    ]

    @Test(arguments: chooseCases.indices) func growthBookChooseVariationCases(_ index: Int) {
        let (name, value, bounds, expected) = Self.chooseCases[index]
        let ranges = bounds.map { Assignment.BucketRange(lower: $0[0], upper: $0[1]) }
        #expect((Assignment.chooseVariation(value, ranges: ranges) ?? -1) == expected, "\(name)")
    }

    @Test func experimentAssignsDeterministicallyAndRespectsCoverage() throws {
        // "seed"/"a" hashes to 0.0505 (v2, cases.json): control at 50/50, not enrolled at coverage 0.
        let full = try ExperimentDefinition(key: "exp", variants: ["control", "treatment"], seed: "seed")
        #expect(full.assign("a") == Assignment.Outcome(hashValue: 0.0505, variantIndex: 0, variant: "control"))
        // "seed"/"b" hashes to 0.2696: with weights 0.2/0.8 it lands in treatment, [0.2, 1).
        let uneven = try ExperimentDefinition(
            key: "exp", variants: ["control", "treatment"], weights: [0.2, 0.8], seed: "seed")
        #expect(uneven.assign("b").variant == "treatment")
        // At coverage 0.1, control owns [0, 0.05) and treatment [0.5, 0.55): 0.0505 is outside both.
        let narrow = try ExperimentDefinition(
            key: "exp", variants: ["control", "treatment"], seed: "seed", coverage: 0.1)
        #expect(narrow.assign("a").variant == nil)
        #expect(full.effectiveWeights == [0.5, 0.5])
    }

    @Test func invalidDefinitionsThrow() {
        #expect(throws: ExperimentError.self) { try ExperimentDefinition(key: "", variants: ["a", "b"]) }
        #expect(throws: ExperimentError.self) { try ExperimentDefinition(key: "k", variants: ["a"]) }
        #expect(throws: ExperimentError.self) { try ExperimentDefinition(key: "k", variants: ["a", "a"]) }
        #expect(throws: ExperimentError.self) {
            try ExperimentDefinition(key: "k", variants: ["a", "b"], weights: [1])
        }
        #expect(throws: ExperimentError.self) { try ExperimentDefinition(key: "k", variants: ["a", "b"], coverage: 2) }
        #expect(throws: ExperimentError.self) {
            try ExperimentDefinition(key: "k", variants: ["a", "b"], hashVersion: 3)
        }
    }

    @Test func sessionStartAssignsAndRecordsExposures() throws {
        let flow = try OnboardingSessionTests.flow("health-study")
        let sink = RecordingSink()
        let experiment = try ExperimentDefinition(key: "exp", variants: ["control", "treatment"], seed: "seed")
        let excluded = try ExperimentDefinition(key: "off", variants: ["control", "treatment"], coverage: 0)
        let session = try OnboardingSession.start(
            flow: flow, user: "a", experiments: [experiment, excluded], sink: sink,
            clock: OnboardingSessionTests.fixedClock)
        #expect(session.variants == ["exp": "control"])
        // Exposure when seen (issue 32): nothing at start; once when the app shows the variant.
        #expect(sink.events.filter { $0.kind == .experimentExposure }.isEmpty)
        try session.next()
        #expect(try session.exposed(to: "exp"))
        #expect(try !session.exposed(to: "exp"))  // once per session
        #expect(try !session.exposed(to: "off"))  // not enrolled: nothing to record
        let exposures = sink.events.filter { $0.kind == .experimentExposure }
        #expect(exposures.map(\.name) == ["exp"])
        #expect(exposures.first?.properties["variant"] == "control")
        #expect(exposures.first?.seq == 5)  // after session_started, step_viewed, step_completed, step_viewed

        // At start when the app asks for it: right after session_started, and not again when seen.
        let atStart = RecordingSink()
        let early = try OnboardingSession.start(
            flow: flow, user: "a", experiments: [experiment], exposure: .atStart, sink: atStart,
            clock: OnboardingSessionTests.fixedClock)
        #expect(atStart.events.map(\.kind).prefix(2) == [.sessionStarted, .experimentExposure])
        #expect(try !early.exposed(to: "exp"))
        #expect(atStart.events.filter { $0.kind == .experimentExposure }.count == 1)
    }
}
