#!/usr/bin/env bash
# Write-path benchmark (issue 16): every way OnboardMetrics writes events, against PostgreSQL's own
# binary COPY of the same distinct rows into the same freshly migrated table, in ONE run, on
# generator data with its faults on (`funnel generate`'s default: 0.2 % of events sent twice, a
# line or two apart; late and swapped lines; skewed clocks). Each measurement goes into a fresh
# migrated database of one throwaway cluster, after a CHECKPOINT:
#   copy       psql `\copy events FROM FILE (FORMAT binary)` of the rows the ingest stored (exported
#              with `\copy (SELECT ...) TO FILE (FORMAT binary)`): the limit, without the session
#              traces' trigger (the write paths below keep it)
#   copy+sess. the same, then the `sessions` rows the ingest stored: every row a write path stores
#   ingest     `funnel ingest FILE.jsonl` (parse, validate, drop repeats, COPY; sessions rows too)
#   reingest   the same file again into the same database: every event is already stored
#   recorder   the EventRecorder API: `recorder-bench --input FILE.jsonl` records the file's
#              events (parsed before its clock starts) and flushes
#   serve      `funnel serve --rate-limit 0 --event-rate-limit 0` loaded by wrk (scripts/bench/post-file.lua) posting
#              the file as native batches of BATCH events on CONNECTIONS connections, each answered
#              once committed; timed from when wrk has its requests made (it reads the file first,
#              as recorder-bench parses its input first) until every batch is answered
# Prints seconds, events/s and each rate as a share of both copies' (≥ 0.95 is issue 16's goal),
# and reingest / ingest (≤ 0.5). Also the CPU each method kept busy per stored event (the whole
# machine's busy core-seconds: run it on an otherwise idle machine) and the ratio that CPU allows
# on this many cores (copy time / (CPU / cores)). For the collector, that CPU split into PostgreSQL
# (and the rest of the machine), the collector process and wrk: what 0.95x would leave for the
# collector and wrk once PostgreSQL has taken its share, and the ratio the cores would allow if
# PostgreSQL spent on the collector's COPYs what it spends on psql's one COPY.
# With STATEMENTS=1 the cluster runs pg_stat_statements, and the server's side of each method is
# printed too: its COPY statements into `events` (calls, rows a call, the seconds the server spent
# in them, per row), the WAL its statements wrote, and its commits.
# Usage: bash scripts/bench-write-path.sh [SESSIONS] [CONNECTIONS]   (default 150000 64; BATCH=100,
#        STATEMENTS=1, SERVE_ARGS="--write-connections N": more arguments for funnel serve,
#        INGEST_ARGS="--trace-build-limit 0": more arguments for the first funnel ingest)
#   SESSIONS=15000 (about 180,000 events) runs in under two minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
sessions="${1:-150000}"
connections="${2:-64}"
batch="${BATCH:-100}"
source scripts/bench/collector.sh
source scripts/bench/setup.sh
statements="${STATEMENTS:-}"
if [ -n "$statements" ]; then
    with_pg_stat_statements
fi
: > "$work/statements.txt"
# reset_server_side DATABASE, before a method writes into it; server_side METHOD DATABASE, after:
# appends the server's side of METHOD (its statements and commits since the reset) to the table.
declare -A commits_before
reset_server_side() {
    [ -n "$statements" ] || return 0
    psql -XtAq "$admin" -c "SELECT pg_stat_statements_reset(0, (SELECT oid FROM pg_database WHERE datname = '$1'), 0)" >/dev/null
    commits_before[$1]=$(commits_of "$1")
}
server_side() {
    [ -n "$statements" ] || return 0
    sleep 1  # pg_stat_database is updated at most once a second by a busy backend
    # psql's \copy sends `COPY  events` (two spaces).
    psql -XtA -F ' ' "$admin" -c "
        SELECT coalesce(sum(calls) FILTER (WHERE query ~ '^COPY\\s+events\\s'), 0),
            coalesce(sum(rows) FILTER (WHERE query ~ '^COPY\\s+events\\s'), 0),
            coalesce(sum(total_exec_time) FILTER (WHERE query ~ '^COPY\\s+events\\s'), 0) / 1000,
            coalesce(sum(wal_records), 0), coalesce(sum(wal_bytes), 0) / 1e6, coalesce(sum(wal_fpi), 0)
        FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = '$2')" |
        awk -v m="$1" -v c="$(($(commits_of "$2") - ${commits_before[$2]}))" '{
            printf "%-28s %7d %10d %9.0f %10.2f %13.2f %12d %8.0f %8d %8d\n", m, $1, $2, ($1 > 0 ? $2 / $1 : 0), $3, ($2 > 0 ? $3 / $2 * 1e6 : 0), $4, $5, $6, c
        }' >> "$work/statements.txt"
}
columns="event_id, session_id, user_id, seq, kind, flow_id, flow_version, step_id, name, occurred_at, sent_at, received_at, properties"
session_columns="session_id, user_id, flow_id, flow_version, context, started_at, received_at"
rows_in() { psql -XtA "$(db_url "$1")" -c "SELECT count(*) FROM events"; }
checkpoint() { psql -Xq "$(db_url "$1")" -c "CHECKPOINT"; }

