// ftree-misroute on fat trees cabled like real clusters (issue 16, `ftroute gen ctree`): every
// shape is recognised, routed on 1 VL with an acyclic CDG when switches are sources too (what
// `ftroute check --switch-pairs` checks, through validate()), and balanced: the EFI maximum stays
// under a bound computed from the cabling, and no cable of a parallel bundle idles while its twin
// carries routes. Exhaustive single and double switch-link faults on a small instance of every
// shape, random larger fault sets on bigger ones. A mutation check shows the balance test fails
// when the port choice is unbalanced on purpose (UnbalancedChoiceFailsTheBalanceTest skews the
// leaves' up-choices of the engine's tables to one port).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "ftroute/ftree_misroute/fattree.hpp"
#include "ftree_misroute/ftree_misroute.hpp"
#include "ftroute/cluster_tree.hpp"
#include "ftroute/error.hpp"
#include "ftroute/topology.hpp"
#include "ftroute/validate.hpp"
#include "test_scale.hpp"

using namespace ftroute;

namespace {

struct Shape {
  const char* name;
  const char* small;  // exhaustive single + double faults
  const char* large;  // recognition, balance, random fault sets
};

// Every shape of the issue: empty leaves, parallel cables, blocking, uneven pods, partial core
// level, dual-rail HCAs, hosts on spines, hosts on aggregation switches, mixed radices.
const std::vector<Shape>& shapes() {
  static const std::vector<Shape> s = {
      {"empty_leaf", "leaves=4,spines=3,hosts=2/0/1/2", "leaves=12,spines=6,hosts=6/6/3/0"},
      {"parallel_cables", "leaves=4,spines=3,hosts=2,links=2", "leaves=8,spines=4,hosts=8,links=2"},
      {"blocking_2to1", "leaves=4,spines=3,hosts=6", "leaves=8,spines=4,hosts=8"},
      {"blocking_3to1", "leaves=4,spines=3,hosts=9", "leaves=8,spines=2,hosts=6"},
      {"uneven_pods", "pods=4/4/3,aggs=3,cores=3,hosts=2", "pods=4/4/2,aggs=4,cores=4,hosts=4"},
      {"partial_core", "pods=4*3,aggs=3,cores=3,hosts=3", "pods=4*3,aggs=4,cores=2,hosts=4"},
      {"dual_rail", "leaves=4,spines=3,hosts=1,dual=1", "leaves=8,spines=4,hosts=3,dual=1"},
      {"spine_hosts", "leaves=4,spines=3,hosts=2,tophosts=1/0/0", "leaves=8,spines=4,hosts=4,tophosts=2/0/0/0"},
      {"agg_hosts", "pods=3*3,aggs=3,cores=3,hosts=2,agghosts=1/0/0", "pods=4*3,aggs=4,cores=4,hosts=4,agghosts=1/0/0/0"},
      {"mixed_radix", "leaves=4,spines=3,hosts=2,radix=8/16", "leaves=8,spines=4,hosts=4,radix=36/64"},
      {"mixed_all", "leaves=4,spines=3,hosts=3/0,links=2,dual=1", "leaves=8,spines=4,hosts=5/4/0/3,links=2,dual=1"},
  };
  return s;
}

Fabric make(const std::string& spec) {
  Fabric f = topo::cluster_tree(topo::parse_cluster_tree(spec));
  f.assign_lids();
  return f;
}

Routing route(const Fabric& f, const EngineOptions& o = {}) {
  FtreeMisrouteEngine e;
  return e.route(f, o);
}

// `ftroute check --switch-pairs`: switch and CA sources, switch and CA LID destinations.
ValidationReport check_switch_pairs(const Fabric& f, const Routing& r) {
  ValidateOptions o;
  o.switch_sources = true;
  return validate(f, r, o);
}

// The campaign's EFI: CA sources, CA and switch LIDs as destinations.
ValidationReport check_ca_sources(const Fabric& f, const Routing& r) { return validate(f, r, {}); }

// A lower bound on the EFI maximum of ANY routing, from the cabling: for every switch and every
// sub-tree (block of rank r), the routes from its CA ports to destination LIDs outside must leave through its
// up-cables, and the routes from outside to its LIDs must enter through them; the busiest cable
// carries at least the average.
double efi_cut_bound(const Fabric& f) {
  FatTree t = recognize_fat_tree(f);
  const int S = t.num_switches();
  std::vector<long> ca_src(static_cast<size_t>(S), 0), lids(static_cast<size_t>(S), 0);
  long all_src = 0, all_lids = 0;
  for (const EndPort& ep : f.end_ports()) {
    Attach a = f.attach(ep.base_lid);
    if (!a.valid()) continue;
    int s = t.sw_index[static_cast<size_t>(a.sw)];
    lids[static_cast<size_t>(s)] += 1L << ep.lmc;
    all_lids += 1L << ep.lmc;
    if (!f.node(ep.node).is_switch()) {
      ca_src[static_cast<size_t>(s)]++;
      all_src++;
    }
  }
  double best = 0;
  // every switch: the routes to its LIDs enter, and those of its CAs leave, over its switch links
  for (int s = 0; s < S; s++) {
    const double deg = static_cast<double>(t.up[static_cast<size_t>(s)].size() + t.down[static_cast<size_t>(s)].size());
    if (deg == 0) continue;
    best = std::max(best, static_cast<double>(all_src - ca_src[static_cast<size_t>(s)]) *
                              static_cast<double>(lids[static_cast<size_t>(s)]) / deg);
    best = std::max(best, static_cast<double>(ca_src[static_cast<size_t>(s)]) *
                              static_cast<double>(all_lids - lids[static_cast<size_t>(s)]) / deg);
  }
  for (int r = 0; r < t.height; r++) {
    std::map<int, std::array<long, 3>> blk;  // block -> {sources, lids, up-cables}
    for (int s = 0; s < S; s++) {
      int b = t.block[static_cast<size_t>(r)][static_cast<size_t>(s)];
      if (b < 0) continue;
      auto& x = blk[b];
      x[0] += ca_src[static_cast<size_t>(s)];
      x[1] += lids[static_cast<size_t>(s)];
      if (t.rank[static_cast<size_t>(s)] == r) x[2] += static_cast<long>(t.up[static_cast<size_t>(s)].size());
    }
    for (auto& [b, x] : blk) {
      if (x[2] == 0) continue;
      best = std::max(best, static_cast<double>(x[0]) * static_cast<double>(all_lids - x[1]) / static_cast<double>(x[2]));
      best = std::max(best, static_cast<double>(all_src - x[0]) * static_cast<double>(x[1]) / static_cast<double>(x[2]));
    }
  }
  return best;
}

// Allowed EFI maximum: the cut bound plus the rounding of d-mod-k (one destination per cable more
// than the average, times the sources behind it) and 25 % for the d-mod-k digits of uneven shapes.
// CAs on upper-level switches reach some switch LIDs (sibling aggregation switches, cores of other
// groups) only through a U-turn, and U-turns are confined to the valley chain (docs/ftree-misroute.md):
// those routes (upper-level CA ports x switch LIDs at most) may all pass one valley link.
double efi_allowed(const Fabric& f) {
  FatTree t = recognize_fat_tree(f);
  long cas = 0, upper = 0;
  for (const EndPort& ep : f.end_ports()) {
    if (f.node(ep.node).is_switch()) continue;
    cas++;
    Attach a = f.attach(ep.base_lid);
    if (a.valid() && t.rank[static_cast<size_t>(t.sw_index[static_cast<size_t>(a.sw)])] > 0) upper++;
  }
  return 1.25 * efi_cut_bound(f) + static_cast<double>(cas) +
         static_cast<double>(upper) * static_cast<double>(f.switches().size());
}

// Parallel cables (same two switches), fault-free: (a) the LIDs the sending switch forwards into the
// bundle are spread over its cables within 3 (d-mod-k over the destination index deals every cable
// the same share of each contiguous index range; what a switch forwards up is the index line minus
// its own hosts' range and its own switch LID: at most 3 ranges); (b) no cable idles while a twin carries
// more routes than one destination can bring (destination-based tables send all routes to one LID
// over one cable, so a bundle that a single destination uses cannot be shared). Returns the first
// offending bundle or "".
std::string idle_twin(const Fabric& f, const Routing& r, const ValidationReport& v) {
  long cas = 0;
  for (const EndPort& ep : f.end_ports())
    if (!f.node(ep.node).is_switch()) cas++;
  std::map<std::pair<int, int>, std::vector<std::pair<uint64_t, long>>> bundle;  // (from, to) -> (routes, LIDs)
  for (const LinkLoad& l : v.switch_link_loads) {
    long entries = 0;
    for (const EndPort& ep : f.end_ports())
      for (int o = 0; o < (1 << ep.lmc); o++)
        if (r.lfts.get(l.node, static_cast<Lid>(ep.base_lid + o)) == l.port) entries++;
    bundle[{l.node, f.node(l.node).port(l.port).peer_node}].push_back({l.routes, entries});
  }
  for (const auto& [k, c] : bundle) {
    if (c.size() < 2) continue;
    uint64_t rmin = UINT64_MAX, rmax = 0;
    long emin = LONG_MAX, emax = 0;
    for (auto [routes, entries] : c) {
      rmin = std::min(rmin, routes);
      rmax = std::max(rmax, routes);
      emin = std::min(emin, entries);
      emax = std::max(emax, entries);
    }
    const std::string where = f.node(k.first).id + " -> " + f.node(k.second).id + ": ";
    if (emax - emin > 3) return where + "cables hold " + std::to_string(emin) + " and " + std::to_string(emax) + " LIDs";
    if (rmin == 0 && rmax > static_cast<uint64_t>(cas))
      return where + "one cable idle, its twin carries " + std::to_string(rmax) + " routes";
  }
  return "";
}

// Switch-to-switch links as (node, port) of one end, in fabric order.
std::vector<std::pair<int, int>> switch_links(const Fabric& f) {
  std::vector<std::pair<int, int>> out;
  for (int n : f.switches()) {
    const Node& nd = f.node(n);
    for (int p = 1; p <= nd.num_ports; p++) {
      const Port& x = nd.port(p);
      if (x.connected() && f.node(x.peer_node).is_switch() && (x.peer_node > n || (x.peer_node == n && x.peer_port > p)))
        out.push_back({n, p});
    }
  }
  return out;
}

// Every CA port can still reach every other CA port and every switch through the cables (CAs do
// not forward): otherwise no routing exists and a refusal is correct.
bool physically_connected(const Fabric& f) {
  std::vector<int> sw = f.switches();
  if (sw.empty()) return false;
  std::vector<char> seen(static_cast<size_t>(f.size()), 0);
  std::vector<int> st{sw[0]};
  seen[static_cast<size_t>(sw[0])] = 1;
  while (!st.empty()) {
    int u = st.back();
    st.pop_back();
    const Node& n = f.node(u);
    for (int p = 1; p <= n.num_ports; p++) {
      int v = n.port(p).peer_node;
      if (v < 0 || seen[static_cast<size_t>(v)]) continue;
      seen[static_cast<size_t>(v)] = 1;
      if (f.node(v).is_switch()) st.push_back(v);
    }
  }
  for (int i = 0; i < f.size(); i++)
    if (!seen[static_cast<size_t>(i)]) {
      // a CA without any link is no participant
      const Node& n = f.node(i);
      bool linked = false;
      for (int p = 1; p <= n.num_ports; p++) linked = linked || n.port(p).connected();
      if (linked || n.is_switch()) return false;
    }
  return true;
}

struct Sweep {
  long sets = 0, tolerated = 0, disconnected = 0, refused = 0;
  std::string first_problem;
};

// Routes every given fault set; a returned routing must pass the switch-pair check on 1 VL.
void run_set(const Fabric& base, const std::vector<std::pair<int, int>>& links, const std::vector<size_t>& faults,
             Sweep& sw, bool refusal_is_failure) {
  Fabric f = base;
  std::string names;
  for (size_t i : faults) {
    names += " " + f.port_name(links[i].first, links[i].second);
    f.disconnect(links[i].first, links[i].second);
  }
  sw.sets++;
  if (!physically_connected(f)) {
    sw.disconnected++;
    return;
  }
  EngineOptions o;
  o.set("check", "false");  // the independent validation below decides
  try {
    Routing r = route(f, o);
    ValidationReport v = check_switch_pairs(f, r);
    const bool one_vl = v.vls_used.size() <= 1;
    if (v.ok() && one_vl) {
      sw.tolerated++;
    } else if (sw.first_problem.empty()) {
      sw.first_problem = "faults" + names + ": routed but " + (one_vl ? "" : "more than one VL, ") +
                         (v.ok() ? "" : "validation failed: " + v.cycle_text +
                                            (v.unreachable_examples.empty() ? "" : v.unreachable_examples[0]));
    }
  } catch (const EngineError& e) {
    sw.refused++;
    if (refusal_is_failure && sw.first_problem.empty()) sw.first_problem = "faults" + names + ": refused: " + e.what();
  }
}

}  // namespace

