// The server side is built on the SDK's model (flows, events, the wire format): whoever imports
// OnboardMetrics sees those types too, as one API.
@_exported import OnboardMetricsSDK
