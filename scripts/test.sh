#!/usr/bin/env bash
# scripts/test.sh - the project's test command (what .ci/run calls).
#   1. installs the Debian packages (scripts/install-deps.sh, idempotent)
#   2. configures and builds everything into ./build (-j2)
#   3. runs ctest: unit tests (label "unit") and integration tests with real ibsim + OpenSM
#      (label "integration"), --output-on-failure, and prints ctest's summary.
# Exits non-zero if any step or test fails.
#
# Options: --no-deps (skip install-deps.sh), --unit | --integration (only that label),
#          -R REGEX (passed to ctest), --build-dir DIR (default ./build; env FTROUTE_BUILD_DIR),
#          -j N (build and ctest parallelism, default 2).
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${FTROUTE_BUILD_DIR:-$REPO/build}
JOBS=2
DEPS=1
CTEST_ARGS=()
while [ $# -gt 0 ]; do
  case $1 in
    --no-deps) DEPS=0; shift ;;
    --unit) CTEST_ARGS+=(-L unit); shift ;;
    --integration) CTEST_ARGS+=(-L integration); shift ;;
    -R) CTEST_ARGS+=(-R "$2"); shift 2 ;;
    --build-dir) BUILD=$2; shift 2 ;;
    -j) JOBS=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "test.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
t0=$SECONDS
step() { printf '\n=== %s (%ds)\n' "$*" $((SECONDS - t0)); }

if [ $DEPS -eq 1 ]; then
  step "install dependencies"
  bash "$REPO/scripts/install-deps.sh"
fi

step "configure ($BUILD)"
cmake -S "$REPO" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo

step "build (-j$JOBS)"
cmake --build "$BUILD" -j"$JOBS"

step "ctest"
rc=0
(cd "$BUILD" && ctest --output-on-failure -j"$JOBS" --timeout 600 "${CTEST_ARGS[@]+"${CTEST_ARGS[@]}"}") || rc=$?

step "done: ctest exit code $rc, total $((SECONDS - t0)) s"
exit $rc
