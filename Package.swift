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
        .executable(name: "funnel", targets: ["funnel"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // No default traits: the collector needs neither swift-configuration nor the full Foundation extras.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
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
            dependencies: ["OnboardMetrics", "OnboardMetricsSDK"]
        ),
        .testTarget(
            name: "DatabaseTests",
            dependencies: ["OnboardMetrics", "OnboardMetricsSDK"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
