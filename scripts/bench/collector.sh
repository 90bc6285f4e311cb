# Sourced by the collector benchmarks before scripts/bench/setup.sh (so a missing wrk stops them
# before the build). Defines
#   start_collector DATABASE SPOOL [COMMAND...]
#                                    an app key of DATABASE ($key) and `funnel serve --rate-limit 0`
#                                    on a free loopback port ($server, $url), spooling into SPOOL;
#                                    COMMAND (e.g. `taskset -c 1`, which execs) runs the server
#   stop_collector                   stops it
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
    "$@" "$bin/funnel" serve --port 0 --rate-limit 0 --database-url "$(db_url "$database")" --spool-dir "$spool" \
        --quiet "${serve_args[@]}" > "$work/serve.out" &
    server=$!
    for _ in $(seq 100); do [ -s "$work/serve.out" ] && break; sleep 0.1; done
    url="$(head -1 "$work/serve.out")"
}
stop_collector() { kill -TERM "$server"; wait "$server" || true; server=""; }
