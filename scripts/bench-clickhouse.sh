#!/usr/bin/env bash
# Reports against the fastest peer that does the same job (issue 33): ClickHouse's windowFunnel,
# in process through chdb, over the same generated events that `funnel` reads from PostgreSQL.
# For each size: generate health-study events (generator defaults: resends, late and out-of-order
# events, clock skew), ingest them, export the stored rows (duplicates already gone) into a
# ClickHouse MergeTree table ordered by (session_id, time), then time in turn
#   - ClickHouse: the ordered funnel welcome,modules,consent,account with a 7-day window,
#     cold (first query of a new process on the stored table) and warm (best of three more);
#   - `funnel report --steps` (the same ad-hoc funnel) and `funnel report --flow` (the flow funnel):
#     once cold (the first report after the events arrived: after the bulk load it writes the
#     session file whole from the traces the dashboard built; after 1 % more the ingest has built
#     the new sessions' traces and the report brings the file up to date), then REPEAT times warm
#     (default 3), best and median printed; once each with --session-files off (every trace read
#     from PostgreSQL) and once with `--source events` (every row streamed, as before the traces),
#     whose JSON must be the same;
#   - PostgreSQL's binary export of the columns a report reads (what re-reading the table costs);
# then 1 % more events arrive (new sessions, another seed) in both stores and everything runs again.
# Then peak memory (max RSS) of one more warm report of each kind, and --flow on one connection.
# Then the same two funnels from `funnel dashboard` (a long-running process that keeps the sessions
# decoded between reports, SessionCache), as JSON over HTTP with a signed-in cookie: its first
# request for the events (a cold start loads every session; after 1 % more, only the new traces),
# then REPEAT warm requests; its JSON must match the CLI's (report_end aside: the dashboard's runs
# to now) and its counts ClickHouse's; and the dashboard's peak memory (VmHWM). After the 1 % more,
# the dashboard's first requests are made right after `funnel ingest` returns (which builds the
# new sessions' traces before it exits: its load and build times are printed). Last, another 1 %
# arrives and the first requests wait for the dashboard's background refresh (every 5 s, the
# default): their time is what a page opened a few seconds after new events costs.
# The two funnels' counts must agree step for step, else the script fails. Ratios are funnel / ClickHouse
# warm. Python packages come from a virtual environment the script makes (chdb pinned).
# The CLI's reports read the session file (README, docs/TRACES.md), kept in the work folder; each
# kind also runs once with --session-files off (every trace read from PostgreSQL), same JSON.
# TRACE_BUILD_LIMIT=N passes --trace-build-limit N to the ingests of 1 % more (0: the ingest leaves
# the new traces to the first report, here the dashboard's first requests, which then build them).
# Usage: [REPEAT=N] [TRACE_BUILD_LIMIT=N] bash scripts/bench-clickhouse.sh [EVENTS ...]
#   (default: 1780000 7100000)
set -euo pipefail
cd "$(dirname "$0")/.."
repeat="${REPEAT:-3}"
[[ "$repeat" =~ ^[1-9][0-9]*$ ]] || { echo "REPEAT must be a whole number from 1" >&2; exit 64; }
build_limit=()
if [ -n "${TRACE_BUILD_LIMIT:-}" ]; then
    [[ "$TRACE_BUILD_LIMIT" =~ ^[0-9]+$ ]] || { echo "TRACE_BUILD_LIMIT must be a whole number" >&2; exit 64; }
    build_limit=(--trace-build-limit "$TRACE_BUILD_LIMIT")
fi
sizes=("$@")
[ "${#sizes[@]}" -gt 0 ] || sizes=(1780000 7100000)
venv="${TMPDIR:-/tmp}/onboardmetrics-chdb-venv"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import chdb" 2>/dev/null; then
    python3 -m venv "$venv" >&2
    "$venv/bin/pip" install --quiet --disable-pip-version-check chdb==4.4.0 >&2
fi
python="$venv/bin/python"

