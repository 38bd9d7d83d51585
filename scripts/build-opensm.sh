#!/usr/bin/env bash
# build-opensm.sh - build upstream OpenSM from its release tarball into PREFIX, to build and test
# libftroute.so against an OpenSM other than the distribution's (docs/INSTALL.md, "Building against
# any other OpenSM").
#
# usage: scripts/build-opensm.sh [--tarball-dir DIR] [--sha256 HASH] [--no-deps] VERSION PREFIX
#   VERSION   3.3.24 (the last upstream release, what RHEL/Rocky/Alma 8-9 ship) or master-fa74b98c
#             (upstream master at commit fa74b98c); another VERSION needs --sha256 of its tarball
#   PREFIX    install prefix (./configure --prefix): PREFIX/sbin/opensm, PREFIX/include/infiniband/...
#             Must be new, empty or an earlier build of this script.
#   --tarball-dir DIR  where opensm-VERSION.tar.gz is (env OPENSM_TARBALL_DIR; default: the
#             directory shared/third_party next to the clone, else third_party/ in the clone).
#             The tarballs are upstream's release tarballs (github.com/linux-rdma/opensm releases,
#             or `git archive --prefix=opensm-VERSION/` of that ref), unmodified.
#   --sha256 HASH  expected sha256 of the tarball (default: the known hash of VERSION)
#   --no-deps skip scripts/install-deps.sh --opensm-build (autoconf, automake, libtool-bin, flex,
#             bison, pkg-config, libibumad-dev)
#
# Steps (each logged to WORK/<step>.log): deps, verify (sha256), unpack, autogen, configure, make,
# install (DESTDIR staging), commit (the staged tree moved into PREFIX). Nothing lands in PREFIX
# before every step has passed; a failure prints one line naming the step and its log and exits 1.
# PREFIX already holding this VERSION's build (PREFIX/.ftroute-opensm-build names VERSION and the
# tarball's sha256): "up to date", nothing rebuilt (the tarball is not even needed then).
# Exit codes: 0 built or up to date, 1 a step failed, 2 usage error, 3 tarball missing (CI: SKIP).
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
usage() { echo "build-opensm.sh: $*; see 'scripts/build-opensm.sh --help'" >&2; exit 2; }

TARBALL_DIR=${OPENSM_TARBALL_DIR:-}
SHA=""
DEPS=1
ARGS=()
while [ $# -gt 0 ]; do
  case $1 in
    --tarball-dir) [ $# -ge 2 ] || usage "--tarball-dir needs a directory"; TARBALL_DIR=$2; shift 2 ;;
    --sha256) [ $# -ge 2 ] || usage "--sha256 needs a hash"; SHA=$2; shift 2 ;;
    --no-deps) DEPS=0; shift ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    -*) usage "unknown option '$1'" ;;
    *) ARGS+=("$1"); shift ;;
  esac
done
[ ${#ARGS[@]} -eq 2 ] || usage "expected VERSION PREFIX"
VERSION=${ARGS[0]}
PREFIX=${ARGS[1]}

# Known upstream tarballs (sha256 of the unmodified file).
case $VERSION in
  3.3.24) KNOWN=211cf9e38a40b3330ff127985a26cba5d4e4203a66968ab02a495d45956c703c ;;
  master-fa74b98c) KNOWN=8bc4402b83987bc674be03c7977a66d35e54fdd37df1c0b0f25ed5b2fa15d5be ;;
  *) KNOWN="" ;;
esac
[[ $VERSION =~ ^[A-Za-z0-9][A-Za-z0-9._-]*$ ]] || usage "bad VERSION '$VERSION'"
if [ -z "$SHA" ]; then
  [ -n "$KNOWN" ] || usage "unknown version '$VERSION' (known: 3.3.24, master-fa74b98c; another needs --sha256 HASH)"
  SHA=$KNOWN
