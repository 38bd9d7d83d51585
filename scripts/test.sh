#!/usr/bin/env bash
# scripts/test.sh - the project's test command (what .ci/run calls).
#   1. installs the Debian packages (scripts/install-deps.sh, idempotent)
#   2. configures and builds everything into ./build (-j2)
#   3. runs ctest (-j 2 x JOBS): unit tests (label "unit") and integration tests with real ibsim +
#      OpenSM (label "integration"), --output-on-failure, and prints ctest's summary.
#   4. sanitizers: the unit tests once more, built with clang -O1 -fsanitize=address,undefined
#      in ./build-sanitize (only the unit test targets and what they need; the build starts beside
#      step 3 at the lowest priority and its output is printed here), run under ASan+UBSan
#      (the few unit tests that take > 10 s normally, and those needing OpenSM, are left out:
#      SAN_EXCLUDE below; docs/HARNESS.md)
#   5. fuzz: every libFuzzer target of tests/fuzz/ for ~8 s over its corpus (scripts/fuzz.sh,
#      same build directory), after replaying the kept reproducers
#   6. OpenSM matrix (in the background beside steps 4-5, from the end of step 3 on; its output
#      is printed at the end): for upstream OpenSM 3.3.24 and master (fa74b98c), built from the upstream
#      release tarballs by scripts/build-opensm.sh into ./build-osm-VERSION/opensm (kept: the next
#      run skips the build), the plugin and the tests that load it built against that OpenSM in
#      ./build-osm-VERSION (-DOPENSM_PREFIX; from ccache, the objects of step 2), then under that
#      OpenSM: the 3-fault tree with ftree-misroute, Unlink + re-route, a multi-VL engine with
#      `qos TRUE` and the SA path-SL check, dqr after a fault, the layout check; for 3.3.24 also the
#      RPM + tarball (integration.package_rpm) and a plugin claiming "OpenSM 3.3.23" that Debian's
#      OpenSM must refuse (integration.PluginLayout.*). A missing tarball is a loud SKIP (not a
#      failure); OPENSM_TARBALL_DIR or --tarball-dir DIR says where they are.
# Steps 4-5 print "SKIPPED: <reason>" when clang++/libFuzzer are missing (install-deps.sh
# installs clang-14 + libclang-rt-14-dev, so in CI they run).
# Exits non-zero if any step or test fails.
#
# Options: --no-deps (skip install-deps.sh), --unit | --integration (only that label),
#          -R REGEX (passed to ctest), --build-dir DIR (default ./build; env FTROUTE_BUILD_DIR),
#          -j N (build parallelism, default 2), --ctest-jobs N (step 3's ctest, default 2 x -j:
#          the integration tests mostly wait), --no-sanitize (skip steps 4-5),
#          --sanitize-only (only steps 1, 4, 5), --fuzz-seconds N (per fuzz target, default 8),
#          --no-opensm-matrix (skip step 6), --opensm-matrix-only (only steps 1, 6),
#          --tarball-dir DIR (step 6: where opensm-VERSION.tar.gz are; env OPENSM_TARBALL_DIR).
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${FTROUTE_BUILD_DIR:-$REPO/build}
JOBS=2
CTEST_JOBS=
DEPS=1
SANITIZE=1
SANITIZE_ONLY=0
FUZZ_SECONDS=8
MATRIX=1
MATRIX_ONLY=0
CTEST_ARGS=()
while [ $# -gt 0 ]; do
  case $1 in
    --no-deps) DEPS=0; shift ;;
    --unit) CTEST_ARGS+=(-L unit); shift ;;
    --integration) CTEST_ARGS+=(-L integration); shift ;;
    -R) CTEST_ARGS+=(-R "$2"); shift 2 ;;
    --build-dir) BUILD=$2; shift 2 ;;
    -j) JOBS=$2; shift 2 ;;
    --ctest-jobs) CTEST_JOBS=$2; shift 2 ;;
    --no-sanitize) SANITIZE=0; shift ;;
    --sanitize-only) SANITIZE_ONLY=1; shift ;;
    --fuzz-seconds) FUZZ_SECONDS=$2; shift 2 ;;
    --no-opensm-matrix) MATRIX=0; shift ;;
    --opensm-matrix-only) MATRIX_ONLY=1; shift ;;
    --tarball-dir) export OPENSM_TARBALL_DIR=$2; shift 2 ;;
    -h|--help) sed -n '2,34p' "$0"; exit 0 ;;
    *) echo "test.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
CTEST_JOBS=${CTEST_JOBS:-$((JOBS * 2))}
t0=$SECONDS
prebuild=""
step() { printf '\n=== %s (%ds)\n' "$*" $((SECONDS - t0)); }

