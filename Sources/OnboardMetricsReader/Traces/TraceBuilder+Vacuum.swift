import OnboardMetricsPostgres

extension TraceBuilder {
    /// What decides whether a catch-up vacuums the traces it wrote: the table's size before it
    /// and the server's autovacuum settings for inserts, read before the build.
    struct VacuumPlan: Sendable, Equatable {
        /// `pg_class.reltuples` of `session_traces` (-1 until first vacuumed or analyzed).
        var tracesBefore: Double
        /// `autovacuum_vacuum_insert_threshold` (-1: autovacuum would not vacuum for inserts).
        var insertThreshold: Double
        /// `autovacuum_vacuum_insert_scale_factor`.
        var insertScaleFactor: Double
        /// Whether this role may vacuum the traces (owner, database owner or superuser): others
        /// would only get a warning.
        var mayVacuum: Bool

        /// Whether `rebuilt` new traces are as many as autovacuum waits for before it vacuums the
        /// table. It would then do so within a minute or so, on the same cores as the next reports
        /// (at 7M events, a first dashboard page after new events took 4.3 s against 0.4 s while
        /// it ran), so the catch-up does it now, while its caller waits anyway (0.8 s at 7M).
        func vacuums(rebuilt: Int) -> Bool {
            guard mayVacuum, insertThreshold >= 0 else { return false }
            return Double(rebuilt) > insertThreshold + insertScaleFactor * max(0, tracesBefore)
        }
    }

    /// Reads the ``VacuumPlan`` of the traces: the table's own autovacuum options where it has
    /// them, else the server's; autovacuum off (for the server or the table), or a server without
    /// the insert settings (before PostgreSQL 13), plans no vacuum.
    static func vacuumPlan(on connection: PostgresConnection) throws -> VacuumPlan {
        let row = try connection.query(
            """
            WITH options AS (
                SELECT c.reltuples::float8 AS reltuples, c.relowner,
                    (SELECT option_value FROM pg_options_to_table(c.reloptions)
                        WHERE option_name = 'autovacuum_enabled') AS enabled,
                    (SELECT option_value FROM pg_options_to_table(c.reloptions)
                        WHERE option_name = 'autovacuum_vacuum_insert_threshold') AS threshold,
                    (SELECT option_value FROM pg_options_to_table(c.reloptions)
                        WHERE option_name = 'autovacuum_vacuum_insert_scale_factor') AS scale
                FROM pg_class AS c WHERE c.oid = 'session_traces'::regclass
            )
            SELECT reltuples,
                CASE WHEN current_setting('autovacuum', true)::bool AND coalesce(enabled, 'on')::bool
                    THEN coalesce(threshold, current_setting('autovacuum_vacuum_insert_threshold', true))::float8
                    ELSE -1 END,
                coalesce(scale, current_setting('autovacuum_vacuum_insert_scale_factor', true))::float8,
                pg_has_role(relowner, 'USAGE')
                    OR pg_has_role((SELECT datdba FROM pg_database WHERE datname = current_database()), 'USAGE')
                    OR (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)
            FROM options
            """
        ).first
        return VacuumPlan(
            tracesBefore: row?[0].double ?? -1, insertThreshold: row?[1].double ?? -1,
            insertScaleFactor: row?[2].double ?? 0, mayVacuum: row?[3].bool ?? false)
    }

    /// Vacuums and analyzes the traces and their marks (each batch deleted its marks): what
    /// autovacuum would do next after a bulk build, done now. Outside any transaction.
    static func vacuum(on connection: PostgresConnection) throws {
        try connection.query("VACUUM (ANALYZE) session_traces, trace_dirty")
    }
}
