// SwitchGraph (fabric/switch_graph.hpp): positions, port table and links match the fabric; BFS
// hop distances equal an independent BFS over Fabric ports (meshes, fat trees, random faults);
// a filtered BFS avoids the links it is told to (a skip set of down links equals the cables
// removed, parallel cables too); components split a cut mesh.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <random>

#include "ftroute/switch_graph.hpp"
#include "ftroute/topology.hpp"

using namespace ftroute;

namespace {

// Reference: BFS over the fabric's ports, by node index (switches only).
std::vector<int> ref_bfs(const Fabric& f, int src) {
  std::vector<int> d(static_cast<size_t>(f.size()), -1);
  std::deque<int> q{src};
  d[static_cast<size_t>(src)] = 0;
  while (!q.empty()) {
    const int u = q.front();
    q.pop_front();
    for (int p = 1; p <= f.node(u).num_ports; p++) {
      const Port& x = f.node(u).port(p);
      if (!x.connected() || !f.node(x.peer_node).is_switch() || d[static_cast<size_t>(x.peer_node)] >= 0) continue;
      d[static_cast<size_t>(x.peer_node)] = d[static_cast<size_t>(u)] + 1;
      q.push_back(x.peer_node);
    }
  }
  return d;
}

void expect_same_distances(const Fabric& f, SwitchGraph::Order order) {
  const SwitchGraph g(f, order);
  ASSERT_EQ(g.size(), static_cast<int>(f.switches().size()));
  std::vector<int> d, q;
  for (int s = 0; s < g.size(); s++) {
    g.bfs(s, d, q);
    const std::vector<int> r = ref_bfs(f, g.node(s));
    for (int t = 0; t < g.size(); t++) ASSERT_EQ(d[static_cast<size_t>(t)], r[static_cast<size_t>(g.node(t))]) << s << " -> " << t;
  }
}

Fabric mesh(int x, int y) {
  topo::Grid gr;
  gr.dims = {x, y};
  return topo::grid(gr);
}

}  // namespace

TEST(SwitchGraph, PositionsPortTableAndLinksMatchTheFabric) {
  Fabric f = topo::kary_ntree(4, 2);
  for (SwitchGraph::Order order : {SwitchGraph::Order::Fabric, SwitchGraph::Order::Guid}) {
    const SwitchGraph g(f, order);
    int slots = 0;
    for (int s = 0; s < g.size(); s++) {
      const int n = g.node(s);
      ASSERT_TRUE(f.node(n).is_switch());
      EXPECT_EQ(g.pos(n), s);
      EXPECT_EQ(g.num_ports(s), f.node(n).num_ports);
      EXPECT_EQ(g.port_base(s), slots);
      slots += f.node(n).num_ports + 1;
      EXPECT_EQ(g.peer(s, 0), -1);
      size_t links = 0;
      for (int p = 1; p <= f.node(n).num_ports; p++) {
        const Port& x = f.node(n).port(p);
        const bool sw = x.connected() && f.node(x.peer_node).is_switch();
        EXPECT_EQ(g.peer(s, p), sw ? g.pos(x.peer_node) : -1) << f.port_name(n, p);
        links += sw;
      }
      ASSERT_EQ(g.edges(s).size(), links);
      for (const SwitchGraph::Edge& e : g.edges(s)) EXPECT_EQ(g.peer(s, e.port), e.nbr);
    }
    EXPECT_EQ(g.num_port_slots(), slots);
    for (const EndPort& e : f.end_ports())
      if (!f.node(e.node).is_switch()) {
        EXPECT_EQ(g.pos(e.node), -1);
      }
    if (order == SwitchGraph::Order::Guid)
      for (int s = 1; s < g.size(); s++) EXPECT_LT(f.node(g.node(s - 1)).guid, f.node(g.node(s)).guid);
    else
      EXPECT_EQ(g.nodes(), f.switches());
  }
}

