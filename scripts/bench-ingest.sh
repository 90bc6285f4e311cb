#!/usr/bin/env bash
# Compares `funnel ingest FILE.jsonl` with `psql \copy` of the same rows into the same table, on a
# throwaway embedded cluster. The rows are ingested once and exported as COPY text; then, ROUNDS
# times (default 3), alternating, the emptied table is loaded by psql \copy and by funnel ingest,
# each after a CHECKPOINT. Prints the best time of each (the machine may be shared) and the ratio.
# Usage: [ROUNDS=3] bash scripts/bench-ingest.sh EVENTS.jsonl   (builds the release funnel if needed)
set -euo pipefail
cd "$(dirname "$0")/.."
file="$(realpath "$1")"
rounds="${ROUNDS:-3}"

source scripts/bench/build.sh
release_build --scratch-path .build-release --product funnel >&2
funnel="$(release_bin --scratch-path .build-release)/funnel"

work="$(mktemp -d "${TMPDIR:-/tmp}/onboardmetrics-bench.XXXXXX")"
chmod 755 "$work"
cleanup() {
    "$funnel" db stop --data-dir "$work/postgres" --quiet >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

url="$("$funnel" db start --data-dir "$work/postgres")"
columns="event_id, session_id, user_id, seq, kind, flow_id, flow_version, step_id, name, occurred_at, sent_at, received_at, properties"
now() { date +%s.%N; }
empty() { psql "$url" -Xqc "TRUNCATE events, sessions" && psql "$url" -Xqc "CHECKPOINT"; }

"$funnel" migrate --database-url "$url" --migrations migrations --quiet >/dev/null
"$funnel" ingest "$file" --database-url "$url" --migrations migrations --quiet >/dev/null
rows="$(psql "$url" -XtAc "SELECT count(*) FROM events")"
psql "$url" -Xqc "\\copy (SELECT $columns FROM events) TO '$work/events.copy'"

ingest_times=()
copy_times=()
for _ in $(seq "$rounds"); do
    empty
    start="$(now)"
    psql "$url" -Xqc "\\copy events ($columns) FROM '$work/events.copy'"
    copy_times+=("$(echo "$(now) - $start" | bc -l)")
    empty
    start="$(now)"
    "$funnel" ingest "$file" --database-url "$url" --migrations migrations --quiet >/dev/null
    ingest_times+=("$(echo "$(now) - $start" | bc -l)")
done

python3 - "$rows" "$(stat -c %s "$file")" "${ingest_times[*]}" "${copy_times[*]}" <<'PY'
import sys
rows, size = int(sys.argv[1]), int(sys.argv[2])
ingest = [float(t) for t in sys.argv[3].split()]
copy = [float(t) for t in sys.argv[4].split()]
print(f"rows: {rows} ({size / 1e6:.0f} MB of JSONL), {len(ingest)} rounds")
print(f"funnel ingest: best {min(ingest):.2f} s, {rows / min(ingest):,.0f} events/s  (all: {', '.join(f'{t:.2f}' for t in ingest)})")
print(f"psql \\copy:    best {min(copy):.2f} s, {rows / min(copy):,.0f} rows/s  (all: {', '.join(f'{t:.2f}' for t in copy)})")
print(f"ratio (ingest rate / psql rate, best of each): {min(copy) / min(ingest):.2f}")
PY
