#!/usr/bin/env bash
# Checks funnel on a real Citus cluster: builds Citus from a checkout against the local
# PostgreSQL 15, starts a coordinator and two workers on loopback (plus one plain server to
# compare with) in a temporary folder, and checks that
#
#   - `funnel migrate` distributes events and sessions and runs twice without change;
#   - `funnel ingest` of generated events lands every event once;
#   - `funnel reorder --all` through the coordinator rewrites every worker's shards in key order,
#     every event once (a second run, without --all, finds nothing to do), and the reports below,
#     made after it, are unchanged;
#   - `funnel serve` records a batch once (posted twice); `funnel keys` lists and revokes through
#     the coordinator, and serve then refuses the revoked key;
#   - every report (with --since/--until, breakdowns, --per user) gives JSON byte-identical to the
#     plain server's on the same events, through the coordinator and read from the workers;
#   - `funnel dashboard` on the coordinator refuses a request without credentials, and its pages'
#     JSON (flow, per user, trends) equals the same reports from the CLI, for a viewer made there;
#   - a worker stopped mid-report gives a clear error, exit 69, and no report.
#
#   bash scripts/check-citus.sh CITUS_SOURCE_DIR     (a citusdata/citus checkout, tag v13.2.x)
#
# Not part of .ci/run: Citus is in neither Debian's packages nor PyPI. Needs root (it installs
# postgresql-server-dev-15 if missing and runs the servers as the postgres user); Citus itself
# goes into a private copy of PostgreSQL (scripts/citus-build.sh), kept in
# ${CITUS_PREFIX:-/tmp/onboardmetrics-citus-prefix} so a second run does not rebuild it.
# Environment: SESSIONS (default 3000) sessions per generated scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
src="${1:?usage: scripts/check-citus.sh CITUS_SOURCE_DIR}"
src="$(cd "$src" && pwd)"
sessions="${SESSIONS:-3000}"

source scripts/citus-cluster.sh
citus_build "$src"

swift build --product funnel >"${TMPDIR:-/tmp}/check-citus-build.log" 2>&1 || { tail -30 "${TMPDIR:-/tmp}/check-citus-build.log"; exit 1; }
funnel="$(swift build --show-bin-path)/funnel"

cleanup() {
    [ -n "${serve_pid:-}" ] && kill "$serve_pid" 2>/dev/null
    [ -n "${dashboard_pid:-}" ] && kill "$dashboard_pid" 2>/dev/null
    citus_stop_cluster
}
trap cleanup EXIT INT TERM
citus_start_cluster

coordinator="$(url coordinator)"
plain="$(url plain)"

step "funnel migrate, twice"
"$funnel" migrate --database-url "$coordinator" --format json --quiet >"$work/migrate1.json"
"$funnel" migrate --database-url "$coordinator" --format json --quiet >"$work/migrate2.json"
"$funnel" migrate --database-url "$plain" --format json --quiet >"$work/migrate-plain.json"
python3 -c 'import json,sys; [print(" ", f, json.dumps(json.load(open(f)).get("citus"), separators=(",", ":"))) for f in sys.argv[1:]]' "$work/migrate1.json" "$work/migrate2.json" "$work/migrate-plain.json" | sed "s|$work/||"
grep -q '"citus"' "$work/migrate-plain.json" && fail "plain PostgreSQL got a Citus summary"
json_field() { python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["citus"][sys.argv[2]], separators=(",", ":")))' "$@"; }
[ "$(json_field "$work/migrate1.json" distributed)" = '["sessions","events"]' ] || fail "first migrate did not distribute"
for field in distributed reference functions; do
    [ "$(json_field "$work/migrate2.json" $field)" = '[]' ] || fail "second migrate changed $field"
done
layout="$(psql_on coordinator -c "SELECT logicalrelid::regclass::text || ':' || partmethod::text || ':' || colocationid FROM pg_dist_partition WHERE logicalrelid IN ('events'::regclass, 'sessions'::regclass, 'flows'::regclass) ORDER BY 1")"
echo "$layout"
shards="$(psql_on coordinator -c "SELECT count(*) FROM pg_dist_shard WHERE logicalrelid = 'events'::regclass")"
[ "$shards" = 64 ] || fail "events has $shards shards, not 64"
[ "$(echo "$layout" | awk -F: '$2 == "h" { print $3 }' | sort -u | wc -l)" = 1 ] || fail "events and sessions are not colocated"

