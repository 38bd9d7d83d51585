// dor: mesh recognition from the graph and dimension-order routing.
#include <gtest/gtest.h>

#include <cstdlib>

#include "dor/dor.hpp"
#include "ftroute/cdg.hpp"
#include "ftroute/grid.hpp"
#include "ftroute/topology.hpp"

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

TEST(Dor, RefusesTorusAndFaultyMesh) {
  DorEngine e;
  EXPECT_THROW(e.route(mesh({4, 4}, 1, true)), EngineError);
  Fabric f = mesh({4, 4});
  f.disconnect(*f.find("S1_1"), 2);
  try {
    e.route(f);
    FAIL() << "faulty mesh accepted";
  } catch (const EngineError& err) {
    EXPECT_NE(std::string(err.what()).find("mesh"), std::string::npos);
  }
}