// ------------------------------------------------------------------ recognition, 1 VL, CDG

TEST(FtreeShapes, EveryShapeIsAFatTreeRoutedOnOneVlWithAcyclicSwitchPairCdg) {
  for (const Shape& s : shapes())
    for (const char* spec : {s.small, s.large}) {
      SCOPED_TRACE(std::string(s.name) + " " + spec);
      Fabric f = make(spec);
      FatTree t = recognize_fat_tree(f);
      EXPECT_EQ(t.missing_links, 0);
      // every rank-0 switch is a leaf of the generator (L...), every L... switch is rank 0
      for (int i = 0; i < t.num_switches(); i++)
        EXPECT_EQ(t.rank[static_cast<size_t>(i)] == 0, f.node(t.sw_node[static_cast<size_t>(i)]).id[0] == 'L')
            << f.node(t.sw_node[static_cast<size_t>(i)]).id;
      EXPECT_EQ(t.height, std::string(spec).find("pods=") == 0 ? 2 : 1);
      Routing r = route(f);
      EXPECT_EQ(r.num_vls, 1);
      ValidationReport v = check_switch_pairs(f, r);
      EXPECT_TRUE(v.ok()) << format_report(f, v);
      EXPECT_LE(v.vls_used.size(), 1u);
    }
}

