import OnboardMetricsPostgres

extension PersonLinks {
    /// The links stored in one database: `$identify` events (the user linked to their
    /// `$anon_distinct_id`) and `$create_alias` events (to Segment's `previous_id` or PostHog's
    /// `alias`), as ``EventMapping`` stores Segment's and PostHog's identity calls.
    /// - Throws: `PostgresError`.
    public mutating func load(on connection: PostgresConnection) throws {
        let rows = try connection.query(
            """
            SELECT user_id, coalesce(properties->>'$anon_distinct_id', properties->>'previous_id',
                                     properties->>'alias') AS other
            FROM events WHERE kind = 'custom' AND name IN ('$identify', '$create_alias')
            """)
        for row in rows {
            if let user = row["user_id"].string, let other = row["other"].string { link(other, to: user) }
        }
    }
}
