#!/usr/bin/env bash
# Page times of `funnel dashboard` (issue 36) beside the CLI's time for the same report.
# `funnel demo --sessions N` fills an embedded cluster in a work folder (flows, experiments, about
# 11.9 events per session: 150,000 sessions give about 1.78M events), a viewer is created, the
# dashboard is started on a free loopback port, and each page is fetched REPEAT times (default 3)
# as HTML and as JSON with curl (HTTP Basic); the matching `funnel` command runs REPEAT times too.
# Printed per page: best and median seconds, and the ratio page / CLI (best over best).
# Usage: [REPEAT=N] [BENCH_BIN=FOLDER] bash scripts/bench-dashboard.sh [SESSIONS]   (default 150000)
set -euo pipefail
cd "$(dirname "$0")/.."
repeat="${REPEAT:-3}"
[[ "$repeat" =~ ^[1-9][0-9]*$ ]] || { echo "REPEAT must be a whole number from 1" >&2; exit 64; }
sessions="${1:-150000}"
[[ "$sessions" =~ ^[1-9][0-9]*$ ]] || { echo "SESSIONS must be a whole number from 1" >&2; exit 64; }

# BENCH_BIN=FOLDER runs the funnel binary in FOLDER instead of building this tree's (scripts/bench/build.sh).
source scripts/bench/build.sh
bench_bin
work="$(mktemp -d "${TMPDIR:-/tmp}/onboardmetrics-bench-dashboard.XXXXXX")"
chmod 755 "$work"
source scripts/bench/dashboard.sh
cleanup() {
    [ -z "$dashboard_pid" ] || kill "$dashboard_pid" 2>/dev/null || true
    "$bin/funnel" db stop --data-dir "$work/pg" --quiet >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT INT TERM
unset DATABASE_URL PGHOST PGPORT PGDATABASE PGUSER PGPASSWORD
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }
best() { printf '%s\n' "$@" | sort -g | head -1; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

start=$(now)
"$bin/funnel" demo --sessions "$sessions" --data-dir "$work/pg" --output "$work/demo.html" >/dev/null 2>"$work/demo.err" \
    || { cat "$work/demo.err" >&2; exit 1; }
echo "demo data: $sessions sessions in $(since "$start") s"
url="$("$bin/funnel" db start --data-dir "$work/pg" --quiet)"
events=$(psql -XtA "$url" -c "SELECT count(*) FROM events")
start_dashboard "$bin/funnel" "$url"
base="$dashboard_base"
until="$(psql -XtA "$url" -c "SELECT to_char((max(occurred_at) + interval '1 day') AT TIME ZONE 'UTC', 'YYYY-MM-DD')  FROM events")"
echo "$events events; dashboard at $base; until $until; postgres $(psql -XtA "$url" -c 'SHOW server_version'); cores $(nproc)"

# page PATH-AND-QUERY | CLI ARGUMENTS...
rows=()
measure() {
    local label="$1" path="$2"
    shift 2
    local html=() json=() cli=()
    local sep="?"
    [[ "$path" == *"?"* ]] && sep="&"
    for _ in $(seq "$repeat"); do
        html+=("$(curl -fsS -o /dev/null -w '%{time_total}' -u "$dashboard_viewer:$dashboard_secret" "$base$path${sep}until=$until")")
        json+=("$(curl -fsS -o "$work/page.json" -w '%{time_total}' -u "$dashboard_viewer:$dashboard_secret" -H 'Accept: application/json' "$base$path${sep}until=$until")")
        if [ "$#" -gt 0 ]; then
            local start
            start=$(now)
            "$bin/funnel" "$@" --until "$until" --database-url "$url" --format json --quiet > "$work/cli.json"
            cli+=("$(since "$start")")
        fi
    done
    local cli_best="-"
    [ "${#cli[@]}" -eq 0 ] || cli_best="$(best "${cli[@]}")"
    rows+=("$label $(best "${html[@]}") $(median "${html[@]}") $(best "${json[@]}") $cli_best")
}

measure home "/"
measure flow "/flows/health-study" report --flow health-study
measure flow-per-user "/flows/health-study?per=user" report --flow health-study --per user
measure flow-by-platform "/flows/health-study?breakdown=platform" report --flow health-study --by platform
measure retention "/flows/health-study/retention?by=outcome" retention --flow health-study --by outcome
measure correlation "/flows/health-study/correlation?step=consent" correlate --flow health-study --step consent
measure paths "/flows/health-study/paths?step=consent" paths --flow health-study --after-drop --step consent
measure experiment "/experiments/consent-copy" experiment consent-copy

echo "load: $(uptime)"
printf '\n%-18s %9s %9s %9s %9s %9s\n' page "html" "html med" "json" "cli" "json/cli"
for line in "${rows[@]}"; do
    read -r label hb hm jb cb <<< "$line"
    awk -v l="$label" -v hb="$hb" -v hm="$hm" -v jb="$jb" -v cb="$cb" \
        'BEGIN { printf "%-18s %9.3f %9.3f %9.3f %9s %9s\n", l, hb, hm, jb, cb, (cb == "-" ? "-" : sprintf("%.2fx", jb / cb)) }'
done
echo "(seconds, best of $repeat; html med: median; cli: the same report by the funnel command, which also starts a process and connects)"
echo "server log (page times the dashboard measured itself):"
grep -c "" "$work/dashboard.err" | xargs echo "  lines:"
tail -3 "$work/dashboard.err" | sed 's/^/  /'