// Fault-free, every CA-to-CA route is a shortest path of the switch graph and never goes down and
// then up again (no U-turn), and a switch-to-switch-LID route U-turns only where the two switches
// have no common ancestor (no up*/down* path at all: siblings, top switches): the valley/U-turn
// entries are the unavoidable ones.
TEST(FtreeShapes, FaultFreeCaRoutesAreShortestWithoutUturns) {
  for (const Shape& s : shapes())
    for (const char* spec : {s.small, s.large}) {
      SCOPED_TRACE(std::string(s.name) + " " + spec);
      Fabric f = make(spec);
      FatTree t = recognize_fat_tree(f);
      Routing r = route(f);
      auto rank = [&](int node) { return t.rank[static_cast<size_t>(t.sw_index[static_cast<size_t>(node)])]; };
      // switch-graph distances from every switch (BFS)
      std::map<int, std::vector<int>> dist;
      for (int a : f.switches()) {
        std::vector<int> d(static_cast<size_t>(f.size()), -1);
        std::vector<int> q{a};
        d[static_cast<size_t>(a)] = 0;
        for (size_t i = 0; i < q.size(); i++)
          for (int p = 1; p <= f.node(q[i]).num_ports; p++) {
            int v = f.node(q[i]).port(p).peer_node;
            if (v >= 0 && f.node(v).is_switch() && d[static_cast<size_t>(v)] < 0) {
              d[static_cast<size_t>(v)] = d[static_cast<size_t>(q[i])] + 1;
              q.push_back(v);
            }
          }
        dist[a] = d;
      }
      long pairs = 0, longer = 0, uturns = 0;
      for (const EndPort& src : f.end_ports()) {
        if (f.node(src.node).is_switch()) continue;
        const int s0 = f.node(src.node).port(src.port).peer_node;
        for (const EndPort& dst : f.end_ports()) {
          if (f.node(dst.node).is_switch() || (dst.node == src.node && dst.port == src.port)) continue;
          const int target = f.node(dst.node).port(dst.port).peer_node;
          int cur = s0, hops = 0;
          bool down = false, uturn = false;
          while (cur != target && hops < 64) {
            const Port& out = f.node(cur).port(r.lfts.get(cur, dst.base_lid));
            const int nx = out.peer_node;
            if (rank(nx) > rank(cur) && down) uturn = true;
            down = down || rank(nx) < rank(cur);
            cur = nx;
            hops++;
          }
          pairs++;
          if (hops != dist[s0][static_cast<size_t>(target)]) longer++;
          if (uturn) uturns++;
        }
      }
      EXPECT_GT(pairs, 0);
      EXPECT_EQ(longer, 0) << "of " << pairs << " CA-to-CA routes";
      EXPECT_EQ(uturns, 0) << "of " << pairs << " CA-to-CA routes";
      // switch to switch LID: a U-turn only where no up*/down* path exists (no common ancestor)
      std::map<int, std::vector<char>> above;  // switch -> switches reachable by up-moves (itself too)
      for (int a : f.switches()) {
        std::vector<char> seen(static_cast<size_t>(f.size()), 0);
        std::vector<int> q{a};
        seen[static_cast<size_t>(a)] = 1;
        for (size_t i = 0; i < q.size(); i++)
          for (const auto& e : t.up[static_cast<size_t>(t.sw_index[static_cast<size_t>(q[i])])]) {
            int v = t.sw_node[static_cast<size_t>(e.peer)];
            if (!seen[static_cast<size_t>(v)]) {
              seen[static_cast<size_t>(v)] = 1;
              q.push_back(v);
            }
          }
        above[a] = seen;
      }
      long needless = 0, sw_pairs = 0;
      for (int a : f.switches())
        for (int b : f.switches()) {
          if (a == b) continue;
          bool updown = false;
          for (int i = 0; i < f.size() && !updown; i++) updown = above[a][static_cast<size_t>(i)] && above[b][static_cast<size_t>(i)];
          if (!updown) continue;
          sw_pairs++;
          const Lid lid = f.node(b).port(0).base_lid;
          int cur = a, hops = 0;
          bool down = false;
          while (cur != b && hops++ < 64) {
            const int nx = f.node(cur).port(r.lfts.get(cur, lid)).peer_node;
            if (rank(nx) > rank(cur) && down) {
              needless++;
              break;
            }
            down = down || rank(nx) < rank(cur);
            cur = nx;
          }
        }
      EXPECT_GT(sw_pairs, 0);
      EXPECT_EQ(needless, 0) << "of " << sw_pairs << " switch pairs with an up/down path";
    }
}