step "a month's partition created on the distributed events (rows waiting in the default partition move)"
psql_on coordinator -c "INSERT INTO events (event_id, session_id, seq, kind, occurred_at) SELECT onboardmetrics_uuidv7_floor(date_trunc('month', now()) + interval '30 months' + i * interval '1 minute'), gen_random_uuid(), 0, 'custom', now() FROM generate_series(1, 50) i"
psql_on coordinator -c "SET client_min_messages = warning" -c "SELECT onboardmetrics_ensure_partitions(date_trunc('month', now()) + interval '30 months', date_trunc('month', now()) + interval '30 months')" >/dev/null
part="events_$(psql_on coordinator -c "SELECT to_char(now() + interval '30 months', 'YYYY_MM')")"
moved="$(psql_on coordinator -c "SELECT count(*) FROM $part")"
left="$(psql_on coordinator -c "SELECT count(*) FROM events_default")"
method="$(psql_on coordinator -c "SELECT partmethod::text || ' ' || (SELECT count(*) FROM pg_dist_shard WHERE logicalrelid = '$part'::regclass) FROM pg_dist_partition WHERE logicalrelid = '$part'::regclass")"
echo "  $part: $moved rows moved, $left left in events_default, distributed: $method shards"
[ "$moved" = 50 ] && [ "$left" = 0 ] && [ "$method" = "h 64" ] || fail "partition creation on Citus"
psql_on coordinator -c "DELETE FROM events WHERE event_id >= onboardmetrics_uuidv7_floor(date_trunc('month', now()) + interval '30 months')" >/dev/null

step "funnel generate + ingest ($sessions sessions per scenario)"
files=()
for spec in health-study:23 spotlight:29; do
    scenario="${spec%%:*}"
    "$funnel" generate --scenario "$scenario" --sessions "$sessions" --seed "${spec##*:}" --out "$work/$scenario.jsonl" --workers 1 --quiet
    files+=("$work/$scenario.jsonl")
done
for target in "$coordinator" "$plain"; do
    printf '  %s: ' "$([ "$target" = "$coordinator" ] && echo "citus coordinator" || echo "one server")"
    "$funnel" ingest "${files[@]}" --database-url "$target" --quiet
done
printf '  citus coordinator, again: '
# Ingest twice: the second adds nothing (dedupe by (event_id, session_id) on a distributed table).
"$funnel" ingest "${files[@]}" --database-url "$coordinator" --quiet
count_plain="$(as_postgres "$bin/psql" -qAt -h "$work" -p "$(port plain)" -d onboardmetrics -c "SELECT count(*) FROM events")"
count_citus="$(psql_on coordinator -c "SELECT count(*) FROM events")"
distinct_citus="$(psql_on coordinator -c "SELECT count(DISTINCT event_id) FROM events")"
per_worker="$(psql_on coordinator -c "SELECT string_agg(nodeport || ': ' || n, ', ') FROM (SELECT nodeport, sum(result::bigint) AS n FROM run_command_on_shards('events', 'SELECT count(*) FROM %s') r JOIN citus_shards s ON s.shardid = r.shardid GROUP BY nodeport ORDER BY nodeport) t")"
echo "events: plain $count_plain, citus $count_citus ($distinct_citus distinct ids; by worker port $per_worker)"
[ "$count_plain" = "$count_citus" ] && [ "$count_citus" = "$distinct_citus" ] || fail "event counts differ"

