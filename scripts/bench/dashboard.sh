# Sourced by the benchmarks that start `funnel dashboard`, once $work (a folder of theirs) is set.
# Defines
#   start_dashboard FUNNEL DATABASE_URL [ARGS...]
#                              makes a viewer of DATABASE_URL ($dashboard_viewer, $dashboard_secret,
#                              for `curl -u`), starts `FUNNEL dashboard --port 0 ARGS` on a free
#                              loopback port ($dashboard_pid, $dashboard_base; its stderr in
#                              $work/dashboard.err) and signs the viewer in (the cookie jar
#                              $work/dashboard.cookies); exits with the server's errors when it
#                              does not start
#   dashboard_get PATH FILE    the JSON page PATH into FILE, signed in; prints the seconds it took
#   dashboard_kb FIELD         a field of the server's /proc status in KB (VmHWM: its peak memory)
#   stop_dashboard             stops the server and removes the viewer
# A dashboard still running at exit is stopped when the script keeps bench_cleanup_hooks
# (scripts/bench/setup.sh); the others stop it themselves.
dashboard_pid=""
start_dashboard() {
    local funnel="$1" url="$2"
    shift 2
    dashboard_funnel="$funnel"
    dashboard_url="$url"
    dashboard_viewer="bench$RANDOM"
    dashboard_secret="$("$funnel" viewers create "$dashboard_viewer" --database-url "$url" --quiet | tail -1)"
    : > "$work/dashboard.out"
    "$funnel" dashboard --port 0 --database-url "$url" "$@" > "$work/dashboard.out" 2> "$work/dashboard.err" &
    dashboard_pid=$!
    if declare -p bench_cleanup_hooks >/dev/null 2>&1; then
        bench_cleanup_hooks+=('[ -n "$dashboard_pid" ] && kill "$dashboard_pid" 2>/dev/null')
    fi
    for _ in $(seq 300); do [ -s "$work/dashboard.out" ] && break; sleep 0.1; done
    dashboard_base="$(head -1 "$work/dashboard.out")"
    [ -n "$dashboard_base" ] || { cat "$work/dashboard.err" >&2; kill "$dashboard_pid" 2>/dev/null; exit 1; }
    curl -fsS -o /dev/null -c "$work/dashboard.cookies" --data-urlencode "name=$dashboard_viewer" \
        --data-urlencode "secret=$dashboard_secret" "$dashboard_base/login"
}
dashboard_get() {
    curl -fsS -b "$work/dashboard.cookies" -H 'Accept: application/json' -o "$2" -w '%{time_total}' \
        "$dashboard_base$1"
}
dashboard_kb() { awk -v field="$1:" '$1 == field { print $2 }' "/proc/$dashboard_pid/status"; }
stop_dashboard() {
    kill "$dashboard_pid" 2>/dev/null || true
    wait "$dashboard_pid" 2>/dev/null || true
    dashboard_pid=""
    "$dashboard_funnel" viewers remove "$dashboard_viewer" --database-url "$dashboard_url" --quiet >/dev/null 2>&1 || true
}