// A hostless leaf cabled to every spine looks like a third level from the hosts' side; it is a leaf.
TEST(FtreeShapes, EmptyLeavesAndDeadSwitchesAreRecognised) {
  Fabric f = make("leaves=6,spines=3,hosts=3/0/0");
  FatTree t = recognize_fat_tree(f);
  EXPECT_EQ(t.height, 1);
  EXPECT_EQ(t.leaves.size(), 6u);
  EXPECT_EQ(t.hosted.size(), 2u);
  // dead spine, dead leaf, dead aggregation switch: the survivors are still a fat tree
  for (const char* spec : {"leaves=6,spines=3,hosts=3/0/2", "pods=3/2,aggs=3,cores=2,hosts=2"})
    for (const char* dead : {"S1", "L2", "A0_1", "C1_0", "L1_0"}) {
      Fabric g = make(spec);
      auto n = g.find(dead);
      if (!n) continue;
      for (int p = 1; p <= g.node(*n).num_ports; p++)
        if (g.node(*n).port(p).connected()) g.disconnect(*n, p);
      SCOPED_TRACE(std::string(spec) + " without " + dead);
      // the dead switch keeps no link: take it and its orphaned CAs out of the graph
      Fabric h;
      std::vector<int> map(static_cast<size_t>(g.size()), -1);
      for (int i = 0; i < g.size(); i++) {
        if (i == *n) continue;
        const Node& nd = g.node(i);
        bool linked = false;
        for (int p = 1; p <= nd.num_ports; p++) linked = linked || nd.port(p).connected();
        if (!linked) continue;
        map[static_cast<size_t>(i)] = h.add_node(nd.type, nd.id, nd.num_ports, nd.guid);
      }
      for (int i = 0; i < g.size(); i++) {
        if (map[static_cast<size_t>(i)] < 0) continue;
        for (int p = 1; p <= g.node(i).num_ports; p++) {
          const Port& x = g.node(i).port(p);
          if (x.connected() && map[static_cast<size_t>(x.peer_node)] >= 0 && x.peer_node > i)
            h.connect(map[static_cast<size_t>(i)], p, map[static_cast<size_t>(x.peer_node)], x.peer_port);
        }
      }
      h.assign_default_guids();
      h.assign_lids();
      EXPECT_NO_THROW(recognize_fat_tree(h));
      Routing r = route(h);
      EXPECT_TRUE(check_switch_pairs(h, r).ok());
    }
}

