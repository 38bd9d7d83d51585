// dor: mesh and torus recognition from the graph, dimension-order routing on meshes and E-cube
// routing with virtual layers on tori.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>

#include "dor/dor.hpp"
#include "ftroute/cdg.hpp"
#include "ftroute/grid.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/topology.hpp"
#include "ftroute/validate.hpp"

using namespace ftroute;

namespace {
Fabric mesh(std::vector<int> dims, int hps = 1, bool torus = false) {
  topo::Grid g;
  g.dims = std::move(dims);
  g.hosts_per_switch = hps;
  g.torus = torus;
  Fabric f = topo::grid(g);
  f.assign_lids();
  return f;
}
}  // namespace

TEST(Grid, RecognisesMeshesRegardlessOfNames) {
  for (auto dims : std::vector<std::vector<int>>{{4, 4}, {5, 3}, {2, 6}, {3, 3, 3}, {4, 2, 3}}) {
    Fabric f = mesh(dims, 2);
    std::string why;
    auto g = recognise_mesh(f, &why);
    ASSERT_TRUE(g) << why;
    EXPECT_EQ(g->ndims, static_cast<int>(dims.size()));
    int prod = 1;
    for (int d = 0; d < g->ndims; d++) prod *= g->size[static_cast<size_t>(d)];
    EXPECT_EQ(prod, static_cast<int>(f.switches().size()));
    // every grid neighbour is linked through the recorded port
    for (int s : f.switches())
      for (int d = 0; d < g->ndims; d++)
        for (int dir = 0; dir < 2; dir++) {
          auto c = g->coord[static_cast<size_t>(s)];
          c[static_cast<size_t>(d)] += dir == 0 ? 1 : -1;
          uint8_t p = g->port[static_cast<size_t>(s)][static_cast<size_t>(2 * d + dir)];
          if (c[static_cast<size_t>(d)] < 0 || c[static_cast<size_t>(d)] >= g->size[static_cast<size_t>(d)]) {
            EXPECT_EQ(p, 0);
          } else {
            ASSERT_NE(p, 0);
            EXPECT_EQ(f.node(s).port(p).peer_node, g->node(c));
          }
        }
  }
}

TEST(Grid, RejectsNonMeshes) {
  std::string why;
  EXPECT_FALSE(recognise_mesh(mesh({4, 4}, 1, true), &why));
  EXPECT_NE(why.find("torus"), std::string::npos) << why;
  Fabric f = mesh({4, 4});
  // remove one inner link: no longer a full mesh
  int s = *f.find("S1_1");
  for (int p = 1; p <= f.node(s).num_ports; p++)
    if (f.node(s).port(p).connected() && f.node(f.node(s).port(p).peer_node).is_switch()) {
      f.disconnect(s, p);
      break;
    }
  EXPECT_FALSE(recognise_mesh(f, &why));
  Fabric t = topo::kary_ntree(2, 3);
  EXPECT_FALSE(recognise_mesh(t, &why));
}

TEST(Dor, RoutesEveryPairOnManhattanPathsDeadlockFree) {
  for (auto dims : std::vector<std::vector<int>>{{5, 4}, {3, 3, 3}}) {
    Fabric f = mesh(dims, 2);
    DorEngine e;
    Routing r = e.route(f);
    CdgBuild b = build_cdg(f, r);
    EXPECT_EQ(b.stats.delivered, b.stats.pairs);
    EXPECT_EQ(b.stats.looping, 0u);
    EXPECT_FALSE(b.cdg.find_cycle());
    // path length (switch links) = Manhattan distance
    auto g = recognise_mesh(f);
    ASSERT_TRUE(g);
    for (int s : f.switches())
      for (int t : f.switches()) {
        Lid lid = f.node(t).port(0).base_lid;
        int y = s, hops = 0;
        while (y != t && hops < 100) y = f.node(y).port(r.lfts.get(y, lid)).peer_node, hops++;
        int manhattan = 0;
        for (int d = 0; d < 3; d++)
          manhattan += std::abs(g->coord[static_cast<size_t>(s)][static_cast<size_t>(d)] - g->coord[static_cast<size_t>(t)][static_cast<size_t>(d)]);
        EXPECT_EQ(hops, manhattan);
        EXPECT_EQ(r.lfts.get(t, lid), 0);
      }
  }
}