echo "postgres $(psql -tA "$admin" -c 'SHOW server_version')   cores $(nproc)   sessions $sessions   $(uptime)"
"$bin/funnel" generate --scenario health-study --sessions "$sessions" --seed 42 --out "$work/events.jsonl" >/dev/null
lines=$(wc -l < "$work/events.jsonl")

# funnel ingest, then the same file again.
fresh bench_ingest
checkpoint bench_ingest
reset_server_side bench_ingest
start=$(now)
b0=$(busy)
# shellcheck disable=SC2086  # INGEST_ARGS is a list of arguments
"$bin/funnel" ingest "$work/events.jsonl" --database-url "$(db_url bench_ingest)" --quiet ${INGEST_ARGS:-} \
    > "$work/ingest.out"
ingest_s=$(since "$start")
ingest_cpu=$(busy_since "$b0")
rows=$(rows_in bench_ingest)
server_side "funnel ingest" bench_ingest
checkpoint bench_ingest
reset_server_side bench_ingest
start=$(now)
b0=$(busy)
"$bin/funnel" ingest "$work/events.jsonl" --database-url "$(db_url bench_ingest)" --quiet > "$work/reingest.out"
reingest_s=$(since "$start")
reingest_cpu=$(busy_since "$b0")
rows_after=$(rows_in bench_ingest)

# The limits run without the session-trace triggers (migration 0006), as PostgreSQL's own COPY
# into the table before the traces: the write paths below pay for marking the sessions they touch
# (issue 33 asks that this keeps them at ≥ 0.95× the copy).
no_trace_triggers() {
    psql -Xq "$(db_url "$1")" -c "ALTER TABLE events DISABLE TRIGGER events_traces_insert"
}
# The limit: binary COPY of the same distinct rows into a fresh migrated table; then also of the
# sessions rows every write path stores beside them (one per session_started), into `sessions`.
psql -Xq "$(db_url bench_ingest)" -c "\\copy (SELECT $columns FROM events) TO '$work/events.bin' (FORMAT binary)"
psql -Xq "$(db_url bench_ingest)" -c "\\copy (SELECT $session_columns FROM sessions) TO '$work/sessions.bin' (FORMAT binary)"
fresh bench_copy
no_trace_triggers bench_copy
checkpoint bench_copy
reset_server_side bench_copy
start=$(now)
b0=$(busy)
psql -Xq "$(db_url bench_copy)" -c "\\copy events ($columns) FROM '$work/events.bin' (FORMAT binary)"
copy_s=$(since "$start")
copy_cpu=$(busy_since "$b0")
server_side "psql \\copy binary (limit)" bench_copy
fresh bench_copy_all
no_trace_triggers bench_copy_all
checkpoint bench_copy_all
start=$(now)
b0=$(busy)
psql -Xq "$(db_url bench_copy_all)" -c "\\copy events ($columns) FROM '$work/events.bin' (FORMAT binary)" \
    -c "\\copy sessions ($session_columns) FROM '$work/sessions.bin' (FORMAT binary)"
copy_all_s=$(since "$start")
copy_all_cpu=$(busy_since "$b0")
rm -f "$work/events.bin" "$work/sessions.bin"

# The EventRecorder API.
fresh bench_recorder
checkpoint bench_recorder
reset_server_side bench_recorder
b0=$(busy)
"$bin/recorder-bench" --input "$work/events.jsonl" --database-url "$(db_url bench_recorder)" > "$work/recorder.out"
recorder_cpu=$(busy_since "$b0")  # includes reading the file before its clock starts
server_side "EventRecorder API" bench_recorder
recorder_s=$(awk '/^recorded/ { for (i = 1; i < NF; i++) if ($i == "seconds") print $(i + 1) }' "$work/recorder.out")

# The collector.
fresh bench_serve
checkpoint bench_serve
reset_server_side bench_serve
start_collector bench_serve "$work/spool"
# wrk sends the file once, then only health checks.
start_file_load "$work/events.jsonl" "$connections" "$batch"
start=$(now)
b0=$(busy)
serve_cpu0=$(process_cpu "$server")
wrk_cpu0=$(process_cpu "$wrk_pid")
touch "$work/wrk-ready.go"
# Each wrk thread writes the time its last batch was answered (every answer waits for the commit):
# the load's end is the later of the two. The committed count from the collector's /metrics is
# polled only every 2 s, to give up after 20 s without a new row (events the collector refused
# would never be answered as stored): a poll every 0.1 s with curl cost 4 % of the run's CPU.
committed_so_far() {
    curl -s "$url/metrics" | awk '$1 == "onboardmetrics_events_committed_total" { n = $2 } END { printf "%d", n }'
}
serve_rows=0
last_change=$(now)
polls=0
until [ -e "$work/wrk-ready.done.0" ] && [ -e "$work/wrk-ready.done.1" ]; do
    sleep 0.1
    polls=$((polls + 1))
    [ $((polls % 20)) -eq 0 ] || continue
    latest=$(committed_so_far)
    if [ "$latest" != "$serve_rows" ]; then serve_rows=$latest; last_change=$(now); fi
    awk -v s="$(since "$last_change")" 'BEGIN { exit !(s > 20) }' && { echo "no new row for 20 s" >&2; break; }