// Hosts on every core switch are ambiguous from the graph: a core with hosts looks like a leaf, and
// the graph alone ranks the cores as leaves (a 2-rank tree under the aggregation switches), where
// pod-to-pod routes would U-turn at a core outside the valley chain: refused with a reason. The
// OpenSM ways, root_guid_file and io_guid_file, give the 3-level reading, which routes.
TEST(FtreeShapes, RootAndIoGuidFilesSettleHostsOnCores) {
  Fabric f = make("pods=2/2,aggs=2,cores=2,hosts=2,tophosts=1");
  EXPECT_EQ(recognize_fat_tree(f).height, 1);
  EngineOptions no_updn;
  no_updn.set("updn_fallback", "false");
  EXPECT_THROW(route(f, no_updn), EngineError);
  {  // the last resort of all routes it on one VL, Up*/Down* from one root, and says so
    Routing u = route(f);
    EXPECT_TRUE(check_switch_pairs(f, u).ok());
    ASSERT_FALSE(u.notes.empty());
    EXPECT_NE(u.notes.back().find("Up*/Down* from root"), std::string::npos) << u.notes.back();
  }
  const std::string dir = std::string(FTROUTE_BINARY_DIR) + "/itest-scratch";
  std::filesystem::create_directories(dir);
  const std::string roots = dir + "/ftree_shapes_roots.txt", io = dir + "/ftree_shapes_io.txt";
  {
    std::ofstream r(roots), i(io);
    r << "# the core switches\n";
    i << "# the I/O nodes on the cores\n";
    for (int n : f.switches())
      if (f.node(n).id[0] == 'C') {
        char b[32];
        std::snprintf(b, sizeof b, "0x%016llx\n", static_cast<unsigned long long>(f.node(n).guid));
        r << b;
      }
    for (int n : f.cas())
      if (f.node(n).id[0] == 'T') {
        char b[32];
        std::snprintf(b, sizeof b, "%llx\n", static_cast<unsigned long long>(f.node(n).port(1).guid));
        i << b;
      }
  }
  for (const char* key : {"root_guid_file", "io_guid_file"}) {
    SCOPED_TRACE(key);
    EngineOptions o;
    o.set(key, key[0] == 'r' ? roots : io);
    Routing r = route(f, o);
    ValidationReport v = check_switch_pairs(f, r);
    EXPECT_TRUE(v.ok()) << format_report(f, v);
    RankHints h;
    (key[0] == 'r' ? h.root_guids : h.io_guids) = read_guid_file(key[0] == 'r' ? roots : io);
    FatTree t = recognize_fat_tree(f, "ftree-misroute", h);
    EXPECT_EQ(t.height, 2);
    EXPECT_EQ(t.hosted.size(), 4u + 4u);  // 4 leaves, 4 cores
  }
  {
    std::ofstream b(dir + "/ftree_shapes_bad.txt");
    b << "0x200000\nnot-a-guid\n";
  }
  EngineOptions o;
  o.set("root_guid_file", dir + "/ftree_shapes_bad.txt");
  try {
    route(f, o);
    FAIL() << "bad GUID file accepted";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("ftree_shapes_bad.txt:2"), std::string::npos) << e.what();
  }
  // the checked reader: a directory, binary data, a FIFO (opening it would wait for a writer,
  // inside OpenSM too) fail at once naming the file; iostreams once read /dev/zero until memory
  // ran out and then took the file for empty
  const std::string fifo = dir + "/ftree_shapes_fifo";
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const auto& [path, why] : std::vector<std::pair<std::string, std::string>>{
           {dir, "is a directory"}, {"/dev/zero", "not a regular file"}, {fifo, "not a regular file"}}) {
    EngineOptions g;
    g.set("root_guid_file", path);
    try {
      route(f, g);
      ADD_FAILURE() << path << " accepted";
    } catch (const ParseError& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  }
  std::filesystem::remove(fifo);
}