TEST(Dor, DimensionOrderIsXFirstAndOptionChangesIt) {
  Fabric f = mesh({4, 4});
  auto g = recognise_mesh(f);
  DorEngine e;
  Routing xy = e.route(f);
  EngineOptions o;
  o.set("order", "yx");
  Routing yx = e.route(f, o);
  int s = g->node({0, 0, 0}), t = g->node({3, 3, 0});
  Lid lid = f.node(t).port(0).base_lid;
  EXPECT_EQ(xy.lfts.get(s, lid), g->port[static_cast<size_t>(s)][0]);  // +x first
  EXPECT_EQ(yx.lfts.get(s, lid), g->port[static_cast<size_t>(s)][2]);  // +y first
  o.set("order", "xx");
  EXPECT_THROW(e.route(f, o), OptionError);
}

TEST(Dor, RefusesFaultyMesh) {
  DorEngine e;
  Fabric f = mesh({4, 4});
  f.disconnect(*f.find("S1_1"), 2);
  try {
    e.route(f);
    FAIL() << "faulty mesh accepted";
  } catch (const EngineError& err) {
    EXPECT_NE(std::string(err.what()).find("mesh"), std::string::npos);
  }
}

// ---------------------------------------------------------------------------------------------
// tori

namespace {

Fabric torus(std::vector<int> dims, int hps = 1, int radix = 0) {
  topo::Grid g;
  g.dims = std::move(dims);
  g.hosts_per_switch = hps;
  g.torus = true;
  g.radix = radix;
  Fabric f = topo::grid(g);
  f.assign_lids();
  return f;
}

// The same torus with switches created in a shuffled order, shuffled port numbers and names that
// say nothing ("X<k>"), so recognition can only use the graph. name_of[k] = generator coordinates.
Fabric shuffled_torus(const std::vector<int>& dims, uint32_t seed, std::vector<std::vector<int>>* coords) {
  std::mt19937 rng(seed);
  const int nd = static_cast<int>(dims.size());
  int n = 1;
  for (int d : dims) n *= d;
  std::vector<int> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  auto coord_of = [&](int idx) {
    std::vector<int> c(static_cast<size_t>(nd));
    for (int d = 0; d < nd; d++) c[static_cast<size_t>(d)] = idx % dims[static_cast<size_t>(d)], idx /= dims[static_cast<size_t>(d)];
    return c;
  };
  auto index_of = [&](const std::vector<int>& c) {
    int idx = 0;
    for (int d = nd - 1; d >= 0; d--) idx = idx * dims[static_cast<size_t>(d)] + c[static_cast<size_t>(d)];
    return idx;
  };
  Fabric f;
  const int radix = 2 * nd + 1;
  std::vector<int> node(static_cast<size_t>(n));
  for (int k = 0; k < n; k++) node[static_cast<size_t>(order[static_cast<size_t>(k)])] = f.add_node(NodeType::Switch, "X" + std::to_string(k), radix);
  std::vector<std::vector<int>> free_ports(static_cast<size_t>(n));
  for (int i = 0; i < n; i++) {
    for (int p = 1; p <= radix; p++) free_ports[static_cast<size_t>(i)].push_back(p);
    std::shuffle(free_ports[static_cast<size_t>(i)].begin(), free_ports[static_cast<size_t>(i)].end(), rng);
  }
  auto take = [&](int i) {
    int p = free_ports[static_cast<size_t>(i)].back();
    free_ports[static_cast<size_t>(i)].pop_back();
    return p;
  };
  for (int i = 0; i < n; i++)
    for (int d = 0; d < nd; d++) {
      auto c = coord_of(i);
      c[static_cast<size_t>(d)] = (c[static_cast<size_t>(d)] + 1) % dims[static_cast<size_t>(d)];
      const int j = index_of(c);
      f.connect(node[static_cast<size_t>(i)], take(i), node[static_cast<size_t>(j)], take(j));
    }
  for (int i = 0; i < n; i++) {
    int h = f.add_node(NodeType::Ca, "H" + std::to_string(i), 1);
    f.connect(h, 1, node[static_cast<size_t>(i)], take(i));
  }
  if (coords) {
    coords->assign(static_cast<size_t>(f.size()), {});
    for (int i = 0; i < n; i++) (*coords)[static_cast<size_t>(node[static_cast<size_t>(i)])] = coord_of(i);
  }
  f.assign_default_guids();
  f.assign_lids();
  return f;
}

// Checks the embedding is a torus of the fabric: every recorded port leads to the ring neighbour
// (wrap included), coordinates are a bijection onto the grid.
void expect_valid_torus(const Fabric& f, const MeshGrid& g, const std::string& what) {
  ASSERT_TRUE(g.torus) << what;
  ASSERT_EQ(g.num_switches(), static_cast<int>(f.switches().size())) << what;
  std::vector<int> seen(static_cast<size_t>(g.num_switches()), 0);
  for (int s : f.switches()) {
    ASSERT_TRUE(g.is_grid_switch(s)) << what;
    seen[static_cast<size_t>(g.linear(g.coord[static_cast<size_t>(s)]))]++;
    EXPECT_EQ(g.node(g.coord[static_cast<size_t>(s)]), s) << what;
    for (int d = 0; d < g.ndims; d++)
      for (int dir = 0; dir < 2; dir++) {
        auto c = g.coord[static_cast<size_t>(s)];
        const int n = g.size[static_cast<size_t>(d)];
        c[static_cast<size_t>(d)] = (c[static_cast<size_t>(d)] + (dir == 0 ? 1 : n - 1)) % n;
        uint8_t p = g.port[static_cast<size_t>(s)][static_cast<size_t>(2 * d + dir)];
        ASSERT_NE(p, 0) << what << " " << f.node(s).id << " d" << d << " dir " << dir;
        EXPECT_EQ(f.node(s).port(p).peer_node, g.node(c)) << what << " " << f.node(s).id << " d" << d << " dir " << dir;
      }
  }
  for (int k : seen) EXPECT_EQ(k, 1) << what;
}

int torus_distance(const MeshGrid& g, const std::array<int, 3>& a, const std::array<int, 3>& b) {
  int h = 0;
  for (int d = 0; d < g.ndims; d++) {
    const int n = g.size[static_cast<size_t>(d)];
    const int x = std::abs(a[static_cast<size_t>(d)] - b[static_cast<size_t>(d)]);
    h += std::min(x, n - x);
  }
  return h;
}

std::string with_free_port_extra_link(Fabric& f, const std::string& a, const std::string& b) {
  auto free_port = [&](int s) {
    for (int p = 1; p <= f.node(s).num_ports; p++)
      if (!f.node(s).port(p).connected()) return p;
    return 0;
  };
  int x = *f.find(a), y = *f.find(b);
  f.connect(x, free_port(x), y, free_port(y));
  return a;
}

}  // namespace

