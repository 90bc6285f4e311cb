-- Which writer marked a session for a rebuild. A writer that sets onboardmetrics.trace_writer on
-- its connections (`funnel ingest`, a value of its own) finds its own marks among a session's: a
-- session with no trace whose marks are exactly one for each of that writer's statements that
-- stored its events has no other events, and its trace can be encoded from the events the writer
-- still holds instead of being read back (TraceBuilder+Stored.swift). Other writers leave it NULL.
-- A default that is not volatile adds the column without rewriting the table.
--
-- On a Citus coordinator the trace tables were dropped when events was distributed (0006).
DO $$
BEGIN
    IF to_regclass('trace_dirty') IS NULL THEN
        RETURN;
    END IF;
    ALTER TABLE trace_dirty ADD COLUMN writer text DEFAULT current_setting('onboardmetrics.trace_writer', true);
END;
$$;
