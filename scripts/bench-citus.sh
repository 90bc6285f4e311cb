#!/usr/bin/env bash
# Figures for issue 35: Citus (a coordinator and two workers) against one plain PostgreSQL server,
# on the same generated events, all on this machine (scripts/citus-cluster.sh starts the four
# servers on loopback, as scripts/check-citus.sh does). For each size, on a fresh cluster:
#   - generate health-study events (generator defaults: resends, late and out-of-order events);
#   - ingest rate: `funnel ingest` of the file into the plain server, then through the coordinator;
#   - report time: `funnel report --flow examples/flows/health-study.json` and `funnel report
#     --steps welcome,modules,consent,account --window 7d`, on the plain server, through the
#     coordinator, and with --citus-workers; REPEAT times (default 3), the modes taking turns,
#     best printed, after one discarded run on the plain server (the first report after the
#     events arrived brings its session traces up to date; the events were just written, so
#     every server's pages are in memory already); and on the plain server with --source events (every row read, as on
#     Citus, where there are no traces). The JSON must be byte-identical across all four;
#   - per-worker read: the statements a --citus-workers report runs on each worker (each of its
#     shards' report columns in event-id order, binary COPY, one shard after another), worker 1
#     alone, worker 2 alone, then both at once; and the same statement on the plain server's events.
# Prints a table with ratios (Citus / one server) and the `uptime` load beside each figure.
#
#   [REPEAT=N] bash scripts/bench-citus.sh CITUS_SOURCE_DIR [EVENTS ...]   (default: 2000000 10000000)
#
# Needs root (see scripts/check-citus.sh) and disk: the events file and two stored copies of the
# events, about 1 GB per million events in all at peak (the folder is under ${TMPDIR:-/tmp};
# the cluster is recreated for each size). Citus is built as by check-citus.sh, in
# ${CITUS_PREFIX:-/tmp/onboardmetrics-citus-prefix}.
set -euo pipefail
cd "$(dirname "$0")/.."
src="${1:?usage: scripts/bench-citus.sh CITUS_SOURCE_DIR [EVENTS ...]}"
src="$(cd "$src" && pwd)"
shift
sizes=("$@")
[ "${#sizes[@]}" -gt 0 ] || sizes=(2000000 10000000)
repeat="${REPEAT:-3}"
[[ "$repeat" =~ ^[1-9][0-9]*$ ]] || { echo "REPEAT must be a whole number from 1" >&2; exit 64; }

source scripts/citus-cluster.sh
citus_build "$src"
source scripts/bench/build.sh
release_build --product funnel >"${TMPDIR:-/tmp}/bench-citus-build.log" 2>&1 || { tail -30 "${TMPDIR:-/tmp}/bench-citus-build.log"; exit 1; }
funnel="$(release_bin)/funnel"
trap citus_stop_cluster EXIT INT TERM

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
best() { printf '%s\n' "$@" | sort -g | head -1; }
load() { awk '{ print $1 }' /proc/loadavg; }
report_end="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
flow=examples/flows/health-study.json
declare -A report_args=(
    [flow]="report --flow $flow"
    [steps]="report --steps welcome,modules,consent,account --window 7d"
)
echo "funnel: release build; report end $report_end; cores $(nproc); $(uptime)"

