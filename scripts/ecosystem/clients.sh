#!/usr/bin/env bash
# Makes (once) a Python virtual environment with the real analytics clients the collector is
# tested against, and prints its python's path. Usage: bash scripts/ecosystem/clients.sh DIR
# DIR is where the environment lives: the test run's work folder (scripts/test.sh), so it is
# made once per run and shared by the tests; a finished environment is marked and reused.
set -euo pipefail
dir="${1:?usage: clients.sh DIR}"
venv="$dir/python-clients"
# Pinned: the versions whose wire behaviour the tests were written against (read in their source).
packages=(segment-analytics-python==2.4.0 posthog==7.91.1 rudder-sdk-python==2.1.9)
marker="$venv/.ready-$(printf '%s ' "${packages[@]}" | sha256sum | cut -c1-16)"
if [ ! -f "$marker" ]; then
    # Several tests may ask at once: one makes it, the others wait for the lock.
    mkdir -p "$dir"
    exec 9>"$dir/python-clients.lock"
    flock 9
    if [ ! -f "$marker" ]; then
        rm -rf "$venv"
        python3 -m venv "$venv" >&2
        for attempt in 1 2 3; do
            if "$venv/bin/pip" install --quiet --disable-pip-version-check "${packages[@]}" >&2; then break; fi
            [ "$attempt" = 3 ] && { echo "pip install failed three times" >&2; exit 1; }
            sleep $((attempt * 5))
        done
        touch "$marker"
    fi
fi
echo "$venv/bin/python"
