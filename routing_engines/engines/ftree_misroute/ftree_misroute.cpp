// ftree-misroute engine (see ftree_misroute.hpp and docs/ftree-misroute.md).
#include "ftree_misroute/ftree_misroute.hpp"
#include "ftree_misroute/ftree_misroute_internal.hpp"
#include "ftree_misroute/router.hpp"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "ftroute/cdg.hpp"
#include "ftroute/error.hpp"
#include "ftroute/parallel.hpp"
#include "ftroute/validate.hpp"
#include "ftroute/verdict.hpp"

namespace ftroute {

namespace {

constexpr int kPlaneValleys = -2;  // the candidate "valley leaves by plane" in the list of valley leaves
// The cable balancing (balance.cpp): fabrics up to this many switch x LID pairs (its per-LID flow
// table), and a work budget in route and dependency steps: about 0.8 s of CPU on a 2-core box of
// 2026, so a large fabric cannot hold OpenSM's sweep. A step count, not a clock: the same tables
// on every machine.
constexpr size_t kBalancePairs = 1'000'000;
constexpr uint64_t kBalanceBudget = 150'000'000;  // shared by the candidates:
constexpr uint64_t kBalanceScreen = 10'000'000;   // each at first, then the lowest goes on
constexpr size_t kBalanceMoves = 1'000'000;
using ftree_router::Router;

// EFI max of a routing as `ftroute compare` reports it: routes per directed switch-to-switch link,
// CA sources, CA and switch LIDs as destinations, every VL.
uint64_t efi_max(const Fabric& fabric, const Routing& out, int threads) {
  CdgBuildOptions o;
  o.hop_histogram = false;
  o.threads = threads;
  uint64_t m = 0;
  for (const LinkLoad& ll : switch_link_loads(fabric, build_cdg(fabric, out, o))) m = std::max(m, ll.routes);
  return m;
}

}  // namespace

std::vector<OptionSpec> FtreeMisrouteEngine::option_specs() const {
  return {
      OptionSpec::text("valley_leaf", "", "leaf switch whose sub-trees hold the U-turns (default: chosen automatically)"),
      OptionSpec::choice("check", {"auto", "true", "false", "on", "off", "1", "0", "yes", "no"}, "auto",
                         "check the result (reachability, loops, CDG on VL0): auto (every fabric size), true, false"),
      OptionSpec::integer("max_valleys", 1, 4096, "8", "automatic valley-leaf candidates to try"),
      OptionSpec::integer("vls", 1, 8, "1",
                          "valley chains, one VL each: each destination's routes take the VL (SL) of its chain, "
                          "so the U-turn load is split over that many valley leaves, or pods of valley leaves by plane "
                          "(1: every route on VL0, the paper's construction; more needs QoS on in OpenSM)"),
      OptionSpec::choice("plane_valleys", {"auto", "true", "false", "spread", "pods", "by_plane"}, "auto",
                         "U-turns between the planes above the leaves, on 1 VL, CDG verified: by_plane (one valley leaf "
                         "per plane: its turns into later planes), spread (every turn at any leaf of one pod, those "
                         "leaves' traffic among themselves through one plane), pods (the by-plane order with a pod per "
                         "position, spread over its leaves; three-level trees), auto (3+ levels, 3+ planes, CAs above "
                         "the leaves: route them all, keep the lowest EFI max), true (all, on any tree), false"),
      OptionSpec::choice("spare_turn_planes", {"auto", "both", "sources", "none"}, "auto",
                         "valley leaves by plane: which traffic leaves a valley leaf's own planes to its turns: "
                         "sources (its own sources' routes), both (also every route to its LIDs), none, or auto "
                         "(route none and sources, keep the lowest EFI max)"),
      OptionSpec::boolean("balance", "true",
                          "with plane valleys (and the Up*/Down* last resort) on 1 VL: move entries between cables "
                          "of their switch (no longer routes) "
                          "while the busiest cables' load falls, no cable rises above the busiest and the CDG stays "
                          "acyclic; every candidate balanced, the lowest EFI max kept (fabrics up to 1M switch x LID "
                          "pairs)"),
      OptionSpec::boolean("fill_holes", "true",
                          "plane valleys on 1 VL: where the construction leaves a switch without a route to a LID, "
                          "route it through other such switches to one that has a route, adding the fewest new "
                          "channel dependencies, while the CDG stays acyclic (else the candidate fails)"),
      OptionSpec::boolean("free_uturns", "true", "last resort: U-turns anywhere, kept only if the CDG check finds no cycle"),
      OptionSpec::boolean("updn_fallback", "true",
                          "last resort of all: Up*/Down* from one root on 1 VL (any connected fabric), CDG verified, then the cable "
                          "balancing (balance=true)"),
      OptionSpec::text("root_guid_file", "", "file of the top switches' node GUIDs (as OpenSM ftree's): ranks counted from them"),
      OptionSpec::text("io_guid_file", "", "file of I/O CA GUIDs (storage, gateways): their switches are not leaves"),
      OptionSpec::integer("threads", 0, 64, "0",
                          "worker threads for the routing and the self-check (0: one per hardware thread; same LFTs for every count)"),
  };
}

Routing FtreeMisrouteEngine::compute(const Fabric& fabric, const EngineOptions& options, const PreviousRouting& previous) {
  // check=auto: verify every fabric (build_cdg's switch-level pass costs O(switches) per
  // destination LID, docs/scale.md); check=false trusts the construction's proof.
  const std::string check_opt = options.get(option_spec("check"));
  bool check = check_opt == "auto" || options.get_bool("check", true);  // (a value of the choice)
  const long max_valleys = options.get_int(option_spec("max_valleys"));
  const long chains_wanted = options.get_int(option_spec("vls"));
  const long threads = options.get_int(option_spec("threads"));
  RankHints hints;
  if (options.has("root_guid_file")) hints.root_guids = read_guid_file(options.get("root_guid_file", ""));
  if (options.has("io_guid_file")) hints.io_guids = read_guid_file(options.get("io_guid_file", ""));
  FatTree t = recognize_fat_tree(fabric, kName, hints);
  const int S = t.num_switches();
  const int H = t.height;
  // Parallel cables (bundles): the up-cables are ordered parent by parent within the bundle
  // position (the first cable to each parent, then the second, ...), and a rank's d-mod-k digit
  // weight counts distinct parents, not cables (the D-mod-K of parallel-port generalised fat
  // trees, PGFT). Consecutive destinations of a leaf then climb to different parents and, one
  // rank up, to different spines; with the weight counted in cables the hosts of a leaf with
  // fewer hosts than up-cables (director line cards, 2:1 blocking leaves) all came down one
  // spine. Without bundles the order and the weights are unchanged, and so they are below the
  // top two ranks (a 2-level tree's leaves: no rank above their parents to spread over, and
  // d-mod-k over the cables in port order keeps twin cables evenly used there).
  std::vector<size_t> parents(static_cast<size_t>(S), 0);  // distinct up-peers (cables if unchanged)
  for (int s = 0; s < S; s++) {
    auto& up = t.up[static_cast<size_t>(s)];
    parents[static_cast<size_t>(s)] = up.size();
    if (t.rank[static_cast<size_t>(s)] + 1 >= H) continue;
    std::vector<std::pair<int, int>> key;  // (position in its bundle, first appearance of its parent)
    std::map<int, std::pair<int, int>> seen;  // parent -> (cables so far, appearance)
    for (const auto& e : up) {
      auto it = seen.find(e.peer);
      if (it == seen.end()) it = seen.emplace(e.peer, std::make_pair(0, static_cast<int>(seen.size()))).first;
      key.push_back({it->second.first++, it->second.second});
    }
    parents[static_cast<size_t>(s)] = seen.size();
    if (seen.size() == up.size()) continue;
    std::vector<size_t> order(up.size());
    for (size_t i = 0; i < order.size(); i++) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key[a] < key[b]; });
    std::vector<FatTreeLink> sorted;
    for (size_t i : order) sorted.push_back(up[i]);
    up.swap(sorted);
  }

  // Sub-tree order, from the top down (the leaf order of the d-mod-k indices, dest_index.cpp).
  auto by_subtree = [&](int a, int b) {
    for (int r = H; r >= 1; r--) {
      int ba = t.block[static_cast<size_t>(r)][static_cast<size_t>(a)];
      int bb = t.block[static_cast<size_t>(r)][static_cast<size_t>(b)];
      if (ba != bb) return ba < bb;
    }
    return a < b;
  };
  // Every destination LID with its d-mod-k index, grouped by attach switch (dest_index.cpp).
  std::vector<long> divisor;
  std::vector<std::vector<DestLid>> dests = number_destinations(fabric, t, parents, by_subtree, divisor);

  Lid max_dest_lid = 0;
  for (const auto& dl : dests)
    for (const DestLid& d : dl) max_dest_lid = std::max(max_dest_lid, d.lid);
  // default (threads=0): threads from 4M LFT entries on (switches x LIDs); smaller fabrics route
  // in milliseconds, by the thousand in campaigns, where spawning costs more than it saves
  const bool big = static_cast<double>(S) * static_cast<double>(max_dest_lid) >= 4194304.0;
  const int workers = resolve_threads(threads, threads > 0 || big ? S : 1);
  // Targets in the order of their lowest destination LID: a worker fills the tables for runs of
  // neighbouring LIDs, so the cache line of each switch's table it writes stays in the cache for
  // the next targets (one miss per line, not per target and switch), and two workers rarely
  // write the same line. The LFTs do not depend on the order.
  std::vector<int> by_lid(static_cast<size_t>(S));
  {
    std::vector<std::pair<uint32_t, int>> key(static_cast<size_t>(S));
    for (int s = 0; s < S; s++) {
      uint32_t lo = UINT32_MAX;
      for (const DestLid& d : dests[static_cast<size_t>(s)]) lo = std::min<uint32_t>(lo, d.lid);
      key[static_cast<size_t>(s)] = {lo, s};
    }
    std::sort(key.begin(), key.end());
    for (int s = 0; s < S; s++) by_lid[static_cast<size_t>(s)] = key[static_cast<size_t>(s)].second;
  }

  // Valley leaf candidates: reachable downwards from the most switches (ideally every top
  // switch), then the most up-links, then the first in leaf order. An explicit valley_leaf is
  // the only candidate.
  std::vector<int> valleys;
  if (options.has("valley_leaf")) {
    std::string id = options.get("valley_leaf", "");
    auto n = fabric.find(id);
    if (!n || t.sw_index[static_cast<size_t>(*n)] < 0 || t.rank[static_cast<size_t>(t.sw_index[static_cast<size_t>(*n)])] != 0)
      throw OptionError("valley_leaf '" + id + "' is not a leaf switch of this fabric");
    valleys.push_back(t.sw_index[static_cast<size_t>(*n)]);
    if (chains_wanted > 1)
      throw OptionError("valley_leaf names one valley leaf, vls=" + std::to_string(chains_wanted) + " needs " +
                        std::to_string(chains_wanted) + ": leave valley_leaf unset");
  } else {
    std::vector<std::pair<long, int>> scored;
    std::vector<int> seen(static_cast<size_t>(S), -1), frontier, next_frontier;
    std::vector<int> cands = t.leaves;  // rank-0 switches, empty leaves included, in sub-tree order
    std::sort(cands.begin(), cands.end(), by_subtree);
    for (size_t i = 0; i < cands.size(); i++) {
      int l = cands[i];
      // the switches that reach l downwards: its ancestors, by a BFS over up-links (R3: every
      // switch link joins ranks r and r+1, so up- and down-links are the same links)
      long count = 0;
      seen[static_cast<size_t>(l)] = static_cast<int>(i);
      frontier.assign(1, l);
      while (!frontier.empty()) {
        next_frontier.clear();
        for (int s : frontier)
          for (const auto& e : t.up[static_cast<size_t>(s)])
            if (seen[static_cast<size_t>(e.peer)] != static_cast<int>(i)) {
              seen[static_cast<size_t>(e.peer)] = static_cast<int>(i);
              count++;
              next_frontier.push_back(e.peer);
            }
        frontier.swap(next_frontier);
      }
      scored.push_back({-(count * 1024 + static_cast<long>(t.up[static_cast<size_t>(l)].size())), static_cast<int>(i)});
    }
    std::stable_sort(scored.begin(), scored.end());
    // With several valley chains (vls > 1) the candidates alternate between the sub-trees below
    // the top rank (pods), best first in each: the chains' U-turn traffic then also comes down
    // different spines and cables into them.
    if (chains_wanted > 1 && H >= 2) {
      // ties go to the leaf whose parents have the most up-cables (a chain's U-turn traffic
      // climbs them: a spine short of a cable would carry it on fewer)
      std::vector<long> above(scored.size(), 0);
      for (size_t i = 0; i < scored.size(); i++)
        for (const auto& e : t.up[static_cast<size_t>(cands[static_cast<size_t>(scored[i].second)])])
          above[static_cast<size_t>(scored[i].second)] -= static_cast<long>(t.up[static_cast<size_t>(e.peer)].size());
      std::stable_sort(scored.begin(), scored.end(), [&](const auto& x, const auto& y) {
        return std::make_pair(x.first, above[static_cast<size_t>(x.second)]) <
               std::make_pair(y.first, above[static_cast<size_t>(y.second)]);
      });
      std::map<int, int> taken;  // pod -> candidates from it so far
      std::vector<std::pair<std::pair<int, size_t>, int>> turn;
      for (size_t i = 0; i < scored.size(); i++) {
        const int l = cands[static_cast<size_t>(scored[i].second)];
        turn.push_back({{taken[t.block[static_cast<size_t>(H - 1)][static_cast<size_t>(l)]]++, i}, scored[i].second});
      }
      std::sort(turn.begin(), turn.end());
      for (size_t i = 0; i < turn.size(); i++) scored[i].second = turn[i].second;
    }
    const long tries = std::max(max_valleys, chains_wanted);
    for (size_t i = 0; i < scored.size() && static_cast<long>(i) < tries; i++)
      valleys.push_back(cands[static_cast<size_t>(scored[i].second)]);
  }

  // Valley leaves by plane (PlaneValleys above), tried first where it is on: `auto` on trees of 3+
  // levels with 3+ planes and CAs above the leaves (hosts, aggregation nodes: their traffic
  // between planes is what takes U-turns), one VL and no valley_leaf given.
  const std::string pv_opt = options.get(option_spec("plane_valleys"));  // one of its values (a choice)
  // spread needs one VL (its leaves' traffic among themselves on one plane is what keeps it
  // acyclic; valley chains are by plane)
  const bool any = pv_opt == "auto" || pv_opt == "true";
  const bool want_spread = (any || pv_opt == "spread") && chains_wanted == 1;
  const bool want_pods = (any || pv_opt == "pods") && chains_wanted == 1;
  const bool want_by_plane = any || pv_opt == "by_plane" || chains_wanted > 1;
  const bool forced = !any || pv_opt == "true";
  // With valley chains (vls > 1) each chain is valley leaves by plane in a pod of its own (the
  // candidates alternate between the pods), tried before the single valley leaves: each chain's
  // routing is checked on its own, so its VL holds a subset of an acyclic routing's routes.
  std::vector<PlaneValleys> pvs;  // candidate kPlaneValleys - i is pvs[i]
  if (pv_opt != "false" && H >= 2 && !options.has("valley_leaf") && !valleys.empty()) {
    std::vector<int> codes;
    std::set<int> pods;
    for (size_t k = 0; k < valleys.size() && static_cast<long>(pvs.size()) < chains_wanted; k++) {
      if (!pods.insert(t.block[static_cast<size_t>(H - 1)][static_cast<size_t>(valleys[k])]).second) continue;
      std::vector<int> from = valleys;  // this candidate first: plane_valleys takes its pod
      std::rotate(from.begin(), from.begin() + static_cast<long>(k), from.end());
      // empty where this pod has fewer than two leaves cabled to every plane (then spread and
      // turn pods may still find pods), or where the tree has no planes for them (every pod)
      PlaneValleys pv = plane_valleys(fabric, t, dests, divisor, from, forced);
      auto add = [&](PlaneValleys&& x) {
        codes.push_back(kPlaneValleys - static_cast<int>(pvs.size()));
        pvs.push_back(std::move(x));
      };
      if (want_spread) {
        // turns spread over the full leaves of a pod (PlaneValleys::spread): in the pods of the
        // first three valley candidates of distinct pods (the pod decides how many leaves share
        // the turns, and where the U-turns around faults take place)
        std::set<int> spread_pods;
        for (size_t c = k; c < valleys.size() && spread_pods.size() < 3; c++) {
          if (!spread_pods.insert(t.block[static_cast<size_t>(H - 1)][static_cast<size_t>(valleys[c])]).second) continue;
          std::vector<int> at = valleys;
          std::rotate(at.begin(), at.begin() + static_cast<long>(c), at.end());
          std::vector<int> full;  // variant 1's leaves: variant 2 only where it takes more
          for (int variant : {1, 2}) {
            PlaneValleys sp = plane_valleys(fabric, t, dests, divisor, at, forced, variant);
            if (!sp.spread || sp.leaf == full) continue;
            if (variant == 1) full = sp.leaf;
            add(std::move(sp));
          }
        }
      }
      if (want_pods) {  // turn pods by position
        PlaneValleys tp = plane_valleys(fabric, t, dests, divisor, from, forced, 3);
        if (tp.pods) add(std::move(tp));
      }
      if (want_by_plane && !pv.leaf.empty()) add(std::move(pv));
    }
    valleys.insert(valleys.begin(), codes.begin(), codes.end());
  }

  // Valley leaves by plane: which traffic spares a valley leaf's own planes for its turns (Router
  // kSpare*). Which of the three balances best depends on the fabric (an aggregation node on every
  // switch: both; blocking leaves with many hosts: none), so `auto` routes them all on one VL and
  // keeps the routing with the lowest EFI max (with valley chains, vls > 1, the merged routings below).
  const std::string spare_opt = options.get(option_spec("spare_turn_planes"));
  std::vector<int> spares;
  if (spare_opt == "auto") spares = {0, ftree_router::kSpareSources};
  else if (spare_opt == "none") spares = {0};
  else if (spare_opt == "sources") spares = {ftree_router::kSpareSources};
  else if (spare_opt == "both") spares = {ftree_router::kSpareSources | ftree_router::kSpareDestinations};
  else throw OptionError("spare_turn_planes must be auto, both, sources or none, not '" + spare_opt + "'");

  // Valley chains by plane (vls > 1) with spare_turn_planes=auto: the whole merged routing once per
  // spare mode, the lowest EFI max kept (each is checked on its own, as below).
  if (chains_wanted > 1 && spare_opt == "auto" && !pvs.empty()) {
    std::optional<std::pair<uint64_t, Routing>> kept;
    for (const char* mode : {"none", "sources"}) {
      EngineOptions o = options;
      o.set("spare_turn_planes", mode);
      Routing r = compute(fabric, o, previous);
      const uint64_t e = efi_max(fabric, r, workers);
      if (!kept || e < kept->first) kept.emplace(e, std::move(r));
    }
    return std::move(kept->second);
  }

  // Last resort (beyond the guarantee): U-turns allowed at every switch, accepted only if the
  // CDG check finds no cycle (forced on, whatever `check` says).
  const bool free_uturns = options.get_bool(option_spec("free_uturns"));
  if (free_uturns) valleys.push_back(-1);

  std::string first_failure;
  // vls > 1: the routings of the first valley leaves that route every destination, one per chain
  struct Chain {
    Routing out;
    int valley;  // its valley leaf (valley leaves by plane: the first)
    std::vector<long> uturns;  // LFT entries through a U-turn, per attach switch
    bool planes;               // valley leaves by plane
  };
  std::vector<Chain> chains;
  std::string last_cycle;
  // An empty single-VL routing, and each switch's table sized to every destination LID (`tab`).
  auto new_routing = [&](std::vector<uint8_t*>& tab) {
    Routing out;
    out.engine = kName;
    out.lfts = Lfts(fabric);
    out.num_vls = 1;
    tab.assign(static_cast<size_t>(S), nullptr);
    for (int s = 0; s < S; s++) {
      const int node = t.sw_node[static_cast<size_t>(s)];
      if (max_dest_lid >= out.lfts.table(node).size()) out.lfts.set(node, static_cast<Lid>(max_dest_lid), kNoPath);
      tab[static_cast<size_t>(s)] = out.lfts.table(node).data();
    }
    return out;
  };
  // The self-check: every switch and CA source to every LID, on VL0.
  CdgBuildOptions self_check_options;
  self_check_options.switch_sources = true;
  self_check_options.switch_destinations = true;
  self_check_options.collect_loads = false;
  self_check_options.hop_histogram = false;
  self_check_options.threads = workers;
  auto self_check = [&](const Routing& out) { return build_cdg(fabric, out, self_check_options); };
  // A passed self-check walked every switch to every LID of these final tables: the routing
  // pipeline takes it as its verdict instead of walking them again (ftroute/verdict.hpp).
  auto keep_self_check = [&](Routing& out, const CdgBuild& b) {
    record_self_check(fabric, out, b, self_check_options, std::string(kName) + " self-check", true, true, workers);
  };
  // A balanced routing's EFI max if its self-check (into `b`) passes, else `fail`: what it must
  // beat to be kept.
  auto checked_efi = [&](const Routing& out, std::optional<CdgBuild>& b, uint64_t fail) {
    b = self_check(out);
    const Verdict v = verdict_of(*b, std::string(kName) + " self-check", true, 0);
    return v.ok() && v.cdg_acyclic ? efi_max(fabric, out, workers) : fail;
  };
  // Every candidate once, valley leaves by plane once per spare mode.
  std::vector<std::pair<int, int>> tries;  // (valley, spare)
  for (int valley : valleys)
    for (int spare : valley <= kPlaneValleys && pvs[static_cast<size_t>(kPlaneValleys - valley)].by_plane() ? spares
                                                                                                             : std::vector<int>{0})
      tries.emplace_back(valley, spare);
  // spare_turn_planes=auto: of one plane-valley candidate's routings that pass, the lowest EFI max
  // (CA sources, CA and switch LIDs as destinations: `ftroute compare`'s figure).
  struct Best {
    Routing out;
    CdgBuild b;
    uint64_t efi;
  };
  std::optional<Best> best;
  struct Balanced {
    Routing out;
    size_t moves;
    uint64_t from, efi;
  };
  std::optional<Balanced> balanced;
  const bool fill_opt = options.get_bool(option_spec("fill_holes"));
  const bool balance = options.get_bool(option_spec("balance")) &&
                       fabric.switches().size() * static_cast<size_t>(fabric.max_lid()) <= kBalancePairs;
  const size_t plane_tries = static_cast<size_t>(
      std::count_if(tries.begin(), tries.end(), [](const auto& x) { return x.first <= kPlaneValleys; }));
  for (const auto& [valley, spare] : tries) {
    if (best && valley > kPlaneValleys) break;  // the plane-valley candidates come first
    const bool planes = valley <= kPlaneValleys;
    const PlaneValleys* pvp = planes ? &pvs[static_cast<size_t>(kPlaneValleys - valley)] : nullptr;
    const bool restricted = valley >= 0 || planes;
    const int vleaf = planes ? pvp->leaf.front() : valley;
    // U-turn points: switches in the sub-tree of their own rank that holds the valley leaf (with
    // plane valleys: their leaves, all in one sub-tree above).
    std::vector<char> vc(static_cast<size_t>(S), restricted ? 0 : 1);
    for (int s = 0; restricted && s < S; s++) {
      int r = t.rank[static_cast<size_t>(s)];
      vc[static_cast<size_t>(s)] = t.block[static_cast<size_t>(r)][static_cast<size_t>(s)] ==
                                   t.block[static_cast<size_t>(r)][static_cast<size_t>(vleaf)];
    }
    for (int l : planes ? pvp->leaf : std::vector<int>{}) vc[static_cast<size_t>(l)] = 1;
    // Turn pods: a plane's U-turns above the leaves (core to core: the cores' own LIDs and ANs)
    // take place in the pod of its position, so that no route of that plane leaves that pod and
    // comes back into it (PlaneValleys::pods).
    if (planes && pvp->pods)
      for (int s : t.by_rank[1]) {
        const int m = pvp->plane[static_cast<size_t>(s)];
        const int home = pvp->pod_leaf[static_cast<size_t>(pvp->index(pvp->pos[static_cast<size_t>(m)]))].front();
        vc[static_cast<size_t>(s)] = t.block[1][static_cast<size_t>(s)] == t.block[1][static_cast<size_t>(home)];
      }
    const bool fill = planes && chains_wanted == 1 && fill_opt;
    std::string where;  // the U-turn points, for the notes
    if (planes) {
      where = pvp->spread ? "turns between planes spread over the valley leaves (" + std::to_string(pvp->planes()) +
                                " planes, their own traffic through one):"
              : pvp->pods ? "turns between planes in " + std::to_string(pvp->pod_leaf.size()) + " pods by plane order (" +
                                std::to_string(pvp->planes()) + " planes), spread over their leaves:"
                          : "valley leaves by plane (" + std::to_string(pvp->planes()) + " planes):";
      for (int l : pvp->leaf) where += " " + fabric.node_name(t.sw_node[static_cast<size_t>(l)]);
      if (spare) where += std::string(", their planes spared by ") + ((spare & ftree_router::kSpareDestinations) ? "every route to them and their own" : "their own routes");
    } else if (restricted) {
      where = "valley leaf " + fabric.node_name(t.sw_node[static_cast<size_t>(valley)]);
    }
    // Per attach switch ("target", in parallel over targets): classes, then the memoised plan,
    // then every destination LID of the target gets its column. Each entry depends on its
    // destination alone, so the LFTs are the same for every thread count; the failure reported is
    // the one of the lowest target, as in a sequential pass.
    std::vector<uint8_t*> tab;
    Routing out = new_routing(tab);
    std::vector<int> fail_switch(static_cast<size_t>(S), -1);
    std::vector<long> uturns(static_cast<size_t>(S), 0);
    std::atomic<int> first_fail{S};
    std::vector<Router> routers;
    routers.reserve(static_cast<size_t>(workers));
    for (int w = 0; w < workers; w++) routers.emplace_back(t, vc, pvp, spare);
    std::vector<std::vector<uint64_t>> qbuf(static_cast<size_t>(workers));
    // Groups of up to 64 targets (in LID order) with at most kGroupLids LIDs: a worker fills a
    // group's columns into its own buffer (switch-major, one column per LID of the group), then
    // writes each switch's entries into its table at once: one visit of a switch's table (its
    // pages) per group instead of per target (the tables are thousands of pages; a write per
    // target and switch missed the TLB).
    constexpr size_t kGroupLids = 256;
    std::vector<std::pair<long, long>> groups;  // [begin, end) in by_lid
    std::vector<size_t> gcols;                  // columns (LIDs) per group
    std::vector<size_t> col0(static_cast<size_t>(S), 0);  // a target's first column in its group
    for (long i = 0; i < S;) {
      size_t n = dests[static_cast<size_t>(by_lid[static_cast<size_t>(i)])].size();
      long j = i + 1;
      for (; j < S && j - i < 64; j++) {
        const size_t m = dests[static_cast<size_t>(by_lid[static_cast<size_t>(j)])].size();
        if (m == 0 || n + m > kGroupLids) break;
        col0[static_cast<size_t>(by_lid[static_cast<size_t>(j)])] = n;
        n += m;
      }
      groups.emplace_back(i, j);
      gcols.push_back(n);
      i = j;
    }
    std::vector<std::vector<uint8_t>> gbuf(static_cast<size_t>(workers)), gown(static_cast<size_t>(workers));
    std::vector<std::vector<Lid>> glid(static_cast<size_t>(workers));
    parallel_for(workers, static_cast<long>(groups.size()), 4, [&](int w, long g) {
      const size_t width = gcols[static_cast<size_t>(g)];
      auto& buf = gbuf[static_cast<size_t>(w)];
      auto& own = gown[static_cast<size_t>(w)];
      buf.resize(static_cast<size_t>(S) * width);
      own.assign(width, 0);  // the column is filled (its target did not fail)
      size_t owned = 0;
      for (long gi = groups[static_cast<size_t>(g)].first; gi < groups[static_cast<size_t>(g)].second; gi++) {
        const int target = by_lid[static_cast<size_t>(gi)];
        const auto& dl = dests[static_cast<size_t>(target)];
        if (dl.empty() || (!fill && target > first_fail.load(std::memory_order_relaxed))) continue;
        Router& router = routers[static_cast<size_t>(w)];
        router.compute(target);
        const auto& cls = router.classes().cls;
        long ut = 0;
        bool failed = false;
        for (int s = 0; s < S; s++)
          if (cls[static_cast<size_t>(s)] < 0) {
            if (failed) continue;
            fail_switch[static_cast<size_t>(target)] = s;
            int cur = first_fail.load();
            while (target < cur && !first_fail.compare_exchange_weak(cur, target)) {
            }
            failed = true;
            if (!fill) break;
          } else if (cls[static_cast<size_t>(s)] >= 2) {
            ut += static_cast<long>(dl.size());
          }
        if (failed && !fill) continue;  // with fill: the switches without a class get kNoPath
        uturns[static_cast<size_t>(target)] = ut;
        router.plan(target);
        // q[j * R + r]: destination j's d-mod-k digit source at rank r; q[j * R + H + 1] its
        // position among its attach switch's LIDs (Router::planned_port)
        const size_t R = static_cast<size_t>(H + 2), nd = dl.size();
        auto& q = qbuf[static_cast<size_t>(w)];
        q.resize(nd * R);
        for (size_t j = 0; j < nd; j++) {
          for (size_t r = 0; r + 1 < R; r++)
            q[j * R + r] = static_cast<uint64_t>(dl[j].index / divisor[r] + dl[j].offset);
          q[j * R + R - 1] = static_cast<uint64_t>(dl[j].local);
        }
        const size_t c0 = col0[static_cast<size_t>(target)];
        std::fill(own.begin() + static_cast<long>(c0), own.begin() + static_cast<long>(c0 + nd), 1);
        owned += nd;
        for (int s = 0; s < S; s++) {
          uint8_t* bs = buf.data() + static_cast<size_t>(s) * width + c0;  // column of dl[j]: bs[j]
          if (s == target) {
            for (size_t j = 0; j < nd; j++) bs[j] = dl[j].attach_port;
            continue;
          }
          for (size_t j = 0; j < nd; j++) bs[j] = router.planned_port(s, &q[j * R]);
        }
      }
      if (owned == 0) return;
      // the group's LIDs, column by column
      auto& lids = glid[static_cast<size_t>(w)];
      lids.clear();
      for (long gi = groups[static_cast<size_t>(g)].first; gi < groups[static_cast<size_t>(g)].second; gi++)
        for (const DestLid& d : dests[static_cast<size_t>(by_lid[static_cast<size_t>(gi)])]) lids.push_back(d.lid);
      for (int s = 0; s < S; s++) {
        uint8_t* ts = tab[static_cast<size_t>(s)];
        const uint8_t* bs = buf.data() + static_cast<size_t>(s) * width;
        for (size_t x = 0; x < width; x++)
          if (own[x]) ts[lids[x]] = bs[x];
      }
    });
    long uturn_entries = 0;
    std::string failure;
    for (int target = 0; target < S; target++) {
      const int s = fail_switch[static_cast<size_t>(target)];
      if (s >= 0 && target == first_fail.load()) {
        const auto& dl = dests[static_cast<size_t>(target)];
        failure = "switch " + fabric.node_name(t.sw_node[static_cast<size_t>(s)]) + " cannot reach LID " +
                  std::to_string(dl.front().lid) + " (attached at switch " +
                  fabric.node_name(t.sw_node[static_cast<size_t>(target)]) + ") by up/down routes with U-turns " +
                  (restricted ? "in the sub-trees of " + where : std::string("anywhere"));
        break;
      }
      uturn_entries += uturns[static_cast<size_t>(target)];
    }
    // Switches the construction cannot serve for some LIDs (plane valleys, one VL): routed
    // around it, through other such switches to one that reaches the LID, while the CDG with
    // switch sources stays acyclic (fill_holes, balance.cpp), before the self-check.
    std::string filled;
    if (!failure.empty() && fill) {
      const FillResult n = fill_holes(fabric, out);
      if (n.entries > 0) {
        filled = ", " + std::to_string(n.entries) + " entries the construction left without a route (" + failure +
                 ") routed around it" + (n.attempts > 1 ? " (attempt " + std::to_string(n.attempts) + ")" : "");
        failure.clear();
      }
    }
    if (!failure.empty()) {
      if (first_failure.empty()) first_failure = failure;
      continue;
    }
    out.notes.push_back(t.shape + ", " +
                        (restricted ? where + (planes ? " (beyond the proof, CDG verified)" : "")
                                    : std::string("unrestricted U-turns (beyond the guarantee, CDG verified)")) +
                        ", " + std::to_string(uturn_entries) + " LFT entries lead through a U-turn" + filled);
    if (chains_wanted > 1 && !restricted) break;  // chains are valley chains: U-turns anywhere make none
    if (restricted && !planes && !check && chains_wanted == 1) return out;

    // Safety net (the construction is acyclic by design; this catches bugs, never repairs). With
    // vls > 1 every chain is checked so (the merged tables are not checked again, see below).
    std::optional<CdgBuild> b;
    if (check || !restricted || planes) {
      b = self_check(out);
      const Verdict v = verdict_of(*b, std::string(kName) + " self-check", true, 0);  // ftroute/verdict.hpp
      if (v.dropped() != 0 || v.looping() != 0)
        throw EngineError(kName, "internal check failed: " + std::to_string(v.dropped()) + " unreachable and " +
                                     std::to_string(v.looping()) + " looping pairs, e.g. " + v.first_problem());
      if (!v.cdg_acyclic) {
        if (restricted && !planes && !t.multi_child)
          throw EngineError(kName, "internal check failed: channel dependency cycle on VL0: " + v.cycle);
        last_cycle = v.cycle;
        continue;
      }
    }
    if (chains_wanted > 1) {
      chains.push_back({std::move(out), vleaf, uturns, planes});
      if (static_cast<long>(chains.size()) == chains_wanted) break;
      continue;
    }
    if (planes && chains_wanted == 1) {
      const uint64_t e = efi_max(fabric, out, workers);
      // Cable balancing (balance.cpp) of every candidate, on a part of the budget: which one
      // balances lowest is not the one that starts lowest (seed 7 of the faulted AN trees: spread
      // 555 -> 430, turn pods 580 -> 385).
      if (balance) {
        Routing moved = out;
        const BalanceResult r = balance_cables(fabric, moved, kBalanceMoves, kBalanceScreen);
        if (r.moves > 0 && r.efi_max < e && (!balanced || r.efi_max < balanced->efi))
          balanced = Balanced{std::move(moved), r.moves, e, r.efi_max};
      }
      if (!best || e < best->efi) best = Best{std::move(out), std::move(*b), e};
      continue;
    }
    keep_self_check(out, *b);
    return out;
  }
  if (best) {
    // The candidate that balanced lowest goes on with the rest of the budget.
    const uint64_t screened = kBalanceScreen * plane_tries;
    if (balanced && screened < kBalanceBudget) {
      const BalanceResult r = balance_cables(fabric, balanced->out, kBalanceMoves, kBalanceBudget - screened);
      balanced->moves += r.moves;
      if (r.moves) balanced->efi = r.efi_max;
    }
    // It is kept only if the self-check passes and its EFI max is below the best unbalanced one's.
    if (balanced && balanced->efi < best->efi) {
      std::optional<CdgBuild> b;
      const uint64_t e = checked_efi(balanced->out, b, best->efi);
      if (e < best->efi) {
        balanced->out.notes.push_back("cable balancing: " + std::to_string(balanced->moves) + " entries moved, EFI max " +
                                      std::to_string(balanced->from) + " -> " + std::to_string(e) +
                                      (balanced->from != best->efi ? " (the lowest before balancing: " +
                                                                         std::to_string(best->efi) + ")"
                                                                   : ""));
        best = Best{std::move(balanced->out), std::move(*b), e};
      }
    }
    keep_self_check(best->out, best->b);
    return std::move(best->out);
  }
  // vls > 1: one routing per valley chain, merged destination by destination. Each destination
  // LID takes every switch's entry from one chain, and its SL (= VL) is that chain's number, so
  // VL k carries a subset of chain k's routes: its channel dependencies are a subset of a
  // single-valley routing's, acyclic by the argument of docs/ftree-misroute.md section 4. The
  // LIDs whose routes take U-turns are dealt to the chains by their U-turn entries, largest
  // first, each to the chain with the least so far; the others stay on chain 0 (VL0).
  if (!chains.empty()) {
    Routing out = std::move(chains[0].out);
    std::vector<std::string> names;
    for (const Chain& c : chains)
      names.push_back((c.planes ? "by plane from " : "") + fabric.node_name(t.sw_node[static_cast<size_t>(c.valley)]));
    if (chains.size() == 1) {
      out.notes.push_back("vls=" + std::to_string(chains_wanted) + " asked, but only valley leaf " + names[0] +
                          " routes every destination (of " + std::to_string(valleys.size()) +
                          " candidates): every route is on VL0");
      if (check) keep_self_check(out, self_check(out));
      return out;
    }
    const size_t N = chains.size();
    std::vector<std::pair<long, Lid>> weighted;  // (-U-turn entries per LID, LID)
    for (int target = 0; target < S; target++) {
      const auto& dl = dests[static_cast<size_t>(target)];
      if (dl.empty()) continue;
      const long per = chains[0].uturns[static_cast<size_t>(target)] / static_cast<long>(dl.size());
      if (per > 0)
        for (const DestLid& d : dl) weighted.push_back({-per, d.lid});
    }
    std::sort(weighted.begin(), weighted.end());
    auto sl = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(max_dest_lid) + 1, 0);
    std::vector<long> load(N, 0);
    std::vector<std::vector<Lid>> moved(N);
    for (const auto& [w, lid] : weighted) {
      const size_t k = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
      load[k] -= w;
      (*sl)[lid] = static_cast<uint8_t>(k);
      if (k > 0) moved[k].push_back(lid);
    }
    if (weighted.empty()) {  // no destination needs a U-turn: one chain serves every route
      out.notes.push_back("vls=" + std::to_string(chains_wanted) + " asked, but no route needs a U-turn: every route is on VL0");
      return out;
    }
    for (size_t k = 1; k < N; k++)
      for (int s = 0; s < S; s++) {
        const int node = t.sw_node[static_cast<size_t>(s)];
        auto& to = out.lfts.table(node);
        const auto& from = chains[k].out.lfts.table(node);
        for (Lid lid : moved[k]) to[lid] = from[lid];
      }
    out.num_vls = static_cast<int>(N);
    out.path_sl = [sl](Lid, Lid dlid) -> uint8_t { return dlid < sl->size() ? (*sl)[dlid] : 0; };
    std::string list;
    for (size_t k = 0; k < N; k++)
      list += (k ? ", " : "") + names[k] + " (VL" + std::to_string(k) + ", " + std::to_string(load[k]) + ")";
    out.notes.clear();
    out.notes.push_back(t.shape + ", " + std::to_string(N) + " valley chains, one VL each; valley leaves (VL, LFT " +
                        "entries through a U-turn): " + list);
    if (static_cast<long>(N) < chains_wanted)
      out.notes.push_back("vls=" + std::to_string(chains_wanted) + " asked, but only " + std::to_string(N) + " of " +
                          std::to_string(valleys.size()) + " valley leaf candidates route every destination");
    // Not checked again as a whole: every chain passed its own check (with check on), and each
    // destination's routes here are its chain's, column for column. The routing pipeline walks
    // the merged tables for its verdict; `ftroute check` / `compare` build its CDG per VL.
    return out;
  }
  std::string why = !last_cycle.empty()
                        ? first_failure + "; with U-turns anywhere every switch is reachable but the single-VL " +
                              "channel dependency graph has a cycle: " + last_cycle + " (too many faults)"
                        : first_failure + " (tried " + std::to_string(valleys.size()) +
                              " U-turn placements; disconnected or too many faults)";
  if (options.get_bool(option_spec("updn_fallback"))) {
    std::vector<uint8_t*> tab;
    Routing out = new_routing(tab);
    const int root = route_updn(fabric, t, dests, tab);
    if (root < 0) throw EngineError(kName, why + "; Up*/Down* from one root does not reach every switch either (disconnected)");
    CdgBuild b = self_check(out);
    if (!verdict_of(b, std::string(kName) + " self-check", true, 0).ok())
      throw EngineError(kName, "internal check failed: the Up*/Down* last resort from root " +
                                   fabric.node_name(t.sw_node[static_cast<size_t>(root)]) + " is not loop and deadlock free");
    out.notes.push_back(t.shape + ", Up*/Down* from root " + fabric.node_name(t.sw_node[static_cast<size_t>(root)]) +
                        " (last resort beyond the guarantee, CDG verified; the misrouting failed: " + why + ")");
    // The cable balancing on it too (every route funnels through the root's sub-trees): kept if
    // the self-check passes and EFI max falls.
    if (balance) {
      Routing moved = out;
      const BalanceResult r = balance_cables(fabric, moved, kBalanceMoves, kBalanceBudget);
      if (r.moves > 0) {
        const uint64_t e0 = efi_max(fabric, out, workers);
        std::optional<CdgBuild> mb;
        const uint64_t e = checked_efi(moved, mb, e0);
        if (e < e0) {
          // (before the Up*/Down* note, which stays the last: it names the root)
          moved.notes.insert(moved.notes.end() - 1, "cable balancing: " + std::to_string(r.moves) +
                                                        " entries moved, EFI max " + std::to_string(e0) + " -> " +
                                                        std::to_string(e));
          keep_self_check(moved, *mb);
          return moved;
        }
      }
    }
    keep_self_check(out, b);
    return out;
  }
  throw EngineError(kName, why);
}

}  // namespace ftroute
