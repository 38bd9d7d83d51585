// ft-dor: dimension-order routing on meshes and E-cube routing with virtual layers on tori (the
// mesh and torus recognition it stands on: ibsim_topologies/grid_test.cpp).
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
#include "test_grids.hpp"

using namespace ftroute;


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
