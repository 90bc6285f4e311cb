#!/usr/bin/env bash
# Fuzzes the parsers that read untrusted input with libFuzzer, each for a bounded time:
# json-event (JSONEventParser + EventValidator), csv (CSVReader), condition (ConditionParser),
# batch (the collector's EventBatch), segment and posthog (their bodies, mapped to events and
# validated) and flow (FlowDefinition/FlowCatalog).
#
#   bash scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default 60 s, every target)
#
# The harness (Fuzz/FuzzTargets.swift) is compiled with the sources it exercises by swiftc
# -sanitize=fuzzer,address into .build/fuzz/, not by `swift build`. Seeds are Fuzz/corpus/TARGET;
# new inputs go to .build/fuzz/corpus/TARGET (not committed). A crash stops with its input saved
# as .build/fuzz/crash-*; put it into a test and fix it. Exits non-zero if any target found one.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

seconds="${1:-60}"
shift || true
targets=("$@")
[ "${#targets[@]}" -gt 0 ] || targets=(json-event csv condition batch segment posthog flow)

out=.build/fuzz
mkdir -p "$out"
# The server-side parsers come from targets above the SDK: in the harness's one module their
# imports of the package's own modules are dropped (copies under $out/sources).
layered=(
    Sources/OnboardMetricsStore/Ingest/CSVReader.swift
    Sources/OnboardMetricsFormats/EventBatch.swift
    Sources/OnboardMetricsFormats/CollectorError.swift
    Sources/OnboardMetricsFormats/AnalyticsMessage.swift
    Sources/OnboardMetricsFormats/SegmentBatch.swift
    Sources/OnboardMetricsFormats/PostHogBatch.swift
    Sources/OnboardMetricsFormats/EventMapping.swift
    Sources/OnboardMetricsFormats/EventMapping+File.swift
    Sources/OnboardMetricsFormats/EventMappingError.swift
)
mkdir -p "$out/sources"
copies=()
for file in "${layered[@]}"; do
    copy="$out/sources/$(basename "$file")"
    sed '/^import OnboardMetrics/d' "$file" > "$copy.new"
    # Replaced only when changed, so the harness is rebuilt only when a source changed.
    if cmp -s "$copy.new" "$copy"; then rm "$copy.new"; else mv "$copy.new" "$copy"; fi
    copies+=("$copy")
done
sources=(
    $(find Sources/OnboardMetricsSDK -name '*.swift' | sort)
    "${copies[@]}"
    Fuzz/FuzzTargets.swift
)
binary="$out/fuzz-targets"
# Rebuilt only when a source changed.
if [ ! -x "$binary" ] || [ -n "$(find "${sources[@]}" -newer "$binary" 2>/dev/null | head -1)" ]; then
    echo "building $binary" >&2
    swiftc -sanitize=fuzzer,address -parse-as-library -O -g -module-name FuzzTargets -package-name onboardmetrics \
        -swift-version 6 "${sources[@]}" -o "$binary" >"$out/build.log" 2>&1 || { cat "$out/build.log" >&2; exit 1; }
fi

status=0
for target in "${targets[@]}"; do
    [ -d "Fuzz/corpus/$target" ] || { echo "unknown target $target" >&2; exit 64; }
    mkdir -p "$out/corpus/$target"
    echo "fuzzing $target for $seconds s" >&2
    if ! FUZZ_TARGET="$target" "$binary" "$out/corpus/$target" "Fuzz/corpus/$target" \
        -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$out/crash-$target-" -print_final_stats=1 >"$out/$target.log" 2>&1; then
        echo "$target: FOUND A CRASH (see $out/$target.log and $out/crash-$target-*)" >&2
        tail -40 "$out/$target.log" >&2
        status=1
    else
        grep -E "stat::number_of_executed_units|cov:" "$out/$target.log" | tail -2 >&2 || true
    fi
done
exit "$status"
