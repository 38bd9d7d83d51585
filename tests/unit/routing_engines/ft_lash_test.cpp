// ft-lash (LASH): every pair routed on a shortest path, every virtual layer's CDG acyclic, one
// layer per path (SL = VL constant along it), as few layers as first-fit gives (2 on a 4x4 torus
// like OpenSM's lash; refused with max_vls below that), irregular fabrics and the registry.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "ft_lash/ft_lash.hpp"
#include "ftroute/cdg.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/topology.hpp"

using namespace ftroute;

namespace {

Fabric grid(std::vector<int> dims, bool torus, int links = 1, int hosts = 1) {
  topo::Grid g;
  g.dims = std::move(dims);
  g.torus = torus;
  g.links = links;
  g.hosts_per_switch = hosts;
  Fabric f = topo::grid(g);
  f.assign_lids();
  return f;
}

// hop distances between switches
std::vector<std::vector<int>> switch_dist(const Fabric& f) {
  std::vector<std::vector<int>> d(static_cast<size_t>(f.size()), std::vector<int>(static_cast<size_t>(f.size()), -1));
  for (int s : f.switches()) {
    auto& ds = d[static_cast<size_t>(s)];
    std::vector<int> q{s};
    ds[static_cast<size_t>(s)] = 0;
    for (size_t i = 0; i < q.size(); i++) {
      const Node& n = f.node(q[i]);
      for (int p = 1; p <= n.num_ports; p++) {
        const Port& pt = n.port(p);
        if (!pt.connected() || !f.node(pt.peer_node).is_switch() || ds[static_cast<size_t>(pt.peer_node)] >= 0) continue;
        ds[static_cast<size_t>(pt.peer_node)] = ds[static_cast<size_t>(q[i])] + 1;
        q.push_back(pt.peer_node);
      }
    }
  }
  return d;
}

// every pair (CA and switch LIDs) delivered on a shortest path, no loop, every VL's CDG acyclic,
// no dependency changes VL, every layer 0..num_vls-1 used
void expect_lash(const Fabric& f, const Routing& r, const std::string& ctx) {
  CdgBuildOptions co;
  co.switch_sources = true;
  CdgBuild b = build_cdg(f, r, co);
  EXPECT_EQ(b.stats.looping, 0u) << ctx;
  EXPECT_EQ(b.stats.delivered, b.stats.pairs) << ctx;
  for (int vl = 0; vl < r.num_vls; vl++) {
    auto cyc = b.cdg.find_cycle(vl);
    EXPECT_FALSE(cyc) << ctx << " VL " << vl << ": " << (cyc ? b.cdg.format_cycle(*cyc) : "");
  }
  for (auto [a, c] : b.cdg.edges()) ASSERT_EQ(Cdg::vl_of(a), Cdg::vl_of(c)) << ctx << ": a path changes VL";
  // shortest paths: walk every switch-to-switch LID pair
  auto dist = switch_dist(f);
  std::set<int> used;
  for (int s : f.switches())
    for (int t : f.switches()) {
      if (s == t) continue;
      const Lid sl = f.node(s).port(0).base_lid, dl = f.node(t).port(0).base_lid;
      used.insert(r.sl(sl, dl));
      int y = s, hops = 0;
      while (y != t && hops <= f.size()) {
        y = f.node(y).port(r.lfts.get(y, dl)).peer_node;
        hops++;
      }
      ASSERT_EQ(y, t) << ctx;
      ASSERT_EQ(hops, dist[static_cast<size_t>(s)][static_cast<size_t>(t)]) << ctx << ": not a shortest path";
    }
  EXPECT_EQ(static_cast<int>(used.size()), r.num_vls) << ctx << ": every layer carries paths";
}

}  // namespace

