-- Session traces (issue 33): a derived, compact copy of each session's events that reports read
-- instead of streaming every events row. events stays the system of record; a trace is a cache
-- of one session's rows (in event-id order, in the format of the reader's SessionTrace), rebuilt
-- from events whenever the session changes, so a report from traces equals one from events.
--
-- Maintenance needs nothing from the writers: a statement-level trigger on events (which fires
-- for INSERT, COPY FROM, DELETE and UPDATE through the partitioned parent, with the rows each
-- statement touched in its transition tables) marks the touched sessions dirty. A report first
-- rebuilds the dirty sessions of its buckets (taking the marks it sees out of trace_dirty in the
-- transaction that rebuilds them: a writer committing later leaves its mark), then reads the
-- traces. See docs/TRACES.md.
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

-- Sessions whose events changed since their trace was built (or that have none yet), once per
-- statement that touched them. No unique key on purpose: with one, two writers of one session
-- would wait for each other's commit on it (a recorder batch held up would hold up the next).
CREATE TABLE trace_dirty (
    session_id uuid NOT NULL
);
CREATE INDEX trace_dirty_session_idx ON trace_dirty (session_id);

-- Marks the sessions a statement touched. SECURITY DEFINER: the writer role needs no grant on
-- trace_dirty.
CREATE FUNCTION onboardmetrics_mark_traces() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO trace_dirty (session_id) SELECT DISTINCT session_id FROM new_events;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO trace_dirty (session_id) SELECT DISTINCT session_id FROM old_events;
    ELSE
        INSERT INTO trace_dirty (session_id)
        SELECT session_id FROM new_events UNION SELECT session_id FROM old_events;
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