source scripts/bench/setup.sh
source scripts/bench/dashboard.sh
best() { printf '%s\n' "$@" | sort -g | head -1; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
steps="welcome,modules,consent,account"
# Starts `funnel dashboard` on database URL $1 (kept sessions up to 100M events) and signs in,
# the health-study flow stored first.
start_kept_dashboard() {
    local url="$1"
    # From stdin: psql interpolates :'def' there, not in -c.
    psql -Xq "$url" -v def="$(cat examples/flows/health-study.json)" \
        <<< "INSERT INTO flows (flow_id, version, definition) VALUES ('health-study', 1, :'def'::jsonb) ON CONFLICT DO NOTHING"
    start_dashboard "$bin/funnel" "$url" --cache-events 100000000 --quiet
}
# The autovacuum workers at work now ("none"): on two cores, a first page's time moves with them.
autovacuum_now() {
    psql -XtA "$admin" -c "SELECT coalesce(string_agg(datname || ' ' || regexp_replace(query, '^autovacuum: ', ''), '; '), 'none')
        FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'"
}
# The dashboard's pages saved as $2 and $3 (JSON, in $work) equal the CLI's reports on database $1
# now, report_end aside (the dashboard's runs to now, the CLI's without --until here).
same_as_cli() {
    local url="$1" label="$4"
    "$bin/funnel" report --steps "$steps" --window 7d --database-url "$url" --format json --quiet > "$work/steps-now.json"
    "$bin/funnel" report --flow health-study --database-url "$url" --format json --quiet > "$work/flow-now.json"
    for pair in "$2 steps-now" "$3 flow-now"; do
        set -- $pair
        cmp -s <(grep -v '"report_end"' "$work/$1.json") <(grep -v '"report_end"' "$work/$2.json") \
            || { echo "$label: the dashboard's $1 differs from the CLI's" >&2; exit 1; }
    done
}
dash_steps="/funnel?steps=$steps&window=7d"
dash_flow="/flows/health-study"
window_us=$(( 7 * 86400 * 1000000 ))
columns="$(grep -o 'event_id, session_id.*NULLIF(properties, .{}.::jsonb)' Sources/OnboardMetricsReader/SessionReader.swift | head -1)"
report_end="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "postgres $(psql -tA "$admin" -c 'SHOW server_version')   chdb $("$python" -c 'import chdb; print(chdb.__version__)')   cores $(nproc)   report end $report_end"

# Appends the events of database $1 chosen by the WHERE clause $3 (empty: all) to ClickHouse folder $2.
export_to_clickhouse() {
    local url="$1" folder="$2" filter="$3"
    psql -Xq "$url" -c "\\copy (SELECT session_id, kind, coalesce(step_id, ''), coalesce(name, ''),
        (extract(epoch FROM occurred_at) * 1000000)::bigint FROM events $filter) TO '$work/export.tsv'"
    "$python" scripts/bench/clickhouse_funnel.py load "$folder" "$work/export.tsv"
    rm -f "$work/export.tsv"
}

