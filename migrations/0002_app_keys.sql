-- App keys of the HTTP collector (`funnel serve`): an app sends `Authorization: Bearer KEY` and
-- never holds database credentials. Only the key's SHA-256 is stored, so a copy of this table
-- does not hand out working keys; `prefix` (the key's first characters) lets people tell keys
-- apart in `funnel keys list`. A revoked key stays for the record.
CREATE TABLE app_keys (
    key_id     bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name       text        NOT NULL CHECK (name <> ''),
    prefix     text        NOT NULL,
    key_hash   bytea       NOT NULL UNIQUE CHECK (octet_length(key_hash) = 32),
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz
);

-- The collector reads the keys to check requests; it needs no other right on them.
GRANT SELECT ON app_keys TO onboardmetrics_writer;
