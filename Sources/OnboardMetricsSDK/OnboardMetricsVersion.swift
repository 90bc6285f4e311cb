/// The package's version, defined here only: `funnel --version`, the collector's server name
/// and `/healthz` print it. Raise it with each release tag.
public enum OnboardMetricsVersion {
    /// Semantic version of the package.
    public static let current = "0.17.0"
}