TEST(Grid, RecognisesToriFromTheGraphAlone) {
  for (auto dims : std::vector<std::vector<int>>{{4, 4}, {5, 5}, {3, 6}, {6, 3}, {3, 3}, {3, 3, 3}, {4, 4, 4}, {3, 4, 5}}) {
    std::string what;
    for (int d : dims) what += std::to_string(d) + " ";
    Fabric f = torus(dims, 2);
    std::string why;
    auto g = recognise_torus(f, &why);
    ASSERT_TRUE(g) << what << why;
    EXPECT_EQ(g->ndims, static_cast<int>(dims.size())) << what;
    expect_valid_torus(f, *g, what);
    // rings of size != 4 have one embedding up to renumbering; the canonical frame (dimension 0 =
    // root's lowest-index neighbour, + towards it) then reproduces the generator's coordinates
    if (std::find(dims.begin(), dims.end(), 4) == dims.end())
      for (int s : f.switches()) {
        std::string name = "S";
        for (int d = 0; d < g->ndims; d++) name += (d ? "_" : "") + std::to_string(g->coord[static_cast<size_t>(s)][static_cast<size_t>(d)]);
        EXPECT_EQ(f.node(s).id, name) << what;
      }
    auto gg = recognise_grid(f, &why);
    ASSERT_TRUE(gg) << what << why;
    EXPECT_TRUE(gg->torus);
    EXPECT_EQ(gg->describe().find("torus") != std::string::npos, true) << gg->describe();
    // meshes are still meshes for recognise_grid, and not tori
    Fabric m = mesh(dims, 1);
    auto gm = recognise_grid(m, &why);
    ASSERT_TRUE(gm) << what << why;
    EXPECT_FALSE(gm->torus);
    EXPECT_FALSE(recognise_torus(m, &why)) << what;
  }
  // recognise_mesh keeps refusing tori (DQR's mesh plug-in relies on it)
  std::string why;
  EXPECT_FALSE(recognise_mesh(torus({5, 5}), &why));
  EXPECT_NE(why.find("torus"), std::string::npos) << why;
}

