import ArgumentParser
import Foundation
import OnboardMetrics

/// `funnel serve`: the HTTP collector apps send their events to, so they never hold database
/// credentials.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the HTTP collector: apps POST event batches, the server records them in PostgreSQL.",
        discussion: """
            POST /v1/batch with `Authorization: Bearer KEY` (funnel keys create) and a JSON body \
            {"sent_at": "<client time at sending>", "events": [<events in the JSONL format of \
            docs/EVENT_FORMAT.md>]}. The answer (200) has one result per event, accepted or \
            rejected with the field at fault; it is sent once the accepted events are committed \
            (or, while PostgreSQL is down, fsynced to the spool), so a client can forget them. The \
            server stamps received_at and takes the batch's sent_at for clock-skew correction. \
            Resending is safe: an event_id is stored once.

            Segment's HTTP Tracking API (POST /v1/batch with {"batch": [...]}, /v1/track, \
            /v1/identify, /v1/page, /v1/screen, /v1/group, /v1/alias; the app key as the write key, \
            by HTTP Basic or in the body) and PostHog's capture API (POST /batch/, /capture/, /e/, \
            /i/v0/e/; the app key as api_key) are served too: their calls become onboarding events \
            by a naming convention or --mapping FILE (README, "Use your existing analytics SDK"). \
            Bodies may be gzip or deflate (Content-Encoding; PostHog's ?compression=gzip-js).

            Refusals: 401 unknown or revoked key, 400 not a batch, 413 body or batch too large \
            (split it), 415 a Content-Encoding other than one gzip or deflate, 429 over a key's rate limit of batches or of events (Retry-After says when to come back). \
            GET /healthz answers while the process runs; GET /metrics is in Prometheus's text \
            format. SIGTERM or SIGINT stops taking requests, answers those in flight and flushes. \
            A connection is closed when a client takes longer than --header-timeout to send its \
            headers, --body-timeout to send its body, or stays idle past --idle-timeout. \
            Each refused request is logged (stderr, --log-level info) with its status and code.

            The first line on stdout is the URL the server listens on (useful with --port 0).
            """)

    @Option(help: "The address to listen on. Default: loopback only.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on; 0 picks a free one.")
    var port = 8080

    @Option(help: "Largest request body in bytes (413 above).")
    var maxBodyBytes = 1 << 20

    @Option(help: "Most events in one batch (413 above).")
    var maxEvents = 1_000

    @Option(
        help: ArgumentHelp(
            "Batch requests a second per key on average (429 above); 0 for no limit.",
            discussion: "An app key is shared by every install of an app: size it for the fleet."))
    var rateLimit = 500.0

    @Option(help: "Batch requests a key may make at once after a quiet spell.")
    var burst = 1_000.0

    @Option(
        help: ArgumentHelp(
            "Events a second per key on average, over every format (429 above); 0 for no limit.",
            discussion:
                "Keeps one app from filling the server's queue and spool for every other app. A batch goes ahead whenever the key has budget left and may take more than is left; later batches wait out the debt."
        ))
    var eventRateLimit = 50_000.0

    @Option(help: "Events a key may send at once after a quiet spell.")
    var eventBurst = 200_000.0

    @Option(help: "Seconds a client may take from a request's first byte to the end of its headers.")
    var headerTimeout = 10.0

    @Option(help: "Seconds a client may take to send a request's body, once its headers are in.")
    var bodyTimeout = 30.0

    @Option(help: "Seconds a kept-alive connection may wait for its next request.")
    var idleTimeout = 60.0

    @Option(help: "Where events wait on disk while PostgreSQL is unreachable.")
    var spoolDir = ".onboardmetrics/serve-spool"

    @Option(
        help: ArgumentHelp(
            "Connections writing batches at once, per server (one copies while another commits).",
            valueName: "n"))
    var writeConnections = 2

    @Option(
        help: ArgumentHelp(
            "A JSON file mapping Segment and PostHog event and screen names to onboarding events.",
            discussion: "See README, \"Use your existing analytics SDK\". Without it the naming convention applies.",
            valueName: "file"))
    var mapping: String?

    @OptionGroup var schema: SchemaOptions
    @OptionGroup var database: DatabaseOptions

    @Flag(name: .shortAndLong, help: "Print no status lines on stderr.")
    var quiet = false

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard maxBodyBytes > 0 else { throw ValidationError("--max-body-bytes must be positive") }
        guard maxEvents > 0 else { throw ValidationError("--max-events must be positive") }
        guard (1...64).contains(writeConnections) else {
            throw ValidationError("--write-connections must be between 1 and 64")
        }
        guard rateLimit >= 0, burst >= 1 else { throw ValidationError("--rate-limit must be ≥ 0 and --burst ≥ 1") }
        guard eventRateLimit >= 0, eventBurst >= 1 else {
            throw ValidationError("--event-rate-limit must be ≥ 0 and --event-burst ≥ 1")
        }
        for (name, value) in [
            ("--header-timeout", headerTimeout), ("--body-timeout", bodyTimeout), ("--idle-timeout", idleTimeout),
        ]
        where !(value > 0 && value <= 86_400) {
            throw ValidationError("\(name) must be between 0 and 86400 seconds (not 0)")
        }
    }

    func run() async throws {
        let console = Console(quiet: quiet)
        try self.database.logging.bootstrap(fallback: quiet ? .error : .info)
        // Before the collector and the recorder exist: they make their metrics when built.
        let metrics = ServeMetrics.bootstrap()
        // Read before the database is touched: a bad mapping file is the user's to fix (exit 65).
        let eventMapping = try mapping.map { try EventMapping(contentsOf: $0) }
        let database = try await database.resolve(console: console)
        try await schema.migrate(database, console: console)
        var settings = CollectorService.Settings(database: database)
        settings.host = host
        settings.port = port
        settings.recorder.spoolDirectory = spoolDir
        settings.recorder.writeConnections = writeConnections
        settings.collector.maximumBodyBytes = maxBodyBytes
        settings.collector.maximumEvents = maxEvents
        settings.collector.rateLimit = rateLimit
        settings.collector.burst = burst
        settings.collector.eventRateLimit = eventRateLimit
        settings.collector.eventBurst = eventBurst
        if let eventMapping { settings.collector.mapping = eventMapping }
        settings.timeouts = ConnectionTimeouts(
            header: .nanoseconds(Int64(headerTimeout * 1e9)), body: .nanoseconds(Int64(bodyTimeout * 1e9)),
            idle: .nanoseconds(Int64(idleTimeout * 1e9)))
        settings.stopsOnTerminationSignals = true
        let host = host
        let service = try await CollectorService.make(settings: settings, metrics: metrics) { port in
            console.print("http://\(host.contains(":") ? "[\(host)]" : host):\(port)")
            console.status(
                "collecting on port \(port); POST /v1/batch (native or Segment), /v1/track|identify|page|screen, "
                    + "PostHog /batch/, /capture/, /e/, /i/v0/e/; GET /healthz, GET /metrics")
        }
        if service.recorder.topology.isSharded {
            console.status("recording into \(service.recorder.topology.shards.count) shards")
        }
        try await service.run()
        let counters = service.recorder.counters
        console.status(
            "stopped: \(counters.committed) events committed, \(counters.duplicates) duplicates, "
                + "\(counters.spooled) spooled, \(counters.rejected) rejected")
    }
}
