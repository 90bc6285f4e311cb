import Foundation

// Every report built from a ``ShardedReader``: one aggregate per source, merged, then the same
// finishing step as a single-server read.

extension FunnelReport {
    /// Builds the flow funnel from several sources read in parallel (see ``ShardedReader``).
    /// - Throws: `PostgresError`.
    public static func build(
        flow: FlowDefinition, reader: ShardedReader, options: FunnelOptions, now: Date,
        progress: @escaping @Sendable (Int) -> Void = { _ in }
    ) throws -> FunnelReport {
        var aggregator = try reader.aggregate(progress: progress) {
            FunnelAggregator(flow: flow, options: options, now: now)
        }
        return aggregator.report()
    }
}

extension AdHocFunnel {
    /// Builds the ad-hoc funnel from several sources read in parallel (see ``ShardedReader``).
    /// - Throws: `PostgresError`.
    public func build(reader: ShardedReader, progress: @escaping @Sendable (Int) -> Void = { _ in }) throws
        -> AdHocFunnelReport
    {
        let funnel = self
        var aggregator = try reader.aggregate(progress: progress) { AdHocFunnelAggregator(funnel: funnel) }
        return aggregator.report()
    }
}

extension ConformanceReport {
    /// Builds the conformance report from several sources read in parallel (see ``ShardedReader``).
    /// - Throws: `PostgresError`.
    public static func build(
        flow: FlowDefinition, catalog: FlowCatalog? = nil, reader: ShardedReader,
        options: ConformanceOptions = ConformanceOptions(), progress: @escaping @Sendable (Int) -> Void = { _ in }
    ) throws -> ConformanceReport {
        let aggregator = try reader.aggregate(progress: progress) {
            ConformanceAggregator(flow: flow, catalog: catalog, options: options)
        }
        return aggregator.report()
    }
}

extension DiscoveryReport {
    /// Builds the discovery report from several sources read in parallel (see ``ShardedReader``).
    /// - Throws: `PostgresError`.
    public static func build(
        reader: ShardedReader, options: DiscoveryOptions = DiscoveryOptions(),
        progress: @escaping @Sendable (Int) -> Void = { _ in }
    ) throws -> DiscoveryReport {
        var aggregator = try reader.aggregate(progress: progress) { DiscoveryAggregator(options: options) }
        return aggregator.report()
    }
}

extension ExperimentReport {
    /// Builds the experiment report from several sources read in parallel (see ``ShardedReader``);
    /// `reader.reader` takes the place of `options.reader`.
    /// - Throws: `PostgresError`.
    public static func build(
        reader: ShardedReader, options: ExperimentOptions, progress: @escaping @Sendable (Int) -> Void = { _ in }
    ) throws -> ExperimentReport {
        var aggregator = try reader.aggregate(progress: progress) { ExperimentAggregator(options: options) }
        let (counts, mixed) = aggregator.finish()
        return make(counts: counts, mixed: mixed, options: options)
    }
}

extension TrendReport {
    /// Builds the trend report from several sources read in parallel (see ``ShardedReader``).
    /// - Throws: `PostgresError`.
    public static func build(
        flow: FlowDefinition, reader: ShardedReader, options: TrendOptions, now: Date,
        progress: @escaping @Sendable (Int) -> Void = { _ in }
    ) throws -> TrendReport {
        let aggregator = try reader.aggregate(progress: progress) {
            TrendAggregator(flow: flow, options: options, now: now)
        }
        return aggregator.report()
    }
}

extension ComparisonReport {
    /// Builds the comparison from several sources read in parallel (see ``ShardedReader``).
    /// - Throws: `PostgresError`.
    public static func build(
        flow: FlowDefinition, reader: ShardedReader, options: ComparisonOptions, now: Date,
        progress: @escaping @Sendable (Int) -> Void = { _ in }
    ) throws -> ComparisonReport {
        let aggregator = try reader.aggregate(progress: progress) {
            ComparisonAggregator(flow: flow, options: options, now: now)
        }
        return aggregator.report()
    }
}

extension SimulationReport {
    /// Forecasts the candidate from several sources read in parallel (see ``ShardedReader``).
    /// - Throws: `PostgresError` for the reads, `SimulationError` as the in-memory build.
    public static func build(
        options: SimulationOptions, reader: ShardedReader, now: Date,
        progress: @escaping @Sendable (Int) -> Void = { _ in }
    ) throws -> SimulationReport {
        let sampler = try reader.aggregate(progress: progress) { try SimulationSampler(options: options, now: now) }
        return try forecast(sampler)
    }
}
