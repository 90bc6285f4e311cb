#!/usr/bin/env bash
# The write path with the database across a network (issue 16): each writer's round trips to
# PostgreSQL cost it time in which it sends nothing. The cluster listens on 127.0.0.1 too, and
# scripts/bench/delay-proxy.py in front of it holds every chunk DELAY seconds each way (default
# 0.00025: a 0.5 ms round trip, a database in the same data centre). Measured, each into a fresh
# migrated database, directly over the Unix socket and through the proxy:
#   recorder B   recorder-bench --events EVENTS --batch-size B (B in BATCHES, default "5000 400")
#   serve        funnel serve loaded by wrk (post-batch.lua), CONNECTIONS connections posting
#                batches of 100 new events for SECONDS, each answered once committed
# Prints events/s both ways and the share the round trips leave. BENCH_BIN=FOLDER runs other
# binaries (e.g. an older build) to compare.
# Usage: bash scripts/bench-remote-db.sh [EVENTS] [SECONDS] [CONNECTIONS]   (default 1000000 15 16)
set -euo pipefail
cd "$(dirname "$0")/.."
events="${1:-1000000}"
seconds="${2:-15}"
connections="${3:-16}"
delay="${DELAY:-0.00025}"
batches="${BATCHES:-5000 400}"
source scripts/bench/collector.sh
source scripts/bench/setup.sh
set_server listen_addresses=127.0.0.1
restart_cluster
port=$(sed -E 's/.*port=([0-9]+).*/\1/' <<< "$admin")
user=$(sed -E 's|postgresql://([^@]*)@.*|\1|' <<< "$admin")
proxy_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 scripts/bench/delay-proxy.py "$proxy_port" "$port" "$delay" &
proxy=$!
bench_cleanup_hooks+=("kill $proxy")
socket_url() { printf '%s&dbname=%s' "$admin" "$1"; }
proxied_url() { printf 'postgresql://%s@127.0.0.1:%s/%s' "$user" "$proxy_port" "$1"; }
for _ in $(seq 50); do psql -XtAq "$(proxied_url postgres)" -c "SELECT 1" >/dev/null 2>&1 && break; sleep 0.1; done
echo "postgres $(psql -tA "$admin" -c 'SHOW server_version')   cores $(nproc)   round trip through the proxy $(awk -v d="$delay" 'BEGIN { print 2 * d * 1000 }') ms   binaries $bin"

rates=()
for batch in $batches; do
    line="recorder $batch"
    for route in socket proxied; do
        db_url() { "${route}_url" "$1"; }
        fresh bench_remote
        rate=$("$bin/recorder-bench" --events "$events" --batch-size "$batch" --database-url "$(db_url bench_remote)" |
            awk '/^recorded/ { for (i = 1; i < NF; i++) if ($i == "events_per_second") print $(i + 1) }')
        line+=" $rate"
    done
    rates+=("$line")
done
line="serve $connections conn."
for route in socket proxied; do
    db_url() { "${route}_url" "$1"; }
    fresh bench_remote
    start_collector bench_remote "$work/spool"
    env KEY="$key" BATCH=100 wrk -t 2 -c "$connections" -d "${seconds}s" --timeout 30s \
        -s scripts/bench/post-batch.lua "$url" > "$work/wrk.out"
    stop_collector
    stored=$(psql -XtA "$(socket_url bench_remote)" -c "SELECT count(*) FROM events")
    line+=" $(awk -v n="$stored" -v s="$seconds" 'BEGIN { printf "%.0f", n / s }')"
    echo "[serve, $route] $(grep -E '^latency' "$work/wrk.out")"
done
rates+=("$line")

echo
printf '%-18s %14s %14s %12s\n' method "socket ev/s" "proxied ev/s" "proxied/socket"
for line in "${rates[@]}"; do
    awk '{ name = $1 " " $2; if (NF == 5) name = name " " $3
           printf "%-18s %14.0f %14.0f %11.2fx\n", name, $(NF - 1), $NF, $NF / $(NF - 1) }' <<< "$line"
done
