#!/usr/bin/env bash
# Two builds of `funnel` against each other on one database: the same `funnel report` (or any
# subcommand) run RUNS times by each, alternately (old, new, old, new...), so both see the same
# machine. Prints each run's wall time, CPU time (user + system) and peak memory, the medians,
# the ratios new/old, and whether the last outputs of the two builds are byte for byte equal.
# For a change to the read or replay path, where run-to-run spread (about 5 % here) is as large
# as the change: the CPU time moves less than the wall time.
# Usage: bash scripts/bench-report-ab.sh OLD_FUNNEL NEW_FUNNEL DATABASE_URL RUNS SUBCOMMAND ARGS...
#   e.g. bash scripts/bench-report-ab.sh /tmp/funnel-old .build/release/funnel "$URL" 4 \
#          report --steps welcome,modules,consent,account --window 7d --until 2026-11-27T00:00:00Z
# (pass --until, or the reports' "report_end" differs by the seconds between runs).
set -euo pipefail
if [ "$#" -lt 5 ]; then
    sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 64
fi
old="$1" new="$2" url="$3" runs="$4"
shift 4
for binary in "$old" "$new"; do
    [ -x "$binary" ] || { echo "bench-report-ab: $binary is not an executable" >&2; exit 66; }
done
case "$runs" in '' | *[!0-9]* | 0) echo "bench-report-ab: RUNS must be a positive number" >&2; exit 64 ;; esac
work="$(mktemp -d "${TMPDIR:-/tmp}/bench-report-ab.XXXXXX")"
trap 'rm -rf "$work"' EXIT

for run in $(seq "$runs"); do
    for side in old new; do
        binary="$old"
        [ "$side" = new ] && binary="$new"
        /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$binary" "$@" --database-url "$url" --format json \
            >"$work/$side.json" 2>"$work/$side.err" || { cat "$work/$side.err" >&2; exit 1; }
        read -r wall user system peak <"$work/time"
        cpu="$(echo "$user + $system" | bc)"
        echo "$side $run: wall $wall s, cpu $cpu s, peak $((peak / 1024)) MB"
        echo "$wall $cpu $((peak / 1024))" >>"$work/$side.runs"
    done
done

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for column in 1 2 3; do
    old_median="$(cut -d' ' -f"$column" "$work/old.runs" | median)"
    new_median="$(cut -d' ' -f"$column" "$work/new.runs" | median)"
    name="$(echo "wall_s cpu_s peak_MB" | cut -d' ' -f"$column")"
    printf '%s: median old %s, new %s, new/old %.3f\n' "$name" "$old_median" "$new_median" \
        "$(echo "$new_median / $old_median" | bc -l)"
done
if cmp -s "$work/old.json" "$work/new.json"; then
    echo "outputs: equal byte for byte"
else
    echo "outputs: DIFFERENT (diff below)"
    diff "$work/old.json" "$work/new.json" | head -20
    exit 1
fi
