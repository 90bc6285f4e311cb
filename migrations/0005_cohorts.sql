-- Cohorts (issue 34): named sets of sessions or people, saved from `funnel users --save-cohort`
-- and applied to any report with `--cohort NAME`. A cohort holds the session ids (unit session)
-- or the person ids (unit user: ids linked by identify or alias are one person) listed when it
-- was saved; it does not change as events arrive.
CREATE TABLE cohorts (
    name        text        PRIMARY KEY CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$'),
    unit        text        NOT NULL CHECK (unit IN ('session', 'user')),
    description text        NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE cohort_members (
    cohort text NOT NULL REFERENCES cohorts (name) ON DELETE CASCADE,
    member text NOT NULL,
    PRIMARY KEY (cohort, member)
);

-- Reports read cohorts with the reader role.
GRANT SELECT ON cohorts, cohort_members TO onboardmetrics_reader;
