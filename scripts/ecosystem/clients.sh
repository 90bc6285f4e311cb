#!/usr/bin/env bash
# Makes (once) a Python virtual environment with the real analytics clients the collector is
# tested against, and prints its python's path. Usage: bash scripts/ecosystem/clients.sh DIR
# DIR is where the environment lives: the test run's work folder (scripts/test.sh), so it is
# made once per run and shared by the tests; a finished environment is marked and reused.
set -euo pipefail
dir="${1:?usage: clients.sh DIR}"
# Pinned: the versions whose wire behaviour the tests were written against (read in their source).
exec bash "$(dirname "$0")/../python-venv.sh" "$dir" clients \
    segment-analytics-python==2.4.0 posthog==7.91.1 rudder-sdk-python==2.1.9
