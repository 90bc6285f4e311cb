#!/usr/bin/env bash
# Proves the SDK product builds apart from the server side: in a copy of the tree whose libpq
# header is an #error, `swift build --target OnboardMetricsSDK` must succeed (an automatic library product cannot be built alone with --product) (so nothing in the
# SDK's closure includes libpq); the manifest must give the SDK and its testing product no
# dependency but each other (no Hummingbird, argument-parser, server target); and no SDK source may
# spawn processes (unavailable on iOS). Prints what it checked; exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
copy="$(mktemp -d "${TMPDIR:-/tmp}/onboardmetrics-sdk-apart.XXXXXX")"
trap 'rm -rf "$copy"' EXIT

# 1. The manifest: the SDK's targets depend on nothing outside the SDK.
swift package describe --type json > "$copy/describe.json"
python3 - "$copy/describe.json" <<'PY'
import json, sys
package = json.load(open(sys.argv[1]))
targets = {t["name"]: t for t in package["targets"]}
allowed = {
    "OnboardMetricsSDK": set(),
    "OnboardMetricsURLSession": {"OnboardMetricsSDK"},
    "OnboardMetricsTesting": {"OnboardMetricsSDK"},
    "OnboardMetricsSDKTests": {"OnboardMetricsSDK", "OnboardMetricsURLSession", "OnboardMetricsTesting"},
}
for name, deps in allowed.items():
    target = targets[name]
    found = set(target.get("target_dependencies", [])) | set(target.get("product_dependencies", []))
    extra = found - deps
    if extra:
        sys.exit(f"check-sdk-apart: {name} depends on {sorted(extra)}; the SDK may depend on Foundation only")
    print(f"check-sdk-apart: {name} depends on {sorted(found) or 'nothing'} (Foundation only)")
PY

# 2. No process spawning in the SDK's sources.
if grep -rnE 'posix_spawn|\bfork\(|\bexecv|Foundation\.Process|\bProcess\(\)' Sources/OnboardMetricsSDK Sources/OnboardMetricsURLSession Sources/OnboardMetricsTesting; then
    echo "check-sdk-apart: the SDK spawns processes (not available on iOS)" >&2
    exit 1
fi
echo "check-sdk-apart: no process spawning in the SDK"

# 3. Build the SDK product with libpq unusable.
git ls-files -z | (cd "$root" && xargs -0 tar cf -) | tar xf - -C "$copy"
printf '#error "libpq is not available to the SDK: something in its closure includes CPostgres"\n' \
    > "$copy/Sources/CPostgres/shim.h"
(cd "$copy" && swift build --target OnboardMetricsSDK --scratch-path "$copy/.build-sdk" 2>&1 | tail -3)
(cd "$copy" && swift build --target OnboardMetricsURLSession --scratch-path "$copy/.build-sdk" 2>&1 | tail -1)
(cd "$copy" && swift build --target OnboardMetricsTesting --scratch-path "$copy/.build-sdk" 2>&1 | tail -1)
# The SDK's tests too: they build without the server side.
(cd "$copy" && swift build --target OnboardMetricsSDKTests --scratch-path "$copy/.build-sdk" 2>&1 | tail -1)
# The same copy must fail to build the server library: the check can tell.
if (cd "$copy" && swift build --target OnboardMetrics --scratch-path "$copy/.build-sdk" >/dev/null 2>&1); then
    echo "check-sdk-apart: the server library built without libpq; the #error did not take effect" >&2
    exit 1
fi
echo "check-sdk-apart: the SDK product builds with libpq unusable (the server library does not)"
