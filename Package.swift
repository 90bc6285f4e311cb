// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "OnboardMetrics",
    // macOS 14 for the collector's HTTP server (Hummingbird 2) and the SDK's Observation model; the SDK
    // itself asks no more than iOS 16 (its observable model is marked iOS 17).
    platforms: [.macOS(.v14), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        // What an app links: flows, the navigator, events and their wire format, OnboardingSession,
        // HTTPTransport with its outbox, assignment. Foundation only: no libpq, no server code.
        // OnboardMetricsURLSession adds `HTTPTransport(configuration:)`, which posts with URLSession:
        // apart, so that the server's programs, which use the SDK's events and flows, do not load
        // FoundationNetworking and libcurl on Linux.
        .library(name: "OnboardMetricsSDK", targets: ["OnboardMetricsSDK", "OnboardMetricsURLSession"]),
        // The server side, one product over the layers below (each a target that imports only the
        // ones under it): PostgreSQL, store, reader, analysis, rendering, collector.
        .library(name: "OnboardMetrics", targets: ["OnboardMetrics"]),
        // For apps' tests: an in-memory sink to assert the exact events a flow records, a manual clock.
        .library(name: "OnboardMetricsTesting", targets: ["OnboardMetricsTesting"]),
        // For backends' tests: a throwaway PostgreSQL with the schema, for end-to-end report tests.
        .library(name: "OnboardMetricsServerTesting", targets: ["OnboardMetricsServerTesting"]),
        .executable(name: "funnel", targets: ["funnel"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // No default traits: the collector needs neither swift-configuration nor the full Foundation extras.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // `swift package generate-documentation` for the DocC catalogs (a plugin: not linked into anything).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
        // Server side only: the SDK target below stays Foundation-only.
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        // NIOThreadPool for blocking libpq calls, NIOLockedValueBox for shared state; the collector's
        // connection timeouts are NIO channel handlers (all already come with Hummingbird).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.24.0"),
        // Bcrypt (HummingbirdBcrypt) for the dashboard viewers' secrets: a maintained, salted, slow hash.
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CPostgres",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        // zlib, for the collector's gzip and deflate request bodies (Content-Encoding).
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),

        // MARK: The app side (Foundation only)
        // The privacy manifest Apple requires of SDKs (what it collects, the required-reason APIs).
        .target(name: "OnboardMetricsSDK", resources: [.copy("Resources/PrivacyInfo.xcprivacy")]),
        .target(name: "OnboardMetricsURLSession", dependencies: ["OnboardMetricsSDK"]),
        .target(name: "OnboardMetricsTesting", dependencies: ["OnboardMetricsSDK"]),

        // MARK: The server side, bottom to top: each target imports only the ones above it here.
        // Pure math: intervals, tests, distributions, seeded random numbers.
        .target(name: "OnboardMetricsStatistics"),
        // libpq: connections, COPY in and out, values, errors, configuration. The only importer of CPostgres.
        .target(
            name: "OnboardMetricsPostgres",
            dependencies: [
                "CPostgres",
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        // Wire formats read by both the collector and ingest: the native batch, Segment's and
        // PostHog's messages, the mapping of their names to onboarding events.
        .target(name: "OnboardMetricsFormats", dependencies: ["OnboardMetricsSDK"]),
        // Synthetic apps: scenarios, behaviour models, the example flows (demo, generate, tests).
        // migrations/ and examples/flows/ travel inside the binary as generated sources
        // (Migrations/BundledMigrations.swift, BundledExampleFlows.swift): SwiftPM takes resources
        // only from inside a target's folder, and a resource bundle would have to sit beside the
        // binary. scripts/generate-bundled-files.sh writes them; a test compares.
        .target(
            name: "OnboardMetricsGeneration",
            dependencies: [
                "OnboardMetricsSDK", "OnboardMetricsStatistics",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        // Writing and keeping: migrations, the embedded cluster, the recorder, ingest, partitions,
        // shards, app keys, stored flows and experiments.
        .target(
            name: "OnboardMetricsStore",
            dependencies: [
                "OnboardMetricsSDK", "OnboardMetricsPostgres", "OnboardMetricsFormats",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        // Reading: events out of PostgreSQL (binary COPY), grouped into recorded sessions, from
        // one server or several sources in parallel.
        .target(
            name: "OnboardMetricsReader",
            dependencies: [
                "OnboardMetricsSDK", "OnboardMetricsPostgres", "OnboardMetricsStore",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        // Replay, aggregates and report models: funnels, conformance, discovery, trends,
        // comparisons, experiments, simulation. Pure: sessions in, numbers out.
        .target(
            name: "OnboardMetricsAnalysis",
            dependencies: [
                "OnboardMetricsSDK", "OnboardMetricsReader", "OnboardMetricsStatistics",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        // Text, CSV, Markdown, JSON and HTML (SVG charts) of the reports.
        .target(
            name: "OnboardMetricsRendering",
            dependencies: ["OnboardMetricsAnalysis", "OnboardMetricsStatistics"]
        ),
        // What both HTTP servers (collector and dashboard) do to their connections: header, body
        // and idle timeouts, caps on connections per client and in all, the address a trusted
        // proxy forwarded. NIO channel handlers, under both servers so they share one copy.
        .target(
            name: "OnboardMetricsHTTP",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            ]
        ),
        // The HTTP collector: app keys, rate limits, the native, Segment and PostHog routes on
        // Hummingbird, metrics.
        .target(
            name: "OnboardMetricsCollector",
            dependencies: [
                "OnboardMetricsSDK", "OnboardMetricsFormats", "OnboardMetricsStore", "OnboardMetricsHTTP", "CZlib",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        // The read-only web dashboard (`funnel dashboard`): viewers' sign-in, the report pages
        // (the renderers' HTML) and their JSON twins on Hummingbird. Apart from the collector on purpose.
        .target(
            name: "OnboardMetricsDashboard",
            dependencies: [
                "OnboardMetricsSDK", "OnboardMetricsPostgres", "OnboardMetricsStore", "OnboardMetricsReader",
                "OnboardMetricsAnalysis", "OnboardMetricsRendering", "OnboardMetricsHTTP",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        // The umbrella: re-exports every layer above as one library.
        .target(
            name: "OnboardMetrics",
            dependencies: [
                "OnboardMetricsSDK", "OnboardMetricsStatistics", "OnboardMetricsPostgres", "OnboardMetricsFormats",
                "OnboardMetricsGeneration", "OnboardMetricsStore", "OnboardMetricsReader", "OnboardMetricsAnalysis",
                "OnboardMetricsRendering", "OnboardMetricsHTTP", "OnboardMetricsCollector", "OnboardMetricsDashboard",
            ]
        ),
        .target(name: "OnboardMetricsServerTesting", dependencies: ["OnboardMetricsPostgres", "OnboardMetricsStore"]),
        // The command line: parses arguments and wires the layers together.
        .executableTarget(
            name: "funnel",
            dependencies: [
                "OnboardMetrics",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "recorder-bench",
            dependencies: [
                "OnboardMetrics",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The SDK's own tests: they build and run without the server side (no libpq).
        .testTarget(
            name: "OnboardMetricsSDKTests",
            dependencies: ["OnboardMetricsSDK", "OnboardMetricsURLSession", "OnboardMetricsTesting"]),
        .testTarget(
            name: "OnboardMetricsTests",
            dependencies: [
                "OnboardMetrics", "OnboardMetricsSDK", "OnboardMetricsTesting",
                "OnboardMetricsStatistics", "OnboardMetricsPostgres", "OnboardMetricsFormats",
                "OnboardMetricsGeneration",
                "OnboardMetricsStore", "OnboardMetricsReader", "OnboardMetricsAnalysis", "OnboardMetricsRendering",
                "OnboardMetricsHTTP", "OnboardMetricsCollector", "OnboardMetricsDashboard",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
        .testTarget(
            name: "DatabaseTests",
            dependencies: [
                "OnboardMetrics", "OnboardMetricsSDK", "OnboardMetricsURLSession", "OnboardMetricsTesting",
                "OnboardMetricsServerTesting",
                "OnboardMetricsStatistics", "OnboardMetricsPostgres", "OnboardMetricsFormats",
                "OnboardMetricsGeneration",
                "OnboardMetricsStore", "OnboardMetricsReader", "OnboardMetricsAnalysis", "OnboardMetricsRendering",
                "OnboardMetricsHTTP", "OnboardMetricsCollector", "OnboardMetricsDashboard",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Micro-benchmarks (ordo-one/benchmark) and benchmark drivers, kept out of the default build and
// CI: they add a dependency tree and build time nobody needs to run the tool. Run them with
//   ONBOARDMETRICS_BENCHMARKS=1 swift package benchmark --target JSONEventParsing
//   bash scripts/bench-sdk.sh (SDKRecording: the SDK's record() and outbox against fsync)
if Context.environment["ONBOARDMETRICS_BENCHMARKS"] != nil {
    package.dependencies.append(
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]))
    package.targets.append(
        .executableTarget(
            name: "JSONEventParsing",
            dependencies: ["OnboardMetricsSDK", .product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/JSONEventParsing",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]))
    package.targets.append(
        .executableTarget(
            name: "SDKRecording", dependencies: ["OnboardMetricsSDK", "OnboardMetricsURLSession"],
            path: "Benchmarks/SDKRecording"))
}
