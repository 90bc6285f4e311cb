#!/usr/bin/env bash
# The SDK's cost to an app (issue 13): HTTPTransport.record() per call on the caller's thread, and
# the rate at which the worker moves events into the fsynced outbox against a raw fsynced append of
# the same bytes in the same number of writes. Release build; nothing is sent over the network.
#   bash scripts/bench-sdk.sh [EVENTS] [FOLDER]
# EVENTS defaults to 200,000; FOLDER (the outbox's disk) to a temporary folder under $TMPDIR.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
events=${1:-200000}
folder=${2:-${TMPDIR:-/tmp}/onboardmetrics-sdk-bench-$$}
ONBOARDMETRICS_BENCHMARKS=1 swift build -c release --scratch-path .build-bench --product SDKRecording >&2
uptime
.build-bench/release/SDKRecording "$events" "$folder"
