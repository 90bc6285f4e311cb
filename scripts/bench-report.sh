#!/usr/bin/env bash
# Report benchmark: `funnel report` over N generated events versus, in the same run and on the
# same data, (a) PostgreSQL exporting every column with binary COPY TO (issue 16's limit:
# `\copy (SELECT * FROM events) TO /dev/null (FORMAT binary)`), and the columns the report reads,
# with and without the event-id order the report asks for, and (b) one SQL statement that computes the
# same funnel inside PostgreSQL (scripts/bench/health-study-funnel.sql). Also checks that (b) and
# the report agree, and records the report's peak memory. The exports and the report run one after
# the other, after a CHECKPOINT; the SQL statement (minutes at 10M) runs last.
# The table's physical order decides what the report's ordered read costs (BENCHMARKS.md, issue
# 16), so ORDER picks how the events are stored:
#   file      (default) the generated file as it is, session by session: a bulk load of history;
#   arrival   the file sorted by received_at first, the order a collector stores live traffic in
#             (late events, resends and clock skew included);
#   reordered the file as it is, then `funnel reorder`.
# The exports and the report are short and a single run of each moves by 10-20 % with what else the
# machine does, so they run REPEAT times (default 3), one after the other in turn, and the table
# gives each one's median (every run's seconds are printed above it); the report's JSON must be the
# same in every run.
# Usage: [ORDER=file|arrival|reordered] [REPEAT=N] bash scripts/bench-report.sh [EVENTS ...]
#        (default: 1000000 3000000 10000000)
set -euo pipefail
cd "$(dirname "$0")/.."
order="${ORDER:-file}"
repeat="${REPEAT:-3}"
[[ "$repeat" =~ ^[1-9][0-9]*$ ]] || { echo "REPEAT must be a whole number from 1" >&2; exit 64; }
case "$order" in file | arrival | reordered) ;; *) echo "ORDER must be file, arrival or reordered" >&2; exit 64 ;; esac
sizes=("$@")
[ "${#sizes[@]}" -gt 0 ] || sizes=(1000000 3000000 10000000)

source scripts/bench/setup.sh
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
columns="$(grep -o 'event_id, session_id.*NULLIF(properties, .{}.::jsonb)' Sources/OnboardMetricsReader/SessionReader.swift | head -1)"
report_end="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "postgres $(psql -tA "$admin" -c 'SHOW server_version')   cores $(nproc)   report end $report_end   order $order"
results=()
for events in "${sizes[@]}"; do
    db="bench_report_$events"
    url="$admin&dbname=$db"
    psql -q "$admin" -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
    # health-study averages about 11.9 events per session.
    sessions=$(( events * 10 / 119 ))
    "$bin/funnel" generate --scenario health-study --sessions "$sessions" --seed 42 --out "$work/events.jsonl" >/dev/null
    if [ "$order" = arrival ]; then
        # A stable sort on the received_at text (every line has it; ISO 8601 in UTC sorts as time).
        LC_ALL=C awk '{ i = index($0, "\"received_at\":\""); print substr($0, i + 15, 24) "\t" $0 }' "$work/events.jsonl" |
            LC_ALL=C sort -s -t "$(printf '\t')" -k1,1 -S 25% | cut -f2- > "$work/arrival.jsonl"
        mv "$work/arrival.jsonl" "$work/events.jsonl"
    fi
    "$bin/funnel" ingest "$work/events.jsonl" --database-url "$url" --quiet >/dev/null
    rm -f "$work/events.jsonl" "$work/events.params.json" "$work/events.jsonl.rejects"
    [ "$order" != reordered ] || "$bin/funnel" reorder --database-url "$url" --quiet >/dev/null
    # The ingest's dirty pages written now, not by a checkpoint in the middle of a measurement.
    psql -q "$url" -c "VACUUM ANALYZE events" -c "CHECKPOINT"
    rows=$(psql -tA "$url" -c "SELECT count(*) FROM events")

    copy_all=(); copy=(); copy_ordered=(); report=(); report_kb=0
    for run in $(seq "$repeat"); do
        start=$(now); psql -q "$url" -c "\\copy (SELECT * FROM events) TO '/dev/null' (FORMAT binary)"; copy_all+=("$(since "$start")")
        start=$(now); psql -q "$url" -c "\\copy (SELECT $columns FROM events) TO '/dev/null' (FORMAT binary)"; copy+=("$(since "$start")")
        start=$(now); psql -q "$url" -c "\\copy (SELECT $columns FROM events ORDER BY event_id) TO '/dev/null' (FORMAT binary)"; copy_ordered+=("$(since "$start")")
        /usr/bin/time -f "%e %M" -o "$work/time.out" "$bin/funnel" report --flow examples/flows/health-study.json \
            --database-url "$url" --until "$report_end" --format json --quiet > "$work/report-$run.json"
        read -r seconds kb < "$work/time.out"
        report+=("$seconds")
        if (( kb > report_kb )); then report_kb=$kb; fi
        cmp -s "$work/report-1.json" "$work/report-$run.json" || { echo "run $run's report differs from the first's" >&2; exit 1; }
    done
    mv "$work/report-1.json" "$work/report.json"
    echo "$rows events, seconds of each run: copy* ${copy_all[*]}; copy ${copy[*]}; ordered ${copy_ordered[*]}; report ${report[*]}"
    copy_all_s=$(median "${copy_all[@]}"); copy_s=$(median "${copy[@]}"); copy_ordered_s=$(median "${copy_ordered[@]}")
    report_s=$(median "${report[@]}")
    start=$(now)
    psql -q -A -F' ' -t "$url" -v report_end="$report_end" -v window='7 days' -v inactivity='30 minutes' \
        -f scripts/bench/health-study-funnel.sql > "$work/sql.out"
    sql_s=$(since "$start")
    agree=$(python3 - "$work/report.json" "$work/sql.out" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))["groups"][0]["steps"]
sql = [line.split() for line in open(sys.argv[2]) if line.strip()]
same = all([s["step"], s["eligible"], s["viewed"], s["completed"], s["skipped"], s["dropped_here"]]
           == [r[0]] + [int(x) for x in r[1:6]] for s, r in zip(report, sql)) and len(report) == len(sql)
print("yes" if same else "NO")
PY
)
    results+=("$rows $copy_all_s $copy_s $copy_ordered_s $sql_s $report_s $report_kb $agree")
done

echo "load: $(uptime)"
printf '\n%10s %9s %9s %10s %9s %9s %10s %9s %11s %9s %9s\n' events "copy* s" "copy s" "ordered s" "sql s" "report s" "vs copy*" "vs copy" "sql/report" "peak MB" agree
for line in "${results[@]}"; do
    read -r rows copy_all_s copy_s ordered_s sql_s report_s report_kb agree <<< "$line"
    awk -v n="$rows" -v a="$copy_all_s" -v c="$copy_s" -v o="$ordered_s" -v q="$sql_s" -v r="$report_s" -v m="$report_kb" -v g="$agree" \
        'BEGIN { printf "%10d %9.2f %9.2f %10.2f %9.2f %9.2f %9.2fx %8.2fx %10.1fx %9.0f %9s\n", n, a, c, o, q, r, r / a, r / c, q / r, m / 1024, g }'
done