TEST(Grid, RecognisesShuffledToriIgnoringNamesAndPorts) {
  for (auto dims : std::vector<std::vector<int>>{{5, 5}, {3, 6}, {4, 4}, {3, 4, 5}, {4, 4, 4}})
    for (uint32_t seed = 1; seed <= 3; seed++) {
      std::vector<std::vector<int>> gen;
      Fabric f = shuffled_torus(dims, seed, &gen);
      std::string why;
      auto g = recognise_torus(f, &why);
      ASSERT_TRUE(g) << why;
      expect_valid_torus(f, *g, "shuffled seed " + std::to_string(seed));
      std::vector<int> want = dims, got(g->size.begin(), g->size.begin() + g->ndims);
      std::sort(want.begin(), want.end());
      std::sort(got.begin(), got.end());
      EXPECT_EQ(got, want);
    }
}

TEST(Grid, RejectsTorusWithMissingOrExtraLinkNamingASwitch) {
  std::string why;
  {  // missing link (2-D): "S1_1" +x -> "S2_1"
    Fabric f = torus({4, 4});
    f.disconnect(*f.find("S1_1"), 2);  // port hps + 1 = +x
    EXPECT_FALSE(recognise_torus(f, &why));
    EXPECT_NE(why.find("\"S1_1\""), std::string::npos) << why;
    EXPECT_NE(why.find("missing link"), std::string::npos) << why;
    EXPECT_FALSE(recognise_grid(f, &why));
    EXPECT_NE(why.find("\"S1_1\""), std::string::npos) << why;
    EXPECT_NE(why.find("missing link"), std::string::npos) << why;
    try {
      DorEngine().route(f);
      FAIL() << "faulty torus accepted";
    } catch (const EngineError& e) {
      EXPECT_NE(std::string(e.what()).find("\"S1_1\""), std::string::npos) << e.what();
    }
  }
  {  // missing link (3-D)
    Fabric f = torus({3, 3, 3});
    f.disconnect(*f.find("S1_2_0"), 6);  // +z
    EXPECT_FALSE(recognise_grid(f, &why));
    EXPECT_NE(why.find("\"S1_2_0\""), std::string::npos) << why;
    EXPECT_NE(why.find("missing link"), std::string::npos) << why;
  }
  {  // extra link between two non-neighbours
    Fabric f = torus({5, 5}, 1, 7);
    with_free_port_extra_link(f, "S0_0", "S2_2");
    EXPECT_FALSE(recognise_grid(f, &why));
    EXPECT_NE(why.find("\"S0_0\""), std::string::npos) << why;
    EXPECT_NE(why.find("extra link"), std::string::npos) << why;
  }
  {  // every switch still of degree 4, but two links re-cabled: not a torus
    Fabric f = torus({5, 5});
    int a = *f.find("S0_0"), b = *f.find("S1_0"), c = *f.find("S2_2"), d = *f.find("S3_2");
    f.disconnect(a, 2);  // S0_0 +x -> S1_0 port 3
    f.disconnect(c, 2);  // S2_2 +x -> S3_2 port 3
    f.connect(a, 2, d, 3);
    f.connect(c, 2, b, 3);
    EXPECT_FALSE(recognise_grid(f, &why));
    EXPECT_NE(why.find("not a full 2-D torus"), std::string::npos) << why;
    EXPECT_NE(why.find("\"S"), std::string::npos) << why;  // names a switch
  }
  // a 2-ring is a parallel link: tori need rings of >= 3 switches
  EXPECT_FALSE(recognise_grid(torus({2, 5}), &why));
}

