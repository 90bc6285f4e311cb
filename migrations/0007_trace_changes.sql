-- Which traces changed, for readers that keep decoded sessions between reports (a long-running
-- `funnel dashboard`, docs/TRACES.md): each trace row records the transaction that wrote it, and
-- a trace deleted with nothing in its place (the session's events are gone) leaves a row in
-- trace_removals. A reader that read everything written before its snapshot's xmin asks next time
-- only for what was written from that xmin on: every transaction below it had committed and was
-- seen, and one at or above it is asked for again. Transaction ids (xid8) never wrap.
--
-- On a Citus coordinator session_traces was dropped when events was distributed (0006): nothing
-- to change there.
DO $$
BEGIN
    IF to_regclass('session_traces') IS NULL THEN
        RETURN;
    END IF;
    ALTER TABLE session_traces ADD COLUMN written_by xid8 NOT NULL DEFAULT pg_current_xact_id();
    CREATE INDEX session_traces_written_by_idx ON session_traces (written_by);

    CREATE TABLE trace_removals (
        session_id uuid    NOT NULL,
        bucket     integer NOT NULL GENERATED ALWAYS AS (onboardmetrics_bucket(session_id)) STORED,
        written_by xid8    NOT NULL DEFAULT pg_current_xact_id()
    );
    CREATE INDEX trace_removals_written_by_idx ON trace_removals (written_by);
    GRANT SELECT ON trace_removals TO onboardmetrics_reader;

    -- Emptied events: every trace removed, and recorded as such.
    CREATE OR REPLACE FUNCTION onboardmetrics_truncate_traces() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $body$
    BEGIN
        WITH gone AS (DELETE FROM session_traces RETURNING session_id)
        INSERT INTO trace_removals (session_id) SELECT session_id FROM gone;
        DELETE FROM trace_dirty;
        RETURN NULL;
    END;
    $body$;
END;
$$;
