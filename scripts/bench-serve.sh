#!/usr/bin/env bash
# Collector benchmark: events per second through `funnel serve` (HTTP on loopback, JSON batches,
# key check, validation, 200 only once committed) versus the EventRecorder alone (recorder-bench,
# in-process, no HTTP), in the same run, each into a fresh migrated database.
#   serve      wrk (Debian's package) with scripts/bench/post-batch.lua: CONNECTIONS connections
#              posting batches of BATCH new events for SECONDS; the rows stored are counted
#   recorder   recorder-bench recording the same number of events through EventRecorder
# Two CPU layouts, each measured both ways:
#   shared     every process on every core (load generator, collector and PostgreSQL compete)
#   separate   PostgreSQL on CPU 0, the collector, wrk and recorder-bench on the other cores: the
#              database on its own CPU, as on its own machine (docs/SCALING.md). Needs 2+ cores.
# For each run it prints, from PostgreSQL's statistics, the commits and the WAL flushes each path
# made and the time the flushes took (track_wal_io_timing is turned on for this), and the CPU each
# side used (from /proc and wrk's and recorder-bench's
# rusage; "postgres+rest" is every busy core-second not taken by the client processes, so run it on
# an otherwise idle machine) and, from the CPU per event, the best ratio the cores allow. Last, the
# serve path's CPU an event beyond the recorder path's, split by who spent it, with the ratio the
# cores would allow if PostgreSQL cost both paths the same, and what issue 16's 0.9x leaves for the
# collector and the load generator together against what they use.
# Usage: bash scripts/bench-serve.sh [SECONDS] [CONNECTIONS] [BATCH] [LAYOUTS]
#        (default 20 16 100 "shared separate")
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-20}"
connections="${2:-16}"
batch="${3:-100}"
layouts="${4:-shared separate}"
cores=$(nproc)
if [ "$cores" -lt 2 ]; then layouts="${layouts//separate/}"; fi
command -v taskset >/dev/null 2>&1 || { echo "taskset is not installed (util-linux)" >&2; exit 2; }
source scripts/bench/collector.sh
source scripts/bench/setup.sh
echo "postgres $(psql -tA "$admin" -c 'SHOW server_version')   cores $cores   wrk: $connections connections, $batch events a batch, ${seconds} s"

set_server track_wal_io_timing=on
# Commits in DATABASE so far, then WAL writes, flushes and the flushes' milliseconds since the last
# reset_wal (the backends report at exit, so read after the clients have stopped).
server_counts() {
    echo "$(commits_of "$1") $(psql -XtA -F ' ' "$admin" -c "SELECT wal_write, wal_sync, wal_sync_time FROM pg_stat_wal")"
}
reset_wal() { psql -XqtA "$admin" -c "SELECT pg_stat_reset_shared('wal')" >/dev/null; }
# One line of what the server did for a path: its counts after minus before, over its events.
server_line() {
    awk -v name="$1" -v n="$2" -v s="$3" -v before="$4" -v after="$5" 'BEGIN {
        split(before, b, " "); split(after, a, " ")
        commits = a[1] - b[1]; syncs = a[3]; sync_ms = a[4]
        printf "  %-9s %8d commits (%6.0f events each)  %7d WAL flushes  %8.0f ms flushing (%5.2f ms each, %4.1f %% of the %5.2f s)\n",
            name, commits, n / (commits > 0 ? commits : 1), syncs, sync_ms, sync_ms / (syncs > 0 ? syncs : 1),
            100 * sync_ms / 1000 / s, s
    }'
}
servers=()

# Pins every PostgreSQL process (backends forked later inherit the postmaster's CPU) to CPU 0, or
# lets them use every core again.
pin_postgres() {
    for pid in $(pgrep -x postgres); do taskset -a -cp "$1" "$pid" >/dev/null; done
}
results=()
extras=()

