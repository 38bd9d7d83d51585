// Meshes and tori for the grid recognition, ft-dor and DQR tests (tests/unit/ibsim_topologies/grid_test.cpp,
// tests/unit/routing_engines/dor_test.cpp, dqr_*_test.cpp): generated and shuffled tori, and the check that a
// recognised embedding is a torus of the fabric.
#pragma once

#include <algorithm>
#include <array>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ftroute/fabric.hpp"
#include "ftroute/grid.hpp"
#include "ftroute/topology.hpp"

namespace ftroute {

// A generated mesh (torus: a torus) with hps hosts per switch and LIDs.
inline Fabric mesh(std::vector<int> dims, int hps = 1, bool torus = false) {
  topo::Grid g;
  g.dims = std::move(dims);
  g.hosts_per_switch = hps;
  g.torus = torus;
  Fabric f = topo::grid(g);
  f.assign_lids();
  return f;
}


inline Fabric torus(std::vector<int> dims, int hps = 1, int radix = 0) {
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
inline Fabric shuffled_torus(const std::vector<int>& dims, uint32_t seed, std::vector<std::vector<int>>* coords) {
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
inline void expect_valid_torus(const Fabric& f, const MeshGrid& g, const std::string& what) {
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

inline int torus_distance(const MeshGrid& g, const std::array<int, 3>& a, const std::array<int, 3>& b) {
  int h = 0;
  for (int d = 0; d < g.ndims; d++) {
    const int n = g.size[static_cast<size_t>(d)];
    const int x = std::abs(a[static_cast<size_t>(d)] - b[static_cast<size_t>(d)]);
    h += std::min(x, n - x);
  }
  return h;
}

inline std::string with_free_port_extra_link(Fabric& f, const std::string& a, const std::string& b) {
  auto free_port = [&](int s) {
    for (int p = 1; p <= f.node(s).num_ports; p++)
      if (!f.node(s).port(p).connected()) return p;
    return 0;
  };
  int x = *f.find(a), y = *f.find(b);
  f.connect(x, free_port(x), y, free_port(y));
  return a;
}


}  // namespace ftroute
