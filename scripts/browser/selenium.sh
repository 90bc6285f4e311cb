#!/usr/bin/env bash
# Makes (once) a Python virtual environment with selenium, which drives Debian's headless
# `chromium` through `chromedriver` (package chromium-driver), and prints its python's path.
# Usage: bash scripts/browser/selenium.sh DIR — DIR is the test run's work folder (scripts/test.sh).
set -euo pipefail
dir="${1:?usage: selenium.sh DIR}"
# Pinned; 4.52.0 needs a certifi newer than the package index here offers.
exec bash "$(dirname "$0")/../python-venv.sh" "$dir" selenium selenium==4.51.0
