// ft-minhop: every switch reaches every LID, along a minimal path, balanced over min-hop ports,
// LMC LIDs spread over different ports, clear errors for disconnected fabrics / bad options.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "ftroute/engine.hpp"
#include "ftroute/registry.hpp"
#include "minhop/minhop.hpp"

using namespace ftroute;

namespace {

// 2-level fat tree: `leaves` leaf switches, `spines` spine switches, `hosts` CAs per leaf,
// `links` parallel links per leaf-spine pair. Leaf ports 1..hosts go down, the rest up.
Fabric fat_tree(int leaves, int spines, int hosts, int links, uint8_t lmc = 0) {
  Fabric f;
  std::vector<int> L, S;
  for (int s = 0; s < spines; s++) S.push_back(f.add_node(NodeType::Switch, "S" + std::to_string(s), leaves * links));
  for (int l = 0; l < leaves; l++)
    L.push_back(f.add_node(NodeType::Switch, "L" + std::to_string(l), hosts + spines * links));
  for (int l = 0; l < leaves; l++) {
    for (int h = 0; h < hosts; h++) {
      int ca = f.add_node(NodeType::Ca, "H" + std::to_string(l) + "_" + std::to_string(h), 1);
      f.connect(ca, 1, L[l], h + 1);
    }
    for (int s = 0; s < spines; s++)
      for (int k = 0; k < links; k++) f.connect(L[l], hosts + 1 + s * links + k, S[s], 1 + l * links + k);
  }
  f.assign_default_guids();
  f.assign_lids(lmc);
  return f;
}

// 2D mesh of w x h switches, one CA per switch (port 5), ports 1..4 = +x, -x, +y, -y.
Fabric mesh(int w, int h, uint8_t lmc = 0) {
  Fabric f;
  std::vector<int> sw;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) sw.push_back(f.add_node(NodeType::Switch, "M" + std::to_string(x) + "_" + std::to_string(y), 5));
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      if (x + 1 < w) f.connect(sw[y * w + x], 1, sw[y * w + x + 1], 2);
      if (y + 1 < h) f.connect(sw[y * w + x], 3, sw[(y + 1) * w + x], 4);
      int ca = f.add_node(NodeType::Ca, "C" + std::to_string(x) + "_" + std::to_string(y), 1);
      f.connect(ca, 1, sw[y * w + x], 5);
    }
  f.assign_default_guids();
  f.assign_lids(lmc);
  return f;
}

// Follows the LFTs from switch `from` to `lid`; returns the number of switch-to-switch hops, or
// -1 if the walk loops, hits kNoPath, or ends anywhere but the LID's owner.
int walk(const Fabric& f, const Routing& r, int from, Lid lid) {
  int cur = from;
  auto owner = f.owner(lid);
  if (!owner) return -1;
  for (int hops = 0; hops <= f.size(); hops++) {
    uint8_t p = r.lfts.get(cur, lid);
    if (p == kNoPath) return -1;
    if (p == 0) return (owner->node == cur) ? hops : -1;
    const Port& x = f.node(cur).port(p);
    if (!x.connected()) return -1;
    if (!f.node(x.peer_node).is_switch()) return (x.peer_node == owner->node && x.peer_port == owner->port) ? hops : -1;
    cur = x.peer_node;
  }
  return -1;
}

// The oracle: a BFS of its own over the switch-to-switch links (not the engine's
// switch_distances()), from `from` to the switch that owns the LID or that its CA hangs off.
int bfs_dist_to_lid(const Fabric& f, int from, Lid lid) {
  auto owner = f.owner(lid);
  if (!owner) return -1;
  int target = owner->node;
  if (!f.node(target).is_switch()) {
    const Port& p = f.node(target).port(owner->port);
    if (!p.connected()) return -1;
    target = p.peer_node;
  }
  std::vector<int> dist(static_cast<size_t>(f.size()), -1);
  std::vector<int> queue{from};
  dist[static_cast<size_t>(from)] = 0;
  for (size_t i = 0; i < queue.size(); i++) {
    const int u = queue[i];
    if (u == target) return dist[static_cast<size_t>(u)];
    for (int p = 1; p <= f.node(u).num_ports; p++) {
      const Port& x = f.node(u).port(p);
      if (!x.connected() || !f.node(x.peer_node).is_switch() || dist[static_cast<size_t>(x.peer_node)] >= 0) continue;
      dist[static_cast<size_t>(x.peer_node)] = dist[static_cast<size_t>(u)] + 1;
      queue.push_back(x.peer_node);
    }
  }
  return -1;
}