step "funnel reorder through the coordinator: each worker's shards, then the reports below"
# --all: a worker's shard of a month holds a few pages, which the order measure finds in order
# already; every partition shard is rewritten, so every row must be counted once.
"$funnel" reorder --all --database-url "$coordinator" --format json --quiet >"$work/reorder1.json"
"$funnel" reorder --database-url "$coordinator" --format json --quiet >"$work/reorder2.json"
# Each run: per worker, partition shards looked at, rewritten, and rows rewritten.
reorder_summary() {
    python3 -c '
import json, sys
parts = json.load(open(sys.argv[1]))["partitions"]
by = {}
for p in parts:
    w = by.setdefault(p.get("shard") or "coordinator", [0, 0, 0])
    w[0] += 1; w[1] += p["reordered"]; w[2] += p["rows"]
print("; ".join("%s: %d partition shards, %d rewritten, %d rows" % (k, *v) for k, v in sorted(by.items())))
print(sum(v[2] for v in by.values()))' "$1"
}
reorder1="$(reorder_summary "$work/reorder1.json")"
reorder2="$(reorder_summary "$work/reorder2.json")"
echo "  first run: $(head -1 <<<"$reorder1")"
echo "  second run: $(head -1 <<<"$reorder2")"
grep -q coordinator <<<"$reorder1" && fail "reorder looked at the coordinator's empty partitions"
[ "$(tail -1 <<<"$reorder1")" = "$count_citus" ] || fail "reorder rewrote $(tail -1 <<<"$reorder1") rows, not $count_citus"
[ "$(tail -1 <<<"$reorder2")" = 0 ] || fail "a second reorder rewrote rows: the first left shards out of order"

flow=examples/flows/health-study.json
reports=(
    "report --flow $flow"
    "report --flow $flow --per user --by platform"
    "report --flow $flow --since 2000-01-01T00:00:00Z --until 2100-01-01T00:00:00Z"
    "report --steps welcome,consent,account --per user"
    "report --steps welcome,consent --order any"
    "conformance --flow $flow"
    "discovery"
    "discovery --per user"
    "experiment consent-copy --metric step:consent --metric completion"
    "experiment consent-copy --metric completion --per user"
    "trends --flow $flow --interval week"
    "compare --flow $flow --property platform --a ios --b android"
    "simulate --flow $flow --baseline $flow --draws 50 --seed 3 --stratify platform"
    "retention --flow $flow --days 0,1,7"
    "retention --flow $flow --by variant:consent-copy --per session"
    "paths --flow $flow --after-drop --step consent --per user"
    "paths --flow $flow --between welcome,consent"
    "users --flow $flow --step consent --status dropped --per user"
    "correlate --flow $flow --step consent --per user"
)
# A bounded window inside the generated events: the first and the last week are left out.
first_day="$(psql_on coordinator -c "SELECT to_char(min(occurred_at) AT TIME ZONE 'UTC' + interval '7 days', 'YYYY-MM-DD\"T\"00:00:00\"Z\"') FROM events")"
last_day="$(psql_on coordinator -c "SELECT to_char(max(occurred_at) AT TIME ZONE 'UTC' - interval '7 days', 'YYYY-MM-DD\"T\"00:00:00\"Z\"') FROM events")"
reports+=(
    "report --flow $flow --since $first_day --until $last_day"
    "report --flow $flow --since $first_day --until $last_day --per user --by platform"
    "discovery --since $first_day --until $last_day"
    "trends --flow $flow --interval week --since $first_day --until $last_day"
)
step "${#reports[@]} reports: plain server vs Citus coordinator vs Citus workers read in parallel"
failed=0
for report in "${reports[@]}"; do
    # shellcheck disable=SC2086
    case "$report" in *--until*) until=() ;; *) until=(--until 2100-01-01T00:00:00Z) ;; esac
    # shellcheck disable=SC2086
    "$funnel" $report "${until[@]}" --format json --quiet --database-url "$plain" >"$work/expected.json" 2>"$work/err" ||
        { echo "  plain failed: $report: $(cat "$work/err")"; failed=1; continue; }
    for mode in coordinator workers; do
        extra=()
        [ "$mode" = workers ] && extra=(--citus-workers)
        # shellcheck disable=SC2086
        if ! "$funnel" $report "${until[@]}" "${extra[@]}" --format json --quiet --database-url "$coordinator" >"$work/actual.json" 2>"$work/err"; then
            echo "  FAIL ($mode): $report: $(head -c 400 "$work/err")"
            failed=1
        elif cmp -s "$work/expected.json" "$work/actual.json"; then
            echo "  same ($mode, $(wc -c <"$work/actual.json") bytes): $report"
        else
            echo "  DIFFERENT ($mode): $report"
            failed=1
        fi
    done
