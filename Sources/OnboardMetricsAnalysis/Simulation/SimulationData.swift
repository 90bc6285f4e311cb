/// The recorded behaviour a forecast runs on, as counters that are sums over users, so that a
/// bootstrap draw only reweighs user types.
///
/// Counters are of four kinds, each per stratum: completed sessions, *transitions* between states in the order
/// sessions first viewed steps (from the start to the first step, from a step to the next one
/// viewed, and from the last one to completed or dropped; a move to what the baseline's
/// navigator shows next counts as "continued", any other as a jump to its target), *skips* of a
/// step, and *cells*: sessions per pair of navigator paths (candidate, baseline).
struct SimulationData: Sendable {
    static let startState: Int32 = 0
    static let completedState: Int32 = 1
    static let droppedState: Int32 = 2
    /// The target of a move to the next step of the session's baseline path (or of completing
    /// after its last step): in a forecast, the next step of the candidate's path.
    static let continuedState: Int32 = 3
    static let firstStepState: Int32 = 4

    struct Transition: Sendable {
        var stratum: Int
        var from: Int32
        var to: Int32
        var counter: Int
    }

    struct SkipCounter: Sendable {
        var stratum: Int
        var state: Int32
        var counter: Int
    }

    struct Cell: Sendable {
        var stratum: Int
        var candidatePath: Int
        var baselinePath: Int
        var counter: Int
    }

    /// Users with the same sessions: how many, and what each adds to the counters.
    struct UserType: Sendable {
        var users: Int
        var increments: [(counter: Int, amount: Double)]
    }

    private enum CounterKey: Hashable {
        case transition(stratum: Int32, from: Int32, to: Int32)
        case skip(stratum: Int32, state: Int32)
        case cell(stratum: Int32, candidatePath: Int32, baselinePath: Int32)
        case completion(stratum: Int32)
    }

    let stateCount: Int32
    let stratumCount: Int
    let candidatePaths: [[Int]]
    let baselinePaths: [[Int]]
    let summary: SimulationReport.DataSummary
    private(set) var counterCount = 0
    private(set) var transitions: [Transition] = []
    private(set) var skips: [SkipCounter] = []
    private(set) var cells: [Cell] = []
    /// Counters of completed sessions (one per stratum).
    private(set) var completions: [Int] = []
    /// Sorted by their sessions' signatures, so the bootstrap's draws do not depend on hashing.
    private(set) var userTypes: [UserType] = []
    /// The counters of the data as recorded (every user weighing one).
    private(set) var recorded: [Double] = []

    init(
        signatures: [SimulationSampler.Signature], userTypes types: [[Int32]: Int], stateCount: Int32,
        stratumCount: Int, candidatePaths: [[Int]], baselinePaths: [[Int]], summary: SimulationReport.DataSummary
    ) {
        self.stateCount = stateCount
        self.stratumCount = stratumCount
        self.candidatePaths = candidatePaths
        self.baselinePaths = baselinePaths
        self.summary = summary
        var counters: [CounterKey: Int] = [:]
        func counter(_ key: CounterKey) -> Int {
            if let known = counters[key] { return known }
            let number = counters.count
            counters[key] = number
            return number
        }
        var signatureIncrements: [[Int]] = []
        signatureIncrements.reserveCapacity(signatures.count)
        for signature in signatures {
            let stratum = signature.stratum
            var increments = [
                counter(
                    .cell(
                        stratum: stratum, candidatePath: signature.candidatePath,
                        baselinePath: signature.baselinePath))
            ]
            // What the baseline's navigator would have shown next, per state on the session's path.
            let path = baselinePaths[Int(signature.baselinePath)].map { Int32($0) + Self.firstStepState }
            func following(_ state: Int32) -> Int32 {
                guard state != Self.startState else { return path.first ?? Self.completedState }
                guard let position = path.firstIndex(of: state) else { return -1 }
                return position + 1 < path.count ? path[position + 1] : Self.completedState
            }
            var previous = Self.startState
            for state in signature.views {
                let target = state == following(previous) ? Self.continuedState : state
                increments.append(counter(.transition(stratum: stratum, from: previous, to: target)))
                previous = state
            }
            var end = Self.droppedState
            if signature.completed {
                increments.append(counter(.completion(stratum: stratum)))
                end = following(previous) == Self.completedState ? Self.continuedState : Self.completedState
            }
            increments.append(counter(.transition(stratum: stratum, from: previous, to: end)))
            for state in signature.skipped { increments.append(counter(.skip(stratum: stratum, state: state))) }
            signatureIncrements.append(increments)
        }
        counterCount = counters.count
        for (key, number) in counters.sorted(by: { $0.value < $1.value }) {
            switch key {
            case .transition(let stratum, let from, let to):
                transitions.append(Transition(stratum: Int(stratum), from: from, to: to, counter: number))
            case .skip(let stratum, let state):
                skips.append(SkipCounter(stratum: Int(stratum), state: state, counter: number))
            case .cell(let stratum, let candidatePath, let baselinePath):
                cells.append(
                    Cell(
                        stratum: Int(stratum), candidatePath: Int(candidatePath), baselinePath: Int(baselinePath),
                        counter: number))
            case .completion: completions.append(number)
            }
        }
        recorded = Array(repeating: 0, count: counterCount)
        for (sessions, users) in types.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            var amounts: [Int: Double] = [:]
            for signature in sessions {
                for number in signatureIncrements[Int(signature)] { amounts[number, default: 0] += 1 }
            }
            let increments = amounts.sorted { $0.key < $1.key }.map { (counter: $0.key, amount: $0.value) }
            for increment in increments { recorded[increment.counter] += Double(users) * increment.amount }
            userTypes.append(UserType(users: users, increments: increments))
        }
    }

    /// Counters for a Poisson bootstrap draw: every user weighs an independent Poisson(1) count,
    /// so a type of `n` users weighs a Poisson(`n`) count (Hanley & MacGibbon 2006; Chamandy et
    /// al. 2012) — one variate per type instead of one per user. Resampling users, not sessions,
    /// keeps a user's sessions together (a clustered bootstrap).
    func resampled(using generator: inout some RandomNumberGenerator) -> [Double] {
        var counters = Array(repeating: 0.0, count: counterCount)
        for type in userTypes {
            let weight = Double(generator.poisson(mean: Double(type.users)))
            guard weight > 0 else { continue }
            for increment in type.increments { counters[increment.counter] += weight * increment.amount }
        }
        return counters
    }
}
