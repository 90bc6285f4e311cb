# Sourced by the benchmark scripts: the one way they build the release binaries they time, as the
# README installs them (the Swift runtime linked in, so a command starts in about 10 ms, 16 ms
# with the runtime's 40-odd shared libraries, which small loads and reports pay once). Defines:
#   release_build [ARGS...]   swift build of the release binaries (ARGS: --product, --scratch-path)
#   release_bin [ARGS...]     the folder they are built into
#   bench_bin                 sets `bin`: BENCH_BIN=FOLDER runs the binaries in FOLDER (e.g. a copy
#                             of an older build, to alternate old and new), else this tree's, built
release_build() { swift build -c release --static-swift-stdlib "$@"; }
release_bin() { swift build -c release --static-swift-stdlib --show-bin-path "$@"; }
bench_bin() {
    if [ -n "${BENCH_BIN:-}" ]; then
        bin="$BENCH_BIN"
    else
        release_build >/dev/null
        bin="$(release_bin)"
    fi
}
