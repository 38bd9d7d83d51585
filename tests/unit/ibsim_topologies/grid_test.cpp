// Mesh and torus recognition from the graph alone (ibsim_topologies/grid.cpp, ftroute/grid.hpp),
// used by ft-dor and DQR's mesh plug-in: shapes regardless of names, port numbers and node order,
// and refusals naming the switch that breaks the shape.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "dor/dor.hpp"
#include "ftroute/grid.hpp"
#include "test_grids.hpp"
#include "ftroute/topology.hpp"

using namespace ftroute;


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