// Hosts on some cores only (a UFM server or storage on one top switch): such a core reaches the
// leaves of every pod in two hops, more than any leaf it reaches, so it does not rank the tree:
// the 3-level reading with upper-level hosts, routed by the misrouting itself (before: the cores
// were ranked as leaves, a 2-level tree with "missing" links, Up*/Down* "too many faults").
TEST(FtreeShapes, HostsOnSomeCoresAreUpperLevelHosts) {
  for (const char* spec : {"pods=2/2,aggs=2,cores=2,hosts=2,tophosts=1/0", "pods=3*4,aggs=4,hosts=6,tophosts=2/0*11",
                           "pods=3*4,aggs=4,hosts=6,tophosts=1/0/0/1/0*8"}) {
    SCOPED_TRACE(spec);
    Fabric f = make(spec);
    const FatTree t = recognize_fat_tree(f);
    EXPECT_EQ(t.height, 2);
    for (int s : t.hosted)
      EXPECT_EQ(t.rank[static_cast<size_t>(s)] == 0, f.node(t.sw_node[static_cast<size_t>(s)]).id[0] == 'L');
    EngineOptions no_updn;
    no_updn.set("updn_fallback", "false");
    const Routing r = route(f, no_updn);
    EXPECT_TRUE(check_switch_pairs(f, r).ok());
    for (const std::string& n : r.notes) EXPECT_EQ(n.find("Up*/Down*"), std::string::npos) << n;
  }
}

// A leaf whose every uplink is gone (its hosts cut off) is refused at once as a disconnected
// fabric naming it, not after every valley placement was tried ("too many faults").
TEST(FtreeShapes, DisconnectedFabricRefusedNamingTheSwitch) {
  Fabric f = make("leaves=4,spines=2,hosts=2");
  const int leaf = *f.find("L3");
  for (int p = 1; p <= f.node(leaf).num_ports; p++)
    if (f.node(leaf).port(p).connected() && f.node(f.node(leaf).port(p).peer_node).is_switch()) f.disconnect(leaf, p);
  try {
    route(f);
    FAIL() << "a disconnected fabric was routed";
  } catch (const EngineError& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("fabric is disconnected: switch"), std::string::npos) << w;
    EXPECT_NE(w.find("\"L3\""), std::string::npos) << w;
    EXPECT_EQ(w.find("U-turn placements"), std::string::npos) << w;
  }
}