TEST(Dor, RoutesToriMinimallyOneLayerPerPathDeadlockFree) {
  for (auto dims : std::vector<std::vector<int>>{{4, 4}, {5, 5}, {3, 6}, {6, 4}, {3, 3, 3}, {4, 4, 4}}) {
    std::string what;
    for (int d : dims) what += std::to_string(d) + " ";
    Fabric f = torus(dims, 1);
    Routing r = DorEngine().route(f);
    auto g = recognise_grid(f);
    ASSERT_TRUE(g && g->torus) << what;
    const int layers = 1 << g->ndims;
    EXPECT_EQ(r.num_vls, layers) << what;
    EXPECT_TRUE(r.sl2vl.empty()) << what;  // identity SL2VL: VL = SL = layer
    // CA and switch sources, every LID a destination
    CdgBuildOptions co;
    co.switch_sources = true;
    CdgBuild b = build_cdg(f, r, co);
    EXPECT_GT(b.stats.pairs, 0u);
    EXPECT_EQ(b.stats.delivered, b.stats.pairs) << what;
    EXPECT_EQ(b.stats.looping, 0u) << what;
    EXPECT_EQ(b.cdg.num_vl_changing_edges(), 0u) << what << ": a path changes VL";
    std::vector<int> all(static_cast<size_t>(layers));
    std::iota(all.begin(), all.end(), 0);
    EXPECT_EQ(b.cdg.vls_used(), all) << what;
    for (int vl = 0; vl < layers; vl++) {
      auto cyc = b.cdg.find_cycle(vl);
      EXPECT_FALSE(cyc) << what << " VL " << vl << ": " << b.cdg.format_cycle(*cyc);
    }
    EXPECT_FALSE(b.cdg.find_cycle()) << what;
    // the project's validator agrees (CDG over (channel, VL), all pairs)
    ValidateOptions vo;
    vo.switch_sources = true;
    ValidationReport rep = validate(f, r, vo);
    EXPECT_TRUE(rep.deadlock_checked && rep.cdg_acyclic) << what << rep.cycle_text;
    EXPECT_EQ(rep.delivered, rep.pairs) << what;
    // every switch pair: minimal path, SL = bitmask of the dimensions whose wrap link it crosses
    std::vector<int> per_layer(static_cast<size_t>(layers), 0);
    for (int s : f.switches())
      for (int t : f.switches()) {
        const Lid slid = f.node(s).port(0).base_lid, dlid = f.node(t).port(0).base_lid;
        int y = s, hops = 0, crossed = 0;
        while (y != t && hops < 100) {
          const int p = r.lfts.get(y, dlid);
          ASSERT_NE(p, 0);
          ASSERT_NE(p, kNoPath);
          const int z = f.node(y).port(p).peer_node;
          const auto &cy = g->coord[static_cast<size_t>(y)], &cz = g->coord[static_cast<size_t>(z)];
          for (int d = 0; d < g->ndims; d++) {
            const int n = g->size[static_cast<size_t>(d)], a = cy[static_cast<size_t>(d)], c = cz[static_cast<size_t>(d)];
            if ((a == n - 1 && c == 0) || (a == 0 && c == n - 1)) crossed |= 1 << d;
          }
          y = z, hops++;
        }
        EXPECT_EQ(hops, torus_distance(*g, g->coord[static_cast<size_t>(s)], g->coord[static_cast<size_t>(t)])) << what;
        EXPECT_EQ(r.sl(slid, dlid), crossed) << what << f.node(s).id << " -> " << f.node(t).id;
        per_layer[static_cast<size_t>(crossed)]++;
        // a CA on s uses the same path, hence the same SL
        for (const EndPort& e : f.end_ports())
          if (!f.node(e.node).is_switch() && f.attach(e.base_lid).sw == s) {
            EXPECT_EQ(r.sl(e.base_lid, dlid), crossed);
          }
      }
    for (int L = 0; L < layers; L++) EXPECT_GT(per_layer[static_cast<size_t>(L)], 0) << what << " layer " << L << " unused";
  }
}

