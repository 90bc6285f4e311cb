#!/usr/bin/env bash
# Recording benchmark: events per second into the migrated events table, all in one run, on the
# same rows and a fresh migrated database each:
#   limit      psql \copy of the rows (text COPY from a file): what PostgreSQL itself does
#   recorder   EventRecorder API (recorder-bench: record() per event, batches by binary COPY)
#   ingest     funnel ingest of the same rows as a JSONL file
#   insert     one INSERT statement per event (autocommit), on a sample, the naive client
# Usage: bash scripts/bench-recording.sh [EVENTS]   (default 1000000)
set -euo pipefail
cd "$(dirname "$0")/.."
events="${1:-1000000}"
insert_sample=$(( events < 20000 ? events : 20000 ))

source scripts/bench/setup.sh
rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.0f", n / s }'; }

echo "events: $events   postgres: $(psql -tA "$admin" -c 'SHOW server_version')   cores: $(nproc)"

# The rows: recorded once (also the recorder measurement), then exported for the others.
fresh bench_recorder
start=$(now)
"$bin/recorder-bench" --events "$events" --database-url "$(db_url bench_recorder)" >/dev/null
recorder_s=$(awk -v a="$start" -v b="$(now)" 'BEGIN { print b - a }')
columns="event_id, session_id, user_id, seq, kind, flow_id, flow_version, step_id, name, occurred_at, sent_at, received_at, properties"
psql -q "$(db_url bench_recorder)" -c "\\copy (SELECT $columns FROM events ORDER BY event_id) TO '$work/events.copy'"
psql -q "$(db_url bench_recorder)" -c "\\copy (SELECT json_build_object('event_id', event_id, 'session_id', session_id, 'user_id', user_id, 'seq', seq, 'kind', kind, 'flow_id', flow_id, 'flow_version', flow_version, 'name', name, 'occurred_at', to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), 'sent_at', to_char(sent_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), 'properties', properties)::text FROM events ORDER BY event_id) TO '$work/events.jsonl'"
head -n "$insert_sample" "$work/events.copy" > "$work/sample.copy"

# The limit: psql \copy of the same rows.
fresh bench_copy
start=$(now)
psql -q "$(db_url bench_copy)" -c "\\copy events ($columns) FROM '$work/events.copy'"
copy_s=$(awk -v a="$start" -v b="$(now)" 'BEGIN { print b - a }')

# funnel ingest of the same rows as JSONL.
ingest_s=""
if "$bin/funnel" --help | grep -q "^  ingest"; then
    fresh bench_ingest
    start=$(now)
    "$bin/funnel" ingest "$work/events.jsonl" --database-url "$(db_url bench_ingest)" --quiet >/dev/null
    ingest_s=$(awk -v a="$start" -v b="$(now)" 'BEGIN { print b - a }')
fi

# One INSERT per event, on a sample (each its own transaction, as a naive client does).
fresh bench_insert
awk -F'\t' -v cols="$columns" '
    function q(v) { if (v == "\\N") return "NULL"; gsub(/\x27/, "\x27\x27", v); return "\x27" v "\x27" }
    { printf "INSERT INTO events (%s) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s);\n", cols,
      q($1), q($2), q($3), q($4), q($5), q($6), q($7), q($8), q($9), q($10), q($11), q($12), q($13) }' \
    "$work/sample.copy" > "$work/inserts.sql"
start=$(now)
psql -q "$(db_url bench_insert)" -f "$work/inserts.sql" >/dev/null
insert_s=$(awk -v a="$start" -v b="$(now)" 'BEGIN { print b - a }')

copy_rate=$(rate "$events" "$copy_s")
printf '\n%-34s %12s %14s %10s\n' "method" "seconds" "events/s" "vs limit"
printf '%-34s %12.2f %14s %10s\n' "psql \\copy (the limit)" "$copy_s" "$copy_rate" "1.00"
row() { printf '%-34s %12.2f %14s %10s\n' "$1" "$2" "$(rate "$3" "$2")" "$(awk -v r="$(rate "$3" "$2")" -v l="$copy_rate" 'BEGIN { printf "%.2f", r / l }')"; }
row "EventRecorder API (recorder-bench)" "$recorder_s" "$events"
if [ -n "$ingest_s" ]; then row "funnel ingest (JSONL)" "$ingest_s" "$events"; fi
row "one INSERT per event ($insert_sample)" "$insert_s" "$insert_sample"
for db in bench_copy bench_recorder ${ingest_s:+bench_ingest}; do
    printf 'rows in %-16s %s\n' "$db" "$(psql -tA "$(db_url "$db")" -c 'SELECT count(*) FROM events')"
done