TEST(FtLash, ToriAndMeshesAreRoutedDeadlockFreeOnShortestPaths) {
  FtLashEngine e;
  struct Case {
    std::vector<int> dims;
    bool torus;
  };
  for (const Case& c : {Case{{4, 4}, true}, Case{{5, 5}, true}, Case{{6, 6}, true}, Case{{3, 4, 5}, true},
                        Case{{5, 5}, false}, Case{{4, 4, 4}, false}}) {
    Fabric f = grid(c.dims, c.torus);
    Routing r = e.route(f);
    std::string ctx = std::string(c.torus ? "torus " : "mesh ") + std::to_string(c.dims[0]) + "x" + std::to_string(c.dims[1]);
    expect_lash(f, r, ctx);
    std::printf("%s: %d layers\n", ctx.c_str(), r.num_vls);
    EXPECT_LE(r.num_vls, 8) << ctx;
    if (c.torus) {
      EXPECT_GE(r.num_vls, 2) << ctx << ": a torus ring needs two layers with shortest paths";
    }
  }
}

// Layer count: a 4x4 torus takes 2 layers, as OpenSM's lash does on it (docs/dqr.md, under
// ibsim); with max_vls below the count the engine refuses, naming it.
TEST(FtLash, LayerCountAndMaxVls) {
  Fabric f = grid({4, 4}, true);
  Routing r = FtLashEngine().route(f);
  EXPECT_EQ(r.num_vls, 2);
  EngineOptions o;
  o.set("max_vls", "1");
  try {
    FtLashEngine().route(f, o);
    FAIL() << "max_vls=1 accepted";
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find("max_vls=1"), std::string::npos) << e.what();
  }
  o.set("max_vls", "0");
  EXPECT_THROW(FtLashEngine().route(f, o), OptionError);
  EngineOptions bad;
  bad.set("layers", "2");
  EXPECT_THROW(FtLashEngine().route(f, bad), OptionError);
  // a ring of 8: one layer cannot hold shortest paths around it
  Fabric ring = grid({8}, true);
  Routing rr = FtLashEngine().route(ring);
  expect_lash(ring, rr, "ring 8");
  EXPECT_GE(rr.num_vls, 2);
}

// Topology agnostic: random irregular fabrics (a mesh with random links removed, still connected)
// and through the registry, as the CLI and the OpenSM plugin create it.
TEST(FtLash, IrregularFabricsThroughTheRegistry) {
  auto eng = make_engine("ft-lash");
  EXPECT_EQ(eng->name(), "ft-lash");
  std::mt19937_64 rng(7);
  for (int k = 0; k < 5; k++) {
    Fabric f = grid({6, 6}, k % 2 == 1);
    for (int i = 0; i < 8; i++) {
      auto links = f.switch_links();
      auto [s, p] = links[topo::uniform_index(rng, links.size())];
      Fabric g = f;
      g.disconnect(s, p);
      if (g.connected()) f = std::move(g);
    }
    Routing r = eng->route(f);
    expect_lash(f, r, "irregular " + std::to_string(k));
  }
}

// A bundle of parallel cables is one link to the layering and its cables share its routes: on
// grids with 2-3 cables per neighbour pair every cable of a bundle carries LFT entries, within one
// of each other (the LIDs dealt round them), the CDG over the cables stays acyclic per VL, and the
// layer count is the one-cable grid's. (Before, the lowest cable carried them all.)
TEST(FtLash, ParallelCablesShareTheRoutes) {
  FtLashEngine e;
  for (int links : {2, 3}) {
    for (bool torus : {true, false}) {
      Fabric f = grid({4, 4}, torus, links, 3);
      Routing r = e.route(f);
      const std::string ctx = std::string(torus ? "torus" : "mesh") + " links=" + std::to_string(links);
      expect_lash(f, r, ctx);
      EXPECT_EQ(r.num_vls, e.route(grid({4, 4}, torus, 1, 3)).num_vls) << ctx;
      for (int s : f.switches()) {
        std::map<int, std::vector<int>> per_peer;  // neighbour -> LFT entries per cable
        const Node& nd = f.node(s);
        std::map<int, int> entries;
        for (Lid l = 1; l <= f.max_lid(); l++) entries[r.lfts.get(s, l)]++;
        for (int q = 1; q <= nd.num_ports; q++) {
          const Port& p = nd.port(q);
          if (p.connected() && f.node(p.peer_node).is_switch()) per_peer[p.peer_node].push_back(entries[q]);
        }
        for (const auto& [peer, counts] : per_peer) {
          ASSERT_EQ(static_cast<int>(counts.size()), links) << ctx;
          const auto [lo, hi] = std::minmax_element(counts.begin(), counts.end());
          EXPECT_GT(*lo, 0) << ctx << ": a cable of " << f.node_name(s) << " -> " << f.node_name(peer) << " carries nothing";
          EXPECT_LE(*hi - *lo, 1) << ctx << ": " << f.node_name(s) << " -> " << f.node_name(peer);
        }
      }
    }
  }
}

