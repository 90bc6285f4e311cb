#!/usr/bin/env bash
# Runs the whole test suite against a throwaway PostgreSQL cluster that it creates in a temp
# folder and removes again, whatever the outcome. Extra arguments go to `swift test`
# (e.g. `bash scripts/test.sh --filter Migrator`).
set -euo pipefail
cd "$(dirname "$0")/.."

# Say exactly which system package is missing, before a build or a test fails on it.
bash scripts/check-setup.sh || exit 1
swift build --build-tests
bin="$(swift build --show-bin-path)"
# The example app package depends on the SDK product alone; a database test runs it against `funnel serve`.
(cd examples/onboarding-app && swift build --quiet)
example_bin="$(cd examples/onboarding-app && swift build --show-bin-path)"

work="$(mktemp -d "${TMPDIR:-/tmp}/onboardmetrics-test.XXXXXX")"
chmod 755 "$work"  # the server may run as the postgres user, which must reach the folder
cleanup() {
    "$bin/funnel" db stop --data-dir "$work/postgres" --quiet >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

# The tests' database settings come only from these variables, never from the caller's.
unset DATABASE_URL PGHOST PGHOSTADDR PGPORT PGDATABASE PGUSER PGPASSWORD PGSERVICE
export ONBOARDMETRICS_TEST_DATABASE_URL="$("$bin/funnel" db start --data-dir "$work/postgres")"
export ONBOARDMETRICS_TEST_WORK_DIR="$work"
# Reports run by the tests keep their session files here (the default is under ~/.cache).
export ONBOARDMETRICS_CACHE_DIR="$work/cache"
export ONBOARDMETRICS_FUNNEL="$bin/funnel"
export ONBOARDMETRICS_SDK_EXAMPLE="$example_bin/OnboardingApp"
echo "test database: $ONBOARDMETRICS_TEST_DATABASE_URL" >&2

swift test --skip-build "$@"