TEST(Dor, TiesOnEvenRingsGoPlusAndStayOnOneLayer) {
  Fabric f = torus({4, 6});
  auto g = recognise_grid(f);
  ASSERT_TRUE(g && g->torus);
  Routing r = DorEngine().route(f);
  auto lid = [&](int x, int y) { return f.node(g->node({x, y, 0})).port(0).base_lid; };
  auto port = [&](int x, int y, int k) { return g->port[static_cast<size_t>(g->node({x, y, 0}))][static_cast<size_t>(k)]; };
  // distance 2 both ways on the 4-ring: +x, also when that wraps
  EXPECT_EQ(r.lfts.get(g->node({0, 0, 0}), lid(2, 0)), port(0, 0, 0));
  EXPECT_EQ(r.lfts.get(g->node({3, 0, 0}), lid(1, 0)), port(3, 0, 0));
  EXPECT_EQ(r.sl(lid(0, 0), lid(2, 0)), 0);
  EXPECT_EQ(r.sl(lid(3, 0), lid(1, 0)), 1);  // crosses the x dateline 3 -> 0
  EXPECT_EQ(r.sl(lid(2, 0), lid(0, 0)), 1);  // 2 -> 3 -> 0
  // distance 3 both ways on the 6-ring: +y
  EXPECT_EQ(r.lfts.get(g->node({0, 4, 0}), lid(0, 1)), port(0, 4, 2));
  EXPECT_EQ(r.sl(lid(0, 4), lid(0, 1)), 2);
  EXPECT_EQ(r.sl(lid(0, 1), lid(0, 4)), 0);
  // shorter way wins over +: 1 -> 0 goes -x (one hop), 0 -> 3 goes -x across the dateline
  EXPECT_EQ(r.lfts.get(g->node({1, 0, 0}), lid(0, 0)), port(1, 0, 1));
  EXPECT_EQ(r.lfts.get(g->node({0, 0, 0}), lid(3, 0)), port(0, 0, 1));
  EXPECT_EQ(r.sl(lid(0, 0), lid(3, 0)), 1);
  EXPECT_EQ(r.sl(lid(3, 5), lid(0, 0)), 3);  // both datelines
}

// The layers are what makes it deadlock free: the same LFTs with every path on VL 0 have a
// dependency cycle around a ring (rings >= 4). With rings of 3, minimal segments are one hop and
// create no dependency inside a ring, so even one VL would do (the layers are kept uniform).
TEST(Dor, TorusOnOneVlHasARingCycle) {
  for (auto dims : std::vector<std::vector<int>>{{4, 4}, {5, 5}, {4, 4, 4}}) {
    Fabric f = torus(dims, 1);
    Routing r = DorEngine().route(f);
    r.path_sl = nullptr;
    r.num_vls = 1;
    CdgBuild b = build_cdg(f, r);
    EXPECT_EQ(b.stats.delivered, b.stats.pairs);
    auto cyc = b.cdg.find_cycle(0);
    ASSERT_TRUE(cyc) << "no cycle on one VL";
    for (const Channel& c : *cyc) {
      EXPECT_TRUE(f.node(c.node).is_switch());
      EXPECT_TRUE(f.node(f.node(c.node).port(c.port).peer_node).is_switch());
    }
    EXPECT_FALSE(validate(f, r).cdg_acyclic);
  }
  Fabric f = torus({3, 3}, 1);
  Routing r = DorEngine().route(f);
  r.path_sl = nullptr;
  EXPECT_FALSE(build_cdg(f, r).cdg.find_cycle(0));
}