// fill=even (OpenSM's LASH balances the layers it needs; docs/dqr.md "DQR over LASH"): the same
// shortest paths (identical LFTs) and as many layers as first-fit, every layer's CDG acyclic, and
// the switch-to-switch paths spread over the layers within one of each other, where first-fit
// leaves its last layer almost empty; layers=N spreads them over N. Bad values are refused.
TEST(FtLash, EvenFillBalancesTheLayers) {
  auto per_layer = [](const Fabric& f, const Routing& r) {
    std::map<int, int> n;
    for (int s : f.switches())
      for (int t : f.switches())
        if (s != t) n[r.sl(f.node(s).port(0).base_lid, f.node(t).port(0).base_lid)]++;
    return n;
  };
  auto spread = [](const std::map<int, int>& m) {  // most minus fewest paths in a layer
    auto [lo, hi] = std::minmax_element(m.begin(), m.end(), [](auto& a, auto& b) { return a.second < b.second; });
    return hi->second - lo->second;
  };
  for (const auto& [dims, torus] : {std::pair{std::vector<int>{5, 5}, true}, std::pair{std::vector<int>{6, 6}, true},
                                    std::pair{std::vector<int>{3, 4, 5}, true}, std::pair{std::vector<int>{8}, true}}) {
    Fabric f = grid(dims, torus);
    const std::string ctx = "torus of " + std::to_string(f.switches().size()) + " switches";
    EngineOptions even;
    even.set("fill", "even");
    Routing first = FtLashEngine().route(f), r = FtLashEngine().route(f, even);
    expect_lash(f, r, ctx + " fill=even");
    EXPECT_EQ(r.num_vls, first.num_vls) << ctx;
    for (int s : f.switches())
      for (Lid l = 1; l <= f.max_lid(); l++) ASSERT_EQ(r.lfts.get(s, l), first.lfts.get(s, l)) << ctx;
    auto fe = per_layer(f, r), ff = per_layer(f, first);
    std::printf("%s: %d layers, paths per layer first-fit %d apart, even %d apart\n", ctx.c_str(), r.num_vls, spread(ff),
                spread(fe));
    EXPECT_LE(spread(fe), 1) << ctx;
    if (r.num_vls > 1) {
      EXPECT_GT(spread(ff), 1) << ctx << ": first-fit already balanced, so the test shows nothing";
    }
  }
  // layers=N spreads them over N layers when first-fit needs fewer (OpenSM's lash needs more)
  Fabric f = grid({5, 5}, true);
  EngineOptions more;
  more.set("fill", "even"), more.set("layers", "5");
  Routing r5 = FtLashEngine().route(f, more);
  expect_lash(f, r5, "5x5 torus, fill=even, layers=5");
  EXPECT_EQ(r5.num_vls, 5);
  EXPECT_LE(spread(per_layer(f, r5)), 1);
  EngineOptions bad;
  bad.set("fill", "odd");
  EXPECT_THROW(FtLashEngine().route(f, bad), OptionError);
  EngineOptions no_even;
  no_even.set("layers", "5");
  EXPECT_THROW(FtLashEngine().route(f, no_even), OptionError);
  more.set("layers", "9");
  EXPECT_THROW(FtLashEngine().route(f, more), OptionError);  // more than max_vls=8
}