# Times the three measurements; prints one line "ch_cold ch_warm steps_best steps_median flow_best
# flow_median copy_median agree" on stdout, details on stderr.
measure() {
    local url="$1" folder="$2" label="$3"
    local out ch_cold ch_warm
    out="$("$python" scripts/bench/clickhouse_funnel.py funnel "$folder" "$steps" "$window_us")"
    ch_cold=$(awk '$1 == "cold" { print $2 }' <<< "$out")
    ch_warm=$(best $(awk '$1 == "warm" { print $2 }' <<< "$out"))
    # The dashboard first: its first request after new events brings their traces up to date
    # (made right after the ingest when dash_right holds those two times).
    local dsteps_s=() dflow_s=()
    for run in $(seq 0 "$repeat"); do
        dsteps_s+=("$(dashboard_get "$dash_steps" "$work/dsteps-$run.json")")
        dflow_s+=("$(dashboard_get "$dash_flow" "$work/dflow-$run.json")")
    done
    local dsteps_cold="${dsteps_s[0]}" dflow_cold="${dflow_s[0]}"
    [ -z "$dash_right" ] || read -r dsteps_cold dflow_cold <<< "$dash_right"
    dsteps_s=("${dsteps_s[@]:1}")
    dflow_s=("${dflow_s[@]:1}")
    local dash_mb
    dash_mb=$(( $(dashboard_kb VmHWM) / 1024 ))
    local steps_s=() flow_s=() copy_s=()
    # The first report after new events is the cold one: after the bulk load it builds every
    # trace; after the 1 % more the ingest has built the new sessions' and it reads them.
    # The reports' times to three decimals (`since START 3`): milliseconds matter at ClickHouse's 0.04 s.
    for run in $(seq 0 "$repeat"); do
        start=$(now); psql -Xq "$url" -c "\\copy (SELECT $columns FROM events) TO '/dev/null' (FORMAT binary)"; copy_s+=("$(since "$start")")
        start=$(now)
        "$bin/funnel" report --steps "$steps" --window 7d --database-url "$url" --until "$report_end" \
            --format json --quiet > "$work/steps-$run.json"
        steps_s+=("$(since "$start" 3)")
        start=$(now)
        "$bin/funnel" report --flow examples/flows/health-study.json --database-url "$url" --until "$report_end" \
            --format json --quiet > "$work/flow-$run.json"
        flow_s+=("$(since "$start" 3)")
    done
    local steps_cold="${steps_s[0]}" flow_cold="${flow_s[0]}"
    steps_s=("${steps_s[@]:1}")
    flow_s=("${flow_s[@]:1}")
    # The same two reports from the events rows (every row streamed, as before the traces): the
    # JSON must be the same byte for byte.
    start=$(now)
    "$bin/funnel" report --steps "$steps" --window 7d --database-url "$url" --until "$report_end" \
        --format json --quiet --source events > "$work/steps-events.json"
    local steps_events; steps_events="$(since "$start")"
    start=$(now)
    "$bin/funnel" report --flow examples/flows/health-study.json --database-url "$url" --until "$report_end" \
        --format json --quiet --source events > "$work/flow-events.json"
    local flow_events; flow_events="$(since "$start")"
    # Peak memory of one more warm report of each kind (max RSS, /usr/bin/time), and the warm
    # --flow on one connection (--read-connections 1: what one core does).
    local steps_kb flow_kb flow_one
    steps_kb=$( { /usr/bin/time -f "%M" "$bin/funnel" report --steps "$steps" --window 7d --database-url "$url" \
        --until "$report_end" --format json --quiet > /dev/null; } 2>&1 | tail -1)
    flow_kb=$( { /usr/bin/time -f "%M" "$bin/funnel" report --flow examples/flows/health-study.json --database-url "$url" \
        --until "$report_end" --format json --quiet > /dev/null; } 2>&1 | tail -1)
    start=$(now)
    "$bin/funnel" report --flow examples/flows/health-study.json --database-url "$url" --until "$report_end" \
        --format json --quiet --read-connections 1 > "$work/flow-one.json"
    flow_one="$(since "$start" 3)"
    cmp -s "$work/flow-one.json" "$work/flow-1.json" || { echo "$label: --flow differs on one connection" >&2; exit 1; }
    echo "$label: peak memory (max RSS) --steps $(( steps_kb / 1024 )) MB, --flow $(( flow_kb / 1024 )) MB; --flow on one connection $flow_one s (same JSON)" >&2
    cmp -s "$work/steps-events.json" "$work/steps-1.json" || { echo "$label: --steps differs between traces and events" >&2; exit 1; }
    cmp -s "$work/flow-events.json" "$work/flow-1.json" || { echo "$label: --flow differs between traces and events" >&2; exit 1; }
    echo "$label: first report after the events arrived (traces brought up to date): --steps $steps_cold s, --flow $flow_cold s; from the events rows: --steps $steps_events s, --flow $flow_events s (same JSON)" >&2
    local ours
    ours="$("$python" -c 'import json, sys; print(" ".join(str(r["count"]) for r in json.load(open(sys.argv[1]))["rows"]))' "$work/steps-1.json")"
    local theirs
    theirs="$(awk '$1 == "reached" { printf "%s%s", sep, $3; sep = " " }' <<< "$out")"
    echo "$label: ClickHouse cold $ch_cold s, warm ${out//$'\n'/ }; copy ${copy_s[*]}; --steps ${steps_s[*]}; --flow ${flow_s[*]}" >&2
    echo "$label: reached per step: funnel $ours; ClickHouse $theirs" >&2
    [ "$ours" = "$theirs" ] || { echo "$label: the funnels disagree" >&2; exit 1; }
    # The same two reports from the session traces (--session-files off: every trace read from
    # PostgreSQL, as before the files), once, warm: the JSON must be the same.
    start=$(now)
    "$bin/funnel" report --steps "$steps" --window 7d --database-url "$url" --until "$report_end" \
        --format json --quiet --session-files off > "$work/steps-traces.json"
    local steps_traces; steps_traces="$(since "$start" 3)"
    start=$(now)
    "$bin/funnel" report --flow examples/flows/health-study.json --database-url "$url" --until "$report_end" \
        --format json --quiet --session-files off > "$work/flow-traces.json"
    local flow_traces; flow_traces="$(since "$start" 3)"
    cmp -s "$work/steps-traces.json" "$work/steps-1.json" || { echo "$label: --steps differs between the file and the traces" >&2; exit 1; }
    cmp -s "$work/flow-traces.json" "$work/flow-1.json" || { echo "$label: --flow differs between the file and the traces" >&2; exit 1; }
    echo "$label: from the traces (--session-files off): --steps $steps_traces s, --flow $flow_traces s (same JSON)" >&2
    same_as_cli "$url" dsteps-1 dflow-1 "$label"
    local dash_counts
    dash_counts="$("$python" -c 'import json, sys; print(" ".join(str(r["count"]) for r in json.load(open(sys.argv[1]))["rows"]))' "$work/dsteps-1.json")"
    [ "$dash_counts" = "$theirs" ] || { echo "$label: the dashboard's funnel disagrees with ClickHouse" >&2; exit 1; }
    echo "$label: dashboard first request after the events arrived --steps $dsteps_cold s, --flow $dflow_cold s; warm --steps ${dsteps_s[*]}; --flow ${dflow_s[*]}; peak memory $dash_mb MB (same JSON as the CLI, same counts as ClickHouse)" >&2
    echo "$ch_cold $ch_warm $(best "${steps_s[@]}") $(median "${steps_s[@]}") $(best "${flow_s[@]}") $(median "${flow_s[@]}") $(median "${copy_s[@]}") yes $steps_cold $flow_cold $steps_events $flow_events $(( steps_kb / 1024 )) $(( flow_kb / 1024 )) $flow_one $dsteps_cold $dflow_cold $(best "${dsteps_s[@]}") $(best "${dflow_s[@]}") $dash_mb $steps_traces $flow_traces"
}

