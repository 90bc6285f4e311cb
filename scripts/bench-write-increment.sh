#!/usr/bin/env bash
# The write path of a small ingest into a table that already holds events (issue 33: building the
# session traces may cost the write path at most 10 %, ingest against binary COPY ≥ 0.95×). A base
# of SESSIONS generated sessions (default 150,000: about 1.78M events, with the generator's faults)
# is ingested and its traces built once; then, ROUNDS times, 1 % more sessions (another seed) go
# into three copies of that base (CREATE DATABASE ... TEMPLATE), each after a CHECKPOINT, in an
# order that turns each round:
#   copy      psql `\copy events FROM FILE (FORMAT binary)` of the rows the ingest stores,
#             with the session-trace trigger off (the limit, as in bench-write-path.sh)
#   marked    the same COPY with the trigger on: what marking the sessions for their traces costs
#             the COPY itself
#   ingest    `funnel ingest MORE.jsonl`: the load, then the new sessions' traces (the default)
#   no build  `funnel ingest MORE.jsonl --trace-build-limit 0`: the load alone (the first report
#             builds the traces)
#   read back `funnel ingest MORE.jsonl` into a copy without migration 0008's column: the build
#             reads every new session's events back, as before the ingest kept them
# Each is timed whole (process start to exit). Prints each round's seconds, the ingest's own
# load/build split, and the medians with the ratios: copy / ingest (≥ 0.95 is the goal) and
# ingest / no build (the build's share of the write path, ≤ 1.10), and the same for read back.
# Where the time goes: for copy, marked, ingest and no build, the client's CPU (its process, user + system) and the
# rest of the machine's busy CPU in that run (PostgreSQL, on an otherwise idle machine), medians;
# and the start of each client alone (`psql --version`, `funnel --version`, 20 runs each).
# With STATEMENTS=1 the cluster runs pg_stat_statements, and the server's time in each statement of
# copy, marked, ingest and no build is printed too (milliseconds a round, medians; what a statement's
# triggers do counts in it).
# Usage: bash scripts/bench-write-increment.sh [SESSIONS] [ROUNDS]   (default 150000 5)
set -euo pipefail
cd "$(dirname "$0")/.."
sessions="${1:-150000}"
rounds="${2:-5}"
source scripts/bench/setup.sh
statements="${STATEMENTS:-}"
[ -z "$statements" ] || with_pg_stat_statements
: >"$work/statements.txt"
# After METHOD wrote into database DB: its statements' server time, one line each, to statements.txt.
server_side() {
    [ -n "$statements" ] || return 0
    psql -XtA -F $'\t' "$admin" -c "SELECT '$1', $round, calls, round(total_exec_time::numeric, 2),
            regexp_replace(left(query, 90), '\s+', ' ', 'g')
        FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = '$2')" \
        >>"$work/statements.txt"
}
more=$((sessions / 100))
columns="event_id, session_id, user_id, seq, kind, flow_id, flow_version, step_id, name, occurred_at, sent_at, received_at, properties"

echo "postgres $(psql -XtA "$admin" -c 'SHOW server_version')   cores $(nproc)   base $sessions sessions, +$more a round, $rounds rounds   $(uptime)"
"$bin/funnel" generate --scenario health-study --sessions "$sessions" --seed 5101 --out "$work/base.jsonl" --quiet
fresh bench_base
"$bin/funnel" ingest "$work/base.jsonl" --database-url "$(db_url bench_base)" --quiet >/dev/null
# The traces of the base built (a report catches up), so only the new sessions await.
"$bin/funnel" report --database-url "$(db_url bench_base)" --steps welcome,modules --format json --quiet >/dev/null
# The ingest's summary: its load and build, and their ratio.
cat >"$work/split.py" <<'PY'
import json, sys
summary = json.load(open(sys.argv[1]))
load, build = summary["seconds"], summary.get("trace_seconds") or 0
if sys.argv[2] == "split":
    print(f"{load:.3f}+{build:.3f}")
else:
    print(f"{build / load:.3f}")
