#!/usr/bin/env bash
# What the test command needs from the system, each with the Debian/Ubuntu package that brings
# it: prints every one that is missing (and exits 1), so a machine set up by hand says exactly
# what to install. README's set-up line must name every package listed here; with --readme this
# also checks that it does (CI runs it, since CI itself installs what is missing and so would
# never notice a package README forgot).
set -uo pipefail
cd "$(dirname "$0")/.."

# check PACKAGE DESCRIPTION TEST...: the package is missing when the test fails.
missing=()
check() {
    local package="$1" what="$2"
    shift 2
    if ! "$@" >/dev/null 2>&1; then missing+=("$package"); echo "missing: $what (apt-get install -y $package)" >&2; fi
}
packages=(pkg-config libpq-dev zlib1g-dev postgresql postgresql-client chromium chromium-driver python3-venv)
check pkg-config "pkg-config, which finds libpq and zlib for the build" command -v pkg-config
check libpq-dev "libpq's headers (libpq-fe.h)" test -f "$(pg_config --includedir 2>/dev/null || echo /usr/include/postgresql)/libpq-fe.h"
check zlib1g-dev "zlib's headers (zlib.h)" test -f /usr/include/zlib.h
check postgresql "PostgreSQL's server (initdb, postgres)" bash -c 'ls /usr/lib/postgresql/*/bin/initdb'
check postgresql-client "psql" command -v psql
check chromium "chromium, for the HTML report's render check and the dashboard's browser test" test -x /usr/bin/chromium
check chromium-driver "chromedriver, which drives chromium in the dashboard's browser test" test -x /usr/bin/chromedriver
check python3-venv "python3 with venv and ensurepip, for the reference clients installed from PyPI" \
    python3 -c 'import venv, ensurepip'

status=0
if [ "${#missing[@]}" -gt 0 ]; then
    echo "the test command needs: apt-get install -y ${missing[*]}" >&2
    status=1
fi
if [ "${1:-}" = "--readme" ]; then
    line="$(grep -m1 -E 'apt-get install' README.md)"
    for package in "${packages[@]}"; do
        if ! grep -qw -- "$package" <<<"$line"; then
            echo "README's set-up line does not install $package, which the test command needs" >&2
            status=1
        fi
    done
fi
exit "$status"
