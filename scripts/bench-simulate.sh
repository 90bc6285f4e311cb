#!/usr/bin/env bash
# Simulation benchmark: `funnel simulate` with 1,000 bootstrap draws over N generated sessions
# (health-study, candidate without the `modules` step) versus, in the same run and on the same
# data, PostgreSQL exporting the columns the replay reads with COPY TO in event-id order (the
# limit) and `funnel report` (the same replay without a model). `--draws 1` separates the replay
# from the bootstrap. Also records peak memory.
# Usage: bash scripts/bench-simulate.sh [SESSIONS]     (default: 1000000)
set -euo pipefail
cd "$(dirname "$0")/.."
sessions="${1:-1000000}"

source scripts/bench/setup.sh
url="$admin"
columns="$(grep -o 'event_id, session_id.*NULLIF(properties, .{}.::jsonb)' Sources/OnboardMetricsReader/SessionReader.swift | head -1)"
report_end="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "postgres $(psql -tA "$url" -c 'SHOW server_version')   cores $(nproc)   sessions $sessions"

"$bin/funnel" generate --scenario health-study --sessions "$sessions" --seed 42 --out "$work/events.jsonl" >/dev/null
"$bin/funnel" ingest "$work/events.jsonl" --database-url "$url" --quiet >/dev/null
rm -f "$work/events.jsonl" "$work/events.params.json" "$work/events.jsonl.rejects"
psql -q "$url" -c "VACUUM ANALYZE events"
rows=$(psql -tA "$url" -c "SELECT count(*) FROM events")
python3 - "$work/candidate.json" <<'PY'
import json, sys
flow = json.load(open("examples/flows/health-study.json"))
flow["version"] = 2
flow["steps"] = [step for step in flow["steps"] if step["id"] != "modules"]
json.dump(flow, open(sys.argv[1], "w"))
PY

start=$(now); psql -q "$url" -c "\\copy (SELECT $columns FROM events ORDER BY event_id) TO '/dev/null' (FORMAT binary)"; copy_s=$(since "$start")
timed() {  # timed NAME COMMAND...: seconds and peak KiB into $work/NAME.time
    local name="$1"; shift
    /usr/bin/time -f "%e %M" -o "$work/$name.time" "$@" > "$work/$name.out"
}
common=(--database-url "$url" --until "$report_end" --quiet)
timed report "$bin/funnel" report --flow examples/flows/health-study.json "${common[@]}" --format json
timed replay "$bin/funnel" simulate --flow "$work/candidate.json" --baseline examples/flows/health-study.json \
    "${common[@]}" --draws 1 --format json
timed simulate "$bin/funnel" simulate --flow "$work/candidate.json" --baseline examples/flows/health-study.json \
    "${common[@]}" --draws 1000 --format json
read -r report_s report_kb < "$work/report.time"
read -r replay_s replay_kb < "$work/replay.time"
read -r simulate_s simulate_kb < "$work/simulate.time"
summary=$(python3 - "$work/simulate.out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
f, o, d, b = r["forecast_completion"], r["observed_completion"], r["completion_delta"], r["back_test"]
print(f"{r['data']['sessions']} sessions, {r['data']['users']} users; forecast {f['value']:.4f} "
      f"[{f['interval']['lower']:.4f}, {f['interval']['upper']:.4f}], recorded {o['value']:.4f}, "
      f"delta {d['value']:+.4f} [{d['interval']['lower']:+.4f}, {d['interval']['upper']:+.4f}], "
      f"back-test {'within' if b['within_interval'] else 'OUTSIDE'}")
PY
)
echo "$summary"
printf '\n%10s %10s %9s %9s %13s %14s %10s %10s %12s\n' events "copy s" "report s" "draws=1 s" "draws=1000 s" "bootstrap s" "vs copy" "vs report" "peak MB"
awk -v n="$rows" -v c="$copy_s" -v r="$report_s" -v p="$replay_s" -v s="$simulate_s" -v m="$simulate_kb" \
    'BEGIN { printf "%10d %10.2f %9.2f %9.2f %13.2f %14.2f %9.2fx %9.2fx %12.0f\n", n, c, r, p, s, s - p, s / c, s / r, m / 1024 }'