TEST(SwitchGraph, SelfLinksLeftOutParallelLinksKept) {
  Fabric f;
  const int a = f.add_node(NodeType::Switch, "A", 6), b = f.add_node(NodeType::Switch, "B", 4);
  f.connect(a, 1, a, 2);  // a loop-back cable
  f.connect(a, 3, b, 1);
  f.connect(a, 4, b, 2);  // parallel
  f.assign_default_guids();
  const SwitchGraph g(f);
  ASSERT_EQ(g.edges(0).size(), 2u);
  EXPECT_EQ(g.edges(0)[0].port, 3);
  EXPECT_EQ(g.edges(0)[1].port, 4);
  EXPECT_EQ(g.peer(0, 1), -1);
  EXPECT_EQ(g.bfs(0), (std::vector<int>{0, 1}));
}

TEST(SwitchGraph, BfsMatchesAReferenceOnIntactAndFaultyFabrics) {
  expect_same_distances(mesh(5, 4), SwitchGraph::Order::Fabric);
  expect_same_distances(topo::kary_ntree(4, 3), SwitchGraph::Order::Guid);
  std::mt19937 rng(3);
  for (int round = 0; round < 5; round++) {
    Fabric f = topo::kary_ntree(4, 3);
    auto links = f.switch_links();
    for (int k = 0; k < 12; k++) {
      const auto [n, p] = links[rng() % links.size()];
      f.disconnect(n, p);
    }
    expect_same_distances(f, round % 2 ? SwitchGraph::Order::Guid : SwitchGraph::Order::Fabric);
  }
  // a 6x2 mesh: the corner opposite switch 0 is 5 + 1 hops away
  const SwitchGraph m62(mesh(6, 2));
  const std::vector<int> d = m62.bfs(0);
  EXPECT_EQ(*std::max_element(d.begin(), d.end()), 6);
}

TEST(SwitchGraph, FilteredBfsAvoidsTheFilteredLinks) {
  const Fabric f = mesh(4, 4);
  const SwitchGraph g(f);
  std::vector<int> d, q;
  g.bfs(0, d, q);
  const int far = static_cast<int>(std::max_element(d.begin(), d.end()) - d.begin());
  EXPECT_EQ(d[static_cast<size_t>(far)], 6);
  // forbid every link into position 1: it is unreachable, every other switch still reached
  g.bfs(0, d, q, [](int, const SwitchGraph::Edge& e) { return e.nbr != 1; });
  EXPECT_EQ(d[1], -1);
  for (int s = 0; s < g.size(); s++)
    if (s != 1) {
      EXPECT_GE(d[static_cast<size_t>(s)], 0) << s;
    }
}

// A skip set of down links, kept by the caller in the flat port table (one flag per slot
// port_base(pos) + port, both ends of a cable), filters the BFS exactly like a fabric with those
// cables removed; of two parallel cables one down keeps the switches one hop apart.
TEST(SwitchGraph, SkipSetOfDownLinksEqualsTheCablesRemoved) {
  std::mt19937 rng(11);
  for (int round = 0; round < 6; round++) {
    const Fabric f = topo::kary_ntree(4, 3);
    const SwitchGraph g(f);
    Fabric cut = f;
    std::vector<uint8_t> down(static_cast<size_t>(g.num_port_slots()), 0);
    const auto links = f.switch_links();
    for (int k = 0; k < 4 + 4 * round; k++) {
      const auto [n, p] = links[rng() % links.size()];
      const Port& x = f.node(n).port(p);
      down[static_cast<size_t>(g.port_base(g.pos(n)) + p)] = 1;
      down[static_cast<size_t>(g.port_base(g.pos(x.peer_node)) + x.peer_port)] = 1;
      cut.disconnect(n, p);
    }
    const SwitchGraph h(cut);
    ASSERT_EQ(h.nodes(), g.nodes());
    auto live = [&](int u, const SwitchGraph::Edge& e) { return !down[static_cast<size_t>(g.port_base(u) + e.port)]; };
    std::vector<int> d, want, q;
    int unreached = 0;
    for (int s = 0; s < g.size(); s++) {
      g.bfs(s, d, q, live);
      h.bfs(s, want, q);
      ASSERT_EQ(d, want) << "round " << round << " from " << f.node_name(g.node(s));
      unreached += static_cast<int>(std::count(d.begin(), d.end(), -1));
    }
    std::vector<int> comp;
    EXPECT_EQ(unreached > 0, h.components(comp) > 1) << "round " << round;
  }
  // two parallel cables A[3]-B[1], A[4]-B[2]
  Fabric f;
  const int a = f.add_node(NodeType::Switch, "A", 4), b = f.add_node(NodeType::Switch, "B", 4);
  f.connect(a, 3, b, 1);
  f.connect(a, 4, b, 2);
  f.assign_default_guids();
  const SwitchGraph g(f);
  std::vector<int> d, q;
  std::vector<uint8_t> down(static_cast<size_t>(g.num_port_slots()), 0);
  auto live = [&](int u, const SwitchGraph::Edge& e) { return !down[static_cast<size_t>(g.port_base(u) + e.port)]; };
  down[static_cast<size_t>(g.port_base(0) + 3)] = down[static_cast<size_t>(g.port_base(1) + 1)] = 1;
  g.bfs(0, d, q, live);
  EXPECT_EQ(d, (std::vector<int>{0, 1}));
  g.bfs(1, d, q, live);
  EXPECT_EQ(d, (std::vector<int>{1, 0}));
  down[static_cast<size_t>(g.port_base(0) + 4)] = down[static_cast<size_t>(g.port_base(1) + 2)] = 1;
  g.bfs(0, d, q, live);
  EXPECT_EQ(d, (std::vector<int>{0, -1}));
}