PY
psql -XtAq "$(db_url bench_base)" -c "VACUUM ANALYZE" >/dev/null
base_rows=$(psql -XtA "$(db_url bench_base)" -c "SELECT count(*) FROM events")
echo "base: $base_rows events"

# A copy of the base, connected to once: the first connection to a new database builds its
# relation cache file (pg_internal.init), which every method's connections then find alike (the
# copy method's ALTER TABLE did it for its COPY alone before, 2026-11-28 13:40).
copy_of() {
    psql -q "$admin" -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $1" \
        -c "CREATE DATABASE $1 TEMPLATE bench_base" >/dev/null
    psql -XtAq "$(db_url "$1")" -c "SELECT 1" >/dev/null
}
checkpoint() { psql -XtAq "$admin" -c "CHECKPOINT" >/dev/null; }
# Prints the wall seconds of a command; appends "METHOD CLIENT_CPU OTHER_CPU" to cpu.txt (the
# client's user + system seconds, and the machine's other busy seconds meanwhile).
timed() {
    local method=$1 start b0
    shift
    b0=$(busy)
    start=$(now)
    /usr/bin/time -f "%U %S" -o "$work/time.txt" "$@" >"$work/out.json"
    since "$start" 4
    awk -v m="$method" -v busy="$(busy_since "$b0")" '{ printf "%s %.3f %.3f\n", m, $1 + $2, busy - $1 - $2 }' \
        "$work/time.txt" >>"$work/cpu.txt"
}
: >"$work/cpu.txt"
starts() {
    local start
    start=$(now)
    for _ in $(seq 20); do "$@" >/dev/null; done
    awk -v s="$(since "$start" 6)" 'BEGIN { printf "%.1f ms", s * 50 }'
}
echo "a client's start alone, mean of 20: psql $(starts psql --version), funnel $(starts "$bin/funnel" --version)"

printf '%-6s %10s %10s %10s %10s %10s %12s %12s\n' round copy marked ingest "no build" "read back" "load+build" \
    "build/load"
: >"$work/rounds.txt"
for round in $(seq 1 "$rounds"); do
    "$bin/funnel" generate --scenario health-study --sessions "$more" --seed $((6100 + round)) \
        --out "$work/more.jsonl" --quiet
    # The rows the ingest stores, for the copy: ingested into a scratch copy and exported (the new
    # sessions are those awaiting their traces there).
    copy_of bench_scratch
    "$bin/funnel" ingest "$work/more.jsonl" --database-url "$(db_url bench_scratch)" --quiet \
        --trace-build-limit 0 >/dev/null
    psql -Xq "$(db_url bench_scratch)" -c "\\copy (SELECT $columns FROM events WHERE session_id IN (SELECT session_id FROM trace_dirty)) TO '$work/more.bin' (FORMAT binary)"
    declare -A took=()
    split=""
    methods=(copy marked ingest nobuild readback)
    # Turn the order each round.
    for shift in $(seq 1 $(((round - 1) % 5))); do methods=("${methods[@]:1}" "${methods[0]}"); done
    for method in "${methods[@]}"; do
        copy_of "bench_$method"
        checkpoint
        case $method in
        copy)
            psql -Xq "$(db_url bench_copy)" -c "ALTER TABLE events DISABLE TRIGGER events_traces_insert"
            took[copy]=$(timed copy psql -Xq "$(db_url bench_copy)" \
                -c "\\copy events ($columns) FROM '$work/more.bin' (FORMAT binary)")
            server_side copy bench_copy
            ;;
        marked)
            took[marked]=$(timed marked psql -Xq "$(db_url bench_marked)" \
                -c "\\copy events ($columns) FROM '$work/more.bin' (FORMAT binary)")
            server_side marked bench_marked
            ;;
        ingest)
            took[ingest]=$(timed ingest "$bin/funnel" ingest "$work/more.jsonl" --database-url "$(db_url bench_ingest)" \
                --format json --quiet)
            server_side ingest bench_ingest
            split=$(python3 "$work/split.py" "$work/out.json" split)
            ratio=$(python3 "$work/split.py" "$work/out.json" ratio)
            ;;
        readback)
            psql -Xq "$(db_url bench_readback)" -c "ALTER TABLE trace_dirty DROP COLUMN writer"
            took[readback]=$(timed readback "$bin/funnel" ingest "$work/more.jsonl" --database-url "$(db_url bench_readback)" \
                --format json --quiet)
            ;;
        nobuild)
            took[nobuild]=$(timed nobuild "$bin/funnel" ingest "$work/more.jsonl" --database-url "$(db_url bench_nobuild)" \
                --trace-build-limit 0 --format json --quiet)
            server_side nobuild bench_nobuild
            ;;
        esac
    done
    printf '%-6s %10s %10s %10s %10s %10s %12s %12s\n' "$round" "${took[copy]}" "${took[marked]}" "${took[ingest]}" \
        "${took[nobuild]}" "${took[readback]}" "$split" "$ratio"
    echo "${took[copy]} ${took[ingest]} ${took[nobuild]} $ratio ${took[readback]} ${took[marked]}" >>"$work/rounds.txt"