results=()
later_results=()
for events in "${sizes[@]}"; do
    db="bench_ch_$events"
    url="$(db_url "$db")"
    folder="$work/clickhouse-$events"
    fresh "$db"
    # health-study averages about 11.9 events per session.
    sessions=$(( events * 10 / 119 ))
    "$bin/funnel" generate --scenario health-study --sessions "$sessions" --seed 42 --out "$work/events.jsonl" >/dev/null
    "$bin/funnel" ingest "$work/events.jsonl" --database-url "$url" --quiet >/dev/null
    psql -Xq "$url" -c "VACUUM ANALYZE events" -c "CHECKPOINT"
    export_to_clickhouse "$url" "$folder" ""
    start_kept_dashboard "$url"
    rows=$(psql -XtA "$url" -c "SELECT count(*) FROM events")
    dash_right=""
    results+=("$rows $(measure "$url" "$folder" "$rows events")")

    # 1 % more: new sessions from another seed, through the same paths; ClickHouse gets the stored
    # rows of those sessions (resends already gone).
    # The ingest builds the new sessions' traces before it returns (fewer than
    # --trace-build-limit await; not with TRACE_BUILD_LIMIT=0): its load and build times are
    # printed, and their ratio.
    "$bin/funnel" generate --scenario health-study --sessions $(( sessions / 100 )) --seed 43 --out "$work/more.jsonl" >/dev/null
    "$bin/funnel" ingest "$work/more.jsonl" --database-url "$url" --quiet --format json "${build_limit[@]}" \
        > "$work/more-ingest.json"
    vacuum_before="$(autovacuum_now)"
    dash_right="$(dashboard_get "$dash_steps" "$work/dright-steps.json") $(dashboard_get "$dash_flow" "$work/dright-flow.json")"
    echo "+1 % first pages: autovacuum before them: $vacuum_before; after them: $(autovacuum_now)" >&2
    "$python" - "$work/more-ingest.json" >&2 <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
