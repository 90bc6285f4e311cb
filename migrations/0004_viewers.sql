-- Viewers of the read-only dashboard (`funnel dashboard`, issue 36): people and scripts that may
-- read reports over HTTP. A viewer signs in with its name and a secret that `funnel viewers create`
-- prints once; only a bcrypt hash of the secret is kept (salted and slow by design, so a copy of
-- this table does not hand out working secrets). App keys of the collector never open the
-- dashboard. A revoked viewer stays for the record; its name may be given to a new viewer.
CREATE TABLE viewers (
    viewer_id   bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name        text        NOT NULL CHECK (name <> ''),
    secret_hash text        NOT NULL CHECK (secret_hash LIKE '$2%'),
    created_at  timestamptz NOT NULL DEFAULT now(),
    revoked_at  timestamptz
);
-- One valid viewer per name: a sign-in names the viewer.
CREATE UNIQUE INDEX viewers_valid_name ON viewers (name) WHERE revoked_at IS NULL;

-- The dashboard reads with the reader role the reports use: it checks sign-ins against this table
-- and needs no other right on it.
GRANT SELECT ON viewers TO onboardmetrics_reader;
