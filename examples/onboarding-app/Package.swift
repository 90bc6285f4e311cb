// swift-tools-version:6.1
// An app's view of OnboardMetrics: this package depends on the SDK product alone (no libpq, no
// server code) and drives the five scenario flows of examples/flows against a running
// `funnel serve`, as an iOS app would — here as a command-line program so it runs on Linux too.
import PackageDescription

let package = Package(
    name: "OnboardingApp",
    platforms: [.macOS(.v14), .iOS(.v17)],
    dependencies: [
        .package(name: "OnboardMetrics", path: "../..")
    ],
    targets: [
        .executableTarget(
            name: "OnboardingApp",
            dependencies: [.product(name: "OnboardMetricsSDK", package: "OnboardMetrics")]
        )
    ],
    swiftLanguageModes: [.v6]
)