fi
[[ $SHA =~ ^[0-9a-f]{64}$ ]] || usage "--sha256 '$SHA' is not a sha256 hex digest"
[ -n "$PREFIX" ] || usage "empty PREFIX"
case $PREFIX in /*) ;; *) PREFIX=$PWD/$PREFIX ;; esac
PREFIX=${PREFIX%/}
[ -n "$PREFIX" ] && [ "$PREFIX" != / ] || usage "PREFIX must not be /"

STAMP=.ftroute-opensm-build
want="version $VERSION sha256 $SHA"
if [ -f "$PREFIX/$STAMP" ] && [ "$(cat "$PREFIX/$STAMP")" = "$want" ] && [ -x "$PREFIX/sbin/opensm" ] &&
   [ -f "$PREFIX/include/infiniband/opensm/osm_event_plugin.h" ]; then
  echo "build-opensm.sh: $PREFIX already holds OpenSM $VERSION (up to date)"
  exit 0
fi
if [ -z "$TARBALL_DIR" ]; then
  # CI keeps the third-party tarballs in shared/third_party beside the clone; a third_party/ in
  # the clone works too (neither is part of the project).
  for d in "${REPO%/*}/shared/third_party" "$REPO/third_party"; do
    [ -e "$d/opensm-$VERSION.tar.gz" ] && { TARBALL_DIR=$d; break; }
  done
fi
TARBALL=${TARBALL_DIR:-${REPO%/*}/shared/third_party}/opensm-$VERSION.tar.gz
if [ ! -f "$TARBALL" ]; then
  echo "build-opensm.sh: tarball missing: $TARBALL (upstream release tarball opensm-$VERSION.tar.gz; --tarball-dir DIR or OPENSM_TARBALL_DIR)" >&2
  exit 3
fi

if [ -e "$PREFIX" ] && [ ! -f "$PREFIX/$STAMP" ] && [ -n "$(ls -A "$PREFIX" 2>/dev/null || echo x)" ]; then
  echo "build-opensm.sh: $PREFIX exists and is not a build of this script; give a new or empty directory" >&2
  exit 1
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/build-opensm.XXXXXX")
STEP=""
LOG=""
fail() {
  echo "build-opensm.sh: step '$STEP' failed for OpenSM $VERSION${1:+: $1} (log: $LOG; PREFIX $PREFIX untouched)" >&2
  exit 1
}
# step NAME CMD...: runs CMD with its output in WORK/NAME.log; on failure one line and exit 1.
step() {
  STEP=$1; shift
  LOG=$WORK/$STEP.log
  "$@" > "$LOG" 2>&1 || fail
}
t0=$SECONDS
echo "build-opensm.sh: building OpenSM $VERSION from $TARBALL into $PREFIX (logs in $WORK)"
if [ $DEPS -eq 1 ]; then
  step deps bash "$REPO/scripts/install-deps.sh" --opensm-build
fi
STEP=verify; LOG=$WORK/verify.log
got=$(sha256sum "$TARBALL" 2>"$LOG" | cut -d' ' -f1) || fail
[ "$got" = "$SHA" ] || fail "sha256 $got, expected $SHA (corrupt or another tarball)"
step unpack tar -xzf "$TARBALL" -C "$WORK"
SRC=$WORK/opensm-$VERSION
[ -d "$SRC" ] || { STEP=unpack; fail "no top directory opensm-$VERSION in the tarball"; }
JOBS=${JOBS:-2}
step autogen bash -c 'cd "$1" && ./autogen.sh' _ "$SRC"
step configure bash -c 'cd "$1" && ./configure --prefix="$2"' _ "$SRC" "$PREFIX"
step make make -C "$SRC" -j"$JOBS"
STAGE=$WORK/stage
step install make -C "$SRC" install DESTDIR="$STAGE"
STEP=install; LOG=$WORK/install.log
[ -x "$STAGE$PREFIX/sbin/opensm" ] && [ -f "$STAGE$PREFIX/include/infiniband/opensm/osm_event_plugin.h" ] ||
  fail "no sbin/opensm or include/infiniband/opensm/osm_event_plugin.h in the staged install"
echo "$want" > "$STAGE$PREFIX/$STAMP"
# Commit: the staged tree replaces PREFIX in one rename (an earlier build is moved aside first and
# removed afterwards), so PREFIX never holds half an install.
STEP=commit; LOG=$WORK/commit.log
{
  mkdir -p "$(dirname "$PREFIX")"
  old=""
  if [ -e "$PREFIX" ]; then old=$PREFIX.old.$$; mv "$PREFIX" "$old"; fi
  if ! mv "$STAGE$PREFIX" "$PREFIX" 2>/dev/null; then
    # another file system: copy beside PREFIX, then rename
    rm -rf "$PREFIX.new.$$"
    cp -a "$STAGE$PREFIX" "$PREFIX.new.$$" && mv "$PREFIX.new.$$" "$PREFIX" ||
      { rm -rf "$PREFIX.new.$$"; [ -z "$old" ] || mv "$old" "$PREFIX"; false; }
  fi
  [ -z "$old" ] || rm -rf "$old"
} > "$LOG" 2>&1 || fail
rm -rf "$WORK"
echo "build-opensm.sh: OpenSM $VERSION installed in $PREFIX ($PREFIX/sbin/opensm, headers" \
     "$PREFIX/include/infiniband) in $((SECONDS - t0)) s"
