import ArgumentParser

/// The `funnel` command-line tool: records, migrates and analyses onboarding events.
@main
struct Funnel: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "funnel",
        abstract: "Onboarding analytics on PostgreSQL: record, replay and report onboarding funnels.",
        subcommands: [GenerateCommand.self]
    )
}
