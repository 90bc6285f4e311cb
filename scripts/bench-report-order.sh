#!/usr/bin/env bash
# Where a report's ordered read spends its time (issue 16): on EVENTS generated events (default
# 10M), ingested with `funnel ingest`, measures the every-column export, the ordered export of the
# report's columns, `funnel report` (seconds and peak memory) and EXPLAIN (ANALYZE, BUFFERS) of the
# ordered and of the sequential read; then rewrites the table in key order with `funnel reorder`
# (CLUSTER of each partition with its primary key, then ANALYZE) and measures the same again,
# checking that the report's JSON is unchanged.
# Usage: bash scripts/bench-report-order.sh [EVENTS]
set -euo pipefail
cd "$(dirname "$0")/.."
events="${1:-10000000}"
source scripts/bench/setup.sh
columns="$(grep -o 'event_id, session_id.*NULLIF(properties, .{}.::jsonb)' Sources/OnboardMetricsReader/SessionReader.swift | head -1)"
echo "postgres $(psql -tA "$admin" -c 'SHOW server_version')   cores $(nproc)   $(uptime)"
url="$(db_url bench_order)"
psql -q "$admin" -c "CREATE DATABASE bench_order"
# health-study averages about 11.9 events per session.
"$bin/funnel" generate --scenario health-study --sessions $(( events * 10 / 119 )) --seed 42 --out "$work/events.jsonl" >/dev/null
"$bin/funnel" ingest "$work/events.jsonl" --database-url "$url" --quiet >/dev/null
rm -f "$work"/events.*
# The ingest's dirty pages written now, not by a checkpoint in the middle of a measurement.
psql -Xq "$url" -c "VACUUM ANALYZE events" -c "CHECKPOINT"
report_end="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
buffers() {  # total shared buffers (hit + read) of the plan's top node
    psql -XtA "$url" -c "EXPLAIN (ANALYZE, BUFFERS, TIMING OFF) $1" |
        awk '/Buffers: shared/ { h = 0; r = 0; for (i = 1; i <= NF; i++) { if ($i ~ /^hit=/) h = substr($i, 5); if ($i ~ /^read=/) r = substr($i, 6) }; print h + r, "(hit " h ", read " r ")"; exit }'
}
measure() {
    start=$(now); psql -Xq "$url" -c "\\copy (SELECT * FROM events) TO '/dev/null' (FORMAT binary)"; copy_all_s=$(since "$start")
    start=$(now); psql -Xq "$url" -c "\\copy (SELECT $columns FROM events ORDER BY event_id) TO '/dev/null' (FORMAT binary)"; ordered_s=$(since "$start")
    /usr/bin/time -f "%e %M" -o "$work/time.out" "$bin/funnel" report --flow examples/flows/health-study.json \
        --database-url "$url" --until "$report_end" --format json --quiet > "$work/report-$1.json"
    read -r report_s report_kb < "$work/time.out"
    ordered_buffers="$(buffers "SELECT $columns FROM events ORDER BY event_id")"
    sequential_buffers="$(buffers "SELECT * FROM events")"
    awk -v l="$1" -v a="$copy_all_s" -v o="$ordered_s" -v r="$report_s" -v m="$report_kb" -v ob="$ordered_buffers" -v sb="$sequential_buffers" \
        'BEGIN { printf "%-10s copy* %6.2f s  ordered %6.2f s  report %6.2f s (%.2fx copy*, %.2fx ordered)  peak %4.0f MB\n%-10s buffers: ordered read %s, sequential read %s\n", l, a, o, r, r / a, r / o, m / 1024, "", ob, sb }'
}
rows=$(psql -XtA "$url" -c "SELECT count(*) FROM events")
echo "events $rows"
measure ingested
start=$(now)
"$bin/funnel" reorder --database-url "$url" --quiet > /dev/null
echo "funnel reorder: $(since "$start") s"
psql -Xq "$url" -c "CHECKPOINT"
measure clustered
cmp -s "$work/report-ingested.json" "$work/report-clustered.json" && echo "reports identical" || echo "REPORTS DIFFER"
echo "load after: $(uptime)"