TEST(SwitchGraph, ComponentsOfACutMesh) {
  Fabric f = mesh(4, 3);
  const SwitchGraph whole(f);
  std::vector<int> comp;
  EXPECT_EQ(whole.components(comp), 1);
  // cut every link between the switches nearer to corner 0 and those nearer to the opposite
  // corner (the farthest switch from 0): two components
  int cut = 0;
  std::vector<int> d0 = whole.bfs(0);
  const int opposite = static_cast<int>(std::max_element(d0.begin(), d0.end()) - d0.begin());
  std::vector<int> far = whole.bfs(opposite);
  for (const auto& [n, p] : f.switch_links()) {
    const int m = f.node(n).port(p).peer_node;
    const bool left_n = d0[static_cast<size_t>(whole.pos(n))] < far[static_cast<size_t>(whole.pos(n))];
    const bool left_m = d0[static_cast<size_t>(whole.pos(m))] < far[static_cast<size_t>(whole.pos(m))];
    if (left_n != left_m) f.disconnect(n, p), cut++;
  }
  EXPECT_GT(cut, 0);
  const SwitchGraph g(f);
  ASSERT_EQ(g.components(comp), 2);
  for (int s = 0; s < g.size(); s++) {
    const bool left = d0[static_cast<size_t>(s)] < far[static_cast<size_t>(s)];
    EXPECT_EQ(comp[static_cast<size_t>(s)], left ? comp[0] : 1 - comp[0]) << s;
  }
  EXPECT_EQ(comp[0], 0);  // numbered from the lowest position
  const std::vector<int> d = g.bfs(0);
  for (int s = 0; s < g.size(); s++) EXPECT_EQ(d[static_cast<size_t>(s)] >= 0, comp[static_cast<size_t>(s)] == 0) << s;
  // no switches: no components
  EXPECT_EQ(SwitchGraph(Fabric{}).components(comp), 0);
}

TEST(SwitchGraph, SeveralSourcesGiveTheNearest) {
  const SwitchGraph g(mesh(5, 4));
  const std::vector<int> a = g.bfs(0);
  const int far = static_cast<int>(std::max_element(a.begin(), a.end()) - a.begin());
  const std::vector<int> b = g.bfs(far);
  const std::vector<int> srcs{far, 0, far};  // duplicates allowed
  std::vector<int> d, q;
  g.bfs(srcs, d, q, [](int, const SwitchGraph::Edge&) { return true; });
  for (int s = 0; s < g.size(); s++) EXPECT_EQ(d[static_cast<size_t>(s)], std::min(a[static_cast<size_t>(s)], b[static_cast<size_t>(s)])) << s;
  EXPECT_EQ(*std::max_element(d.begin(), d.end()), 3);  // half of the corner-to-corner 7, rounded down
}