if [ $DEPS -eq 1 ]; then
  step "install dependencies"
  bash "$REPO/scripts/install-deps.sh"
fi

# ccache when installed: the OpenSM matrix (step 6) compiles the same sources in build dirs beside
# ./build; with paths relative to the repository and the directory left out of the hash, those
# compiles are cache hits of step 2 (./build-osm-X sits at ./build's depth).
LAUNCH=()
if command -v ccache >/dev/null 2>&1; then
  LAUNCH=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$REPO} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
  # the test binaries' precompiled header (tests/CMakeLists.txt) is cacheable only so
  export CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}
fi
# gold links the ~100 test and tool executables of step 2 in about 40 % of GNU ld's time (0.43 s
# against 1.12 s for one test binary); shared libraries (the plugin) keep the default, and so
# does the sanitizer build (gold warns about every ASan helper symbol there)
GOLD=()
if command -v ld.gold >/dev/null 2>&1; then
  GOLD=(-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=gold)
fi
[ $MATRIX_ONLY -eq 0 ] || SANITIZE_ONLY=1
rc=0

# Steps 4-5's compiler (clang: ASan, UBSan, libFuzzer); SAN_READY=1 when they run.
SAN=$REPO/build-sanitize
SAN_READY=0
san_bg=""
if [ $SANITIZE -eq 1 ] && [ ${#CTEST_ARGS[@]} -eq 0 ] && [ $MATRIX_ONLY -eq 0 ]; then
  SCXX=$(command -v clang++-14 || command -v clang++ || true)
  SCC=$(command -v clang-14 || command -v clang || true)
  SRES=$([ -n "$SCXX" ] && "$SCXX" -print-resource-dir 2>/dev/null || true)
  if [ -z "$SCXX" ] || [ -z "$SCC" ]; then
    step "sanitizers + fuzz: SKIPPED: no clang++ (apt-get install clang-14)"
  elif ! ls "$SRES"/lib/linux/libclang_rt.fuzzer-x86_64.a "$SRES"/lib/linux/libclang_rt.asan-x86_64.a >/dev/null 2>&1; then
    step "sanitizers + fuzz: SKIPPED: no ASan/libFuzzer runtime for $SCXX (apt-get install libclang-rt-14-dev)"
  else
    SAN_READY=1
  fi
fi
san_build() {  # step 4's build: the unit tests, `ftroute` and the fuzz targets under the sanitizers
  CC=$SCC CXX=$SCXX cmake -S "$REPO" -B "$SAN" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DFTROUTE_FUZZ=ON -DFTROUTE_BUILD_PLUGIN=OFF "${LAUNCH[@]+"${LAUNCH[@]}"}" >/dev/null &&
  cmake --build "$SAN" -j"$JOBS" --target unit_tests fuzz_targets
}
if [ $SANITIZE_ONLY -eq 0 ]; then
  step "configure ($BUILD)"
  cmake -S "$REPO" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${LAUNCH[@]+"${LAUNCH[@]}"}" "${GOLD[@]+"${GOLD[@]}"}"

  step "build (-j$JOBS)"
  cmake --build "$BUILD" -j"$JOBS"

  # twice as many tests as cores: the integration tests spend most of their time waiting for
  # OpenSM's sweeps and ibsim (measured: -j4 on 2 cores keeps 1.4 cores busy, and the whole
  # ctest takes 176 s instead of 324 s at -j2; docs/HARNESS.md)
  # Step 6's OpenSMs build from their tarballs meanwhile, at the lowest priority (the ctest leaves
  # ~0.6 of the 2 cores idle, which they share with step 4's build). build-opensm.sh is
  # idempotent: step 6 waits for this and runs it again, a no-op when it finished, the build and
  # its error report when it did not.
  if [ $MATRIX -eq 1 ] && [ ${#CTEST_ARGS[@]} -eq 0 ]; then
    mkdir -p "$REPO/build-osm-prebuild"
    (for v in 3.3.24 master-fa74b98c; do
       nice -n 19 bash "$REPO/scripts/build-opensm.sh" --no-deps "$v" "$REPO/build-osm-$v/opensm" || true
     done) > "$REPO/build-osm-prebuild/log" 2>&1 &
    prebuild=$!
  fi
  # Step 4's build starts now too, at the lowest priority: it takes the CPU the ctest leaves idle
  # (the integration tests wait for OpenSM and ibsim) and goes on at full speed after it; step 4
  # waits for it and prints its output (docs/HARNESS.md, "The CI budget").
  if [ $SAN_READY -eq 1 ]; then
    step "sanitizers: configure + build unit tests and fuzz targets ($SAN, clang -O1, ASan+UBSan), beside the ctest at nice 19"
    (renice -n 19 $BASHPID >/dev/null 2>&1 || true; san_build) > "$SAN.log" 2>&1 &
    san_bg=$!
  fi
  step "ctest (-j$CTEST_JOBS)"
  (cd "$BUILD" && ctest --output-on-failure -j"$CTEST_JOBS" --timeout 600 "${CTEST_ARGS[@]+"${CTEST_ARGS[@]}"}") || rc=$?
fi

# 6. OpenSM matrix (docs/HARNESS.md, "Other OpenSM versions"): lean on purpose (~1.5-3 min per
# version with a warm ccache): the plugin and four test binaries, the subset below.
MATRIX_TESTS='PluginLayout|FtreeMisroutePlugin.OpensmFtreeFallsBackWhereMisrouteRoutes|Plugin.LinkFaultIsReroutedByPlugin'
MATRIX_TESTS+='|Plugin.MultiVlEngineSlsAndSl2VlWithQos|Plugin.PreviousRoutingReachesDqrAfterFault'
MATRIX_TESTS+='|PathSlDump'  # the SA's path SLs from inside each OpenSM (osm_get_path_params)
# An OpenSM whose installed headers equal those of a version built before (install paths aside:
# osm_config.h names its PREFIX) gets the same plugin binary, so its tests run from that version's
# build dir with FTROUTE_OPENSM pointing at its own opensm, instead of building it all again.
headers_of() {  # the installed headers of prefix $1, with $1 itself written as @PREFIX@
  (cd "$1/include" && find . -type f | LC_ALL=C sort | while IFS= read -r h; do
     printf '== %s\n' "$h"; sed "s|$1|@PREFIX@|g" "$h"; done)
}
# Runs in the background beside steps 4-5 (started after step 3): its tests mostly wait for
# OpenSM's sweeps, the sanitizer build beside them keeps the cores busy (the matrix alone took
# ~115 s of the CI budget one after the other). Its output goes to build-osm-matrix.log, printed
# when it is done; its exit status is the matrix's.
opensm_matrix() {
  local matrix_rc=0 built_mb="" v m0 MB brc targets extra tests
  # step 6's OpenSMs were built in the background from step 3 on (a sibling process: poll it)
  while [ -n "${prebuild:-}" ] && kill -0 "$prebuild" 2>/dev/null; do sleep 2; done
  for v in 3.3.24 master-fa74b98c; do
    m0=$SECONDS
    MB=$REPO/build-osm-$v
    mkdir -p "$MB"
    step "OpenSM matrix: OpenSM $v (scripts/build-opensm.sh, $MB)"
    brc=0
    bash "$REPO/scripts/build-opensm.sh" --no-deps "$v" "$MB/opensm" || brc=$?
    if [ $brc -eq 3 ]; then
      printf '
!!! SKIPPED: OpenSM %s matrix: the upstream tarball opensm-%s.tar.gz is missing (--tarball-dir DIR or OPENSM_TARBALL_DIR)
' "$v" "$v"
      continue
    elif [ $brc -ne 0 ]; then
      echo "!!! FAILED: OpenSM $v matrix: building OpenSM failed (exit $brc)"; matrix_rc=1; continue
    fi
    if [ -n "$built_mb" ] && cmp -s <(headers_of "$built_mb/opensm") <(headers_of "$MB/opensm"); then
      echo "OpenSM $v installs the same headers as ${built_mb##*/build-osm-}: its plugin is that build's" \
           "libftroute.so; its tests run from $built_mb with FTROUTE_OPENSM=$MB/opensm/sbin/opensm"
      (cd "$built_mb" && FTROUTE_OPENSM="$MB/opensm/sbin/opensm" ctest --output-on-failure -j"$JOBS" --timeout 600 \
         -L integration -R "$MATRIX_TESTS" -E ForeignOpensm) || matrix_rc=1
      echo "OpenSM $v matrix: $((SECONDS - m0)) s"
      continue
    fi
    targets=(ftroute_plugin itest_plugin_layout_test itest_plugin_test itest_ftree_misroute_plugin_test itest_path_sl_dump_test)
    extra=()
    tests=$MATRIX_TESTS
    if [ "$v" = 3.3.24 ]; then
      # the RPM (RHEL 8/9 ship 3.3.24): plugin in lib64, everything the package holds; and the
      # plugin claiming Debian's OpenSM version, refused by the layout check in Debian's opensm
      extra=(-DFTROUTE_PLUGIN_INSTALL_DIR=lib64 "-DFTROUTE_PLUGIN_CLAIM_VERSION=OpenSM 3.3.23")
      targets+=(ftroute_plugin_claim ftroute ftroute-pathsl)
      command -v help2man >/dev/null 2>&1 && targets+=(ftroute_man)
      tests+='|package_rpm'
    fi
    if cmake -S "$REPO" -B "$MB" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOPENSM_PREFIX="$MB/opensm" \
         "${extra[@]+"${extra[@]}"}" "${LAUNCH[@]+"${LAUNCH[@]}"}" "${GOLD[@]+"${GOLD[@]}"}" > "$MB/configure.log" 2>&1 &&
       cmake --build "$MB" -j"$JOBS" --target "${targets[@]}" > "$MB/build.log" 2>&1; then
      (cd "$MB" && ctest --output-on-failure -j"$JOBS" --timeout 600 -L integration -R "$tests") || matrix_rc=1
      built_mb=$MB
    else
      tail -30 "$MB/configure.log" "$MB/build.log" 2>/dev/null || true
      echo "!!! FAILED: OpenSM $v matrix: configuring or building the plugin against it failed ($MB/build.log)"
      matrix_rc=1
    fi
    echo "OpenSM $v matrix: $((SECONDS - m0)) s"
  done
  return $matrix_rc
}

matrix_pid=""
# (not with --sanitize-only, which is steps 1, 4 and 5 only; --opensm-matrix-only is step 6)
if [ $MATRIX -eq 1 ] && [ ${#CTEST_ARGS[@]} -eq 0 ] && { [ $SANITIZE_ONLY -eq 0 ] || [ $MATRIX_ONLY -eq 1 ]; }; then
  step "OpenSM matrix: started in the background (its output follows the sanitizer steps)"
  opensm_matrix > "$REPO/build-osm-matrix.log" 2>&1 &
  matrix_pid=$!
fi

# Unit tests left out of the sanitizer run: > 10 s in the normal build (3-5x that under ASan),
# they start OpenSM with the plugin, which the sanitizer build does not make, or they bound peak
# RSS (cli.scale_rss: ASan's shadow memory and quarantine are not the program's memory).
SAN_EXCLUDE='AllDoubleLinkFaults|FractionToleratedBeyondGuarantee|OpenSm|Opensm|UnderIbsim|campaign.cli_shards_merge|cli.scale_rss'
# ... and the heaviest ones there (8-15 s each under ASan) whose code the other sanitized tests run
# too: the two BookSim2 agreement points (long simulations to a tolerance: flitsim's own unit tests
# run the same simulator), and two "same output for every thread count" tests (ASan sees no data
# race; the thread-count pins of the other engines still run)
SAN_EXCLUDE+='|FlitsimBookSimPoint|FtdrbEval.OutputDoesNotDependOnJobs|LftPin.FtMinhopSameForEveryThreadCountAndOption'
# ... and the balancer's pin (13 s under ASan: the same trees route under it in Balance.*, FillHoles.*)
SAN_EXCLUDE+='|LftPin.BalancedAnTreesAsBeforeTheBalancerSpeedWork'
san_rc=0
if [ $SAN_READY -eq 1 ]; then
  if [ -n "$san_bg" ]; then
    step "sanitizers: waiting for their build (started beside the main ctest at nice 19; its output follows)"
    wait "$san_bg" || san_rc=$?
    cat "$SAN.log"
  else
    step "sanitizers: configure + build unit tests and fuzz targets ($SAN, clang -O1, ASan+UBSan)"
    san_build || san_rc=$?
  fi
  if [ $san_rc -eq 0 ]; then
    step "sanitizers: ctest -L unit under ASan+UBSan (excluded: $SAN_EXCLUDE)"
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
    export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
    (cd "$SAN" && ctest --output-on-failure -j"$JOBS" --timeout 600 -L unit -E "$SAN_EXCLUDE") || san_rc=$?
    step "fuzz: each target ${FUZZ_SECONDS} s (scripts/fuzz.sh)"
    bash "$REPO/scripts/fuzz.sh" --build-dir "$SAN" --seconds "$FUZZ_SECONDS" -j "$JOBS" || san_rc=$?
  fi
  [ $rc -eq 0 ] && rc=$san_rc
fi

if [ -n "$matrix_pid" ]; then
  step "OpenSM matrix: waiting for it (started after the main ctest)"
  matrix_rc=0
  wait "$matrix_pid" || matrix_rc=$?
  cat "$REPO/build-osm-matrix.log"
  [ $rc -ne 0 ] || rc=$matrix_rc
fi

step "done: exit code $rc (ctest, sanitizers, fuzz, OpenSM matrix), total $((SECONDS - t0)) s"
exit $rc
