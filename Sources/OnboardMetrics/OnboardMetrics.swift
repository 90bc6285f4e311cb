// The server side as one library: whoever imports OnboardMetrics sees every layer's public API,
// the SDK's model (flows, events, the wire format) included. Each layer is a target of its own
// that imports only the ones below it (Package.swift lists them bottom to top).
@_exported import OnboardMetricsAnalysis
@_exported import OnboardMetricsCollector
@_exported import OnboardMetricsDashboard
@_exported import OnboardMetricsFormats
@_exported import OnboardMetricsGeneration
@_exported import OnboardMetricsHTTP
@_exported import OnboardMetricsPostgres
@_exported import OnboardMetricsReader
@_exported import OnboardMetricsRendering
@_exported import OnboardMetricsSDK
@_exported import OnboardMetricsStatistics
@_exported import OnboardMetricsStore
