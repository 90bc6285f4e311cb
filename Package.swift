// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "OnboardMetrics",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "OnboardMetrics", targets: ["OnboardMetrics"]),
        .executable(name: "funnel", targets: ["funnel"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0")
    ],
    targets: [
        .systemLibrary(
            name: "CPostgres",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        .target(
            name: "OnboardMetrics",
            dependencies: ["CPostgres"]
        ),
        .executableTarget(
            name: "funnel",
            dependencies: [
                "OnboardMetrics",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
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
            dependencies: ["OnboardMetrics"]
        ),
        .testTarget(
            name: "DatabaseTests",
            dependencies: ["OnboardMetrics"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
