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
        .library(name: "OnboardMetricsSDK", targets: ["OnboardMetricsSDK"]),
        // The server side: PostgreSQL, recorder, ingest, collector, analysis, simulation, rendering.
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
        // The collector's connection timeouts are NIO channel handlers (both already come with Hummingbird).
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.24.0"),
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
        .target(name: "OnboardMetricsSDK"),
        .target(name: "OnboardMetricsTesting", dependencies: ["OnboardMetricsSDK"]),
        .target(name: "OnboardMetricsServerTesting", dependencies: ["OnboardMetrics"]),
        .target(
            name: "OnboardMetrics",
            dependencies: ["OnboardMetricsSDK", "CPostgres", "CZlib"]
        ),
        .executableTarget(
            name: "funnel",
            dependencies: [
                "OnboardMetrics",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            ]
        ),
        .executableTarget(
            name: "recorder-bench",
            dependencies: [
                "OnboardMetrics",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "OnboardMetricsTests",
            dependencies: ["OnboardMetrics", "OnboardMetricsSDK", "OnboardMetricsTesting"]
        ),
        .testTarget(
            name: "DatabaseTests",
            dependencies: [
                "OnboardMetrics", "OnboardMetricsSDK", "OnboardMetricsTesting", "OnboardMetricsServerTesting",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
