#!/usr/bin/env bash
# Makes (once) a Python virtual environment with the given pinned packages and prints its python's
# path. Usage: bash scripts/python-venv.sh DIR NAME PACKAGE==VERSION...
# DIR is where the environment lives (the test run's work folder, scripts/test.sh), so it is made
# once per run and shared by the tests; a finished environment is marked and reused. Several
# tests may ask at once: one makes it, the others wait for the lock.
set -euo pipefail
dir="${1:?usage: python-venv.sh DIR NAME PACKAGE...}"
name="${2:?usage: python-venv.sh DIR NAME PACKAGE...}"
shift 2
[ "$#" -gt 0 ] || { echo "python-venv.sh: no packages" >&2; exit 64; }
venv="$dir/python-$name"
marker="$venv/.ready-$(printf '%s ' "$@" | sha256sum | cut -c1-16)"
if [ ! -f "$marker" ]; then
    mkdir -p "$dir"
    exec 9>"$dir/python-$name.lock"
    flock 9
    if [ ! -f "$marker" ]; then
        rm -rf "$venv"
        python3 -m venv "$venv" >&2
        for attempt in 1 2 3; do
            if "$venv/bin/pip" install --quiet --disable-pip-version-check "$@" >&2; then break; fi
            [ "$attempt" = 3 ] && { echo "pip install failed three times" >&2; exit 1; }
            sleep $((attempt * 5))
        done
        touch "$marker"
    fi
fi
echo "$venv/bin/python"
