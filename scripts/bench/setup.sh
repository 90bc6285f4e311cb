# Sourced by scripts/bench-*.sh: builds the release binaries, makes a work folder, starts a
# throwaway cluster in it and removes both on exit. Defines:
#   bin, work, admin          release binaries, the work folder, the cluster's admin URL
#   db_url NAME               the URL of database NAME on that cluster
#   fresh NAME                drop, create and migrate database NAME
#   now, since START [D]      a timestamp; seconds since START (D decimals, default 2)
#   busy                      busy core-seconds of the whole machine so far (all states but idle
#                             and iowait; meaningful on an otherwise idle machine)
#   busy_since B              busy core-seconds since `busy` printed B
#   process_cpu PID           user+system CPU seconds of one live process (all its threads)
#   bench_cleanup_hooks       commands run first at exit (e.g. stop a server the script started)
#   set_server NAME=VALUE ... sets server parameters (ALTER SYSTEM) and reloads the configuration
#   restart_cluster           restarts the cluster (for parameters a reload does not apply)
#   with_pg_stat_statements   preloads pg_stat_statements (a restart) and creates the extension
#   commits_of NAME           the commits PostgreSQL has counted in database NAME so far
# BENCH_BIN=FOLDER: see scripts/bench/build.sh. PG_SETTINGS (words NAME=VALUE) sets server
# parameters for the run, e.g. PG_SETTINGS="synchronous_commit=off" to see what waiting for each
# commit's WAL flush costs.
source scripts/bench/build.sh
bench_bin
work="$(mktemp -d "${TMPDIR:-/tmp}/onboardmetrics-bench.XXXXXX")"
chmod 755 "$work"  # the server may run as the postgres user, which must reach the folder
bench_cleanup_hooks=()
bench_cleanup() {
    for hook in "${bench_cleanup_hooks[@]}"; do eval "$hook" || true; done
    "$bin/funnel" db stop --data-dir "$work/postgres" --quiet >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap bench_cleanup EXIT INT TERM
unset DATABASE_URL PGHOST PGPORT PGDATABASE PGUSER PGPASSWORD
# Debian's /usr/bin/psql is pg_wrapper, a Perl script that takes about 33 ms before the client
# starts (measured: 41 ms for `psql --version` against 8 ms for the binary): the timed COPYs run
# the client itself.
if command -v pg_config >/dev/null && [ -x "$(pg_config --bindir)/psql" ]; then
    PATH="$(pg_config --bindir):$PATH"
fi
# Reports keep their session files in the work folder: each run starts without one, and leaves none.
export ONBOARDMETRICS_CACHE_DIR="$work/cache"
admin="$("$bin/funnel" db start --data-dir "$work/postgres" --quiet)"
set_server() {
    for setting in "$@"; do psql -Xq "$admin" -c "ALTER SYSTEM SET ${setting%%=*} = '${setting#*=}'"; done
    psql -Xq "$admin" -c "SELECT pg_reload_conf()" >/dev/null
}
restart_cluster() {
    "$bin/funnel" db stop --data-dir "$work/postgres" --quiet
    admin="$("$bin/funnel" db start --data-dir "$work/postgres" --quiet)"
}
with_pg_stat_statements() {
    set_server shared_preload_libraries=pg_stat_statements
    restart_cluster
    psql -Xq "$admin" -c "CREATE EXTENSION pg_stat_statements"
}
commits_of() { psql -XtA "$admin" -c "SELECT xact_commit FROM pg_stat_database WHERE datname = '$1'"; }
# shellcheck disable=SC2086 # PG_SETTINGS is a list of words
[ -z "${PG_SETTINGS:-}" ] || set_server ${PG_SETTINGS}
db_url() { printf '%s&dbname=%s' "$admin" "$1"; }
fresh() {
    psql -q "$admin" -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1" >/dev/null
    "$bin/funnel" migrate --database-url "$(db_url "$1")" --quiet >/dev/null
}
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" -v d="${2:-2}" 'BEGIN { printf "%.*f", d, b - a }'; }
busy() { awk -v t="$(getconf CLK_TCK)" '/^cpu / { print ($2 + $3 + $4 + $7 + $8 + $9) / t }' /proc/stat; }
busy_since() { echo "$(busy) - $1" | bc; }
process_cpu() { awk -v t="$(getconf CLK_TCK)" '{ print ($14 + $15) / t }' "/proc/$1/stat"; }
