import OnboardMetricsPostgres

extension PostgresError {
    /// Whether the error may be a unique violation: SQLSTATE 23505 as PostgreSQL reports it, or
    /// XX000, which is how a Citus coordinator relays a worker's error in a COPY (the worker's
    /// message, "duplicate key value violates unique constraint ...", without its SQLSTATE:
    /// Citus' `ReportCopyError`). Writers that catch it probe which rows are stored and copy the
    /// rest, so any other internal error costs one probe and then surfaces.
    package var mayBeUniqueViolation: Bool { sqlState == "23505" || sqlState == "XX000" }
}
