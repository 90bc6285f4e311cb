#!/usr/bin/env bash
# Makes (once) a Python virtual environment with selenium, which drives Debian's headless
# `chromium` through `chromedriver` (package chromium-driver), and prints its python's path.
# Usage: bash scripts/browser/selenium.sh DIR — DIR is the test run's work folder (scripts/test.sh),
# as for scripts/ecosystem/clients.sh; a finished environment is marked and reused.
set -euo pipefail
dir="${1:?usage: selenium.sh DIR}"
venv="$dir/python-selenium"
# Pinned; 4.52.0 needs a certifi newer than the package index here offers.
packages=(selenium==4.51.0)
marker="$venv/.ready-$(printf '%s ' "${packages[@]}" | sha256sum | cut -c1-16)"
if [ ! -f "$marker" ]; then
    mkdir -p "$dir"
    exec 9>"$dir/python-selenium.lock"
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