void expect_all_minimal(const Fabric& f, const Routing& r) {
  int checked = 0;
  for (int s : f.switches())
    for (const EndPort& e : f.end_ports())
      for (uint32_t lid = e.base_lid; lid <= e.last_lid(); lid++) {
        int h = walk(f, r, s, static_cast<Lid>(lid));
        ASSERT_GE(h, 0) << "switch " << f.node(s).id << " cannot reach LID " << lid;
        EXPECT_EQ(h, bfs_dist_to_lid(f, s, static_cast<Lid>(lid)))
            << "non-minimal path from " << f.node(s).id << " to LID " << lid;
        checked++;
      }
  EXPECT_GT(checked, 0);
}

}  // namespace

TEST(MinHop, RegisteredUnderItsOwnName) {
  auto e = make_engine("ft-minhop");
  EXPECT_EQ(e->name(), "ft-minhop");
  // must not collide with OpenSM's built-in "minhop" (osm_register_external_routing_engine)
  for (const auto& info : engines()) EXPECT_NE(info.name, "minhop");
}

TEST(MinHop, FatTreeEveryPairReachableAndMinimal) {
  Fabric f = fat_tree(4, 2, 3, 1);
  MinHopEngine e;
  Routing r = e.route(f);
  EXPECT_EQ(r.engine, "ft-minhop");
  expect_all_minimal(f, r);
  // switch's own LID is port 0 on itself
  for (int s : f.switches()) EXPECT_EQ(r.lfts.get(s, f.node(s).port(0).base_lid), 0);
}

TEST(MinHop, MeshMinimalIncludingSwitchLids) {
  Fabric f = mesh(4, 3);
  Routing r = MinHopEngine().route(f);
  expect_all_minimal(f, r);
}

TEST(MinHop, LmcRangesRoutedAndSpreadOverPorts) {
  Fabric f = fat_tree(4, 2, 2, 1, /*lmc=*/1);
  Routing r = MinHopEngine().route(f);
  expect_all_minimal(f, r);
  // On every leaf, the two LIDs of a CA on another leaf leave by different uplinks.
  int spread_pairs = 0;
  for (int s : f.switches()) {
    if (f.node(s).id[0] != 'L') continue;
    for (const EndPort& e : f.end_ports()) {
      if (f.node(e.node).is_switch() || f.attach(e.base_lid).sw == s) continue;
      ASSERT_EQ(e.lmc, 1);
      EXPECT_NE(r.lfts.get(s, e.base_lid), r.lfts.get(s, e.last_lid()))
          << f.node(s).id << " sends both LIDs of " << f.node(e.node).id << " through one port";
      spread_pairs++;
    }
  }
  EXPECT_EQ(spread_pairs, 4 * 3 * 2);
}

TEST(MinHop, LmcSpreadCanBeSwitchedOff) {
  Fabric f = fat_tree(2, 2, 1, 1, 1);
  EngineOptions o;
  o.set("lmc_spread", "false");
  o.set("balance", "false");
  Routing r = MinHopEngine().route(f, o);
  expect_all_minimal(f, r);
  int leaf0 = *f.find("L0");
  int ca1 = *f.find("H1_0");
  Lid base = f.node(ca1).port(1).base_lid;
  EXPECT_EQ(r.lfts.get(leaf0, base), r.lfts.get(leaf0, base + 1));  // lowest min-hop port twice
}

