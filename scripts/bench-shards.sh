#!/usr/bin/env bash
# Sharding benchmark (issue 19): ingest and report time on one server versus a coordinator with
# three shards (three PostgreSQL servers), on the same generated events, and the per-shard rates
# behind docs/SCALING.md's model of time per 10^9 events.
#
# All servers run on this machine. With fewer cores than servers + client (the CI machine has 2),
# the shards share cores with each other and with funnel: the sharded times then show the cost of
# routing and merging, not the speed-up of separate machines. The model therefore uses the
# per-shard rates (events a shard wrote or served per second of its own work), which is what one
# server per machine would sustain.
#
# Usage: bash scripts/bench-shards.sh [SESSIONS]     (default 20000 health-study sessions, ~240k events)
#        BENCH_CONFIGURATION=debug bash scripts/bench-shards.sh 5000   (skip the release build; slower)
set -euo pipefail
cd "$(dirname "$0")/.."
sessions="${1:-20000}"
configuration="${BENCH_CONFIGURATION:-release}"

swift build -c "$configuration" >/dev/null
bin="$(swift build -c "$configuration" --show-bin-path)"
work="$(mktemp -d "${TMPDIR:-/tmp}/onboardmetrics-bench-shards.XXXXXX")"
chmod 755 "$work"
cleanup() {
    for server in a b c; do "$bin/funnel" db stop --data-dir "$work/$server" --quiet >/dev/null 2>&1 || true; done
    rm -rf "$work"
}
trap cleanup EXIT INT TERM
unset DATABASE_URL PGHOST PGPORT PGDATABASE PGUSER PGPASSWORD
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

# Three servers: a holds the single-server database, the coordinator and shard 1; b and c one shard each.
declare -A admin
for server in a b c; do admin[$server]="$("$bin/funnel" db start --data-dir "$work/$server" --quiet)"; done
url() { printf '%s&dbname=%s' "${admin[$1]}" "$2"; }
create() { psql -q "${admin[$1]}" -c "CREATE DATABASE $2" >/dev/null; }
create a single; create a coordinator; create a shard1; create b shard2; create c shard3
"$bin/funnel" migrate --database-url "$(url a single)" --quiet >/dev/null
"$bin/funnel" migrate --database-url "$(url a coordinator)" --quiet >/dev/null
for shard in "a shard1" "b shard2" "c shard3"; do
    set -- $shard
    "$bin/funnel" shards add "$(url "$1" "$2")" --database-url "$(url a coordinator)" --quiet >/dev/null
done

"$bin/funnel" generate --scenario health-study --sessions "$sessions" --seed 42 --out "$work/events.jsonl" --quiet >/dev/null
events=$(wc -l < "$work/events.jsonl")
flow=examples/flows/health-study.json
until_time="2100-01-01T00:00:00Z"
echo "postgres $(psql -tA "${admin[a]}" -c 'SHOW server_version')   cores $(nproc)   $configuration build   $events event lines"

start=$(now); "$bin/funnel" ingest "$work/events.jsonl" --database-url "$(url a single)" --quiet >/dev/null; ingest_one=$(since "$start")
# From the work folder: a shard's spool (if one were down) stays out of the source tree.
start=$(now); (cd "$work" && "$bin/funnel" ingest "$work/events.jsonl" --database-url "$(url a coordinator)" --quiet >/dev/null); ingest_three=$(since "$start")
for db in "a single" "a shard1" "b shard2" "c shard3"; do
    set -- $db
    psql -q "$(url "$1" "$2")" -c "VACUUM ANALYZE events"
done
stored=$(psql -tA "$(url a single)" -c "SELECT count(*) FROM events")
per_shard=()
for db in "a shard1" "b shard2" "c shard3"; do
    set -- $db
    per_shard+=("$(psql -tA "$(url "$1" "$2")" -c "SELECT count(*) FROM events")")
done

report() {  # report URL [extra args]: seconds of `funnel report`
    local target=$1; shift
    local start; start=$(now)
    "$bin/funnel" report --flow "$flow" --until "$until_time" --format json --quiet --database-url "$target" "$@" \
        > "$work/report-$RANDOM.json"
    since "$start"
}
report_one=$(report "$(url a single)")
report_one_parallel=$(report "$(url a single)" --read-connections "$(nproc)")
report_three=$(report "$(url a coordinator)")
# One shard's own read (its buckets), alone: the per-shard rate of the model.
buckets=$(psql -tA "$(url a coordinator)" -c "SELECT string_agg(bucket::text, ',') FROM shard_buckets b JOIN shards s USING (shard_id) WHERE s.url LIKE '%shard2%'")
start=$(now)
psql -q "$(url b shard2)" -c "\\copy (SELECT event_id, session_id, user_id, seq, kind, flow_id, flow_version, step_id, name, occurred_at, sent_at, received_at, properties FROM events WHERE onboardmetrics_bucket(session_id) = ANY ('{$buckets}'::int[]) ORDER BY event_id) TO '/dev/null' (FORMAT binary)"
copy_shard=$(since "$start")
# The reports must agree (everything but the time they were made).
same=$(python3 - "$work" <<'PY'
import glob, json, sys
reports = [json.load(open(p)) for p in glob.glob(sys.argv[1] + "/report-*.json")]
print("yes" if all(r == reports[0] for r in reports) else "NO")
PY
)

printf '\n%-38s %10s %14s\n' "" "seconds" "events/second"
row() { awk -v l="$1" -v s="$2" -v n="$3" 'BEGIN { printf "%-38s %10.2f %14.0f\n", l, s, (s > 0 ? n / s : 0) }'; }
row "ingest, 1 server" "$ingest_one" "$stored"
row "ingest, coordinator + 3 shards" "$ingest_three" "$stored"
row "report, 1 server" "$report_one" "$stored"
row "report, 1 server, $(nproc) connections" "$report_one_parallel" "$stored"
row "report, coordinator + 3 shards" "$report_three" "$stored"
row "COPY of shard 2's buckets (alone)" "$copy_shard" "${per_shard[1]}"
echo "events per shard: ${per_shard[*]} (total $stored); reports identical: $same"

# Model: a shard on a machine of its own ingests at the single-server rate and replays its share
# of a report at the single-server report rate; the coordinator adds the merge (small: per-step
# counts and the duration samples).
awk -v n="$stored" -v i="$ingest_one" -v r="$report_one" 'BEGIN {
    ir = n / i; rr = n / r
    printf "\nmodel, per shard on its own machine (rates of the 1-server runs):\n"
    printf "  ingest: %.0f events/s  -> %.1f h per 10^9 events per shard\n", ir, 1e9 / ir / 3600
    printf "  report: %.0f events/s  -> %.1f h per 10^9 events per shard\n", rr, 1e9 / rr / 3600
    printf "  S shards: time(N events) ~ N / (S x rate) + merge; e.g. 10^10 events on 10 shards ~ %.1f h per report\n", 1e10 / (10 * rr) / 3600
}'