ingest_rows=()
report_rows=()
read_rows=()
for events in "${sizes[@]}"; do
    # Max WAL raised on every node alike, so that a bulk ingest is not a series of checkpoints.
    citus_start_cluster "max_wal_size = '2GB'"
    coordinator="$(url coordinator)"
    plain="$(url plain)"
    "$funnel" migrate --database-url "$coordinator" --quiet >/dev/null
    "$funnel" migrate --database-url "$plain" --quiet >/dev/null

    # health-study averages about 11.9 events per session.
    sessions=$((events * 10 / 119))
    step "$events events: generating $sessions health-study sessions"
    "$funnel" generate --scenario health-study --sessions "$sessions" --seed 42 --out "$work/events.jsonl" --quiet >/dev/null
    lines=$(wc -l <"$work/events.jsonl")
    step "$events events: ingest ($lines lines, $(du -h "$work/events.jsonl" | cut -f1))"
    for target in plain coordinator; do
        l0="$(load)"
        start=$(now)
        "$funnel" ingest "$work/events.jsonl" --database-url "$(url "$target")" --quiet >"$work/ingest-$target.txt"
        seconds="$(since "$start")"
        echo "  $target: $(cat "$work/ingest-$target.txt") (wall $seconds s, load $l0 -> $(load))"
        eval "ingest_$target=$seconds"
        eval "ingest_load_$target=$l0"
    done
    rm -f "$work/events.jsonl" "$work"/*.rejects "$work"/*.params.json
    psql_on plain -c "VACUUM ANALYZE events" -c "CHECKPOINT"
    psql_on coordinator -c "VACUUM ANALYZE events" -c "CHECKPOINT"
    for node in worker1 worker2; do psql_on "$node" -c "CHECKPOINT"; done
    rows_plain="$(psql_on plain -c "SELECT count(*) FROM events")"
    rows_citus="$(psql_on coordinator -c "SELECT count(*) FROM events")"
    echo "  stored: one server $rows_plain events, Citus $rows_citus; disk: $(du -sh "$work" | cut -f1) in $work ($(df -h "$work" | awk 'NR == 2 { print $4 }') free)"
    [ "$rows_plain" = "$rows_citus" ] || fail "the stored events differ"
    ingest_rows+=("$rows_plain $lines $ingest_plain $ingest_coordinator $ingest_load_plain $ingest_load_coordinator")

    for name in flow steps; do
        step "$events events: report $name (one server cold once, then best of $repeat)"
        declare -A times=()
        declare -A loads=()
        for run in $(seq 0 "$repeat"); do
            for mode in plain coordinator workers events; do
                # The cold run is the plain server's only: it brings the session traces up to date.
                [ "$run" = 0 ] && [ "$mode" != plain ] && continue
                case "$mode" in
                    plain) extra=(--database-url "$plain") ;;
                    coordinator) extra=(--database-url "$coordinator") ;;
                    workers) extra=(--database-url "$coordinator" --citus-workers) ;;
                    events) extra=(--database-url "$plain" --source events) ;;
                esac
                l0="$(load)"
                start=$(now)
                # shellcheck disable=SC2086 # the report's words
                "$funnel" ${report_args[$name]} --until "$report_end" "${extra[@]}" --format json --quiet >"$work/$name-$mode.json"
                seconds="$(since "$start")"
                echo "  run $run $mode: $seconds s (load $l0)"
                [ "$run" = 0 ] && continue
                times[$mode]="${times[$mode]:-} $seconds"
                loads[$mode]="${loads[$mode]:-} $l0"
            done
            [ "$run" = 0 ] && continue
            for mode in coordinator workers events; do
                cmp -s "$work/$name-plain.json" "$work/$name-$mode.json" || fail "report $name: $mode's JSON differs from one server's"
            done
        done
        # shellcheck disable=SC2086
        report_rows+=("$rows_plain $name $(best ${times[plain]}) $(best ${times[coordinator]}) $(best ${times[workers]}) $(best ${times[events]}) $(best ${loads[plain]}) $(printf '%s\n' ${loads[plain]} ${loads[coordinator]} ${loads[workers]} ${loads[events]} | sort -g | tail -1) $(wc -c <"$work/$name-plain.json")")
        unset times loads
    done

    step "$events events: per-worker read (a --citus-workers report's statement on each worker, best of 2)"
    for node in worker1 worker2; do
        tables="$(psql_on coordinator -c "SELECT string_agg(shard_name('events'::regclass, s.shardid), ' ' ORDER BY s.shardid) FROM pg_dist_shard s JOIN pg_dist_placement p USING (shardid) JOIN pg_dist_node n ON n.groupid = p.groupid WHERE s.logicalrelid = 'events'::regclass AND n.nodeport = $(port "$node")")"
        python3 - "$tables" >"$work/read-$node.sql" <<'PY'
import sys
columns = "event_id, session_id, user_id, seq, kind, flow_id, flow_version, step_id, name, occurred_at, sent_at, received_at, NULLIF(properties, '{}'::jsonb)"
# One statement per shard, each in its own event-id order, one after another: what the reader sends.
for t in sys.argv[1].split():
    print("COPY (SELECT %s FROM %s ORDER BY event_id) TO STDOUT (FORMAT binary);" % (columns, t))
PY
    done
    echo "COPY (SELECT event_id, session_id, user_id, seq, kind, flow_id, flow_version, step_id, name, occurred_at, sent_at, received_at, NULLIF(properties, '{}'::jsonb) FROM events ORDER BY event_id) TO STDOUT (FORMAT binary)" >"$work/read-plain.sql"
    read_on() { psql_on "$1" -f "$work/read-$1.sql" >/dev/null; }
    declare -A reads=()
    for _ in 1 2; do
        for node in plain worker1 worker2; do
            start=$(now)
            read_on "$node"
            reads[$node]="${reads[$node]:-} $(since "$start")"
        done
        start=$(now)
        read_on worker1 &
        first=$!
        read_on worker2
        wait "$first"
        reads[both]="${reads[both]:-} $(since "$start")"
    done
    # shellcheck disable=SC2086
    read_rows+=("$rows_plain $(best ${reads[plain]}) $(best ${reads[worker1]}) $(best ${reads[worker2]}) $(best ${reads[both]}) $(load)")
    echo "  one server ${reads[plain]}; worker 1 alone ${reads[worker1]}; worker 2 alone ${reads[worker2]}; both at once ${reads[both]} s"
    unset reads
    citus_stop_cluster
    work=
done

echo
echo "load at the end: $(uptime)"
printf '\n%10s %11s %11s %11s %11s %8s %12s\n' events "one s" "one ev/s" "citus s" "citus ev/s" "rate x" "load (1 min)"
for line in "${ingest_rows[@]}"; do
    read -r rows lines tp tc lp lc <<<"$line"
    awk -v n="$rows" -v l="$lines" -v tp="$tp" -v tc="$tc" -v lp="$lp" -v lc="$lc" \
        'BEGIN { printf "%10d %11.1f %11.0f %11.1f %11.0f %7.2fx %12s\n", n, tp, l / tp, tc, l / tc, tp / tc, lp "/" lc }'
done
echo "(ingest: wall seconds of \`funnel ingest\` of the file's lines; rate x = Citus coordinator's rate / one server's)"
printf '\n%10s %6s %9s %9s %8s %9s %8s %12s %8s %6s %11s\n' events report "one srv" coord "x one" workers "x one" "one, rows" "x one" same "load"
for line in "${report_rows[@]}"; do
    read -r rows name tp tc tw te lmin lmax bytes <<<"$line"
    awk -v n="$rows" -v r="$name" -v tp="$tp" -v tc="$tc" -v tw="$tw" -v te="$te" -v lmin="$lmin" -v lmax="$lmax" -v b="$bytes" \
        'BEGIN { printf "%10d %6s %9.2f %9.2f %7.2fx %9.2f %7.2fx %12.2f %7.2fx %6s %11s\n", n, r, tp, tc, tc / tp, tw, tw / tp, te, te / tp, "yes", lmin "-" lmax }'
done
echo "(report: seconds, best of $repeat after a discarded first run on one server; one srv: one server, from its session traces; coord: through the Citus coordinator; workers: --citus-workers; one, rows: one server with --source events, every row read as on Citus; same: JSON byte-identical across all four; load: 1-minute load average at the runs' starts, lowest-highest)"
printf '\n%10s %9s %10s %10s %13s %8s\n' events "one srv" "worker 1" "worker 2" "both at once" load
for line in "${read_rows[@]}"; do
    read -r rows rp r1 r2 rb l <<<"$line"
    awk -v n="$rows" -v rp="$rp" -v r1="$r1" -v r2="$r2" -v rb="$rb" -v l="$l" \
        'BEGIN { printf "%10d %9.2f %10.2f %10.2f %13.2f %8s\n", n, rp, r1, r2, rb, l }'
done
echo "(read: seconds, best of 2, of the statement a report runs on a server: the report columns of every event in event-id order, binary COPY to psql; on a worker, over its own shards; both at once: the two workers' reads started together)"