done
[ "$failed" = 0 ] || fail "a report differs from one server's"

step "report time (report --flow, best of 2): one server, through the coordinator, from the workers"
timed() {
    local best=""
    for _ in 1 2; do
        local start end
        start=$(date +%s.%N)
        "$funnel" report --flow "$flow" --until 2100-01-01T00:00:00Z --format json --quiet "$@" >/dev/null
        end=$(date +%s.%N)
        best=$(python3 -c "import sys; t = float(sys.argv[2]) - float(sys.argv[1]); b = sys.argv[3]; print('%.2f' % (t if not b else min(t, float(b))))" "$start" "$end" "$best")
    done
    echo "$best"
}
echo "  one server: $(timed --database-url "$plain") s; coordinator: $(timed --database-url "$coordinator") s; workers (--citus-workers): $(timed --citus-workers --database-url "$coordinator") s; workers, 2 connections each: $(timed --citus-workers --read-connections 2 --database-url "$coordinator") s ($count_citus events)"

step "funnel serve: a batch posted twice is recorded once"
key="$("$funnel" keys create check-citus --database-url "$coordinator" --quiet)"
"$funnel" generate --scenario spotlight --sessions 20 --seed 99 --out "$work/serve.jsonl" --workers 1 --quiet --no-faults
head -n 500 "$work/serve.jsonl" >"$work/serve-batch.jsonl"
python3 - "$work/serve-batch.jsonl" "$work/batch.json" <<'PY'
import datetime, json, sys
lines = [line.strip() for line in open(sys.argv[1]) if line.strip()]
sent = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")
open(sys.argv[2], "w").write('{"sent_at":"%s","events":[%s]}' % (sent, ",".join(lines)))
PY
serve_port=$((base + 10))
"$funnel" serve --port "$serve_port" --database-url "$coordinator" --spool-dir "$work/spool" --quiet >/dev/null &
serve_pid=$!
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$serve_port/healthz" >/dev/null 2>&1 && break; sleep 0.2; done
for attempt in 1 2; do
    curl -sf -X POST -H "Authorization: Bearer $key" -H 'Content-Type: application/json' \
        --data-binary @"$work/batch.json" "http://127.0.0.1:$serve_port/v1/batch" | python3 -c 'import json,sys; r=json.load(sys.stdin); print("  post '"$attempt"': accepted", r["accepted"], "rejected", r["rejected"])'
done
step "funnel keys list and revoke through the coordinator; the revoked key is refused"
"$funnel" keys list --database-url "$coordinator" --format json --quiet >"$work/keys1.json"
"$funnel" keys revoke "$key" --database-url "$coordinator" --quiet >/dev/null
"$funnel" keys list --database-url "$coordinator" --format json --quiet >"$work/keys2.json"
key_state() { python3 -c 'import json,sys; print(" ".join("%s:%s" % (k["name"], "revoked" if k.get("revoked_at") else "active") for k in json.load(open(sys.argv[1]))["keys"]))' "$1"; }
echo "  before: $(key_state "$work/keys1.json"); after: $(key_state "$work/keys2.json")"
[ "$(key_state "$work/keys1.json")" = "check-citus:active" ] && [ "$(key_state "$work/keys2.json")" = "check-citus:revoked" ] ||
    fail "keys list/revoke through the coordinator"
refused=""
# The server re-reads revocations within 5 seconds.
for _ in $(seq 20); do
    code="$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "Authorization: Bearer $key" -H 'Content-Type: application/json' \
        --data-binary @"$work/batch.json" "http://127.0.0.1:$serve_port/v1/batch")"
    [ "$code" = 401 ] && { refused=yes; break; }
    sleep 0.5