// Not trees: still refused, naming a switch and port.
TEST(FtreeShapes, NonTreesAreRefusedNamingSwitchAndPort) {
  // two 2-level trees joined at the leaves (leaf L3 of one cabled to leaf L0 of the other)
  Fabric a = topo::cluster_tree(topo::parse_cluster_tree("leaves=4,spines=2,hosts=2,radix=5/4"));
  Fabric j;
  for (int copy = 0; copy < 2; copy++)
    for (int i = 0; i < a.size(); i++)
      j.add_node(a.node(i).type, a.node(i).id + (copy ? "b" : "a"), a.node(i).num_ports);
  for (int copy = 0; copy < 2; copy++)
    for (int i = 0; i < a.size(); i++)
      for (int p = 1; p <= a.node(i).num_ports; p++) {
        const Port& x = a.node(i).port(p);
        if (x.connected() && x.peer_node > i) j.connect(copy * a.size() + i, p, copy * a.size() + x.peer_node, x.peer_port);
      }
  j.connect(*j.find("L3a"), 5, *j.find("L0b"), 5);
  j.assign_default_guids();
  j.assign_lids();
  try {
    route(j);
    FAIL() << "two trees joined at the leaves accepted";
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find("\"L3a\"[5]"), std::string::npos) << e.what();
  }
}

// ------------------------------------------------------------------ balance

TEST(FtreeShapes, EfiWithinTheCablingBoundAndNoIdleTwinCable) {
  for (const Shape& s : shapes())
    for (const char* spec : {s.small, s.large}) {
      SCOPED_TRACE(std::string(s.name) + " " + spec);
      Fabric f = make(spec);
      Routing r = route(f);
      ValidationReport v = check_ca_sources(f, r);
      const double bound = efi_cut_bound(f), allowed = efi_allowed(f);
      std::printf("  %-16s %-48s EFI max %5llu  cut bound %7.1f  allowed %7.1f\n", s.name, spec,
                  static_cast<unsigned long long>(v.efi_max), bound, allowed);
      EXPECT_LE(static_cast<double>(v.efi_max), allowed);
      EXPECT_EQ(idle_twin(f, r, v), "");
    }
}

// Mutation check: the same tables with every up-choice at the leaves skewed to the first working
// up-port (an unbalanced port choice) must fail the balance test above.
TEST(FtreeShapes, UnbalancedChoiceFailsTheBalanceTest) {
  for (const char* spec : {"leaves=8,spines=4,hosts=8,links=2", "leaves=12,spines=6,hosts=6/6/3/0"}) {
    SCOPED_TRACE(spec);
    Fabric f = make(spec);
    Routing r = route(f);
    FatTree t = recognize_fat_tree(f);
    for (int l : t.leaves) {
      const int node = t.sw_node[static_cast<size_t>(l)];
      const uint8_t first = t.up[static_cast<size_t>(l)].front().port;
      for (const EndPort& ep : f.end_ports()) {
        uint8_t p = r.lfts.get(node, ep.base_lid);
        bool up = std::any_of(t.up[static_cast<size_t>(l)].begin(), t.up[static_cast<size_t>(l)].end(),
                              [&](const FatTreeLink& e) { return e.port == p; });
        if (up) r.lfts.set(node, ep.base_lid, first);
      }
    }
    ValidationReport v = check_ca_sources(f, r);
    EXPECT_TRUE(v.reachability_ok());  // still a routing, only a bad one
    const bool within = static_cast<double>(v.efi_max) <= efi_allowed(f) && idle_twin(f, r, v).empty();
    EXPECT_FALSE(within) << "EFI max " << v.efi_max << " allowed " << efi_allowed(f);
  }
}

// ------------------------------------------------------------------ the guarantee under faults

// The guarantee on these shapes: with m = the fewest distinct neighbours any switch has upwards
// (below the top) or downwards (above the leaves), m = k for a k-ary n-tree, every set of fewer
// than m switch-link faults is tolerated (switch-pair check, 1 VL). Sets of m or more faults are
// tolerated or refused (EngineError), never answered with a bad table. Exhaustive single and
// double faults on the small instance of every shape.
int min_degree(const Fabric& f) {
  FatTree t = recognize_fat_tree(f);
  int m = INT_MAX;
  auto distinct = [](const std::vector<FatTreeLink>& v) {
    std::vector<int> p;
    for (const auto& e : v) p.push_back(e.peer);
    std::sort(p.begin(), p.end());
    return static_cast<int>(std::unique(p.begin(), p.end()) - p.begin());
  };
  for (int s = 0; s < t.num_switches(); s++) {
    const int r = t.rank[static_cast<size_t>(s)];
    if (r < t.height) m = std::min(m, distinct(t.up[static_cast<size_t>(s)]));
    if (r > 0) m = std::min(m, distinct(t.down[static_cast<size_t>(s)]));
  }
  return m;
}

