#!/usr/bin/env bash
# Where PostgreSQL's CPU goes on the write path (issue 16): the same distinct rows of generated
# data (faults on) written four ways into fresh migrated databases of one throwaway cluster, each
# under `perf record -a -g`, and PostgreSQL's CPU (every postgres process) split by the stage of the
# backend it was spent in, in microseconds a stored row:
#   copy        psql `\copy events FROM FILE (FORMAT binary)`: one COPY of every row (the limit)
#   recorder B  recorder-bench --input FILE --batch-size B (two writers): COPYs of B rows
#   serve       funnel serve loaded by wrk (scripts/bench/post-file.lua) on CONNECTIONS connections,
#               batches of 100 events: COPYs of what the connections have in flight
# A stage is the innermost of these functions on the sample's call chain:
#   _bt_doinsert          index entries (three btrees a row)
#   heap_multi_insert     heap pages
#   NextCopyFrom          reading and converting a row's fields
#   XLogInsert, XLogFlush WAL records; flushing WAL at commit
#   ResourceOwner*TupleDesc  PostgreSQL 15 remembers each of a COPY's up to 1,000 buffered slots
#                         with its owner; the same descriptor each time, so the bookkeeping grows
#                         with the square of the slots, once per COPY statement (17 and later:
#                         ResourceOwnerRemember/Forget, counted here too)
#   CopyFrom              the rest of a COPY (routing, buffers, triggers' checks)
#   PostgresMain          the rest of a statement (parse, plan, BEGIN, COMMIT, messages)
# plus the COPYs and commits each method made. perf must be installed (Debian: linux-perf).
# Usage: bash scripts/bench-server-side.sh [SESSIONS] [CONNECTIONS]   (default 150000 64;
#        BATCHES="5000 1400 400": the recorder's batch sizes)
set -euo pipefail
cd "$(dirname "$0")/.."
sessions="${1:-150000}"
connections="${2:-64}"
batches="${BATCHES:-5000 1400 400}"
command -v perf >/dev/null 2>&1 || { echo "perf is not installed: apt-get install -y linux-perf" >&2; exit 2; }
source scripts/bench/collector.sh
source scripts/bench/setup.sh
echo "postgres $(psql -tA "$admin" -c 'SHOW server_version')   cores $(nproc)   sessions $sessions   $(uptime)"
columns="event_id, session_id, user_id, seq, kind, flow_id, flow_version, step_id, name, occurred_at, sent_at, received_at, properties"
# PostgreSQL 17 and later remember every resource with ResourceOwnerRemember/Forget: counted as the
# same stage as 15's TupleDesc-specific functions.
stages='^(_bt_doinsert|heap_multi_insert|NextCopyFrom|ResourceOwnerRememberTupleDesc|ResourceOwnerForgetTupleDesc|ResourceOwnerRemember|ResourceOwnerForget|XLogInsert|XLogFlush|CopyFrom|PostgresMain)$'
stage_names="_bt_doinsert heap_multi_insert NextCopyFrom XLogInsert XLogFlush ResourceOwnerRememberTupleDesc ResourceOwnerForgetTupleDesc CopyFrom PostgresMain other"
copies_of() {
    psql -XtA "$admin" -c "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements
        WHERE dbid = (SELECT oid FROM pg_database WHERE datname = '$1') AND query ~ '^COPY\\s+events\\s'"
}
with_pg_stat_statements

"$bin/funnel" generate --scenario health-study --sessions "$sessions" --seed 42 --out "$work/events.jsonl" >/dev/null
fresh bench_source
"$bin/funnel" ingest "$work/events.jsonl" --database-url "$(db_url bench_source)" --quiet >/dev/null
rows=$(psql -XtA "$(db_url bench_source)" -c "SELECT count(*) FROM events")
psql -Xq "$(db_url bench_source)" -c "\\copy (SELECT $columns FROM events) TO '$work/events.bin' (FORMAT binary)"

