-- The health-study flow funnel computed inside PostgreSQL in one statement: the benchmark's
-- reference (b) for `funnel report`, and an independent check of its counts.
-- Semantics as FunnelReport: time skew-corrected per message within a session; only events within the window after a
-- session's start; a step counts as completed or skipped only after a view; a session completed
-- with flow_completed in the window; in progress when not completed/abandoned, its window still
-- open and last activity within the inactivity timeout of the report end; otherwise dropped at its
-- last viewed step; conditional steps count only where their condition holds.
-- psql variables: report_end (timestamptz), window (interval), inactivity (interval).
WITH offsets AS (
    -- A message's clock offset received_at - sent_at, trusted within a day and when the message
    -- was not sent more than 2 minutes before its event (ClockCorrection).
    SELECT session_id, kind, step_id, flow_id, seq, properties, occurred_at,
           CASE WHEN received_at - sent_at BETWEEN interval '-24 hours' AND interval '24 hours'
                     AND sent_at >= occurred_at - interval '2 minutes'
                THEN received_at - sent_at END AS clock_offset
    FROM events
),
distinct_offsets AS (
    -- The session's distinct trusted offsets (one a message), grouped where they chain within 2
    -- minutes: one clock seen through different network delays.
    SELECT session_id, clock_offset,
           sum(gap) OVER (PARTITION BY session_id ORDER BY clock_offset) AS grp
    FROM (SELECT session_id, clock_offset,
                 CASE WHEN clock_offset - lag(clock_offset) OVER (PARTITION BY session_id ORDER BY clock_offset)
                           > interval '2 minutes' THEN 1 ELSE 0 END AS gap
          FROM (SELECT DISTINCT session_id, clock_offset FROM offsets WHERE clock_offset IS NOT NULL) AS d) AS g
),
clocks AS (
    -- The session's clock: the group holding the most offsets, ties to the smallest correction,
    -- then the lower one (SessionGrouper.sessionClock).
    SELECT DISTINCT ON (session_id) session_id, grp, lo, hi
    FROM (SELECT session_id, grp, count(*) AS n, min(clock_offset) AS lo, max(clock_offset) AS hi
          FROM distinct_offsets GROUP BY session_id, grp) AS groups
    ORDER BY session_id, n DESC, abs(extract(epoch FROM lo)), lo
),
ev AS (
    -- Skew correction: an offset of the session's clock shifts its event by the smallest offset of
    -- the session within 2 minutes below its own, as SessionGrouper does; an offset of another group
    -- by the clock's smallest; untrusted offsets correct nothing.
    SELECT o.session_id, kind, step_id, flow_id, seq, properties,
           o.occurred_at + CASE
               WHEN o.clock_offset IS NULL THEN interval '0'
               WHEN o.clock_offset BETWEEN c.lo AND c.hi THEN o.smallest_near
               ELSE c.lo END AS ct
    FROM (SELECT *, min(clock_offset) OVER (PARTITION BY session_id ORDER BY clock_offset
                                            RANGE BETWEEN interval '2 minutes' PRECEDING AND CURRENT ROW)
                        AS smallest_near
          FROM offsets) AS o
    LEFT JOIN clocks c USING (session_id)
),
sessions AS (
    SELECT session_id,
           min(ct) AS start,
           (array_agg(properties -> 'context') FILTER (WHERE kind = 'session_started'))[1] AS ctx,
           (array_agg(flow_id ORDER BY ct, seq) FILTER (WHERE kind = 'session_started'))[1] AS flow
    FROM ev
    GROUP BY session_id
),
windowed AS (
    SELECT e.*, s.start,
           max(e.ct) FILTER (WHERE e.kind = 'step_viewed')
               OVER (PARTITION BY e.session_id, e.step_id ORDER BY e.ct, e.seq ROWS UNBOUNDED PRECEDING) AS last_view
    FROM ev e JOIN sessions s USING (session_id)
    WHERE s.flow = 'health-study' AND e.ct <= s.start + :'window'::interval
),
per_session AS (
    SELECT session_id,
           min(start) AS start,
           max(ct) AS last_activity,
           bool_or(kind = 'flow_completed' AND coalesce(flow_id, 'health-study') = 'health-study') AS completed,
           bool_or(kind = 'flow_abandoned' AND coalesce(flow_id, 'health-study') = 'health-study') AS abandoned,
           (array_agg(step_id ORDER BY ct DESC, seq DESC) FILTER (
               WHERE kind = 'step_viewed' AND coalesce(flow_id, 'health-study') = 'health-study'
                 AND step_id IN ('welcome', 'modules', 'health-data', 'notifications', 'consent', 'account')))[1] AS last_step
    FROM windowed
    GROUP BY session_id
),
per_step AS (
    SELECT session_id, step_id,
           min(ct - start) FILTER (WHERE kind = 'step_viewed') AS from_start,
           bool_or(kind = 'step_viewed') AS viewed,
           bool_or(kind = 'step_completed' AND last_view IS NOT NULL) AS completed,
           bool_or(kind = 'step_skipped' AND last_view IS NOT NULL) AS skipped_any,
           (array_agg(ct - last_view ORDER BY ct, seq) FILTER (
               WHERE kind IN ('step_completed', 'step_skipped') AND last_view IS NOT NULL))[1] AS on_step
    FROM windowed
    WHERE coalesce(flow_id, 'health-study') = 'health-study'
      AND step_id IN ('welcome', 'modules', 'health-data', 'notifications', 'consent', 'account')
    GROUP BY session_id, step_id
),
units AS (
    SELECT p.session_id, p.completed, p.last_step,
           CASE WHEN p.completed THEN 'completed'
                WHEN NOT p.abandoned AND p.start + :'window'::interval > :'report_end'::timestamptz
                     AND p.last_activity + :'inactivity'::interval > :'report_end'::timestamptz THEN 'in_progress'
                ELSE 'dropped' END AS status,
           coalesce((s.ctx ->> 'healthDataAvailable')::boolean, false) AS e3,
           NOT coalesce((s.ctx ->> 'notificationsAuthorized')::boolean, false) AS e4
    FROM per_session p JOIN sessions s USING (session_id)
),
steps(position, step_id) AS (
    VALUES (1, 'welcome'), (2, 'modules'), (3, 'health-data'), (4, 'notifications'), (5, 'consent'), (6, 'account')
),
grid AS (
    SELECT u.session_id, u.status, u.last_step, st.position, st.step_id,
           CASE st.position WHEN 3 THEN u.e3 WHEN 4 THEN u.e4 ELSE true END AS eligible,
           -- The previous step that applies to this session (0 = the start).
           CASE st.position WHEN 1 THEN 0 WHEN 2 THEN 1 WHEN 3 THEN 2
                WHEN 4 THEN CASE WHEN u.e3 THEN 3 ELSE 2 END
                WHEN 5 THEN CASE WHEN u.e4 THEN 4 WHEN u.e3 THEN 3 ELSE 2 END
                ELSE 5 END AS previous,
           coalesce(ps.viewed, false) AS viewed, coalesce(ps.completed, false) AS completed,
           coalesce(ps.skipped_any, false) AND NOT coalesce(ps.completed, false) AS skipped,
           ps.from_start, ps.on_step
    FROM units u CROSS JOIN steps st
    LEFT JOIN per_step ps ON ps.session_id = u.session_id AND ps.step_id = st.step_id
),
with_previous AS (
    SELECT g.*, g.previous = 0 OR coalesce(p.viewed, false) AS previous_viewed
    FROM grid g LEFT JOIN grid p ON p.session_id = g.session_id AND p.position = g.previous
)
SELECT step_id AS step,
       count(*) FILTER (WHERE eligible AND status <> 'in_progress') AS eligible,
       count(*) FILTER (WHERE eligible AND status <> 'in_progress' AND viewed) AS viewed,
       count(*) FILTER (WHERE eligible AND status <> 'in_progress' AND completed) AS completed,
       count(*) FILTER (WHERE eligible AND status <> 'in_progress' AND skipped) AS skipped,
       count(*) FILTER (WHERE status = 'dropped' AND last_step = step_id) AS dropped_here,
       count(*) FILTER (WHERE status = 'in_progress' AND last_step = step_id) AS in_progress_here,
       round(count(*) FILTER (WHERE eligible AND status <> 'in_progress' AND previous_viewed AND viewed)::numeric
             / nullif(count(*) FILTER (WHERE eligible AND status <> 'in_progress' AND previous_viewed), 0), 4) AS conversion_from_previous,
       round(extract(epoch FROM percentile_cont(0.5) WITHIN GROUP (ORDER BY on_step)
             FILTER (WHERE eligible AND status <> 'in_progress' AND on_step IS NOT NULL))::numeric, 2) AS on_step_p50,
       round(extract(epoch FROM percentile_cont(0.9) WITHIN GROUP (ORDER BY from_start)
             FILTER (WHERE eligible AND status <> 'in_progress' AND viewed))::numeric, 2) AS from_start_p90
FROM with_previous
GROUP BY position, step_id
ORDER BY position;
