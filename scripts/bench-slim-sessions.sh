#!/usr/bin/env bash
# What a report reading a slim form of the cut sessions would take (issue 33; docs/TRACES.md,
# "What a report within 2× of ClickHouse would need"): builds Benchmarks/SlimSessions (release,
# in .build-bench, out of the default build) and runs it on DATABASE_URL, best of RUNS (default
# 3): the slim form's size an event, decoding it into sessions, and decoding and replaying the
# ad-hoc funnel, with the funnel's counts. For the ratio to ClickHouse on the same events, give
# the binary it prints to scripts/bench-clickhouse.sh as SLIM_BIN.
# Usage: bash scripts/bench-slim-sessions.sh DATABASE_URL [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: bash scripts/bench-slim-sessions.sh DATABASE_URL [RUNS]" >&2; exit 64; }
ONBOARDMETRICS_BENCHMARKS=1 swift build -c release --scratch-path .build-bench --product SlimSessions >&2
bin="$(ONBOARDMETRICS_BENCHMARKS=1 swift build -c release --scratch-path .build-bench --show-bin-path)/SlimSessions"
echo "SlimSessions: $bin" >&2
"$bin" "$1" "${2:-3}"
