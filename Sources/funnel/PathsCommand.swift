import ArgumentParser
import Foundation
import OnboardMetrics

/// `funnel paths`: what people did after dropping out of a flow, or between two of its steps.
struct PathsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "paths",
        abstract: "The most common sequences of events after a drop-off (or between two steps), with a flow chart.",
        discussion: """
            --after-drop: units the flow funnel counts as dropped (with --step S: dropped at S, their \
            last step viewed) are followed from their last event of the flow: the person's next \
            --depth events, in any session and any flow (per session too: a later session of the \
            same person counts), within --window after it; "(end)" when fewer came. --between A,B: \
            units whose onboarding session viewed A and later B; their path is the session's events \
            between the first view of A and the next view of B ("(nothing)" when none came between). \
            Events read kind:name (step_viewed:consent, feature_used:share, session_started:login). \
            Lists the --top paths with units and share of the units followed; --format html draws a \
            flow chart of the event-to-event transitions.

            Examples:
              funnel paths --flow health-study --after-drop --step consent
              funnel paths --flow health-study --after-drop --per user --depth 4 --top 20 --format json
              funnel paths --flow health-study --between welcome,consent --format html --output paths.html
            """)

    @OptionGroup var flow: FlowOptions

    @Flag(help: "Follow units after they dropped out of the flow (the default when --between is not given).")
    var afterDrop = false

    @Option(help: "With --after-drop: only units that dropped at this step.")
    var step: String?

    @Option(help: "Two steps A,B: what happened between viewing A and viewing B.")
    var between: String?

    @Option(help: "Events per path (1-20).")
    var depth = 3

    @Option(help: "Paths listed, most common first.")
    var top = 10

    @Option(help: "What a unit is: session or user.")
    var per: FunnelOptions.Unit = .session

    @OptionGroup var range: TimeRangeOptions

    @OptionGroup var timing: FunnelTimingOptions

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var read: ReadOptions
    @OptionGroup var output: HTMLOutputOptions

    func validate() throws {
        guard flow.flow != nil else { throw ValidationError("pass --flow FILE|ID") }
        _ = try makeOptions()
    }

    private func makeOptions() throws -> PathOptions {
        var options = PathOptions()
        if let between {
            guard !afterDrop, step == nil else {
                throw ValidationError("--between cannot be combined with --after-drop or --step")
            }
            guard let mode = PathOptions.Mode(between: between) else {
                throw ValidationError("--between takes two step ids, A,B; got '\(between)'")
            }
            options.mode = mode
        } else {
            options.mode = .afterDrop(step: step)
        }
        guard (1...20).contains(depth) else { throw ValidationError("--depth must be from 1 to 20, not \(depth)") }
        guard top >= 1 else { throw ValidationError("--top must be at least 1, not \(top)") }
        options.depth = depth
        options.top = top
        options.unit = per
        options.window = try timing.windowSeconds()
        options.inactivity = try timing.inactivitySeconds()
        options.since = try range.sinceDate
        options.until = try range.untilDate
        return options
    }

    func run() async throws {
        let options = try makeOptions()
        let console = output.console
        let configuration = try await database.resolve(console: console)
        let (definition, _) = try await flow.load(configuration: configuration)
        let named: [String]
        switch options.mode {
        case .afterDrop(let step): named = step.map { [$0] } ?? []
        case .between(let from, let to): named = [from, to]
        }
        for id in named where definition.index(of: id) == nil {
            throw ValidationError(definition.unknownStepMessage(id))
        }
        let now = Date()
        let afterDrop: Bool
        if case .afterDrop = options.mode { afterDrop = true } else { afterDrop = false }
        let report = try await ReplayProgress.runDeployment(
            configuration: configuration, quiet: output.quiet, reader: options.reader, read: read,
            people: afterDrop || per == .user
        ) { sharded, progress in
            try await sharded.report(progress: progress.update) {
                PathAggregator(flow: definition, options: options, now: now)
            }
        }
        try output.emit(rendered: report.rendered, html: report.html)
    }
}