for layout in $layouts; do
    if [ "$layout" = separate ]; then
        pin_postgres 0
        clients=(taskset -c "1-$((cores - 1))")
    else
        pin_postgres "0-$((cores - 1))"
        clients=()
    fi

    fresh bench_serve
    start_collector bench_serve "$work/spool" "${clients[@]}"
    reset_wal
    counts0=$(server_counts bench_serve)
    busy0=$(busy)
    serve0=$(process_cpu "$server")
    /usr/bin/time -f "%e %U %S" -o "$work/wrk.time" env KEY="$key" BATCH="$batch" "${clients[@]}" \
        wrk -t 2 -c "$connections" -d "${seconds}s" --timeout 30s -s scripts/bench/post-batch.lua "$url" > "$work/wrk.out"
    busy1=$(busy)
    serve1=$(process_cpu "$server")
    stop_collector
    counts1=$(server_counts bench_serve)
    read -r serve_s wrk_user wrk_system < "$work/wrk.time"
    echo
    echo "[$layout] serve"
    grep -E '^requests|^latency|Non-2xx' "$work/wrk.out" || true
    stored=$(psql -tA "$(db_url bench_serve)" -c "SELECT count(*) FROM events")
    requests=$(awk '/^requests/ { print $2 }' "$work/wrk.out")
    awk -v n="$stored" -v q="$requests" -v b="$batch" -v c="$connections" 'BEGIN {
        # Requests in flight when wrk stops are stored but not counted by wrk: at most one a connection.
        printf "stored %d events; wrk counted %d answered requests x %d = %d: %s\n", n, q, b, q * b,
            (n >= q * b && n <= (q + c) * b ? "consistent" : "MISMATCH")
    }'

    fresh bench_recorder
    reset_wal
    counts2=$(server_counts bench_recorder)
    busy2=$(busy)
    /usr/bin/time -f "%e %U %S" -o "$work/recorder.time" "${clients[@]}" \
        "$bin/recorder-bench" --events "$stored" --database-url "$(db_url bench_recorder)" >/dev/null
    busy3=$(busy)
    counts3=$(server_counts bench_recorder)
    read -r recorder_s recorder_user recorder_system < "$work/recorder.time"
    echo "[$layout] recorder: $stored events in $recorder_s s"
    servers+=("[$layout]" "$(server_line serve "$stored" "$serve_s" "$counts0" "$counts1")"
        "$(server_line recorder "$stored" "$recorder_s" "$counts2" "$counts3")")

    # Core-seconds: the machine's busy time, the collector, wrk, then the same for the recorder path.
    cpu=(-v sb="$(echo "$busy1 - $busy0" | bc)" -v sc="$(echo "$serve1 - $serve0" | bc)"
        -v wc="$(echo "$wrk_user + $wrk_system" | bc)"
        -v rb="$(echo "$busy3 - $busy2" | bc)" -v rc="$(echo "$recorder_user + $recorder_system" | bc)")
    results+=("$(awk -v layout="$layout" -v n="$stored" -v s="$serve_s" -v r="$recorder_s" \
        "${cpu[@]}" 'BEGIN {
        us = 1e6 / n
        printf "%-9s %9d %7.2f %9.0f %9.0f %7.2fx   %5.2f = pg+rest %5.2f, collector %5.2f, wrk %5.2f   %5.2f = pg+rest %5.2f, recorder %5.2f   %5.2fx\n",
            layout, n, s, n / s, n / r, (n / s) / (n / r),
            sb * us, (sb - sc - wc) * us, sc * us, wc * us, rb * us, (rb - rc) * us, rc * us, rb / sb
    }')")
    # Where the serve path's extra CPU an event goes, and what issue 16's 0.9x would leave for the
    # collector and the load generator if PostgreSQL cost the serve path what it costs the recorder.
    extras+=("$(awk -v layout="$layout" -v n="$stored" "${cpu[@]}" 'BEGIN {
        us = 1e6 / n
        pg_serve = (sb - sc - wc) * us; pg_recorder = (rb - rc) * us
        extra_pg = pg_serve - pg_recorder
        printf "%-9s %+9.2f %+10.2f %9.2f %+9.2f   %14.2fx %20.2f %16.2f\n", layout, sb * us - rb * us, extra_pg,
            wc * us, (sc - rc) * us, rb / (sb - extra_pg / us), rb * us / 0.9 - pg_recorder, (sc + wc) * us
    }')")
done
pin_postgres "0-$((cores - 1))"

echo
echo "events/s of each path; CPU in microseconds a stored event (busy core-seconds / events); the last"
echo "column is the ratio the same CPU per event would give if both paths kept the cores equally busy."
printf '%-9s %9s %7s %9s %9s %8s   %-56s %-36s %s\n' layout events "serve s" "serve/s" "record/s" ratio \
    "serve path CPU/event (us)" "recorder path CPU/event (us)" "CPU bound"
for line in "${results[@]}"; do echo "$line"; done
echo
echo "the serve path's CPU an event beyond the recorder path's (us), split into PostgreSQL and the rest,"
echo "the load generator, and the collector beyond the recorder; the CPU bound the serve path would have"
echo "with PostgreSQL at the recorder path's cost; and what a 0.9x CPU bound leaves for the collector and"
echo "the load generator together (recorder path / 0.9 - PostgreSQL's share of it) against what they use"
printf '%-9s %9s %10s %9s %9s   %15s %20s %16s\n' layout extra "pg+rest" wrk collector "bound, same pg" "0.9x leaves (us)" "they use (us)"
for line in "${extras[@]}"; do echo "$line"; done
echo
echo "what PostgreSQL did for each path (pg_stat_database, pg_stat_wal): a commit is acknowledged only"
echo "once its WAL is flushed, and a writer waits for that flush"
for line in "${servers[@]}"; do echo "$line"; done