done
serve_cpu=$(busy_since "$b0")
collector_cpu=$(echo "$(process_cpu "$server") - $serve_cpu0" | bc)
wrk_cpu=$(echo "$(process_cpu "$wrk_pid") - $wrk_cpu0" | bc)
serve_s=$(file_load_seconds "$start")
stop_file_load
stop_collector
server_side "funnel serve ($connections conn.)" bench_serve
serve_rows=$(rows_in bench_serve)
grep -E '^requests|^latency' "$work/wrk.out" || true

printf '\nlines %d; distinct events stored: ingest %d, after reingest %d, recorder %s, serve %d\n' \
    "$lines" "$rows" "$rows_after" "$(awk '/^recorded/ { print $4 }' "$work/recorder.out")" "$serve_rows"
# CPU: busy core-seconds of the machine during the method, per stored event; "CPU bound" is the
# ratio to the events-only copy the method would reach if it kept all the cores busy.
printf '%-28s %10s %12s %10s %14s %12s %10s\n' method seconds "events/s" "vs copy" "vs copy+sess." "CPU us/ev" "CPU bound"
cores=$(nproc)
row() {
    awk -v m="$1" -v s="$2" -v b="$3" -v n="$rows" -v c="$copy_s" -v a="$copy_all_s" -v k="$cores" \
        'BEGIN { printf "%-28s %10.2f %12.0f %9.2fx %13.2fx %12.2f %9.2fx\n", m, s, n / s, c / s, a / s, b / n * 1e6, c / (b / k) }'
}
row "psql \\copy binary (limit)" "$copy_s" "$copy_cpu"
row "psql \\copy events+sessions" "$copy_all_s" "$copy_all_cpu"
row "funnel ingest" "$ingest_s" "$ingest_cpu"
row "EventRecorder API" "$recorder_s" "$recorder_cpu"
row "funnel serve ($connections conn.)" "$serve_s" "$serve_cpu"
awk -v r="$reingest_s" -v i="$ingest_s" -v b="$reingest_cpu" -v n="$rows" 'BEGIN {
    printf "%-28s %10.2f %12s %9.2fx of the first ingest (goal <= 0.50) %6.2f\n", "funnel ingest, again", r, "", r / i, b / n * 1e6 }'
# The collector's CPU an event, split by who spent it. On these cores the serve path can reach at
# most cores x copy time of CPU for 0.95x; what PostgreSQL spends of it for the collector's COPYs is
# not left for the collector and wrk. And the ratio the cores would allow if PostgreSQL spent what it
# spends in psql's single COPY.
awk -v n="$rows" -v k="$cores" -v c="$copy_s" -v cc="$copy_cpu" -v b="$serve_cpu" -v sc="$collector_cpu" -v wc="$wrk_cpu" 'BEGIN {
    us = 1e6 / n; pg = (b - sc - wc) * us
    printf "\nfunnel serve, CPU an event: %.2f us = PostgreSQL and the rest %.2f (psql'"'"'s copy: %.2f in all), collector %.2f, wrk %.2f\n", b * us, pg, cc * us, sc * us, wc * us
    printf "  0.95x leaves %.2f us an event on %d cores; PostgreSQL takes %.2f of it, leaving %.2f for the collector and wrk, which use %.2f\n", k * c / 0.95 * us, k, pg, k * c / 0.95 * us - pg, (sc + wc) * us
    printf "  with PostgreSQL at the single COPY'"'"'s CPU an event the cores would allow %.2fx (they allow %.2fx)\n", c / ((cc + sc + wc) / k), c / (b / k)
}'
[ "$rows_after" = "$rows" ] && [ "$serve_rows" = "$rows" ] || echo "ROW COUNTS DIFFER" >&2
if [ -n "$statements" ]; then
    printf '\nThe server side (pg_stat_statements): COPY into events, and every statement of the method\n'
    printf '%-28s %7s %10s %9s %10s %13s %12s %8s %8s %8s\n' method COPYs rows rows/COPY "server s" "server us/row" \
        "WAL records" "WAL MB" "WAL FPI" commits
    cat "$work/statements.txt"
fi
echo "load after: $(uptime)"
