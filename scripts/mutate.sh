#!/usr/bin/env bash
# scripts/mutate.sh - mutation check of the test suite: does a green run mean the checkers work?
#
# Applies one-line bugs, one at a time, to the code that decides whether a routing is good (the
# validators' route walk and verdicts, the CDG cycle search, the plugin's result check
# and the routing pipeline's verdict, `ftroute check`'s exit status), rebuilds only the affected test binaries in a
# separate build directory, runs the tests that guard that code, and reports each mutant as
# CAUGHT (some test failed) or MISSED (every test passed: a hole in the suite). Exits 1 if any
# mutant is missed, 2 on a setup error (a mutation site not found exactly once, a build or a test
# that fails without the mutant).
#
# Each site is found by searching the tree for a unique source line (not by a fixed path), so
# the script survives files moving between folders; a line that is missing or occurs more than
# once stops the run with the mutant's name (update the table below).
#
# The source file is edited in place and restored afterwards (also on Ctrl-C / error, from a
# copy); do not build the same tree in parallel while it runs.
#
# usage: scripts/mutate.sh [--build-dir DIR] [--only NAME[,NAME..]] [--list] [-j N]
#   --build-dir DIR   build directory for the mutants (default <repo>/build-mutate; configured
#                     on first use, RelWithDebInfo + ccache, kept for the next run)
#   --only NAMES      run only these mutants (comma-separated names from --list)
#   --list            print the mutants and exit
#   -j N              build parallelism (default 2)
# Takes about 1 min per mutant on 2 cores once the build dir exists (the first run builds the
# test binaries' libraries once, from ccache where possible). Results: docs/HARNESS.md.
set -uo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$REPO/build-mutate
ONLY=""
LIST=0
JOBS=2
while [ $# -gt 0 ]; do
  case $1 in
    --build-dir) BUILD=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --list) LIST=1; shift ;;
    -j) JOBS=$2; shift 2 ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "mutate.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done