results=()
# prepare DATABASE: a fresh database and clean counters; measured NAME DATABASE SECONDS: one line
# of results from $work/method.perf.
prepare() {
    fresh "$1"
    psql -Xq "$(db_url "$1")" -c "CHECKPOINT"
    psql -XtAq "$admin" -c "SELECT pg_stat_statements_reset()" >/dev/null
    commits_before=$(commits_of "$1")
}
measured() {
    sleep 1  # a busy backend reports its counters at most once a second
    local stored copies commits total
    stored=$(psql -XtA "$(db_url "$2")" -c "SELECT count(*) FROM events")
    [ "$stored" = "$rows" ] || echo "$1 stored $stored rows, not $rows" >&2
    copies=$(copies_of "$2")
    commits=$(($(commits_of "$2") - commits_before))
    total=$(perf report -i "$work/method.perf" --stdio --no-children --sort comm -g none 2>/dev/null |
        awk '/Event count/ { print $NF }')
    # Percentages of every sample of the machine; postgres's "other" is what its named stages leave.
    postgres=$(perf report -i "$work/method.perf" --stdio --no-children --comm postgres --sort comm -g none \
        2>/dev/null | awk '$2 == "postgres" { gsub("%", "", $1); print $1 }')
    results+=("$(perf report -i "$work/method.perf" --no-children --comm postgres --sort parent -p "$stages" \
        -g none --stdio 2>/dev/null | grep -v '^#' | grep -v '^$' |
        awk -v name="$1" -v s="$3" -v t="$total" -v n="$rows" -v c="$copies" -v k="$commits" -v order="$stage_names" \
            -v postgres="$postgres" '
            function us_a_row(percent) { return percent / 100 * t / n / 1000 }
            $2 != "[other]" {
                gsub("%", "", $1)
                stage = $2 == "ResourceOwnerRemember" ? "ResourceOwnerRememberTupleDesc" : $2 == "ResourceOwnerForget" ? "ResourceOwnerForgetTupleDesc" : $2
                us[stage] += us_a_row($1); named += $1
            }
            END {
                us["other"] = us_a_row(postgres - named)
                printf "%-16s %7.2f %6d %8.0f %7d", name, s, c, (c > 0 ? n / c : 0), k
                split(order, names, " ")
                for (i = 1; i <= length(names); i++) { printf " %7.2f", us[names[i]]; all += us[names[i]] }
                printf " %7.2f\n", all
            }')")
}

prepare bench_copy
start=$(now)
perf record -a -g -F 999 -o "$work/method.perf" -- \
    psql -Xq "$(db_url bench_copy)" -c "\\copy events ($columns) FROM '$work/events.bin' (FORMAT binary)" 2>/dev/null
measured "copy" bench_copy "$(since "$start")"

for batch in $batches; do
    prepare bench_recorder
    start=$(now)
    perf record -a -g -F 999 -o "$work/method.perf" -- "$bin/recorder-bench" --input "$work/events.jsonl" \
        --batch-size "$batch" --database-url "$(db_url bench_recorder)" > "$work/recorder.out" 2>/dev/null
    # The recorder's own clock starts once the file is parsed.
    measured "recorder $batch" bench_recorder \
        "$(awk '/^recorded/ { for (i = 1; i < NF; i++) if ($i == "seconds") print $(i + 1) }' "$work/recorder.out")"
done

prepare bench_serve
start_collector bench_serve "$work/spool"
start_file_load "$work/events.jsonl" "$connections" 100
perf record -a -g -F 999 -o "$work/method.perf" 2>/dev/null &
perf_pid=$!
start=$(now)
touch "$work/wrk-ready.go"
deadline=$(($(date +%s) + 300))
until [ -e "$work/wrk-ready.done.0" ] && [ -e "$work/wrk-ready.done.1" ]; do
    [ "$(date +%s)" -lt "$deadline" ] || { echo "the load did not finish in 300 s" >&2; break; }
    sleep 0.1
done
serve_s=$(file_load_seconds "$start")
kill -INT "$perf_pid"
wait "$perf_pid" || true
stop_file_load
stop_collector
measured "serve $connections conn." bench_serve "$serve_s"

echo
echo "PostgreSQL's CPU in microseconds a stored row ($rows rows), by the stage it was spent in (perf, all"
echo "postgres processes); seconds are each method's own (the recorder's from its parsed input on)"
printf '%-16s %7s %6s %8s %7s %7s %7s %7s %7s %7s %7s %7s %7s %7s %7s %7s\n' method seconds COPYs rows/COPY commits \
    btree heap "read" WAL flush "owner+" "owner-" "COPY" stmt other all
for line in "${results[@]}"; do echo "$line"; done
echo "(btree _bt_doinsert; heap heap_multi_insert; read NextCopyFrom; WAL XLogInsert; flush XLogFlush;"
echo " owner+/owner- ResourceOwnerRemember/ForgetTupleDesc; COPY the rest of CopyFrom; stmt the rest of PostgresMain;"
echo " other: background processes and what has none of these on its stack)"
