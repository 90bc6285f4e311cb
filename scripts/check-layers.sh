#!/usr/bin/env bash
# Checks the layers of the data flow (README, "Architecture"): each target of Package.swift may
# depend on, and import, only the targets below it in LAYERS (a target's own level and above are
# refused, so a back-edge fails here even where SwiftPM would let a transitive module through);
# CPostgres is imported by OnboardMetricsPostgres alone, FoundationNetworking by OnboardMetricsURLSession
# alone (no other target depends on it); the CLI holds no SQL. Prints what it
# checked; exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
swift package dump-package > "${TMPDIR:-/tmp}/onboardmetrics-layers.json"
python3 - "${TMPDIR:-/tmp}/onboardmetrics-layers.json" <<'PY'
import json, os, re, sys

# Bottom to top; a target may use only targets of lower levels (and the system libraries).
LAYERS = [
    ["CPostgres", "CZlib", "OnboardMetricsSDK", "OnboardMetricsStatistics"],
    ["OnboardMetricsTesting", "OnboardMetricsURLSession", "OnboardMetricsPostgres", "OnboardMetricsFormats", "OnboardMetricsGeneration", "OnboardMetricsHTTP"],
    ["OnboardMetricsStore"],
    ["OnboardMetricsReader", "OnboardMetricsServerTesting"],
    ["OnboardMetricsAnalysis"],
    ["OnboardMetricsRendering", "OnboardMetricsCollector"],
    ["OnboardMetricsDashboard"],
    ["OnboardMetrics"],
    ["funnel", "recorder-bench"],
]
level = {name: index for index, names in enumerate(LAYERS) for name in names}
package = json.load(open(sys.argv[1]))
failures = []
for target in package["targets"]:
    name = target["name"]
    if target["type"] == "test" or name not in level:
        if target["type"] != "test" and target["type"] != "executable":
            failures.append(f"{name} is in no layer of scripts/check-layers.sh")
        continue
    deps = []
    for dependency in target.get("dependencies", []):
        for kind in ("byName", "target"):
            if kind in dependency:
                deps.append(dependency[kind][0])
    for dependency in deps:
        if dependency == "OnboardMetricsURLSession":
            failures.append(f"{name} depends on OnboardMetricsURLSession (FoundationNetworking stays out of the server)")
        if dependency in level and level[dependency] >= level[name]:
            failures.append(f"{name} depends on {dependency}, which is not below it")
    # Imports: of the package's own modules, only lower layers.
    path = target.get("path") or f"Sources/{name}"
    for root, _, files in os.walk(path):
        for file in files:
            if not file.endswith(".swift"):
                continue
            source = open(os.path.join(root, file)).read()
            for module in re.findall(r"^[ \t]*(?:@_exported |@testable |public |package )?import (\w+)", source, re.M):
                if module == "CPostgres" and name != "OnboardMetricsPostgres":
                    failures.append(f"{os.path.join(root, file)} imports CPostgres (only OnboardMetricsPostgres may)")
                # URLSession is FoundationNetworking on Linux, which loads libcurl and its libraries
                # into every program that links it: the server's targets stay without it.
                if module in ("FoundationNetworking", "OnboardMetricsURLSession") and name != "OnboardMetricsURLSession":
                    failures.append(f"{os.path.join(root, file)} imports {module} (only OnboardMetricsURLSession may)")
                if module in level and module != name and level[module] >= level[name]:
                    failures.append(f"{os.path.join(root, file)} ({name}) imports {module}, which is not below it")
    print(f"check-layers: {name} (level {level[name]}) uses {sorted(set(deps) & set(level)) or 'no package target'}")

# No SQL in the CLI: it goes through the store's types.
for root, _, files in os.walk("Sources/funnel"):
    for file in files:
        text = open(os.path.join(root, file)).read()
        if re.search(r'"\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|ALTER|DROP)\b', text) or ".query(" in text:
            failures.append(f"Sources/funnel/{file} holds SQL (use a store type of OnboardMetricsStore)")

if failures:
    sys.exit("check-layers: " + "\ncheck-layers: ".join(failures))
print("check-layers: every target uses only the layers below it; CPostgres only in OnboardMetricsPostgres; FoundationNetworking only in OnboardMetricsURLSession; no SQL in the CLI")
PY