load, build, built = s["seconds"], s.get("trace_seconds"), s.get("traces_built", 0)
after = f"{build:.3f} s (+{100 * build / load:.0f} % on the load)" if build is not None else "none (left to the first report)"
print(f"+1 % ingest: {s['inserted']} events loaded in {load:.3f} s, then the traces of {built} sessions built in {after}")
PY
    psql -Xq "$url" -c "VACUUM ANALYZE events"
    python3 -c 'import json, sys; print("\n".join(sorted({json.loads(l)["session_id"] for l in open(sys.argv[1])})))' \
        "$work/more.jsonl" > "$work/more-sessions.txt"
    psql -Xq "$url" -c "CREATE TABLE bench_new (session_id uuid PRIMARY KEY)" -c "\\copy bench_new FROM '$work/more-sessions.txt'"
    export_to_clickhouse "$url" "$folder" "WHERE session_id IN (SELECT session_id FROM bench_new)"
    rows_more=$(psql -XtA "$url" -c "SELECT count(*) FROM events")
    results+=("$rows_more $(measure "$url" "$folder" "$rows_more events (+1 %)")")
    # Another 1 %, and the first requests 7 s later: the background refresh (every 5 s) has read
    # the new sessions. The pages must equal the CLI's reports of the same moment.
    "$bin/funnel" generate --scenario health-study --sessions $(( sessions / 100 )) --seed 44 --out "$work/more.jsonl" >/dev/null
    "$bin/funnel" ingest "$work/more.jsonl" --database-url "$url" --quiet "${build_limit[@]}" >/dev/null
    sleep 7
    vacuum_before="$(autovacuum_now)"
    later="$(dashboard_get "$dash_steps" "$work/dlater-steps.json") $(dashboard_get "$dash_flow" "$work/dlater-flow.json")"
    echo "+1 % again, pages 7 s later: autovacuum before them: $vacuum_before; after them: $(autovacuum_now)" >&2
    same_as_cli "$url" dlater-steps dlater-flow "+1 % again"
    rows_later=$(psql -XtA "$url" -c "SELECT count(*) FROM events")
    echo "$rows_later events (+1 % again): dashboard first request 7 s after the ingest returned --steps ${later% *} s, --flow ${later#* } s (same JSON as the CLI)" >&2
    later_results+=("$rows_later $later $(read -r _ _ w _ <<< "${results[-1]}"; echo "$w")")
    stop_dashboard
    rm -f "$work/events.jsonl" "$work/more.jsonl" "$work"/*.params.json "$work"/*.rejects
    psql -Xq "$admin" -c "DROP DATABASE $db"
    rm -rf "$folder"
done

echo "load: $(uptime)"
printf '\n%10s %9s %9s %9s %9s %9s %9s %9s %10s %9s %6s\n' events "ch cold" "ch warm" "steps" "x ch" "flow" "x ch" "copy" "copy x ch" "steps med" agree
for line in "${results[@]}"; do
    read -r rows cold warm sb sm fb fm copy agree _ <<< "$line"
    awk -v n="$rows" -v c="$cold" -v w="$warm" -v sb="$sb" -v sm="$sm" -v fb="$fb" -v cp="$copy" -v g="$agree" \
        'BEGIN { printf "%10d %9.3f %9.3f %9.3f %8.1fx %9.3f %8.1fx %9.2f %9.1fx %9.3f %6s\n", n, c, w, sb, sb / w, fb, fb / w, cp, cp / w, sm, g }'
done
printf '\n%10s %11s %8s %11s %8s %13s %8s %13s %8s\n' events "steps cold" "x ch" "flow cold" "x ch" "steps events" "x ch" "flow events" "x ch"
for line in "${results[@]}"; do
    read -r rows cold warm sb sm fb fm copy agree sc fc se fe <<< "$line"
    awk -v n="$rows" -v w="$warm" -v sc="$sc" -v fc="$fc" -v se="$se" -v fe="$fe" \
        'BEGIN { printf "%10d %11.3f %7.1fx %11.3f %7.1fx %13.2f %7.1fx %13.2f %7.1fx\n", n, sc, sc / w, fc, fc / w, se, se / w, fe, fe / w }'
done
printf '\n%10s %13s %8s %12s %8s\n' events "steps traces" "x ch" "flow traces" "x ch"
for line in "${results[@]}"; do
    read -r rows cold warm sb sm fb fm copy agree sc fc se fe smem fmem fone dsc dfc dsb dfb dmb st ft <<< "$line"
    awk -v n="$rows" -v w="$warm" -v st="$st" -v ft="$ft" \
        'BEGIN { printf "%10d %13.3f %7.1fx %12.3f %7.1fx\n", n, st, st / w, ft, ft / w }'
done
echo "(traces: one warm report with --session-files off, every session trace read from PostgreSQL)"
printf '\n%10s %14s %13s %15s %8s\n' events "steps peak MB" "flow peak MB" "flow 1 conn s" "x ch"
for line in "${results[@]}"; do
    read -r rows cold warm sb sm fb fm copy agree sc fc se fe smem fmem fone <<< "$line"
    awk -v n="$rows" -v w="$warm" -v sm="$smem" -v fm="$fmem" -v fo="$fone" \
        'BEGIN { printf "%10d %14d %13d %15.3f %7.1fx\n", n, sm, fm, fo, fo / w }'
done
printf '\n%10s %16s %8s %15s %8s %12s %8s %11s %8s %8s\n' events "dash steps warm" "x ch" "dash flow warm" "x ch" "steps first" "x ch" "flow first" "x ch" "peak MB"
for line in "${results[@]}"; do
    read -r rows cold warm sb sm fb fm copy agree sc fc se fe smem fmem fone dsc dfc dsb dfb dmb <<< "$line"
    awk -v n="$rows" -v w="$warm" -v dsc="$dsc" -v dfc="$dfc" -v dsb="$dsb" -v dfb="$dfb" -v m="$dmb" \
        'BEGIN { printf "%10d %16.3f %7.1fx %15.3f %7.1fx %12.2f %7.1fx %11.2f %7.1fx %8d\n", n, dsb, dsb / w, dfb, dfb / w, dsc, dsc / w, dfc, dfc / w, m }'
done
echo "(dashboard: funnel dashboard's JSON pages over HTTP, sessions kept decoded between requests; warm: best of $repeat; first: its first request after the events arrived, right after the ingest returned for the +1 % rows)"
printf '\n%10s %22s %8s %21s %8s\n' events "dash steps 7 s later" "x ch" "dash flow 7 s later" "x ch"
for line in "${later_results[@]}"; do
    read -r rows ls lf w <<< "$line"
    awk -v n="$rows" -v ls="$ls" -v lf="$lf" -v w="$w" \
        'BEGIN { printf "%10d %22.3f %7.1fx %21.3f %7.1fx\n", n, ls, ls / w, lf, lf / w }'
done
echo "(another 1 % more events, the dashboard's first requests 7 s after the ingest returned: its background refresh every 5 s had read them; against ClickHouse warm at the +1 % row)"
echo "(seconds; steps and flow: best of $repeat warm runs, from the session file (--session-files' default, in the work folder); cold: the first report after the events arrived (after the bulk load it writes the session file whole, the dashboard having built every trace; after 1 % more the ingest built the new traces, and the report reads them beside the file, which is written again once its changes come to 2 %); events: one report with --source events, every row streamed; ClickHouse warm: best of 3; copy: median binary export of the report's columns; reports read on --read-connections' default, one connection per core, unless said; peak MB: max RSS of one more warm report)"
