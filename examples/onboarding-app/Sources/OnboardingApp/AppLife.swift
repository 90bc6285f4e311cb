import Foundation
import OnboardMetricsSDK
import OnboardMetricsURLSession

/// `OnboardingApp life`: one launch of one simulated install, which may be killed at any moment
/// and launched again on the same folder — the life of an app on a phone.
///
///     OnboardingApp life --collector URL --key KEY --container DIR --user N --truth FILE \
///         [--flows DIR]
///
/// The install's SDK storage is DIR: the transport's outbox (`outbox`), the consent gate's
/// answer and held events (`consent`), the session store (`state`), and the launch count
/// (`launches`). At the first launch the app asks for analytics consent before the onboarding
/// (policy hold-until-granted), then the user goes through `health-study` as ``LifePlan`` says —
/// identifying as `member-N` at the account step, quitting at a step or completing. A relaunch
/// carries on where the saved session is (``SessionStore`` resumes it). Each move is written to
/// FILE as `begun` before it is made and as `done` once the SDK made it durable (``TruthLog``): a
/// session's move is, when it returns (``SessionStore`` saves its events with the position before
/// they reach the transport); the consent answer once the collector acknowledged what the gate
/// released. Exits 0 once the user has completed, quit or declined and everything recorded
/// is acknowledged; prints one JSON line then.
struct AppLife {
    struct Options {
        var collector: URL
        var key: String
        var container: String
        var user: Int
        var truth: String
        var flows: URL

        init(_ arguments: ArraySlice<String>) throws {
            var values: [String: String] = [:]
            var rest = arguments
            while let name = rest.popFirst() {
                guard name.hasPrefix("--"), let value = rest.popFirst() else {
                    throw Failure(
                        "usage: OnboardingApp life --collector URL --key KEY --container DIR --user N --truth FILE")
                }
                values[String(name.dropFirst(2))] = value
            }
            guard let collector = values["collector"].flatMap(URL.init(string:)), let key = values["key"],
                let container = values["container"], let user = values["user"].flatMap(Int.init),
                let truth = values["truth"]
            else {
                throw Failure("--collector URL, --key KEY, --container DIR, --user N and --truth FILE are required")
            }
            self.collector = collector
            self.key = key
            self.container = container
            self.user = user
            self.truth = truth
            // The example's flows sit beside the package (examples/flows) unless told otherwise.
            flows =
                values["flows"].map { URL(fileURLWithPath: $0) }
                ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../flows")
                .standardized
        }
    }

    let options: Options
    let plan: LifePlan
    let transport: HTTPTransport
    let gate: ConsentGate
    let store: SessionStore
    var log: TruthLog

    static func main(_ arguments: ArraySlice<String>) async -> Int32 {
        do {
            var life = try AppLife(Options(arguments))
            print(try await life.run())
            return 0
        } catch {
            FileHandle.standardError.write(Data("onboarding-app life: \(error)\n".utf8))
            return 1
        }
    }

    init(_ options: Options) throws {
        self.options = options
        plan = LifePlan(user: options.user)
        let launch = try Self.countLaunch(in: options.container)
        let catalog = try FlowCatalog.load(directory: options.flows)
        var configuration = HTTPTransport.Configuration(
            endpoint: options.collector, appKey: options.key, queueDirectory: options.container + "/outbox")
        configuration.flushInterval = 0.2
        configuration.initialBackoff = 0.05
        configuration.maximumBackoff = 1
        configuration.requestTimeout = 5
        transport = try HTTPTransport(configuration: configuration)
        gate = try ConsentGate(directory: options.container + "/consent", policy: .holdUntilGranted, sink: transport)
        store = try SessionStore(directory: options.container + "/state", flows: catalog, sink: gate)
        log = try TruthLog(path: options.truth, user: options.user, launch: launch, anonymousID: store.anonymousID)
    }

    /// Plays the user's plan from where the install is, then waits for the collector.
    mutating func run() async throws -> String {
        if gate.consent == .pending {
            // The consent question comes before the onboarding: nothing is recorded before it.
            let granted = !plan.declines
            try log.append(move: "consent", step: nil, state: "begun", granted: granted)
            try gate.setConsent(granted ? .granted : .denied)
            try await settle()
            try log.append(move: "consent", step: nil, state: "done", granted: granted)
        }
        let session: OnboardingSession
        if let saved = store.session(flow: LifePlan.flowID) {
            // A finished session stays (a new start would count a second onboarding); a running one resumes.
            session = saved.status == .running ? try store.start(flow: LifePlan.flowID, context: plan.context) : saved
        } else {
            let first = store.flows[LifePlan.flowID]?.steps.first?.id
            try await pause()
            try log.append(move: "view", step: first, state: "begun")
            session = try store.start(flow: LifePlan.flowID, context: plan.context)
            try log.append(move: "view", step: first, state: "done")
        }
        while let step = session.currentStep {
            try await pause()
            let move = nextMove(on: step.id, session)
            try log.append(move: move, step: step.id, state: "begun")
            switch move {
            case "quit": try session.abandon()
            case "identify": try store.identify(user: plan.memberID)
            case "complete_flow": try session.complete()
            case "back": try session.back()
            case "skip": try session.skip()
            default: try session.next()
            }
            // Durable now: the store saved the move's events before handing them to the transport.
            try log.append(move: move, step: step.id, state: "done")
        }
        return try await finish(session)
    }

    /// The user's next move on `stepID`, from the plan and what the install has done.
    func nextMove(on stepID: String, _ session: OnboardingSession) -> String {
        if stepID == plan.quitStep { return "quit" }
        if stepID == "account" { return store.identifiedUserID == nil ? "identify" : "complete_flow" }
        // Back once: a back begun in an earlier launch counts, whether or not it was made.
        if stepID == plan.backStep, session.canGoBack, !log.hasBegun("back") { return "back" }
        if session.canSkip, plan.skips.contains(stepID) { return "skip" }
        return "complete"
    }

    /// Waits until the collector acknowledged everything recorded (``HTTPTransport/flush()``): for
    /// the consent answer, whose released events go from the gate to the transport's memory, and
    /// at exit.
    func settle() async throws {
        let flushed = try await transport.flush(attempts: 100, pause: .milliseconds(100))
        let counters = transport.counters
        guard flushed, counters.rejected == 0, counters.dropped == 0 else {
            throw Failure("the collector did not take the events: \(counters)")
        }
    }

    func pause() async throws {
        try await Task.sleep(for: .milliseconds(plan.pause(beforeMove: log.begunMoves)))
    }

    /// Everything acknowledged and nothing left on the device: the install's life is over.
    func finish(_ session: OnboardingSession) async throws -> String {
        try await settle()
        let counters = await transport.shutdown()
        guard counters.queued == 0, counters.buffered == 0, gate.heldCount == 0 else {
            throw Failure("events are left on the device: \(counters), \(gate.heldCount) held")
        }
        let object: [String: Any] = [
            "user": options.user, "launch": log.launch, "status": session.status.rawValue,
            "consent": gate.consent.rawValue, "sent": counters.sent, "anon": store.anonymousID,
        ]
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    /// Adds one to DIR/launches (made at the first launch) and returns the new count. A kill
    /// before the count is written leaves the old one: that launch did nothing yet.
    static func countLaunch(in container: String) throws -> Int {
        try FileManager.default.createDirectory(atPath: container, withIntermediateDirectories: true)
        let path = container + "/launches"
        let previous =
            (try? String(contentsOfFile: path, encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
        try Data("\(previous + 1)\n".utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        return previous + 1
    }
}
