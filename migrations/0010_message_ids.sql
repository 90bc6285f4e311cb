-- Segment and PostHog messages that come without a time of their own are timed when the collector
-- receives them, which a resend does not repeat; their event id cannot carry the message's time
-- (EventMapping.swift). The writer keeps here which event id each such message was first stored
-- under, keyed by its session and the hash of its message id (`messageId`, `uuid`), and stores a
-- resend under that id, where the primary key of events drops it. Rows older than a week are
-- deleted by the writers (EventStore+MessageIDs.swift): a resend later than that is stored again.
CREATE TABLE message_ids (
    session_id  uuid        NOT NULL,
    message_key uuid        NOT NULL,
    event_id    uuid        NOT NULL,
    seen_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (session_id, message_key)
);
CREATE INDEX message_ids_seen_at_idx ON message_ids (seen_at);

-- The collector's writer looks ids up (INSERT ... ON CONFLICT DO UPDATE ... RETURNING) and forgets
-- old ones; it holds no other right on the events.
GRANT SELECT, INSERT, UPDATE, DELETE ON message_ids TO onboardmetrics_writer;
