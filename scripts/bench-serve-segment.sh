#!/usr/bin/env bash
# Segment-format batches through `funnel serve` versus the native format, in the same run, each
# into a fresh migrated database: wrk with CONNECTIONS connections posting batches of BATCH new
# events for SECONDS to POST /v1/batch — scripts/bench/post-batch.lua (native, Bearer key) and
# scripts/bench/post-segment-batch.lua (Segment track calls, HTTP Basic write key; mapped to
# custom events, ids hashed from messageId). The rows stored are what each format achieved.
# Usage: bash scripts/bench-serve-segment.sh [SECONDS] [CONNECTIONS] [BATCH]   (default 20 16 100)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-20}"
connections="${2:-16}"
batch="${3:-100}"
source scripts/bench/collector.sh
source scripts/bench/setup.sh
echo "postgres $(psql -tA "$admin" -c 'SHOW server_version')   cores $(nproc)   wrk: $connections connections, $batch events a batch, ${seconds} s each"

# run FORMAT SCRIPT: serves a fresh database, drives it with SCRIPT, prints "FORMAT events seconds".
run() {
    local format="$1" script="$2" database="bench_$1"
    fresh "$database"
    start_collector "$database" "$work/spool-$format"
    /usr/bin/time -f "%e" -o "$work/wrk.time" env KEY="$key" AUTH="Basic $(printf '%s:' "$key" | base64 -w0)" \
        BATCH="$batch" wrk -t 2 -c "$connections" -d "${seconds}s" --timeout 30s -s "$script" "$url" > "$work/wrk-$format.out"
    stop_collector
    if grep -q 'Non-2xx' "$work/wrk-$format.out"; then
        echo "$format: some requests were refused:" >&2; grep -E 'Non-2xx' "$work/wrk-$format.out" >&2; exit 1
    fi
    echo "$format $(psql -tA "$(db_url "$database")" -c "SELECT count(*) FROM events") $(cat "$work/wrk.time")"
}
native=$(run native scripts/bench/post-batch.lua)
segment=$(run segment scripts/bench/post-segment-batch.lua)

printf '\n%-10s %10s %10s %12s %10s\n' format events seconds "events/s" "vs native"
printf '%s\n%s\n' "$native" "$segment" | awk '
    NR == 1 { base = $2 / $3 }
    { printf "%-10s %10d %10.2f %12.0f %9.2fx\n", $1, $2, $3, $2 / $3, ($2 / $3) / base }'