TEST(MinHop, UplinksBalancedByRouteCounters) {
  // 4 leaves x 4 spines x 2 parallel links: 8 uplinks per leaf; 12 remote CAs + 3 remote leaves
  // + 4 spines' LIDs go up from each leaf. Counters keep every uplink within 1 of the others.
  Fabric f = fat_tree(4, 4, 4, 2);
  Routing r = MinHopEngine().route(f);
  expect_all_minimal(f, r);
  for (int s : f.switches()) {
    const Node& n = f.node(s);
    if (n.id[0] != 'L') continue;
    std::map<int, int> per_port;
    for (int p = 5; p <= n.num_ports; p++) per_port[p] = 0;
    for (const EndPort& e : f.end_ports())
      if (f.attach(e.base_lid).sw != s) {
        uint8_t p = r.lfts.get(s, e.base_lid);
        if (p >= 5 && f.node(n.port(p).peer_node).is_switch() && !f.node(e.node).is_switch()) per_port[p]++;
      }
    int mn = 1 << 30, mx = 0;
    for (auto [p, c] : per_port) mn = std::min(mn, c), mx = std::max(mx, c);
    EXPECT_LE(mx - mn, 1) << "unbalanced uplinks on " << n.id;
    EXPECT_GT(mn, 0) << "an uplink of " << n.id << " carries no CA route";
  }
  // Spines: each spine reaches each leaf by 2 parallel links; the 4 CAs of a leaf are split 2/2.
  for (int s : f.switches()) {
    const Node& n = f.node(s);
    if (n.id[0] != 'S') continue;
    std::map<int, int> per_port;
    for (const EndPort& e : f.end_ports())
      if (!f.node(e.node).is_switch()) per_port[r.lfts.get(s, e.base_lid)]++;
    for (auto [p, c] : per_port) EXPECT_EQ(c, 2) << n.id << " port " << p;
  }
}

TEST(MinHop, UnbalancedModeUsesLowestPort) {
  Fabric f = fat_tree(2, 2, 2, 1);
  EngineOptions o;
  o.set("balance", "0");
  Routing r = MinHopEngine().route(f, o);
  expect_all_minimal(f, r);
  int leaf0 = *f.find("L0");
  for (const EndPort& e : f.end_ports()) {
    if (f.attach(e.base_lid).sw != leaf0 && f.node(e.node).type == NodeType::Ca) {
      EXPECT_EQ(r.lfts.get(leaf0, e.base_lid), 3);  // ports 1,2 = hosts, 3 = first uplink
    }
  }
}

TEST(MinHop, DisconnectedFabricNamesUnreachableSwitch) {
  Fabric f = fat_tree(2, 1, 1, 1);
  int l1 = *f.find("L1");
  f.disconnect(l1, 2);  // L1's only uplink
  try {
    MinHopEngine().route(f);
    FAIL() << "expected EngineError";
  } catch (const EngineError& e) {
    EXPECT_EQ(e.engine(), "ft-minhop");
    EXPECT_NE(std::string(e.what()).find("\"L1\""), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("disconnected"), std::string::npos) << e.what();
  }
}

TEST(MinHop, UnknownOptionRejected) {
  Fabric f = fat_tree(2, 1, 1, 1);
  EngineOptions o;
  o.set("bogus", "1");
  EXPECT_THROW(MinHopEngine().route(f, o), OptionError);
  EngineOptions bad;
  bad.set("balance", "maybe");
  EXPECT_THROW(MinHopEngine().route(f, bad), OptionError);
}

TEST(MinHop, ReroutesAroundFailedLinkMinimally) {
  Fabric f = mesh(3, 3);
  f.disconnect(*f.find("M0_0"), 1);  // M0_0 -x- M1_0
  f.disconnect(*f.find("M1_1"), 3);  // M1_1 -x- M1_2
  Routing r = MinHopEngine().route(f);
  expect_all_minimal(f, r);  // minimal w.r.t. the remaining links
}

TEST(MinHop, Deterministic) {
  Fabric f = fat_tree(3, 2, 2, 2, 2);
  EXPECT_EQ(MinHopEngine().route(f).lfts, MinHopEngine().route(f).lfts);
}

TEST(MinHop, NoSwitchesIsEmptyRouting) {
  Fabric f;
  int a = f.add_node(NodeType::Ca, "A", 1), b = f.add_node(NodeType::Ca, "B", 1);
  f.connect(a, 1, b, 1);
  f.assign_lids();
  Routing r = MinHopEngine().route(f);
  EXPECT_FALSE(r.notes.empty());
}