TEST(FtreeShapes, AllSingleAndDoubleLinkFaultsOnSmallInstances) {
  for (const Shape& s : shapes()) {
    SCOPED_TRACE(std::string(s.name) + " " + s.small);
    Fabric f = make(s.small);
    const int m = min_degree(f);
    auto links = switch_links(f);
    Sweep one, two;
    size_t pair = 0;  // every pair, or a sample of them in the sanitizer build (test_scale.hpp)
    for (size_t a = 0; a < links.size(); a++) {
      run_set(f, links, {a}, one, m > 1);
      for (size_t b = a + 1; b < links.size(); b++)
        if (test_scale::sampled(pair++, 7)) run_set(f, links, {a, b}, two, m > 2);
    }
    std::printf("  %-16s %-42s m=%d  1 fault: %ld/%ld tolerated (%ld cut, %ld refused)  2 faults: %ld/%ld (%ld cut, %ld refused)\n",
                s.name, s.small, m, one.tolerated, one.sets, one.disconnected, one.refused, two.tolerated, two.sets,
                two.disconnected, two.refused);
    EXPECT_GE(m, 3);  // every small instance is built so that double faults are inside the guarantee
    EXPECT_EQ(one.first_problem, "");
    EXPECT_EQ(two.first_problem, "");
    EXPECT_EQ(one.tolerated + one.disconnected, one.sets);
    if (m > 2) {
      EXPECT_EQ(two.tolerated + two.disconnected, two.sets);
    }
  }
}

// Random 2, 4, 6 link faults on the larger instances: every routing returned passes the check (the
// engine never returns a bad table), refusals are EngineErrors, and fewer than m faults are always
// tolerated. The tolerated share is printed.
TEST(FtreeShapes, RandomLargerFaultSets) {
  std::mt19937_64 rng(20261124);
  for (const Shape& s : shapes()) {
    Fabric f = make(s.large);
    const int m = min_degree(f);
    auto links = switch_links(f);
    for (size_t k : {2, 4, 6}) {
      Sweep sw;
      for (int rep = 0; rep < 25; rep++) {
        std::vector<size_t> idx(links.size());
        for (size_t i = 0; i < idx.size(); i++) idx[i] = i;
        std::shuffle(idx.begin(), idx.end(), rng);
        idx.resize(std::min(k, idx.size()));
        run_set(f, links, idx, sw, false);
      }
      std::printf("  %-16s m=%d %zu faults: %ld/%ld tolerated, %ld cut, %ld refused\n", s.name, m, k, sw.tolerated,
                  sw.sets, sw.disconnected, sw.refused);
      EXPECT_EQ(sw.first_problem, "") << s.name;
      if (static_cast<int>(k) < m) {
        EXPECT_EQ(sw.tolerated + sw.disconnected, sw.sets) << s.name;
      }
    }
  }
}

// Dead switches (a spine, leaf, aggregation or core switch with all its links, and the CAs that hang
// only off it): one random dead switch on the larger instance of every shape is always tolerated
// (it takes at most one neighbour from each switch, fewer than m); two are printed.
TEST(FtreeShapes, RandomDeadSwitches) {
  for (const Shape& s : shapes()) {
    for (int dead : {1, 2}) {
      Sweep sw;
      for (uint64_t seed = 1; seed <= 10; seed++) {
        Fabric f = topo::cluster_tree(topo::parse_cluster_tree(s.large));
        topo::FaultSpec spec;
        spec.random_switches = dead;
        spec.seed = seed;
        spec.keep_connected = true;
        topo::FaultReport rep = topo::inject_faults(f, spec);
        f.assign_lids();
        sw.sets++;
        EngineOptions o;
        o.set("check", "false");
        try {
          Routing r = route(f, o);
          ValidationReport v = check_switch_pairs(f, r);
          if (v.ok() && v.vls_used.size() <= 1) sw.tolerated++;
          else if (sw.first_problem.empty()) sw.first_problem = "dead " + rep.switches[0] + ": bad routing";
        } catch (const EngineError& e) {
          sw.refused++;
          if (dead == 1 && sw.first_problem.empty()) sw.first_problem = "dead " + rep.switches[0] + ": " + e.what();
        }
      }
      std::printf("  %-16s %d dead switch(es): %ld/%ld tolerated, %ld refused\n", s.name, dead, sw.tolerated, sw.sets,
                  sw.refused);
      EXPECT_EQ(sw.first_problem, "") << s.name;
    }
  }
}
