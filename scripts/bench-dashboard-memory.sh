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
source "$(dirname "$0")/bench/dashboard.sh"
for bin in "$@"; do
    [ -x "$bin" ] || { echo "bench-dashboard-memory: $bin is not an executable" >&2; exit 66; }
    start_dashboard "$bin" "$url" --quiet --cache-events 100000000
    times=""
    for _ in 1 2; do
        for page in "/funnel?steps=welcome,modules,consent,account&window=7d" "/flows/health-study"; do
            times+="$(dashboard_get "$page" "$work/page.json") "
        done
    done
    peak="$(dashboard_kb VmHWM)"
    resident="$(dashboard_kb VmRSS)"
    digest="$(grep -v report_end "$work/page.json" | md5sum | cut -c1-12)"
    echo "$bin: pages (ad-hoc, flow; twice) ${times% } s; VmHWM $((peak / 1024)) MB; VmRSS $((resident / 1024)) MB; flow page md5 $digest"
    stop_dashboard
done
