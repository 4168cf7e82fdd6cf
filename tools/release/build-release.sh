#!/bin/sh
#   build-release.sh - build one release's `drover` from its recorded commit
#
#   Usage: build-release.sh VERSION OUTDIR
#
#   VERSION is a version listed in RELEASES (top of the source tree), or
#   `previous`: the last line whose version differs from this tree's
#   (DROVER_VERSION in the environment, else CMakeLists.txt's project
#   VERSION). The release's tree is exported from git (git archive: no
#   checkout, nothing of the work tree touched) into OUTDIR/src, its
#   `drover` target alone built into OUTDIR/build (RelWithDebInfo, no
#   sanitizers, jemalloc as the release's default; ccache when present) and
#   copied to OUTDIR/drover. OUTDIR/drover.stamp names the commit it was
#   built from: run again with the same release, it does nothing.
#
#   Exit: 0 built (or already built), 1 failed (the reason on stderr),
#   2 usage, 3 the source is no git repository (a tarball) or a shallow
#   clone without the release's commit: there is no history to build it
#   from (the upgrade test says so loudly and counts as skipped).
#
#   The upgrade test (tests/test_upgrade.c) and the CMake target
#   `previous-release` run it with `previous` and BUILD/previous.
set -eu

die () { echo "build-release: $*" >&2; exit 1; }

[ $# -eq 2 ] || { echo "usage: build-release.sh VERSION|previous OUTDIR" >&2; exit 2; }
version="$1"
outdir="$2"
here="$(cd "$(dirname "$0")" && pwd)"
source_dir="$(cd "$here/../.." && pwd)"
releases="$source_dir/RELEASES"
[ -f "$releases" ] || die "$releases: missing (the list of releases)"

#   This tree's version, to tell the previous release from it
if [ -z "${DROVER_VERSION:-}" ]; then
    DROVER_VERSION="$(sed -n 's/^project *( *drover  *VERSION  *\([0-9.]*\).*/\1/p' \
                      "$source_dir/CMakeLists.txt" | head -n 1)"
fi
line="$(grep -v '^[[:space:]]*#' "$releases" | awk -v want="$version" -v ours="$DROVER_VERSION" '
    NF >= 2 && want == "previous" && $1 != ours { found = $0 }
    NF >= 2 && $1 == want { found = $0 }
    END { if (found != "") print found }')"
if [ -z "$line" ] && [ "$version" = previous ]; then
    die "$releases lists no release but this tree's own version (${DROVER_VERSION:-unknown}):" \
        "there is no previous release to build (is CMakeLists.txt's project VERSION the next" \
        "release's?)"
fi
[ -n "$line" ] || die "no release $version in $releases (this tree is ${DROVER_VERSION:-unknown})"
# shellcheck disable=SC2086  # the fields, split on blanks
set -- $line
release="$1"
commit="$2"
echo "$commit" | grep -Eq '^[0-9a-f]{40}$' \
    || die "$releases: release $release: '$commit' is not a full commit hash"

mkdir -p "$outdir" || die "cannot make $outdir"
outdir="$(cd "$outdir" && pwd)"
stamp="$outdir/drover.stamp"
if [ -x "$outdir/drover" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$commit" ]; then
    echo "build-release: drover $release ($commit) already built: $outdir/drover"
    exit 0
fi

#   Only a clone holds the history: say plainly when it is missing
if ! command -v git >/dev/null 2>&1; then
    if [ -e "$source_dir/.git" ]; then
        die "git is not installed: it is needed to export release $release ($commit)" \
            "from $source_dir (apt-get install git)"
    fi
    echo "build-release: $source_dir is no git repository (a tarball?) and git is missing:" \
         "no history to build release $release from" >&2
    exit 3
fi
toplevel="$(git -C "$source_dir" rev-parse --show-toplevel 2>/dev/null || true)"
if [ -z "$toplevel" ] || [ "$(cd "$toplevel" && pwd -P)" != "$(cd "$source_dir" && pwd -P)" ]; then
    echo "build-release: $source_dir is no git repository (a tarball?): no history to" \
         "build release $release ($commit) from; use a clone" >&2
    exit 3
fi
if ! git -C "$source_dir" cat-file -e "$commit^{commit}" 2>/dev/null; then
    if [ "$(git -C "$source_dir" rev-parse --is-shallow-repository 2>/dev/null)" = true ]; then
        echo "build-release: release $release's commit $commit is not in this shallow" \
             "clone: no history to build it from; fetch it: git -C $source_dir fetch" \
             "--unshallow" >&2
        exit 3
    fi
    die "release $release's commit $commit is not in the repository at $source_dir:" \
        "fetch it (git fetch origin), or correct RELEASES"
fi

#   One build at a time in OUTDIR (the CMake target and a test may race)
if command -v flock >/dev/null 2>&1 && [ -z "${DROVER_RELEASE_LOCKED:-}" ]; then
    DROVER_RELEASE_LOCKED=1 exec flock "$outdir/.lock" "$0" "$version" "$outdir"
fi
if [ -x "$outdir/drover" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$commit" ]; then
    echo "build-release: drover $release ($commit) already built: $outdir/drover"
    exit 0
fi

echo "build-release: building drover $release from $commit into $outdir"
rm -rf "$outdir/src" "$outdir/drover" "$stamp"
mkdir -p "$outdir/src"
git -C "$source_dir" archive --format=tar "$commit" | tar -x -C "$outdir/src" \
    || die "could not export $commit from $source_dir"

#   A plain build whatever the caller's flags (a sanitizer build dir too);
#   ccache keyed on paths under OUTDIR, so build dirs share their objects
unset CFLAGS LDFLAGS CPPFLAGS
export CCACHE_BASEDIR="$outdir" CCACHE_NOHASHDIR=1
launcher=""
command -v ccache >/dev/null 2>&1 && launcher="-DCMAKE_C_COMPILER_LAUNCHER=ccache"
jobs="$(nproc 2>/dev/null || echo 2)"
[ "$jobs" -gt 2 ] && jobs=2
cmake -S "$outdir/src" -B "$outdir/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DDROVER_SANITIZE=OFF -DDROVER_FUZZ=OFF $launcher >"$outdir/configure.log" 2>&1 \
    || { tail -n 30 "$outdir/configure.log" >&2; die "configure failed: $outdir/configure.log"; }
cmake --build "$outdir/build" --target drover -j "$jobs" >"$outdir/build.log" 2>&1 \
    || { tail -n 30 "$outdir/build.log" >&2; die "build failed: $outdir/build.log"; }
cp "$outdir/build/drover" "$outdir/drover.tmp" 2>/dev/null \
    || cp "$(find "$outdir/build" -type f -name drover -perm -u+x | head -n 1)" "$outdir/drover.tmp" \
    || die "the build made no drover executable under $outdir/build"
mv "$outdir/drover.tmp" "$outdir/drover"
echo "$commit" >"$stamp"
echo "build-release: drover $release built: $outdir/drover ($("$outdir/drover" --version 2>&1 | head -n 1))"