done
python3 - "$work/rounds.txt" <<'PY'
import statistics, sys
rows = [list(map(float, line.split())) for line in open(sys.argv[1]) if line.strip()]
copy, ingest, nobuild, build, readback, marked = (statistics.median(column) for column in zip(*rows))
print(f"the COPY with the sessions marked for their traces (the trigger on): {marked:.3f} s, {marked / copy:.3f}x the COPY")
print(f"medians: copy {copy:.3f} s, ingest {ingest:.3f} s, no build {nobuild:.3f} s, read back {readback:.3f} s; build / load {build:.3f}")
print(f"ingest against the binary copy: {copy / ingest:.2f}x (goal >= 0.95); without the build {copy / nobuild:.2f}x; reading back {copy / readback:.2f}x")
print(f"the build's share of the write path: ingest / no build {ingest / nobuild:.3f} (goal <= 1.10); reading back {readback / nobuild:.3f}")
PY
python3 - "$work/cpu.txt" <<'PY'
import statistics, sys
cpu = {}
for line in open(sys.argv[1]):
    method, client, other = line.split()
    cpu.setdefault(method, []).append((float(client), float(other)))
median = {m: (statistics.median(c for c, _ in v), statistics.median(o for _, o in v)) for m, v in cpu.items()}
for method in ("copy", "marked", "ingest", "nobuild"):
    client, other = median[method]
    print(f"where the time goes, {method}: client CPU {client:.3f} s, the rest of the machine (PostgreSQL) {other:.3f} s (medians)")
(cc, co), (ic, io) = median["copy"], median["ingest"]
# CPU times are counted in ticks: a tiny run may show none.
ratios = [f"{name} {a / b:.2f}x" for name, a, b in (("PostgreSQL's CPU", io, co), ("the client's", ic, cc)) if b]
print("ingest against copy: " + (", ".join(ratios) or "too little CPU counted for a ratio"))
PY
[ -z "$statements" ] || python3 - "$work/statements.txt" "$rounds" <<'PY'
import collections, statistics, sys
rounds = int(sys.argv[2])
times = collections.defaultdict(lambda: collections.defaultdict(list))
calls = collections.defaultdict(int)
for line in open(sys.argv[1]):
    method, _, count, ms, query = line.rstrip("\n").split("\t", 4)
    times[method][query].append(float(ms))
    calls[method, query] += int(count)
print("\nthe server's time in each statement (pg_stat_statements; ms a round, median; calls a round)")
for method in ("copy", "marked", "ingest", "nobuild"):
    total = sum(sum(v) for v in times[method].values()) / rounds
    print(f"{method}: {total:.1f} ms a round in all")
    for query, ms in sorted(times[method].items(), key=lambda kv: -sum(kv[1]))[:8]:
        ms = ms + [0.0] * (rounds - len(ms))
        print(f"  {statistics.median(ms):8.1f} ms  {calls[method, query] / rounds:6.1f}  {query}")
PY
echo "load after: $(uptime)"
