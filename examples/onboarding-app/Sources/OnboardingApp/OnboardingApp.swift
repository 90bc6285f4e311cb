import Foundation
import OnboardMetricsSDK
import OnboardMetricsURLSession

/// Stands in for an app that records its onboarding with the SDK: each simulated user runs one
/// of the five scenario flows (health study, assisted board creation, a spotlight on a new
/// button, enterprise first run and restore, a login flow handing off to an account flow)
/// through ``OnboardingModel`` — what a SwiftUI view binds to — and ``HTTPTransport`` sends the
/// events to the collector.
///
///     onboarding-app --endpoint http://127.0.0.1:8080 --key KEY --flows examples/flows \
///         [--users 40] [--outbox DIR]
///     onboarding-app life --collector URL --key KEY --container DIR --user N --truth FILE
///
/// Prints one JSON object: the transport's final counters and the number of sessions. `life`
/// runs one launch of one install instead, to be killed and relaunched (``AppLife``).
@main
struct OnboardingApp {
    static func main() async {
        let arguments = CommandLine.arguments.dropFirst()
        if arguments.first == "life" {
            // One launch of one simulated install (see AppLife).
            exit(await AppLife.main(arguments.dropFirst()))
        }
        do {
            let options = try Options(CommandLine.arguments.dropFirst())
            let counters = try await run(options)
            print(counters)
            exit(counters.contains(#""dropped":0"#) && counters.contains(#""rejected":0"#) ? 0 : 1)
        } catch {
            FileHandle.standardError.write(Data("onboarding-app: \(error)\n".utf8))
            exit(2)
        }
    }

    @MainActor
    static func run(_ options: Options) async throws -> String {
        let catalog = try FlowCatalog.load(directory: options.flows)
        var configuration = HTTPTransport.Configuration(
            endpoint: options.endpoint, appKey: options.key, queueDirectory: options.outbox)
        configuration.flushInterval = 0.2
        let transport = try HTTPTransport(configuration: configuration)
        var sessions = 0
        for user in 0..<options.users {
            let id = "app-user-\(user)"
            for journey in Journey.allCases where (user + journey.rawValue) % 2 == 0 || user < 5 {
                try journey.run(user: id, variant: user, catalog: catalog, sink: transport)
                sessions += 1
            }
            // Each simulated user is a phone of its own: it sends when its app goes to the background.
            // (One process recording a whole fleet at once would outrun the outbox's memory buffer,
            // which drops the oldest events rather than make the app's thread wait.)
            guard try await transport.flush(attempts: 5, pause: .milliseconds(500)) else {
                throw Failure("the collector did not take \(id)'s events")
            }
        }
        // What an app does when its scene goes to the background: send what is waiting.
        guard try await transport.flush(attempts: 5, pause: .milliseconds(500)) else {
            throw Failure("the collector did not take every event")
        }
        let counters = await transport.shutdown()
        let json = try JSONEncoder().encode(counters)
        var object = try JSONSerialization.jsonObject(with: json) as? [String: Any] ?? [:]
        object["sessions"] = sessions
        let output = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: output, as: UTF8.self)
    }
}

struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

struct Options {
    var endpoint: URL
    var key: String
    var flows: URL
    var users = 40
    var outbox: String?

    init(_ arguments: ArraySlice<String>) throws {
        var values: [String: String] = [:]
        var rest = arguments[...]
        while let name = rest.popFirst() {
            guard name.hasPrefix("--"), let value = rest.popFirst() else { throw Failure("usage: see the source") }
            values[String(name.dropFirst(2))] = value
        }
        guard let endpoint = values["endpoint"].flatMap(URL.init(string:)), let key = values["key"],
            let flows = values["flows"]
        else { throw Failure("--endpoint URL, --key KEY and --flows DIR are required") }
        self.endpoint = endpoint
        self.key = key
        self.flows = URL(fileURLWithPath: flows)
        if let users = values["users"] { self.users = Int(users) ?? self.users }
        outbox = values["outbox"]
    }
}