TEST(Dor, TorusLayersMustFitMaxVls) {
  DorEngine e;
  EngineOptions o;
  o.set("max_vls", "3");
  try {
    e.route(torus({4, 4}), o);
    FAIL() << "4 layers accepted with max_vls=3";
  } catch (const EngineError& err) {
    EXPECT_NE(std::string(err.what()).find("needs 4 virtual layers"), std::string::npos) << err.what();
    EXPECT_NE(std::string(err.what()).find("max_vls=3"), std::string::npos) << err.what();
  }
  o.set("max_vls", "4");
  EXPECT_EQ(e.route(torus({4, 4}), o).num_vls, 4);
  EXPECT_THROW(e.route(torus({3, 3, 3}), o), EngineError);
  EXPECT_EQ(e.route(torus({3, 3, 3})).num_vls, 8);  // default max_vls = 8
  o.set("max_vls", "1");
  EXPECT_EQ(e.route(mesh({4, 4}), o).num_vls, 1);  // a mesh needs one
  o.set("max_vls", "0");
  EXPECT_THROW(e.route(mesh({4, 4}), o), OptionError);
}

TEST(Dor, OrderOptionOnTorusKeepsLayersAcyclic) {
  Fabric f = torus({5, 4}, 1);
  EngineOptions o;
  o.set("order", "yx");
  Routing r = DorEngine().route(f, o);
  CdgBuild b = build_cdg(f, r);
  EXPECT_EQ(b.stats.delivered, b.stats.pairs);
  EXPECT_FALSE(b.cdg.find_cycle());
  auto g = recognise_grid(f);
  int s = g->node({0, 0, 0}), t = g->node({2, 1, 0});
  EXPECT_EQ(r.lfts.get(s, f.node(t).port(0).base_lid), g->port[static_cast<size_t>(s)][2]);  // +y first
}

// The embedding is keyed on GUIDs, not node indices: the same fabric numbered differently (OpenSM's
// node order in the plugin vs ibnetdiscover's offline) gets the same routing, port for port and
// SL for SL - also on the 4x4 torus (a 4-cube, several embeddings) and the 4x4x4.
TEST(Dor, TorusRoutingDoesNotDependOnNodeNumbering) {
  for (auto dims : std::vector<std::vector<int>>{{4, 4}, {5, 3}, {4, 4, 4}}) {
    Fabric f = torus(dims, 1);
    std::vector<int> order(static_cast<size_t>(f.size()));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), std::mt19937(7));
    Fabric g;
    std::vector<int> to_g(static_cast<size_t>(f.size()));
    for (int i : order) {
      const Node& n = f.node(i);
      to_g[static_cast<size_t>(i)] = g.add_node(n.type, n.id, n.num_ports, n.guid);
    }
    for (int i = 0; i < f.size(); i++)
      for (int p = 1; p <= f.node(i).num_ports; p++) {
        const Port& x = f.node(i).port(p);
        if (x.connected()) g.connect(to_g[static_cast<size_t>(i)], p, to_g[static_cast<size_t>(x.peer_node)], x.peer_port);
      }
    for (const EndPort& e : f.end_ports()) g.set_lid(to_g[static_cast<size_t>(e.node)], e.port, e.base_lid, e.lmc);
    Routing a = DorEngine().route(f), b = DorEngine().route(g);
    int diff = 0;
    for (int s : f.switches())
      for (const EndPort& e : f.end_ports()) diff += a.lfts.get(s, e.base_lid) != b.lfts.get(to_g[static_cast<size_t>(s)], e.base_lid);
    EXPECT_EQ(diff, 0) << dims.size() << "-D";
    for (const EndPort& x : f.end_ports())
      for (const EndPort& y : f.end_ports()) ASSERT_EQ(a.sl(x.base_lid, y.base_lid), b.sl(x.base_lid, y.base_lid));
  }
}

