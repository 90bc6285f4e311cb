-- OnboardMetrics event schema: the vocabulary of shared/DESIGN.md.
--
-- Partitioning. events is range-partitioned by event_id, a client-made UUIDv7 whose first 48 bits
-- are the Unix time in milliseconds at which the client created the event. A month of event ids is
-- therefore one contiguous uuid range, so the table is time-partitioned by month while the primary
-- key on event_id stays a real, table-wide unique constraint (PostgreSQL requires the partition
-- key inside every unique constraint of a partitioned table). Ids that are not UUIDv7, or fall in
-- a month without a partition yet, land in events_default; onboardmetrics_ensure_partitions()
-- creates monthly partitions on demand and moves matching rows out of the default partition.

CREATE TABLE events (
    event_id     uuid        NOT NULL,
    session_id   uuid        NOT NULL,
    user_id      text,
    seq          integer     NOT NULL,
    kind         text        NOT NULL,
    flow_id      text,
    flow_version integer,
    step_id      text,
    name         text,
    occurred_at  timestamptz NOT NULL,
    sent_at      timestamptz,
    received_at  timestamptz NOT NULL DEFAULT now(),
    properties   jsonb       NOT NULL DEFAULT '{}'::jsonb,
    CONSTRAINT events_pkey PRIMARY KEY (event_id),
    CONSTRAINT events_kind_check CHECK (kind IN (
        'session_started', 'step_viewed', 'step_completed', 'step_skipped', 'step_back',
        'highlight_shown', 'highlight_dismissed', 'feature_used', 'flow_completed',
        'flow_abandoned', 'experiment_exposure', 'custom')),
    CONSTRAINT events_seq_check CHECK (seq >= 0)
) PARTITION BY RANGE (event_id);

CREATE TABLE events_default PARTITION OF events DEFAULT;

-- Per-session reads (replay) and time-range scans (reports).
CREATE INDEX events_session_seq_idx ON events (session_id, seq);
CREATE INDEX events_occurred_at_idx ON events (occurred_at);

-- The first uuid of the UUIDv7 range for an instant (its millisecond timestamp, the rest zero).
CREATE FUNCTION onboardmetrics_uuidv7_floor(t timestamptz) RETURNS uuid
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT (
        substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-0000-0000-000000000000'
    )::uuid
    FROM (SELECT lpad(to_hex(floor(extract(epoch FROM t) * 1000)::bigint), 12, '0') AS h) AS hex
$$;

-- Creates the monthly partitions covering [from_time, to_time], moving any rows of those months
-- out of the default partition first. Safe to call concurrently and repeatedly.
CREATE FUNCTION onboardmetrics_ensure_partitions(from_time timestamptz, to_time timestamptz)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
    month_start timestamptz := date_trunc('month', from_time AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
    month_end   timestamptz;
    part_name   text;
    created     integer := 0;
BEGIN
    IF to_time < from_time THEN
        RETURN 0;
    END IF;
    -- One creator at a time; the lock ends with the transaction.
    PERFORM pg_advisory_xact_lock(hashtext('onboardmetrics_ensure_partitions'));
    WHILE month_start <= to_time LOOP
        month_end := ((month_start AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC';
        part_name := 'events_' || to_char(month_start AT TIME ZONE 'UTC', 'YYYY_MM');
        IF to_regclass(part_name) IS NULL THEN
            EXECUTE format('CREATE TABLE %I (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', part_name);
            EXECUTE format(
                'WITH moved AS (DELETE FROM events_default WHERE event_id >= $1 AND event_id < $2 RETURNING *) '
                'INSERT INTO %I SELECT * FROM moved', part_name)
                USING onboardmetrics_uuidv7_floor(month_start), onboardmetrics_uuidv7_floor(month_end);
            EXECUTE format('ALTER TABLE events ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)',
                part_name, onboardmetrics_uuidv7_floor(month_start), onboardmetrics_uuidv7_floor(month_end));
            created := created + 1;
        END IF;
        month_start := month_end;
    END LOOP;
    RETURN created;
END;
$$;

-- Partitions for the recent past and the near future; later months are created as needed.
SELECT onboardmetrics_ensure_partitions(now() - interval '12 months', now() + interval '3 months');

CREATE TABLE sessions (
    session_id   uuid        PRIMARY KEY,
    user_id      text,
    flow_id      text,
    flow_version integer,
    context      jsonb       NOT NULL DEFAULT '{}'::jsonb,
    started_at   timestamptz NOT NULL,
    received_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sessions_user_idx ON sessions (user_id);
CREATE INDEX sessions_started_at_idx ON sessions (started_at);

CREATE TABLE flows (
    flow_id    text        NOT NULL,
    version    integer     NOT NULL,
    definition jsonb       NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (flow_id, version)
);

CREATE TABLE experiments (
    key          text        PRIMARY KEY,
    seed         text        NOT NULL,
    hash_version integer     NOT NULL DEFAULT 2 CHECK (hash_version IN (1, 2)),
    coverage     float8      NOT NULL DEFAULT 1 CHECK (coverage >= 0 AND coverage <= 1),
    -- [{"name": "control", "weight": 0.5}, ...], control first
    variants     jsonb       NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE assignments (
    experiment_key text        NOT NULL REFERENCES experiments (key) ON DELETE CASCADE,
    unit_id        text        NOT NULL,
    variant        text        NOT NULL,
    hash_value     float8      NOT NULL,
    assigned_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (experiment_key, unit_id)
);

-- Roles: a writer that can only insert events and sessions, a reader that can only select.
-- Roles belong to the whole cluster, so several databases may race to create them.
DO $$
BEGIN
    BEGIN
        CREATE ROLE onboardmetrics_writer NOLOGIN;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
    END;
    BEGIN
        CREATE ROLE onboardmetrics_reader NOLOGIN;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
    END;
END
$$;

GRANT USAGE ON SCHEMA public TO onboardmetrics_writer, onboardmetrics_reader;
GRANT INSERT ON events, sessions TO onboardmetrics_writer;
GRANT EXECUTE ON FUNCTION onboardmetrics_ensure_partitions(timestamptz, timestamptz) TO onboardmetrics_writer;
REVOKE EXECUTE ON FUNCTION onboardmetrics_ensure_partitions(timestamptz, timestamptz) FROM PUBLIC;
GRANT SELECT ON events, events_default, sessions, flows, experiments, assignments TO onboardmetrics_reader;