# name @ unique source line @ replacement line @ test files (their folder binaries are built) @ ctest -R regex
# (one mutant per line, fields separated by ' @ '; the line and its replacement are literal text)
MUTANTS=$(cat <<'EOF'
walk-noroute-not-counted @ st.dropped++; @ if (dr.kind != DropKind::NoRoute) st.dropped++; @ validate_test cdg_test @ ^(Validate|ValidateDrop|Cdg)\.
walk-wrong-endpoint-not-counted @ st.dropped++; @ if (dr.kind != DropKind::WrongEndpoint) st.dropped++; @ validate_test cdg_test @ ^(Validate|ValidateDrop|Cdg)\.
walk-not-local-not-counted @ st.dropped++; @ if (dr.kind != DropKind::NotLocal) st.dropped++; @ validate_test cdg_test @ ^(Validate|ValidateDrop|Cdg)\.
walk-bad-port-not-counted @ st.dropped++; @ if (dr.kind != DropKind::BadPort) st.dropped++; @ validate_test cdg_test @ ^(Validate|ValidateDrop|Cdg)\.
walk-down-port-not-counted @ st.dropped++; @ if (dr.kind != DropKind::DownPort) st.dropped++; @ validate_test cdg_test @ ^(Validate|ValidateDrop|Cdg)\.
walk-only-noroute-counted @ st.dropped++; @ if (dr.kind == DropKind::NoRoute) st.dropped++; @ validate_test cdg_test @ ^(Validate|ValidateDrop|Cdg)\.
walk-loop-not-counted @ st.looping++; @ (void)0; @ validate_test cdg_test @ ^(Validate|ValidateDrop|Cdg)\.
walk-wrong-endpoint-delivered @ dk = DropKind::WrongEndpoint, drop = true; @ done = true; @ validate_test cdg_test @ ^(Validate|ValidateDrop|Cdg)\.
walk-not-local-delivered @ else h.drop = DropKind::NotLocal;  // port 0 on a switch that does not own the LID @ else h.kind = RouteHop::Delivered; @ validate_test cdg_test @ ^(Validate|ValidateDrop|Cdg)\.
walk-dependency-not-recorded @ if (cin >= 0) record_edge(s, in, o, static_cast<Cdg::Id>(cin), oc); @ (void)cin; @ validate_test cdg_test @ ^(Validate|ValidateDrop|Cdg)\.
walk-path-loop-bound-off-by-one @ if (w.switches == limit) { @ if (w.switches == limit + 1) { @ route_walk_test @ ^RouteWalk\.
validate-bad-entry-not-counted @ rep.bad_entries++; @ (void)0; @ validate_test @ ^(Validate|ValidateDrop)\.
validate-unreachable-not-a-failure @ add(r.reachability_ok(), "unreachable pairs"); @ (void)0; @ validate_test @ ^(Validate|ValidateDrop)\.
validate-loop-not-a-failure @ add(r.loops_ok(), "forwarding loops"); @ (void)0; @ validate_test @ ^(Validate|ValidateDrop)\.
validate-bad-entry-not-a-failure @ add(r.entries_ok(), "bad LFT entries"); @ (void)0; @ validate_test @ ^(Validate|ValidateDrop)\.
validate-deadlock-not-a-failure @ add(r.deadlock_ok(), "deadlock"); @ (void)0; @ validate_test @ ^(Validate|ValidateDrop)\.
validate-cycle-ignored @ rep.cdg_acyclic = !cyc; @ rep.cdg_acyclic = true; @ validate_test @ ^(Validate|ValidateDrop)\.
check-cli-exits-0-on-failure @ return rep.ok() ? 0 : 1; @ return 0; @ ftroute @ ^cli\.check$
cdg-cycle-search-ignores-back-edges @ if (!ok(s) || color[s] == 2) continue; @ if (!ok(s) || color[s] >= 1) continue; @ validate_test cdg_test @ ^(Validate|ValidateDrop|Cdg)\.
plugin-check-accepts-wrong-ca @ count(DropKind::WrongEndpoint, "switch " + f.node_name(w.sw) + " sends LID " + std::to_string(lid) + @ if (false) count(DropKind::WrongEndpoint, "switch " + f.node_name(w.sw) + " sends LID " + std::to_string(lid) + @ plugin_adapter_test @ ^CheckRouting\.
ftree-valley-subtree-left @ if (!t_.multi_child || !vc_[static_cast<size_t>(s)]) return false; @ return false; @ ftree_real_shapes_test @ ^GeneralisedFatTree\.
ftree-an-port-unrecognised @ return port == 37 || port == 41 || port == 65 || port == 145; @ return false; @ ftree_real_shapes_test @ ^AggregationNodes\.
ftree-pgft-core-down-no-mirror @ p.mode = Plan::UpMirror; @ (void)0; @ ftree_real_shapes_test @ ^GeneralisedFatTree\.
ftree-bundle-weight-in-cables @ widest = std::max(widest, parents[static_cast<size_t>(s)]); @ widest = std::max(widest, t.up[static_cast<size_t>(s)].size()); @ ftree_real_shapes_test @ ^DirectorPresets\.
ftree-updn-descends-towards-root @ if (key[static_cast<size_t>(e.peer)] > i && down[static_cast<size_t>(e.peer)] < kInf) @ if (down[static_cast<size_t>(e.peer)] < kInf) @ ftree_misroute_test @ ^FtreeMisroute\.UpDown
ftree-an-shares-switch-index @ index = an_index[static_cast<size_t>(s)]; @ index = switch_index[static_cast<size_t>(s)]; @ ftree_real_shapes_test @ ^AggregationNodes\.
ftree-two-level-no-up-mirror @ else if (bundled && t_.height == 1 && p.rank == 0 && k == 1 && dist[si] == 1) p.mode = Plan::UpToMirror; @ else if (false) p.mode = Plan::UpToMirror; @ ftree_real_shapes_test @ ^TwoLevelBundles\.
ftree-bundle-only-if-adjacent @ if (mark == stamp_) c.bundle = true; @ if (mark == stamp_ && c.last == peer) c.bundle = true; @ ftree_real_shapes_test @ ^TwoLevelBundles\.
plugin-check-accepts-port0-unwalked @ cls[0] = kNotLocal; @ cls[0] = 0; @ plugin_adapter_test @ ^CheckRouting\.
pathsl-dump-asks-reverse-path @ if (osm_get_path_params(&osm->sa, s->port, s->lo, d.port, static_cast<uint16_t>(dlid), &parms) != IB_SUCCESS) { @ if (osm_get_path_params(&osm->sa, d.port, static_cast<uint16_t>(dlid), s->port, s->lo, &parms) != IB_SUCCESS) { @ itest_path_sl_dump_test itest_dor_plugin_test @ ^integration\.(PathSlDump|DorPlugin)\.
pathsl-dump-asks-for-partitioned-pairs @ if (!qos_policy && !osm_physp_find_common_pkey(s->port->p_physp, d.port->p_physp, allow_both)) { @ if (false) { @ itest_path_sl_dump_test @ ^integration\.PathSlDump\.
pipeline-self-check-digest-ignored @ if (lfts_digest(f, r.lfts, threads) != rec->digest) return std::nullopt; @ (void)threads; @ pipeline_test @ ^Pipeline\.
pipeline-incremental-nothing-changed @ for (size_t l = 0; l < b.size(); l++) changed[l] |= a[l] != b[l]; @ (void)0; @ pipeline_test @ ^Pipeline\.
pipeline-incremental-links-added @ if (p > 0 && x.connected() && (!y.connected() || x.peer_node != y.peer_node || x.peer_port != y.peer_port)) @ if (false) @ pipeline_test @ ^Pipeline\.
pipeline-switch-lids-not-walked @ if (own_lid && !o.all_switches) continue;          // traffic goes to end ports only @ if (own_lid) continue; @ pipeline_test @ ^Verdict\.
ftree-chains-sl-ignored @ out.path_sl = [sl](Lid, Lid dlid) -> uint8_t { return dlid < sl->size() ? (*sl)[dlid] : 0; }; @ out.path_sl = [sl](Lid, Lid) -> uint8_t { return 0; }; @ ftree_valley_chains_test @ ^ValleyChains\.
ftree-chains-one-chain-only @ const size_t k = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin()); @ const size_t k = 0; @ ftree_valley_chains_test @ ^ValleyChains\.
ftree-3level-no-up-mirror @ else if (bundled && t_.height >= 2 && k == 1 && dist[si] == 1 && parents.distinct > 1) p.mode = Plan::UpToMirror; @ else if (false) p.mode = Plan::UpToMirror; @ ftree_valley_chains_test @ ^ValleyChains\.
ftree-spread-off @       else if (k == 1 && !cand_.empty() && (weigh(k) || cand_.size() < t_.up[si].size())) p.mode = Plan::Spread; @       else if (k == 1 && !cand_.empty() && weigh(k)) p.mode = Plan::Spread; @ ftree_misroute_test @ ^FtreeMisroute\.SingleFault
ftree-weighted-off @     return std::adjacent_find(wcand_.begin(), wcand_.end(), std::not_equal_to<>()) != wcand_.end(); @     return wcand_.assign(cand_.size(), 1), false; @ ftree_misroute_test @ ^FtreeMisroute\.SpineShort
ftree-extras-by-digit @     if (extras_balanced) { @     if (false) { @ ftree_valley_chains_test @ ^ValleyChains\.
ftree-extras-leaf-own-digit @ if (up.size() == full0 || static_cast<long>(parents[static_cast<size_t>(a)]) != parents0) return own; @ return own; @ ftree_valley_chains_test @ ^ValleyChains\.
ftree-extras-cable-only @ shared = std::max(shared, into[static_cast<size_t>(into_key[static_cast<size_t>(a)][c])]); @ (void)0; @ ftree_valley_chains_test @ ^ValleyChains\.
ftree-planes-exit-any-leaf @ return m >= 0 && exit_[static_cast<size_t>(m)] == c; @ return m >= 0; @ ftree_valley_chains_test @ ^PlaneValleys\.
ftree-planes-climb-anywhere @ if (lim < 0) return true; @ return true; @ ftree_valley_chains_test @ ^PlaneValleys\.
ftree-spread-between-any-plane @ if (k == 1 ? own_[static_cast<size_t>(target_)] >= 0 : k >= 3) return 1; @ if (k == 1 ? false : k >= 3) return 1; @ ftree_valley_chains_test @ ^SpreadTurns\.
ftree-spread-short-leaf-turns-anywhere @ return k == 1 && exit_here_[static_cast<size_t>(s)] ? 1 : 0; @ return 0; @ ftree_valley_chains_test @ ^SpreadTurns\.
ftree-pods-uturns-anywhere @         vc[static_cast<size_t>(s)] = t.block[1][static_cast<size_t>(s)] == t.block[1][static_cast<size_t>(home)]; @         (void)home; @ ftree_valley_chains_test @ ^TurnPods\.
ftree-pods-between-any-plane @       return (k == 1 ? own_[static_cast<size_t>(target_)] == own_[static_cast<size_t>(s)] : k >= 3) ? 1 : 0; @       return 0; @ ftree_valley_chains_test @ ^TurnPods\.
ftree-spare-off @     if (!spare_ || k != 1 || t_.rank[static_cast<size_t>(s)] != 0) return 0; @     return 0; @ ftree_valley_chains_test @ ^SpareTurnPlanes\.
ftree-balance-no-cdg @     return !dep(s, i, e) || dag_.add_edge(e.first, e.second, max_steps); @     if (dep(s, i, e)) dag_.add_edge(e.first, e.second, max_steps); return true; @ ftree_valley_chains_test @ ^Balance\.
ftree-auto-keeps-first @       if (!best || e < best->efi) best = Best{std::move(out), std::move(*b), e}; @       if (!best) best = Best{std::move(out), std::move(*b), e}; @ ftree_valley_chains_test @ ^SpreadTurns\.
ftree-fill-holes-off @       const FillResult n = fill_holes(fabric, out); @       const FillResult n; @ ftree_valley_chains_test @ ^FillHoles\.
ftree-fill-ignores-existing-deps @         const uint64_t cost = it.cost + (add << 48) + (uint64_t{1} << 32) + std::min<uint64_t>(load_[static_cast<size_t>(c)], 0xffffffffu); @         const uint64_t cost = it.cost + add + (uint64_t{1} << 32) + std::min<uint64_t>(load_[static_cast<size_t>(c)], 0xffffffffu); @ ftree_valley_chains_test @ ^FillHoles\.
ftree-fill-no-restart @   constexpr int kFillRestarts = 8; @   constexpr int kFillRestarts = 1; @ ftree_valley_chains_test @ ^FillHoles\.
ftree-planes-first-pod-only @       PlaneValleys pv = plane_valleys(fabric, t, dests, divisor, from, forced); @       PlaneValleys pv = plane_valleys(fabric, t, dests, divisor, from, forced); if (pv.leaf.empty()) break; @ ftree_valley_chains_test @ ^FillHoles\.
ftree-balance-first-candidate-only @         if (r.moves > 0 && r.efi_max < e && (!balanced || r.efi_max < balanced->efi)) @         if (r.moves > 0 && r.efi_max < e && !balanced) @ ftree_valley_chains_test @ ^Balance\.
ftree-balance-moved-subtree-hops-kept @         hp[u] = hp[y] < 0 ? int16_t{-1} : static_cast<int16_t>(hp[y] + 1); @         (void)hp; @ ftree_lft_pin_test @ ^LftPin\.Balanced
ftree-balance-moved-old-route-keeps-sources @       shift(a, false); @       (void)a; @ ftree_lft_pin_test @ ^LftPin\.Balanced
flitsim-nac-confirmed-no-dab-move @     rm.credits = move_to_dab(run.in_ch, run.in_vc, run.out_ch, run.out_vc, false); @     rm.credits = 0; @ flitsim_test @ ^FlitsimDeadlock\.
dqr-flow-no-shared-detour @   const bool shared_detour = local || o.tlr; @   const bool shared_detour = false; @ dqr_reconf_test @ ^DqrEval\.
dqr-keeps-failed-link-deps @       for (int vl = 0; vl < kNumVlSlots; vl++) list_.drop_dependencies_of(ch(y, q, vl)); @       (void)y, (void)q; @ dqr_reconf_test dqr_parts_test @ ^Dqr(Reconf|Dependencies)\.
dqr-no-second-attempt @   std::vector<Attempt> attempts{{&own, false}, {&own, true}}; @   std::vector<Attempt> attempts{{&own, false}}; @ dqr_reconf_test dqr_parts_test @ ^Dqr(Reconf|Dependencies)\.
kns-ins-last-tie @     if (r < best) { @     if (r <= best) { @ kns_engine_test @ ^KnsFaults\.ThesisIns
flitsim-waypoint-keeps-sl @     p.sl++; @     (void)0; @ flitsim_waypoints_test @ ^FlitsimWaypoints\.
kns-minimal-first-ranks-by-hops @ (hops > minimal ? 1 : 0), ins); @ (hops > minimal ? hops : 0), ins); @ kns_engine_test @ ^KnsFaults\.MinimalFirst
kns-router-count-one-more @ if (++hits[static_cast<size_t>(l / m.n)] >= m.n && router_hit_n_times) *router_hit_n_times = true; @ if (++hits[static_cast<size_t>(l / m.n)] > m.n && router_hit_n_times) *router_hit_n_times = true; @ kns_engine_test @ ^KnsFaults\.FaultDrawModels
flitsim-sl-spread-ignores-legs @ cfg.sl_spread - legs, 15 - p.sl @ cfg.sl_spread - 1, 15 - p.sl @ flitsim_waypoints_test @ ^FlitsimWaypoints\.SlSpread
flitsim-randperm-keeps-fixed-points @       for (int i = 0; i < N; i++) fixed = fixed || perm[static_cast<size_t>(i)] == i; @       (void)0; @ flitsim_test @ ^FlitsimTraffic\.Permutations
ft-lash-even-ignores-cycles @             if (!layers[to].list.enable_all(deps)) continue; @             (void)layers[to].list.enable_all(deps); @ ft_lash_test @ ^FtLash\.EvenFill
flitsim-sl-spread-shares-the-traffic-stream @     p.sl = static_cast<uint8_t>(p.sl + sl_rng[src].below(static_cast<uint64_t>(std::min(cfg.sl_spread - legs, 15 - p.sl) + 1))); @     p.sl = static_cast<uint8_t>(p.sl + src_rng[src].below(static_cast<uint64_t>(std::min(cfg.sl_spread - legs, 15 - p.sl) + 1))); @ flitsim_waypoints_test @ ^FlitsimWaypoints\.SlSpread
options-choice-not-checked @         if (std::find(it->values.begin(), it->values.end(), v) == it->values.end()) @         if (false) @ option_spec_test @ ^OptionSpec\.
kns-refuses-with-path-edges @         else if (alone) ly.refused.insert(closing); @         else ly.refused.insert(closing); @ kns_pin_test @ ^KnsPin\.
campaign-lost-counts-faulty-routing @ const auto base = cache.get(cfg, intact, key.fabric, key.engine); @ const auto base = cache.get(cfg, f, key.fabric, key.engine); @ campaign_lost_test @ ^LostRoutes\.
campaign-lost-last-cable-ignored @ if (h.kind != RouteHop::Dropped && h.port > 0 && dead_port[off[static_cast<size_t>(s)] + h.port]) cut = true; @ if (h.kind == RouteHop::Forward && dead_port[off[static_cast<size_t>(s)] + h.port]) cut = true; @ campaign_lost_test @ ^LostRoutes\.
EOF
)

trim() { local s=$1; s=${s#"${s%%[![:space:]]*}"}; s=${s%"${s##*[![:space:]]}"}; printf '%s' "$s"; }

if [ $LIST -eq 1 ]; then
  while IFS= read -r row; do
    [ -n "$row" ] || continue
    IFS='@' read -r name _ <<< "$row"
    trim "$name"; echo
  done <<< "$MUTANTS"
  exit 0
fi

# The one file that holds `line` (searched in C/C++ sources, build dirs and .git excluded);
# exits 2 unless it is found exactly once in exactly one file.
locate() {
  local name=$1 line=$2 files n
  files=$(cd "$REPO" && grep -rlF --include='*.cpp' --include='*.hpp' --include='*.h' \
          --exclude-dir='build*' --exclude-dir=.git -- "$line" . || true)
  n=$(printf '%s' "$files" | grep -c . || true)
  if [ "$n" -ne 1 ]; then
    echo "mutate.sh: mutant '$name': the line '$line' is in $n files${files:+ (}$(echo $files)${files:+)}; expected exactly 1" >&2
    exit 2
  fi
  local c
  c=$(grep -cF -- "$line" "$REPO/$files")
  if [ "$c" -ne 1 ]; then
    echo "mutate.sh: mutant '$name': the line '$line' occurs $c times in $files; expected exactly 1" >&2
    exit 2
  fi
  echo "${files#./}"
}

# Literal replacement of the one occurrence (python: no sed escaping of C++ text).
apply() {
  python3 - "$1" "$2" "$3" <<'PY'
import sys
path, old, new = sys.argv[1:]
s = open(path).read()
assert s.count(old) == 1, (path, old)
open(path, 'w').write(s.replace(old, new, 1))
PY
}

CURRENT_FILE=""
BACKUP=$(mktemp /tmp/ftroute-mutate.XXXXXX)
restore() {
  if [ -n "$CURRENT_FILE" ]; then
    cp "$BACKUP" "$CURRENT_FILE" && touch "$CURRENT_FILE"
    CURRENT_FILE=""
  fi
}
trap 'restore; rm -f "$BACKUP"' EXIT
trap 'echo "mutate.sh: interrupted, source restored" >&2; exit 130' INT TERM

# Validate the whole table first (every site found once) so a stale table fails before any build.
declare -a NAMES LINES NEWS TARGETS REGEXES FILES
while IFS= read -r row; do
  [ -n "$row" ] || continue
  IFS='@' read -r name line new targets regex <<< "$row"
  name=$(trim "$name"); line=$(trim "$line"); new=$(trim "$new"); targets=$(trim "$targets"); regex=$(trim "$regex")
  if [ -n "$ONLY" ] && [[ ",$ONLY," != *",$name,"* ]]; then continue; fi
  file=$(locate "$name" "$line") || exit 2
  NAMES+=("$name"); LINES+=("$line"); NEWS+=("$new"); TARGETS+=("$targets"); REGEXES+=("$regex"); FILES+=("$file")
done <<< "$MUTANTS"
[ ${#NAMES[@]} -gt 0 ] || { echo "mutate.sh: no mutant selected (see --list)" >&2; exit 2; }

export CCACHE_NOHASHDIR=1  # reuse the objects of the normal build dir from ccache
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  echo "== configure $BUILD"
  mkdir -p "$BUILD"
  cmake -S "$REPO" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
        -DCMAKE_C_COMPILER_LAUNCHER=ccache > "$BUILD/mutate-configure.log" 2>&1 \
    || { echo "mutate.sh: configure failed ($BUILD/mutate-configure.log)" >&2; exit 2; }
fi
# The table names test files (validate_test); they build into one binary per folder of
# tests/unit (tests/CMakeLists.txt): tests/unit/check/validate_test.cpp -> check_tests.
binaries_of() {
  local t f out=""
  for t in $1; do
    for f in "$REPO"/tests/unit/*/"$t".cpp; do
      if [ -f "$f" ]; then t=$(basename "$(dirname "$f")")_tests; break; fi
    done
    out+="$t "
  done
  printf '%s' "$out"
}
for i in "${!TARGETS[@]}"; do TARGETS[$i]=$(binaries_of "${TARGETS[$i]}"); done
ALL_TARGETS=$(printf '%s\n' "${TARGETS[@]}" | tr ' ' '\n' | sort -u | tr '\n' ' ')
echo "== build the unmutated test binaries: $ALL_TARGETS"
# shellcheck disable=SC2086
nice cmake --build "$BUILD" -j"$JOBS" --target $ALL_TARGETS > "$BUILD/mutate-base.log" 2>&1 \
  || { echo "mutate.sh: the unmutated tree does not build ($BUILD/mutate-base.log)" >&2; exit 2; }

# Without a mutant every selected test must pass, or a "caught" below would mean nothing.
ALL_REGEX=$(printf '%s\n' "${REGEXES[@]}" | sort -u | paste -sd'|')
echo "== run the unmutated tests: $ALL_REGEX"
(cd "$BUILD" && ulimit -v 3000000 && timeout 600 ctest -R "$ALL_REGEX" --timeout 60 -j"$JOBS" > "$BUILD/mutate-base-tests.log" 2>&1) \
  || { echo "mutate.sh: the tests fail without any mutant ($BUILD/mutate-base-tests.log)" >&2; exit 2; }
echo "   $(grep -Eo '[0-9]+% tests passed.*' "$BUILD/mutate-base-tests.log")"

caught=0 missed=0
declare -a REPORT
t0=$SECONDS
for i in "${!NAMES[@]}"; do
  name=${NAMES[$i]} file=$REPO/${FILES[$i]}
  cp "$file" "$BACKUP"
  CURRENT_FILE=$file
  apply "$file" "${LINES[$i]}" "${NEWS[$i]}"
  log=$BUILD/mutant-$name.log
  t1=$SECONDS
  # shellcheck disable=SC2086
  if ! nice cmake --build "$BUILD" -j"$JOBS" --target ${TARGETS[$i]} > "$log" 2>&1; then
    verdict="CAUGHT (does not compile)"
    caught=$((caught + 1))
  # a mutant can make a test loop or allocate without bound: cap each test at 60 s and 3 GB
  elif (cd "$BUILD" && ulimit -v 3000000 && timeout 600 ctest -R "${REGEXES[$i]}" --timeout 60 -j"$JOBS" >> "$log" 2>&1); then
    n=$(grep -Eo 'failed out of [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+$')
    verdict="MISSED (all ${n:-the} tests passed)"
    missed=$((missed + 1))
  else
    failed=$(grep -cE '^\s+[0-9]+ - .*\((Failed|Timeout|SEGFAULT|Subprocess aborted|Exception)' "$log" || true)
    first=$(grep -E '^\s+[0-9]+ - ' "$log" | sed -n 1p | sed -E 's/^\s+[0-9]+ - //; s/ \(.*//')
    verdict="CAUGHT ($failed failing, e.g. $first)"
    caught=$((caught + 1))
  fi
  restore
  line=$(printf '%-40s %-28s %3ds  %s' "$name" "${FILES[$i]}" $((SECONDS - t1)) "$verdict")
  echo "$line"
  REPORT+=("$line")
done
# put the unmutated objects back so the build dir is clean for the next run
# shellcheck disable=SC2086
nice cmake --build "$BUILD" -j"$JOBS" --target $ALL_TARGETS > "$BUILD/mutate-restore.log" 2>&1 || true

echo
echo "mutants: ${#NAMES[@]}, caught: $caught, missed: $missed ($((SECONDS - t0)) s)"
[ $missed -eq 0 ]
