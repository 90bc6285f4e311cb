-- Sharding by session (issue 19): the coordinator's shard list and bucket map, the bucket function,
-- and a primary key that includes the distribution column.
--
-- Every event and session is placed by its session_id into one of 64 logical buckets:
--   bucket = (uuid_hash(session_id) + 2^31) >> 26
-- uuid_hash is PostgreSQL's own hash of the uuid type (Jenkins' lookup3 over the 16 bytes), the
-- same function Citus hashes a uuid distribution column with; 64 equal slices of its int32 range
-- are exactly the shards of `create_distributed_table('events', 'session_id', shard_count => 64)`.
-- The tool computes the same value in Swift (SessionBucket) and checks it against this function.
CREATE FUNCTION onboardmetrics_bucket(session_id uuid) RETURNS integer
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT ((uuid_hash(session_id)::bigint + 2147483648) >> 26)::integer
$$;

-- Citus requires the distribution column in every unique key, and so does a bucket move, which
-- copies a session's rows as a unit. event_id stays first (its partition key, and time-ordered, so
-- inserts stay local in the btree). A retried event carries its session_id with it, so the pair is
-- as good a dedupe key as event_id alone; see docs/SCALING.md.
ALTER TABLE events DROP CONSTRAINT events_pkey;
ALTER TABLE events ADD CONSTRAINT events_pkey PRIMARY KEY (event_id, session_id);

-- The shards of this database when it is a coordinator; empty on a single server and on shards.
-- A URL may carry a password (libpq's rules); the tool never prints it (it is redacted).
CREATE TABLE shards (
    shard_id integer     GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    url      text        NOT NULL UNIQUE CHECK (url <> ''),
    added_at timestamptz NOT NULL DEFAULT now()
);

-- Which shard holds each bucket. With shards, all 64 buckets are mapped.
CREATE TABLE shard_buckets (
    bucket   integer PRIMARY KEY CHECK (bucket >= 0 AND bucket < 64),
    shard_id integer NOT NULL REFERENCES shards (shard_id)
);
CREATE INDEX shard_buckets_shard_idx ON shard_buckets (shard_id);

-- Analysts read the topology; only the tool's owner changes it (the URLs may hold passwords).
GRANT SELECT (shard_id, added_at) ON shards TO onboardmetrics_reader;
GRANT SELECT ON shard_buckets TO onboardmetrics_reader;
