#!/usr/bin/env bash
# Peak memory and time of reports at scale, from the session traces and from the events rows
# (issue 33: peak memory at 10M events). For each size: generate health-study events (generator
# defaults), ingest them, then time with /usr/bin/time (wall, user CPU, max RSS):
#   - the first --flow report (cold: it builds every session's trace);
#   - --steps welcome,modules,consent,account and --flow, twice each (warm);
#   - --flow --per user, --flow on one connection, and --flow --source events (whose JSON must
#     equal the traces' byte for byte, as must the cold report's);
#   - the other reports that hold something per person to the end: correlate, experiment and
#     discovery --per user, retention, paths (after a drop, which keeps every event; and per user
#     between two steps, which keeps each person's first path), and funnel
#     users --per user (a short list: those who dropped at consent; and long ones: every
#     session completed, as JSON and CSV, and every person completed, written a thousand rows
#     at a time);
# then `funnel dashboard` twice, at the default --cache-events (2M) and keeping every session
# (--cache-events 100000000): three rounds of the ad-hoc funnel's and the flow's JSON pages (the
# first round is the first request), and the server's peak memory (VmHWM).
# Usage: bash scripts/bench-trace-memory.sh [EVENTS ...]   (default: 10000000)
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ "${#sizes[@]}" -gt 0 ] || sizes=(10000000)
source scripts/bench/setup.sh
source scripts/bench/dashboard.sh
until_bound="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
flow=examples/flows/health-study.json
timed() {
    local label="$1"; shift
    timed_command "$label" report "$@"
}
timed_command() {
    local label="$1"; shift
    /usr/bin/time -f "$label: %e s wall, %U s user, peak %M KB" "$bin/funnel" "$@" --until "$until_bound" \
        --format "${format:-json}" --quiet
}
# Three rounds of the two funnel pages from `funnel dashboard` on database URL $1 (more
# arguments go to the dashboard); prints their times and the server's peak memory.
dashboard() {
    local url="$1" label="$2"; shift 2
    local times=""
    start_dashboard "$bin/funnel" "$url" --quiet "$@"
    for _ in 1 2 3; do
        for page in "/funnel?steps=welcome,modules,consent,account&window=7d" "/flows/health-study"; do
            times+="$(dashboard_get "$page" /dev/null) "
        done
    done
    echo "dashboard, $label: pages (ad-hoc funnel, flow; three rounds) ${times% } s; peak $(dashboard_kb VmHWM) KB"
    stop_dashboard
}
for events in "${sizes[@]}"; do
    db="bench_mem_$events"
    url="$(db_url "$db")"
    fresh "$db"
    # health-study averages about 11.9 events per session.
    "$bin/funnel" generate --scenario health-study --sessions $(( events * 10 / 119 )) --seed 42 \
        --out "$work/events.jsonl" >/dev/null
    "$bin/funnel" ingest "$work/events.jsonl" --database-url "$url" --quiet
    rm -f "$work/events.jsonl"
    psql -Xq "$url" -c "VACUUM ANALYZE events"
    echo "$(psql -XtA "$url" -c 'SELECT count(*) FROM events') events stored; load: $(uptime)"
    timed "cold --flow (builds every trace)" --flow "$flow" --database-url "$url" > "$work/cold.json"
    for run in 1 2; do
        timed "warm --steps ($run)" --steps welcome,modules,consent,account --window 7d --database-url "$url" >/dev/null
        timed "warm --flow ($run)" --flow "$flow" --database-url "$url" > "$work/warm.json"
    done
    timed "warm --flow --per user" --flow "$flow" --per user --database-url "$url" >/dev/null
    timed "warm --flow, one connection" --flow "$flow" --read-connections 1 --database-url "$url" >/dev/null
    timed "--flow --source events" --flow "$flow" --source events --database-url "$url" > "$work/events.json"
    cmp -s "$work/warm.json" "$work/events.json" || { echo "traces and events differ" >&2; exit 1; }
    cmp -s "$work/warm.json" "$work/cold.json" || { echo "cold and warm differ" >&2; exit 1; }
    echo "same JSON from the traces (cold and warm) and from the events rows"
    psql -XtA "$url" -c "SELECT 'session_traces ' || pg_size_pretty(pg_total_relation_size('session_traces'))"
    timed_command "correlate --per user" correlate --flow "$flow" --per user --database-url "$url" >/dev/null
    timed_command "experiment --per user" experiment consent-copy --flow "$flow" --per user --database-url "$url" \
        >/dev/null
    timed_command "discovery --per user" discovery --per user --database-url "$url" >/dev/null
    timed_command "retention (per user)" retention --flow "$flow" --database-url "$url" >/dev/null
    timed_command "paths (after a drop)" paths --flow "$flow" --database-url "$url" >/dev/null
    timed_command "paths --between welcome,consent --per user" paths --flow "$flow" --between welcome,consent \
        --per user --database-url "$url" >/dev/null
    timed_command "users --per user --step consent --status dropped" users --flow "$flow" --per user --step consent \
        --status dropped --database-url "$url" >/dev/null
    timed_command "users --status completed (every session completed)" users --flow "$flow" --status completed \
        --database-url "$url" >/dev/null
    format=csv timed_command "users --status completed --format csv" users --flow "$flow" --status completed \
        --database-url "$url" >/dev/null
    timed_command "users --per user --status completed (every person completed)" users --flow "$flow" --per user \
        --status completed --database-url "$url" >/dev/null
    psql -Xq "$url" -v def="$(cat "$flow")" \
        <<< "INSERT INTO flows (flow_id, version, definition) VALUES ('health-study', 1, :'def'::jsonb) ON CONFLICT DO NOTHING"
    dashboard "$url" "default --cache-events"
    dashboard "$url" "--cache-events 100000000 (every session kept)" --cache-events 100000000
    psql -Xq "$admin" -c "DROP DATABASE $db"
done
echo "load: $(uptime)"
