# Sourced by scripts/check-citus.sh and scripts/bench-citus.sh: builds Citus from a checkout
# (scripts/citus-build.sh) and starts, in a temporary folder, a Citus coordinator, two workers
# and one plain PostgreSQL server on loopback, all four on this machine.
#
#   citus_build SOURCE_DIR        installs the build headers if missing, builds Citus into
#                                 ${CITUS_PREFIX:-/tmp/onboardmetrics-citus-prefix}; sets `bin`
#   citus_start_cluster [LINE...] makes `work`, starts the four servers (extra postgresql.conf
#                                 lines as arguments), creates the database, the extension and
#                                 registers the workers; prints the Citus version and the workers
#   citus_stop_cluster            stops the four servers (immediate) and removes `work`
#
# Then defined: nodes (coordinator worker1 worker2 plain), port NODE, url NODE (funnel's
# --database-url for the database onboardmetrics on NODE), as_postgres CMD..., psql_on NODE
# ARGS... (psql on NODE's onboardmetrics, stops on the first error), step, fail.
# Needs root: the servers run as the postgres user.

step() { printf '== %s\n' "$*"; }
fail() {
    printf 'FAIL: %s\n' "$*"
    exit 1
}

citus_build() {
    local src="$1"
    local prefix="${CITUS_PREFIX:-/tmp/onboardmetrics-citus-prefix}"
    if [ ! -x /usr/lib/postgresql/15/bin/pg_config ] || [ ! -f /usr/include/krb5.h ]; then
        step "installing postgresql-server-dev-15 and headers"
        apt-get install -y postgresql-server-dev-15 libkrb5-dev liblz4-dev libzstd-dev libcurl4-openssl-dev >/dev/null
    fi
    step "building Citus $(git -C "$src" describe --tags 2>/dev/null || echo '(no tag)') into $prefix"
    bash scripts/citus-build.sh "$src" "$prefix"
    bin="$prefix/usr/lib/postgresql/15/bin"
}

as_postgres() { runuser -u postgres -- "$@"; }
nodes=(coordinator worker1 worker2 plain)
base=$((20000 + RANDOM % 20000))
port() { case "$1" in coordinator) echo $base ;; worker1) echo $((base + 1)) ;; worker2) echo $((base + 2)) ;; plain) echo $((base + 3)) ;; esac; }
url() { echo "postgres://postgres@127.0.0.1:$(port "$1")/onboardmetrics?sslmode=disable"; }
psql_on() {
    local node="$1"
    shift
    as_postgres "$bin/psql" -qAt -v ON_ERROR_STOP=1 -h "$work" -p "$(port "$node")" -d onboardmetrics "$@"
}

citus_stop_cluster() {
    [ -n "${work:-}" ] || return 0
    for node in "${nodes[@]}"; do
        [ -f "$work/$node/postmaster.pid" ] && as_postgres "$bin/pg_ctl" -D "$work/$node" -m immediate stop >/dev/null 2>&1
    done
    rm -rf "$work"
}

citus_start_cluster() {
    work="$(mktemp -d "${TMPDIR:-/tmp}/onboardmetrics-citus.XXXXXX")"
    chmod 755 "$work"
    chown postgres "$work"
    step "starting a coordinator, two workers and a plain server on 127.0.0.1:$base-$((base + 3))"
    local node preload line
    for node in "${nodes[@]}"; do
        as_postgres "$bin/initdb" -D "$work/$node" -U postgres --auth=trust >/dev/null
        preload="citus"
        [ "$node" = plain ] && preload=""
        cat >>"$work/$node/postgresql.conf" <<EOF
port = $(port "$node")
listen_addresses = '127.0.0.1'
unix_socket_directories = '$work'
shared_preload_libraries = '$preload'
max_connections = 200
fsync = off
synchronous_commit = off
EOF
        for line in "$@"; do echo "$line" >>"$work/$node/postgresql.conf"; done
        as_postgres "$bin/pg_ctl" -D "$work/$node" -l "$work/$node.log" -w start >/dev/null
        as_postgres "$bin/psql" -qAt -h "$work" -p "$(port "$node")" -d postgres -c "CREATE DATABASE onboardmetrics" >/dev/null
    done
    for node in coordinator worker1 worker2; do psql_on "$node" -c "CREATE EXTENSION citus" >/dev/null; done
    psql_on coordinator -c "SELECT citus_set_coordinator_host('127.0.0.1', $(port coordinator))" >/dev/null
    psql_on coordinator -c "SELECT citus_add_node('127.0.0.1', $(port worker1))" >/dev/null
    psql_on coordinator -c "SELECT citus_add_node('127.0.0.1', $(port worker2))" >/dev/null
    echo "citus $(psql_on coordinator -c "SELECT extversion FROM pg_extension WHERE extname = 'citus'"), workers: $(psql_on coordinator -c "SELECT string_agg(nodename || ':' || nodeport, ' ') FROM pg_dist_node WHERE noderole = 'primary' AND shouldhaveshards AND groupid > 0")"
}
