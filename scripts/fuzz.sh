#!/usr/bin/env bash
# scripts/fuzz.sh - coverage-guided fuzzing of ftroute's readers with libFuzzer (issue #19).
#
# Builds the targets of tests/fuzz/ with clang (-fsanitize=fuzzer,address,undefined) in their own
# build directory (default ./build-fuzz, never the main build), replays every reproducer kept in
# tests/fuzz/crashes/<target>/ (a crash found once stays fixed), then runs each target for
# --seconds N (default 12: about 60 s for the five) over its seed corpus:
#   fuzz_netfile         .net / ibnetdiscover reader (+ subnet.lst)   seeds: shipped fabrics, tests/data/bad/net, ok/*.net
#   fuzz_lft             opensm-lfts.dump and dump_fts readers, LID adoption, mapping
#   fuzz_sl, fuzz_sl2vl  path-SL and SL2VL readers
#   fuzz_engine_options  EngineOptions::parse + ranges of every engine, plugin options
# New inputs go to BUILD/corpus/<target>/ (not the repository). A crash, leak, UB report or
# timeout leaves BUILD/artifacts/<target>-crash-* and makes the script exit 1: copy that file to
# tests/fuzz/crashes/<target>/, fix the reader, and it is replayed from then on.
#
# Options: --seconds N (per target), --only NAME (one target, e.g. lft), --build-dir DIR,
#          --require (fail instead of skipping when clang++/libFuzzer are missing), -j N (build).
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$REPO/build-fuzz
SECONDS_PER=12
ONLY=""
REQUIRE=0
JOBS=2
while [ $# -gt 0 ]; do
  case $1 in
    --seconds) SECONDS_PER=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --build-dir) BUILD=$2; shift 2 ;;
    --require) REQUIRE=1; shift ;;
    -j) JOBS=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "fuzz.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
skip() {
  echo "fuzz.sh: SKIPPED: $*"
  [ $REQUIRE -eq 1 ] && exit 1
  exit 0
}
CXX=$(command -v clang++-14 || command -v clang++ || true)
CC=$(command -v clang-14 || command -v clang || true)
[ -n "$CXX" ] && [ -n "$CC" ] || skip "no clang++ (apt-get install clang-14; scripts/install-deps.sh installs it)"
RES=$("$CXX" -print-resource-dir 2>/dev/null || true)
ls "$RES"/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 ||
  skip "no libFuzzer runtime for $CXX (apt-get install libclang-rt-14-dev; scripts/install-deps.sh installs it)"

LAUNCH=()
command -v ccache >/dev/null 2>&1 && LAUNCH=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  CC=$CC CXX=$CXX cmake -S "$REPO" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
    -DFTROUTE_FUZZ=ON -DFTROUTE_BUILD_PLUGIN=OFF -DFTROUTE_BUILD_TESTS=OFF "${LAUNCH[@]}" >/dev/null
fi
nice cmake --build "$BUILD" -j"$JOBS" --target fuzz_targets >/dev/null

D=$REPO/tests/data
seeds() {  # seed directories of a target (read-only inputs)
  case $1 in
    netfile) echo "$REPO/ibsim_topologies/nets $D/net $D/bad/net $D/bad/ok" ;;
    lft) echo "$D/lft $D/bad/lft" ;;
    sl) echo "$D/bad/sl" ;;
    sl2vl) echo "$D/bad/sl2vl" ;;
    engine_options) echo "$REPO/tests/fuzz/seeds/engine_options" ;;
  esac
}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$BUILD/artifacts"
rc=0
for t in netfile lft sl sl2vl engine_options; do
  [ -n "$ONLY" ] && [ "$ONLY" != "$t" ] && continue
  bin=$BUILD/tests/fuzz/fuzz_$t
  # 1. replay the kept reproducers
  repro=$REPO/tests/fuzz/crashes/$t
  if [ -d "$repro" ] && [ -n "$(ls -A "$repro" 2>/dev/null)" ]; then
    if ! "$bin" -runs=0 "$repro"/* >"$BUILD/artifacts/$t-replay.log" 2>&1; then
      echo "fuzz.sh: $t: a kept reproducer in tests/fuzz/crashes/$t fails again:"; tail -30 "$BUILD/artifacts/$t-replay.log"
      rc=1
      continue
    fi
  fi
  # 2. fuzz for a bounded time
  corpus=$BUILD/corpus/$t
  mkdir -p "$corpus"
  t0=$SECONDS
  # shellcheck disable=SC2046
  if "$bin" -max_total_time="$SECONDS_PER" -max_len=8192 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$BUILD/artifacts/$t-" "$corpus" $(seeds $t) >"$BUILD/artifacts/$t.log" 2>&1; then
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$BUILD/artifacts/$t.log" | grep -o '[0-9]*$' || echo '?')
    cov=$(grep -o 'cov: [0-9]*' "$BUILD/artifacts/$t.log" | tail -1 || true)
    echo "fuzz.sh: $t: ok, $execs runs in $((SECONDS - t0)) s, $cov, corpus $(ls "$corpus" | wc -l) new files"
  else
    echo "fuzz.sh: $t: FINDING (log: $BUILD/artifacts/$t.log):"
    grep -E "ERROR|runtime error|SUMMARY|Test unit written|deadly signal" "$BUILD/artifacts/$t.log" | sed -n 1,12p
    rc=1
  fi
done
exit $rc
