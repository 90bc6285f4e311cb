#!/usr/bin/env bash
# Builds Citus from a source checkout against the local PostgreSQL 15 and installs it into a
# private, relocated copy of that PostgreSQL (nothing under /usr is changed):
#
#   bash scripts/citus-build.sh CITUS_SOURCE_DIR PREFIX
#
# PREFIX/usr/lib/postgresql/15/bin/postgres then runs with the citus extension available.
# PostgreSQL computes its lib and share folders relative to its own executable, so a copy of
# /usr/lib/postgresql/15 and /usr/share/postgresql/15 under PREFIX is a complete installation;
# Citus is installed into it with `make install DESTDIR=PREFIX`. PostgreSQL 15 has no
# extension_control_path, so this copy is the way to load an extension without root writes to
# the system's folders. A second run with the same PREFIX reuses the build.
#
# Needs postgresql-server-dev-15 (pg_config, PGXS), libkrb5-dev (its headers include gssapi.h) and, for Citus' configure, the lz4/zstd/curl
# development headers — or it builds without them (--without-libcurl etc. are chosen when a
# header is missing).
set -euo pipefail

src="${1:?usage: citus-build.sh CITUS_SOURCE_DIR PREFIX}"
prefix="${2:?usage: citus-build.sh CITUS_SOURCE_DIR PREFIX}"
pg_config=/usr/lib/postgresql/15/bin/pg_config
[ -x "$pg_config" ] || { echo "citus-build: $pg_config missing (apt-get install -y postgresql-server-dev-15)" >&2; exit 1; }
[ -f "$src/configure" ] || { echo "citus-build: $src is not a Citus source checkout" >&2; exit 1; }

bindir="$("$pg_config" --bindir)"      # /usr/lib/postgresql/15/bin
pkglibdir="$("$pg_config" --pkglibdir)" # /usr/lib/postgresql/15/lib
sharedir="$("$pg_config" --sharedir)"   # /usr/share/postgresql/15

if [ -f "$prefix$pkglibdir/citus.so" ] && [ -f "$prefix$sharedir/extension/citus.control" ]; then
    echo "citus-build: reusing $prefix" >&2
    exit 0
fi

mkdir -p "$prefix"
build="$prefix/build"
rm -rf "$build"
# Build from a copy: the checkout given to us is left as it was.
cp -a "$src" "$build"
rm -rf "$build/.git"

# PostgreSQL 15.18 exports have_createdb_privilege() from dbcommands.h; Citus 13.2's
# pg_version_compat.h defines a static inline of the same name for PG < 16, which then fails to
# compile. Where the server header declares it, the inline is replaced by that header.
compat="$build/src/include/pg_version_compat.h"
if grep -q 'have_createdb_privilege' "$("$pg_config" --includedir-server)/commands/dbcommands.h" &&
    grep -q '^have_createdb_privilege(void)' "$compat"; then
    echo "citus-build: applying the have_createdb_privilege compatibility fix" >&2
    python3 - "$compat" <<'PY'
import re, sys
path = sys.argv[1]
text = open(path).read()
pattern = re.compile(r"static inline bool\nhave_createdb_privilege\(void\)\n\{.*?\n\}\n", re.S)
text, n = pattern.subn('#include "commands/dbcommands.h"\n', text, count=1)
if n != 1:
    sys.exit("citus-build: have_createdb_privilege inline not found")
open(path, "w").write(text)
PY
fi

flags=()
[ -f /usr/include/curl/curl.h ] || [ -f /usr/include/x86_64-linux-gnu/curl/curl.h ] || flags+=(--without-libcurl)
[ -f /usr/include/lz4.h ] || flags+=(--without-lz4)
[ -f /usr/include/zstd.h ] || flags+=(--without-zstd)

(
    cd "$build"
    PG_CONFIG="$pg_config" ./configure "${flags[@]}" >"$prefix/configure.log" 2>&1 ||
        { tail -30 "$prefix/configure.log" >&2; exit 1; }
    make -j"${CITUS_BUILD_JOBS:-2}" with_llvm=no >"$prefix/make.log" 2>&1 || { tail -40 "$prefix/make.log" >&2; exit 1; }
)

# The relocated PostgreSQL: binaries, libraries and share files, then Citus into it.
mkdir -p "$prefix$(dirname "$bindir")" "$prefix$(dirname "$sharedir")"
cp -a "$(dirname "$bindir")/." "$prefix$(dirname "$bindir")/"
cp -a "$sharedir/." "$prefix$sharedir/" 2>/dev/null || { mkdir -p "$prefix$sharedir" && cp -a "$sharedir/." "$prefix$sharedir/"; }
(cd "$build" && make install with_llvm=no DESTDIR="$prefix" >"$prefix/install.log" 2>&1) || { tail -20 "$prefix/install.log" >&2; exit 1; }
chmod -R a+rX "$prefix"
echo "citus-build: installed Citus into $prefix$pkglibdir" >&2
