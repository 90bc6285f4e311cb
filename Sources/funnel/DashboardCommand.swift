import ArgumentParser
import Foundation
import OnboardMetrics

/// `funnel dashboard`: a read-only web dashboard of the reports, for viewers.
struct DashboardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dashboard",
        abstract: "Serve a read-only web dashboard of flows and experiments to viewers (funnel viewers create).",
        discussion: """
            Pages: GET / lists the stored flows (sessions started and completion rate over the last 7 \
            and 30 days, a sparkline of sessions started per day), experiments and the highlights shown \
            in the last 30 days; GET /flows/ID is the flow's funnel, with the options of `funnel \
            report` in the query string (since, until, per=session|user, breakdown, window, \
            inactivity), so a link reproduces the view; /flows/ID/trends, /compare, /users, \
            /retention, /correlation and /paths are `funnel trends`, `compare`, `users`, `retention`, \
            `correlate` and `paths` for the flow, their options as query parameters (a_since=... for \
            --a-since); GET /funnel?steps=a,b,c is the ad-hoc funnel of `funnel report --steps` \
            (order, per, window, inactivity, since, until; without steps, a form to name them); \
            GET /discovery is `funnel discovery`; GET /experiments/KEY is an experiment's \
            report (metric, per, window, since, until, engine, mde). Each page has a JSON twin, \
            ?format=json or Accept: application/json, equal to the CLI's --format json for the same \
            options. Every page says when it was made ("as of") and when the newest event happened.

            Sign-in: a viewer's name and secret (funnel viewers create NAME) as HTTP Basic, for \
            scripts (curl -u NAME:SECRET), or the form at /login, which sets an HttpOnly, \
            SameSite=Strict session cookie (Secure too with --cookie-secure; sessions live in this process's memory: a restart signs \
            browsers out). App keys never open the dashboard. Failed sign-ins are logged (without \
            the secret; the name cut to 8 characters, and not at all when it looks like a key) and \
            limited per client address (429 with Retry-After once spent); a name or secret with a \
            control character (NUL) is 400 and a failure. Behind a reverse proxy, --trust-proxy \
            counts by the address the proxy forwarded.

            Connections: closed when a client takes longer than --header-timeout to send its \
            headers, --body-timeout to send its body, or stays idle past --idle-timeout (the \
            collector's limits); a client address may hold --max-connections-per-client open and the \
            server --max-connections in all, and a connection beyond either is answered 503 and \
            closed at once, so one client cannot shut the others (or GET /healthz) out.

            It only reads, with the database the reports use, and is a server apart from the \
            collector (funnel serve). Each request is logged on stderr with the time it took \
            (--log-level info). SIGTERM or SIGINT stops it after answering the requests in flight. \
            The first line on stdout is the URL it listens on (useful with --port 0).
            """)

    @Option(help: "The address to listen on. Default: loopback only.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on; 0 picks a free one.")
    var port = 8090

    @Option(help: "Failed sign-ins a client address may make at once before it must wait.")
    var signInBurst = 10.0

    @Option(help: "Seconds a client address waits for each further failed sign-in once its burst is spent.")
    var signInInterval = 60.0

    @Flag(
        help: ArgumentHelp(
            "Mark the sign-in cookie Secure, so browsers send it over HTTPS only.",
            discussion: "For a dashboard behind a proxy that terminates TLS. Without HTTPS in front, browsers "
                + "(but for http://localhost) then never send the cookie back and the form cannot sign in."))
    var cookieSecure = false

    @Flag(
        help: ArgumentHelp(
            "Take a request's client to be the address its proxy forwarded, not the proxy's.",
            discussion: "For a dashboard that only a reverse proxy reaches: the last address of X-Forwarded-For "
                + "(the one the proxy appended), else Forwarded: for=, is what failed sign-ins and "
                + "--max-connections-per-client are counted by and what the log shows. Off by default: any "
                + "client can write these headers, and one that reaches the dashboard directly could then "
                + "pose as anyone. The proxy must append to X-Forwarded-For (or replace it)."))
    var trustProxy = false

    @Option(
        help: ArgumentHelp(
            "The most events whose sessions are kept decoded in memory between reports; 0 keeps none.",
            discussion: "Kept sessions make a report read only the sessions written since the last one "
                + "(about 140 bytes of memory per event for the groupings kept, at most two: the flow pages' and "
                + "the ad-hoc funnel's, which share the sessions they cut alike; docs/TRACES.md). Used on a single "
                + "server for reports without --since/--until; beyond this many events, and on shards or Citus, "
                + "every report reads PostgreSQL."))
    var cacheEvents = DashboardService.defaultCacheEvents

    @Option(
        help: ArgumentHelp(
            "Seconds between background refreshes of the kept sessions; 0 refreshes only when a page is opened.",
            discussion: "A refresh brings the session traces up to date and reads what was written since the "
                + "last one, so a page opened after new events seldom waits for them. Pages always refresh "
                + "first too: what they show is never older than the database."))
    var refreshEvery = DashboardService.defaultRefreshInterval

    @OptionGroup var connections: ConnectionOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var read: ReadOptions

    @Flag(name: .shortAndLong, help: "Print no status lines on stderr.")
    var quiet = false

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard cacheEvents >= 0 else { throw ValidationError("--cache-events must be 0 or more") }
        guard refreshEvery >= 0, refreshEvery <= 86_400 else {
            throw ValidationError("--refresh-every must be between 0 and 86400 seconds")
        }
        guard signInBurst >= 1 else { throw ValidationError("--sign-in-burst must be at least 1") }
        guard signInInterval > 0, signInInterval <= 86_400 else {
            throw ValidationError("--sign-in-interval must be between 0 and 86400 seconds (not 0)")
        }
        // The dashboard reads through the coordinator (issue 35 left its reads as they were).
        guard !read.citusWorkers else {
            throw ValidationError("--citus-workers is for reports; the dashboard reads through the coordinator")
        }
    }

    func run() async throws {
        let console = Console(quiet: quiet)
        try database.logging.bootstrap(fallback: quiet ? .error : .info)
        let configuration = try await database.resolve(console: console)
        // Read-only, so it migrates nothing: without viewers nobody could sign in, which is said now.
        let viewers = try await BlockingIO.run {
            let connection = try PostgresConnection(configuration: configuration)
            defer { connection.close() }
            return try ViewerStore().validCount(on: connection)
        }
        switch viewers {
        case nil:
            console.status(
                "warning: this database has no viewers table: run funnel migrate, then funnel viewers create NAME")
        case 0?: console.status("warning: no viewers yet, so nobody can sign in: funnel viewers create NAME")
        default: break
        }
        var settings = DashboardService.Settings(database: configuration)
        settings.host = host
        settings.port = port
        settings.readConnections = read.connections
        settings.cacheEvents = cacheEvents
        settings.refreshInterval = refreshEvery
        settings.signInBurst = signInBurst
        settings.signInInterval = signInInterval
        settings.cookieSecure = cookieSecure
        settings.trustProxy = trustProxy
        connections.apply(to: &settings)
        settings.stopsOnTerminationSignals = true
        let host = host
        let service = DashboardService.make(settings: settings) { port in
            console.print("http://\(host.contains(":") ? "[\(host)]" : host):\(port)")
            console.status(
                "dashboard on port \(port): GET /, /flows/ID, /funnel, /discovery, /experiments/KEY (sign in at /login)"
            )
        }
        try await service.run()
        console.status("dashboard stopped")
    }
}