// dqr's default base engine on a recognised torus is ft-dor (one layer per path: a channel list
// exists), no longer ft-minhop (whose torus routing has a dependency cycle).
TEST(Dor, DqrBaseOnATorusIsFtDor) {
  auto eng = make_engine("dqr");
  EngineOptions o;
  o.set("precompute", "0");
  Fabric f = torus({4, 4});
  Routing first = eng->route(f, o);
  ASSERT_FALSE(first.notes.empty());
  EXPECT_NE(first.notes.back().find("base engine 'ft-dor'"), std::string::npos) << first.notes.back();
  EXPECT_EQ(first.engine, "dqr(ft-dor)");
  EXPECT_EQ(first.num_vls, 4);
  // a single link fault: DQR patches the E-cube routing inside its layers (no torus plug-in:
  // topology-agnostic local repair; here it succeeds), the result stays loop and deadlock free
  Fabric g = f;
  g.disconnect(*g.find("S1_1"), 2);
  Routing second = eng->route(g, o, PreviousRouting{&f, &first});
  bool patched = false;
  for (const auto& n : second.notes) patched = patched || n.find("patched the previous routing") != std::string::npos;
  EXPECT_TRUE(patched) << second.notes.back();
  ValidationReport rep = validate(g, second);
  EXPECT_EQ(rep.delivered, rep.pairs);
  EXPECT_EQ(rep.looping, 0u);
  EXPECT_TRUE(rep.cdg_acyclic) << rep.cycle_text;
  EXPECT_EQ(rep.cdg_vl_changes, 0u);
}

// Parallel links (torus:..,links=L, mesh:..,links=L): the grid is recognised from the distinct
// switch neighbours, and ft-dor routes every hop over the lowest-numbered live cable of the
// bundle (it does not spread over the parallel cables); the routing stays complete and
// deadlock-free, also when that cable fails.
TEST(Dor, ParallelLinksUseTheLowestLiveCableOfEachBundle) {
  for (bool tor : {false, true}) {
    topo::Grid gs;
    gs.dims = {4, 4};
    gs.torus = tor;
    gs.links = 3;
    Fabric f = topo::grid(gs);
    const int a = *f.find("S1_1");
    if (tor) f.disconnect(a, 2);  // the first +x cable S1_1 -> S2_1: the second one takes over
    f.assign_lids();
    std::string why;
    auto g = recognise_grid(f, &why);
    ASSERT_TRUE(g) << why;
    EXPECT_EQ(g->torus, tor);
    Routing r = DorEngine().route(f);
    ValidateOptions vo;
    vo.switch_sources = true;
    ValidationReport rep = validate(f, r, vo);
    EXPECT_TRUE(rep.deadlock_checked && rep.cdg_acyclic) << rep.cycle_text;
    EXPECT_EQ(rep.delivered, rep.pairs);
    for (int s : f.switches())
      for (int t : f.switches()) {
        if (s == t) continue;
        const int p = r.lfts.get(s, f.node(t).port(0).base_lid);
        ASSERT_GT(p, 1);
        const Port& pt = f.node(s).port(p);
        ASSERT_TRUE(pt.connected());
        for (int q = 1; q < p; q++) EXPECT_NE(f.node(s).port(q).peer_node, pt.peer_node) << f.port_name(s, p);
      }
    EXPECT_EQ(r.lfts.get(a, f.node(*f.find("S2_1")).port(0).base_lid), tor ? 3 : 2);
  }
}
