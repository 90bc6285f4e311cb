#!/usr/bin/env bash
# Peak memory of `funnel dashboard` keeping every session (--cache-events 100000000), for one or
# more builds of `funnel` on one database whose traces are built and which has the health-study
# flow stored: for each build, a viewer signs in, the ad-hoc funnel's and the flow's JSON pages
# are asked for twice (the first round reads and keeps every session), then the server's VmHWM
# and VmRSS are printed with the pages' times and an md5 of the flow page without its
# "report_end" (equal md5s: the same report). Builds run one after another, as given.
# Usage: bash scripts/bench-dashboard-memory.sh DATABASE_URL FUNNEL [FUNNEL ...]
set -euo pipefail
if [ "$#" -lt 2 ]; then
    sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 64
fi
url="$1"
shift
work="$(mktemp -d "${TMPDIR:-/tmp}/bench-dashboard-memory.XXXXXX")"
trap 'rm -rf "$work"' EXIT
for bin in "$@"; do
    [ -x "$bin" ] || { echo "bench-dashboard-memory: $bin is not an executable" >&2; exit 66; }
    name="bench$RANDOM"
    secret="$("$bin" viewers create "$name" --database-url "$url" --quiet | tail -1)"
    "$bin" dashboard --port 0 --database-url "$url" --quiet --cache-events 100000000 >"$work/out" 2>"$work/err" &
    pid=$!
    for _ in $(seq 300); do [ -s "$work/out" ] && break; sleep 0.1; done
    base="$(head -1 "$work/out")"
    [ -n "$base" ] || { cat "$work/err" >&2; kill "$pid"; exit 1; }
    curl -fsS -o /dev/null -c "$work/cookies" --data-urlencode "name=$name" --data-urlencode "secret=$secret" \
        "$base/login"
    times=""
    for _ in 1 2; do
        for page in "/funnel?steps=welcome,modules,consent,account&window=7d" "/flows/health-study"; do
            times+="$(curl -fsS -b "$work/cookies" -H 'Accept: application/json' -o "$work/page.json" \
                -w '%{time_total}' "$base$page") "
        done
    done
    peak="$(awk '/VmHWM/ { print $2 }' "/proc/$pid/status")"
    resident="$(awk '/VmRSS/ { print $2 }' "/proc/$pid/status")"
    digest="$(grep -v report_end "$work/page.json" | md5sum | cut -c1-12)"
    echo "$bin: pages (ad-hoc, flow; twice) ${times% } s; VmHWM $((peak / 1024)) MB; VmRSS $((resident / 1024)) MB; flow page md5 $digest"
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    "$bin" viewers remove "$name" --database-url "$url" --quiet >/dev/null 2>&1 || true
done
