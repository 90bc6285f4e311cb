# Sourced by the collector benchmarks before scripts/bench/setup.sh (so a missing wrk stops them
# before the build). Defines
#   start_collector DATABASE SPOOL [COMMAND...]
#                                    an app key of DATABASE ($key) and `funnel serve --rate-limit 0`
#                                    on a free loopback port ($server, $url), spooling into SPOOL;
#                                    COMMAND (e.g. `taskset -c 1`, which execs) runs the server
#   stop_collector                   stops it
#   start_file_load FILE CONNECTIONS BATCH
#                                    wrk (scripts/bench/post-file.lua, $wrk_pid) posting FILE to
#                                    $url as native batches of BATCH lines; returns once both of its
#                                    threads have made their requests: `touch $work/wrk-ready.go`
#                                    starts the load, and each thread writes the time its last batch
#                                    was answered to $work/wrk-ready.done.<thread>
#   file_load_seconds START          from START to the later of those times
#   stop_file_load                   stops wrk
# SERVE_ARGS (words) are added to `funnel serve`'s arguments, e.g. SERVE_ARGS="--write-connections 1".
# A collector still running at exit is stopped before the cluster.
command -v wrk >/dev/null 2>&1 || { echo "wrk is not installed: apt-get install -y wrk" >&2; exit 2; }
server=""
read -r -a serve_args <<< "${SERVE_ARGS:-}"
start_collector() {
    bench_cleanup_hooks+=('[ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null')
    local database="$1" spool="$2"
    shift 2
    key="$("$bin/funnel" keys create bench --database-url "$(db_url "$database")" --quiet)"
    : > "$work/serve.out"
    "$@" "$bin/funnel" serve --port 0 --rate-limit 0 --event-rate-limit 0 --database-url "$(db_url "$database")" --spool-dir "$spool" \
        --quiet "${serve_args[@]}" > "$work/serve.out" &
    server=$!
    for _ in $(seq 100); do [ -s "$work/serve.out" ] && break; sleep 0.1; done
    url="$(head -1 "$work/serve.out")"
}
stop_collector() { kill -TERM "$server"; wait "$server" || true; server=""; }
wrk_pid=""
start_file_load() {
    bench_cleanup_hooks+=('[ -n "$wrk_pid" ] && kill "$wrk_pid" 2>/dev/null')
    rm -f "$work/wrk-ready".*
    env KEY="$key" BATCH="$3" FILE="$1" THREADS=2 READY="$work/wrk-ready" \
        wrk -t 2 -c "$2" -d 600s --timeout 30s -s scripts/bench/post-file.lua "$url" > "$work/wrk.out" &
    wrk_pid=$!
    # Each wrk thread reads the file and makes its requests first (not timed, like
    # recorder-bench's parse), then waits for the go file.
    until [ -e "$work/wrk-ready.0" ] && [ -e "$work/wrk-ready.1" ]; do
        kill -0 "$wrk_pid" 2>/dev/null || { echo "wrk stopped before sending" >&2; exit 1; }
        sleep 0.05
    done
}
file_load_seconds() {
    cat "$work"/wrk-ready.done.* 2>/dev/null |
        awk -v a="$1" 'BEGIN { last = 0 } $1 > last { last = $1 } END { printf "%.2f", (last > 0 ? last - a : 0) }'
}
stop_file_load() {
    kill -INT "$wrk_pid" 2>/dev/null || true
    wait "$wrk_pid" || true
    wrk_pid=""
}