done
echo "  a batch with the revoked key: HTTP $code"
[ -n "$refused" ] || fail "the revoked key was still accepted"
kill "$serve_pid"
wait "$serve_pid" 2>/dev/null || true
serve_pid=
ids="$(python3 -c 'import json,sys; print(",".join(sorted({"\x27%s\x27" % json.loads(l)["event_id"] for l in open(sys.argv[1]) if l.strip()})))' "$work/serve-batch.jsonl")"
expected_ids="$(echo "$ids" | tr ',' '\n' | wc -l)"
stored="$(psql_on coordinator -c "SELECT count(*) FROM events WHERE event_id IN ($ids)")"
echo "  $expected_ids distinct events posted twice, $stored stored"
[ "$stored" = "$expected_ids" ] || fail "serve stored $stored of $expected_ids events"

step "funnel dashboard through the coordinator: sign-in, and pages equal to the CLI's reports"
# The dashboard lists stored flows: a one-session generate through the coordinator stores them.
"$funnel" generate --scenario health-study --sessions 1 --seed 5 --database --database-url "$coordinator" --quiet >/dev/null
secret="$("$funnel" viewers create check-citus --database-url "$coordinator" --quiet | tail -1)"
"$funnel" dashboard --port 0 --database-url "$coordinator" >"$work/dashboard.out" 2>"$work/dashboard.err" &
dashboard_pid=$!
for _ in $(seq 100); do [ -s "$work/dashboard.out" ] && break; sleep 0.1; done
dashboard="$(head -1 "$work/dashboard.out")"
[ -n "$dashboard" ] || fail "the dashboard did not start: $(head -c 300 "$work/dashboard.err")"
anonymous="$(curl -s -o /dev/null -w '%{http_code}' -H 'Accept: application/json' "$dashboard/flows/health-study")"
echo "  without credentials: HTTP $anonymous"
[ "$anonymous" = 401 ] || fail "the dashboard answered $anonymous without credentials"
pages=(
    "/flows/health-study|report --flow health-study"
    "/flows/health-study?per=user|report --flow health-study --per user"
    "/flows/health-study/trends?interval=week|trends --flow health-study --interval week"
)
for page in "${pages[@]}"; do
    path="${page%%|*}"
    command="${page#*|}"
    sep="?"; [[ "$path" == *"?"* ]] && sep="&"
    curl -fsS -u "check-citus:$secret" -H 'Accept: application/json' "$dashboard$path${sep}until=2100-01-01T00:00:00Z" \
        >"$work/page.json" || fail "GET $path"
    # shellcheck disable=SC2086
    "$funnel" $command --until 2100-01-01T00:00:00Z --format json --quiet --database-url "$coordinator" >"$work/cli.json"
    cmp -s "$work/page.json" "$work/cli.json" || fail "GET $path differs from funnel $command"
    echo "  same ($(wc -c <"$work/page.json") bytes): GET $path = funnel $command"
done
kill "$dashboard_pid"
wait "$dashboard_pid" 2>/dev/null || true
dashboard_pid=
grep -q "$secret" "$work/dashboard.err" && fail "the dashboard logged the viewer's secret"

step "a worker stopped mid-report"
for mode in coordinator workers; do
    extra=()
    [ "$mode" = workers ] && extra=(--citus-workers)
    "$funnel" simulate --flow "$flow" --baseline "$flow" --draws 2000 --seed 3 --until 2100-01-01T00:00:00Z \
        "${extra[@]}" --format json --quiet --database-url "$coordinator" >"$work/partial.json" 2>"$work/partial.err" &
    report_pid=$!
    sleep 0.3
    # Immediate: the worker's backends die at once, as in a crash. Waited for generously: on a
    # loaded machine pg_ctl's default minute was seen to run out.
    as_postgres "$bin/pg_ctl" -D "$work/worker2" -m immediate -t 600 stop >/dev/null
    status=0
    wait "$report_pid" || status=$?
    as_postgres "$bin/pg_ctl" -D "$work/worker2" -l "$work/worker2.log" -w start >/dev/null
    echo "  $mode: exit $status, $(wc -c <"$work/partial.json") bytes on stdout, stderr: $(head -c 300 "$work/partial.err")"
    [ "$status" = 69 ] || fail "exit $status, not 69"
    [ -s "$work/partial.json" ] && fail "a partial report was printed"
done
step "PASS"
