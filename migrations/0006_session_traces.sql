-- Session traces (issue 33): a derived, compact copy of each session's events that reports read
-- instead of streaming every events row. events stays the system of record; a trace is a cache
-- of one session's rows (in event-id order, in the format of the reader's SessionTrace), rebuilt
-- from events whenever the session changes, so a report from traces equals one from events.
--
-- Maintenance needs nothing from the writers: a statement-level trigger on events (which fires
-- for INSERT, COPY FROM, DELETE and UPDATE through the partitioned parent, with the rows each
-- statement touched in its transition tables) marks the touched sessions dirty. A report first
-- rebuilds the dirty sessions of its buckets (taking them out of trace_dirty in the same
-- transaction, so a writer that commits meanwhile marks them again), then reads the traces.
CREATE TABLE session_traces (
    session_id     uuid    PRIMARY KEY,
    bucket         integer NOT NULL GENERATED ALWAYS AS (onboardmetrics_bucket(session_id)) STORED,
    -- The first and last event ids: a report with --since/--until skips traces wholly outside.
    first_event_id uuid    NOT NULL,
    last_event_id  uuid    NOT NULL,
    event_count    integer NOT NULL,
    -- Whether an event id is not a UUIDv7: reports then read events (their stream order is not
    -- time order, so sessions may close differently than one session at a time).
    irregular      boolean NOT NULL DEFAULT false,
    trace          bytea   NOT NULL
);
CREATE INDEX session_traces_irregular_idx ON session_traces (session_id) WHERE irregular;

-- Sessions whose events changed since their trace was built (or that have none yet).
CREATE TABLE trace_dirty (
    session_id uuid PRIMARY KEY
);

-- Marks the sessions a statement touched. SECURITY DEFINER: the writer role needs no grant on
-- trace_dirty. Sessions in id order, so two writers wait for each other's marks in one order
-- (no deadlock).
CREATE FUNCTION onboardmetrics_mark_traces() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO trace_dirty (session_id)
        SELECT DISTINCT session_id FROM new_events ORDER BY session_id ON CONFLICT DO NOTHING;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO trace_dirty (session_id)
        SELECT DISTINCT session_id FROM old_events ORDER BY session_id ON CONFLICT DO NOTHING;
    ELSE
        INSERT INTO trace_dirty (session_id)
        SELECT session_id FROM new_events UNION SELECT session_id FROM old_events
        ORDER BY session_id ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END;
$$;

-- Emptied events: nothing left to derive.
CREATE FUNCTION onboardmetrics_truncate_traces() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
    DELETE FROM session_traces;
    DELETE FROM trace_dirty;
    RETURN NULL;
END;
$$;

CREATE TRIGGER events_traces_insert AFTER INSERT ON events
    REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION onboardmetrics_mark_traces();
CREATE TRIGGER events_traces_delete AFTER DELETE ON events
    REFERENCING OLD TABLE AS old_events FOR EACH STATEMENT EXECUTE FUNCTION onboardmetrics_mark_traces();
CREATE TRIGGER events_traces_update AFTER UPDATE ON events
    REFERENCING NEW TABLE AS new_events OLD TABLE AS old_events
    FOR EACH STATEMENT EXECUTE FUNCTION onboardmetrics_mark_traces();
CREATE TRIGGER events_traces_truncate AFTER TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION onboardmetrics_truncate_traces();

-- A database migrated with events already in it: every session is built by the first report.
INSERT INTO trace_dirty (session_id) SELECT DISTINCT session_id FROM events;

-- Reports read traces with the reader role (and fall back to events when there are dirty
-- sessions they may not rebuild).
GRANT SELECT ON session_traces, trace_dirty TO onboardmetrics_reader;
