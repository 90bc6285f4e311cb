#!/usr/bin/env bash
# Collector benchmark: events per second through `funnel serve` (HTTP on loopback, JSON batches,
# key check, validation, 200 only once committed) versus the EventRecorder alone (recorder-bench,
# in-process, no HTTP), in the same run, each into a fresh migrated database.
#   serve      wrk (Debian's package) with scripts/bench/post-batch.lua: CONNECTIONS connections
#              posting batches of BATCH new events for SECONDS; the rows stored are counted
#   recorder   recorder-bench recording the same number of events through EventRecorder
# Usage: bash scripts/bench-serve.sh [SECONDS] [CONNECTIONS] [BATCH]   (default 20 16 100)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-20}"
connections="${2:-16}"
batch="${3:-100}"
source scripts/bench/collector.sh
source scripts/bench/setup.sh
echo "postgres $(psql -tA "$admin" -c 'SHOW server_version')   cores $(nproc)   wrk: $connections connections, $batch events a batch, ${seconds} s"

fresh bench_serve
start_collector bench_serve "$work/spool"
/usr/bin/time -f "%e %M" -o "$work/wrk.time" env KEY="$key" BATCH="$batch" \
    wrk -t 2 -c "$connections" -d "${seconds}s" --timeout 30s -s scripts/bench/post-batch.lua "$url" > "$work/wrk.out"
serve_s=$(awk '{ print $1 }' "$work/wrk.time")
stop_collector
grep -E '^requests|^latency|Non-2xx' "$work/wrk.out" || true
stored=$(psql -tA "$(db_url bench_serve)" -c "SELECT count(*) FROM events")
requests=$(awk '/^requests/ { print $2 }' "$work/wrk.out")

fresh bench_recorder
start=$(now)
"$bin/recorder-bench" --events "$stored" --database-url "$(db_url bench_recorder)" >/dev/null
recorder_s=$(awk -v a="$start" -v b="$(now)" 'BEGIN { print b - a }')

printf '\n%-10s %10s %10s %12s %10s\n' method events seconds "events/s" "vs recorder"
awk -v n="$stored" -v s="$serve_s" -v r="$recorder_s" -v q="$requests" -v b="$batch" -v c="$connections" 'BEGIN {
    printf "%-10s %10d %10.2f %12.0f %9.2fx\n", "serve", n, s, n / s, (n / s) / (n / r)
    printf "%-10s %10d %10.2f %12.0f %9.2fx\n", "recorder", n, r, n / r, 1
    # Requests in flight when wrk stops are stored but not counted by wrk: at most one a connection.
    printf "\nstored %d events; wrk counted %d answered requests x %d = %d: %s\n", n, q, b, q * b,
        (n >= q * b && n <= (q + c) * b ? "consistent" : "MISMATCH")
}'
