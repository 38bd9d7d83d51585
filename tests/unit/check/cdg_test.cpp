// Channel dependency graph: cycles on a ring routed all-clockwise, a dateline SL2VL that breaks
// them, loops, unreachable LIDs, routes per link and topological order.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "ftroute/cdg.hpp"
#include "test_fabrics.hpp"

using namespace ftroute;
using test_fabrics::clockwise;
using test_fabrics::ring;

namespace {

std::set<std::string> names(const Cdg& g, const std::vector<Channel>& cyc) {
  std::set<std::string> s;
  for (auto& c : cyc) s.insert(g.name(c));
  return s;
}

}  // namespace

TEST(Cdg, ClockwiseRingHasTheRingCycle) {
  const int n = 4;
  Fabric f = ring(n);
  Routing r = clockwise(f, n);
  CdgBuild b = build_cdg(f, r);
  EXPECT_EQ(b.stats.delivered, b.stats.pairs);
  EXPECT_EQ(b.stats.pairs, 4u * 7u);  // 4 CA sources x (3 foreign CAs + 4 switches)
  auto cyc = b.cdg.find_cycle();
  ASSERT_TRUE(cyc.has_value());
  EXPECT_EQ(names(b.cdg, *cyc),
            (std::set<std::string>{"\"R0\"[1] vl0", "\"R1\"[1] vl0", "\"R2\"[1] vl0", "\"R3\"[1] vl0"}));
  ASSERT_TRUE(b.cdg.find_cycle(0).has_value());
  EXPECT_FALSE(b.cdg.find_cycle(1).has_value());
  EXPECT_FALSE(b.cdg.topological_order().has_value());
  std::string txt = b.cdg.format_cycle(*cyc);
  EXPECT_NE(txt.find("vl0 -> "), std::string::npos);
  // consecutive channels of the reported cycle are real dependencies
  for (size_t i = 0; i < cyc->size(); i++)
    EXPECT_TRUE(b.cdg.has_edge(b.cdg.id((*cyc)[i]), b.cdg.id((*cyc)[(i + 1) % cyc->size()])));
}

TEST(Cdg, ShortPathsOnRingAreAcyclic) {
  // Only 1-hop-between-switches traffic: no chain long enough to close the ring.
  const int n = 4;
  Fabric f = ring(n);
  Routing r = clockwise(f, n);
  // route LIDs two switches ahead counter-clockwise instead: R(i) -> R(i+2) via port 2, and
  // from R(i+3)=R(i-1) via port 2 as well; keeps every path <= 2 switch hops and splits the ring
  for (int s = 0; s < n; s++)
    for (const EndPort& e : f.end_ports()) {
      int home = f.node(e.node).is_switch() ? e.node : e.node - n;
      int dist = (home - s + n) % n;
      if (dist >= 2) r.lfts.set(s, e.base_lid, 2);
    }
  CdgBuild b = build_cdg(f, r);
  EXPECT_EQ(b.stats.delivered, b.stats.pairs);
  // clockwise chains are at most Ri[1]->R(i+1)[3]; counter-clockwise Ri[2]->R(i-1)[2]->R(i-2)[3]
  // which still closes R0[2]->R3[2]->R2[2]->R1[2]->R0[2]
  auto cyc = b.cdg.find_cycle();
  ASSERT_TRUE(cyc.has_value());
  EXPECT_EQ(cyc->size(), 4u);
  for (auto& c : *cyc) EXPECT_EQ(c.port, 2);
}

TEST(Cdg, DatelineSl2VlBreaksTheCycle) {
  const int n = 4;
  Fabric f = ring(n);
  Routing r = clockwise(f, n);
  // Paths that wrap past R(n-1) -> R0 (the dateline) use SL1; SL0 otherwise.
  auto sw_of = [&](Lid l) {
    auto e = f.owner(l);
    return f.node(e->node).is_switch() ? e->node : e->node - n;
  };
  r.path_sl = [=](Lid s, Lid d) -> uint8_t { return sw_of(s) > sw_of(d) ? 1 : 0; };
  Sl2Vl::Table before{}, after{};  // before: everything on VL0; after: SL1 on VL1
  after[1] = 1;
  r.sl2vl.set_all(f, before);
  // SL1 packets are past the dateline when they leave R0 or R1 clockwise coming from the ring,
  // and whenever they are delivered after arriving from the ring.
  for (int s = 0; s < n; s++) r.sl2vl.set(s, 2, 3, after);
  r.sl2vl.set(0, 2, 1, after);
  r.sl2vl.set(1, 2, 1, after);
  r.num_vls = 2;
  CdgBuild b = build_cdg(f, r);
  EXPECT_EQ(b.stats.delivered, b.stats.pairs);
  EXPECT_FALSE(b.cdg.find_cycle().has_value()) << b.cdg.format_cycle(*b.cdg.find_cycle());
  EXPECT_FALSE(b.cdg.find_cycle(0).has_value());
  EXPECT_FALSE(b.cdg.find_cycle(1).has_value());
  EXPECT_EQ(b.cdg.vls_used(), (std::vector<int>{0, 1}));
  EXPECT_GT(b.cdg.num_vl_changing_edges(), 0u);
  EXPECT_TRUE(b.cdg.has_edge(b.cdg.id(3, 1, 0), b.cdg.id(0, 1, 1)));  // the dateline crossing
  // topological order respects every edge
  auto order = b.cdg.topological_order();
  ASSERT_TRUE(order.has_value());
  std::vector<size_t> pos(b.cdg.num_ids(), SIZE_MAX);
  for (size_t i = 0; i < order->size(); i++) pos[(*order)[i]] = i;
  for (auto [a, c] : b.cdg.edges()) {
    ASSERT_NE(pos[a], SIZE_MAX);
    EXPECT_LT(pos[a], pos[c]) << b.cdg.name(a) << " -> " << b.cdg.name(c);
  }
  // with unused links: every connected directed link on both VLs is in the order
  auto full = b.cdg.topological_order(0, true);
  ASSERT_TRUE(full.has_value());
  EXPECT_EQ(full->size(), static_cast<size_t>(2 * n + 2 * n));  // ring links both ways + CA links both ways
}

TEST(Cdg, BreakingTheDatelineMapReintroducesTheCycle) {
  const int n = 4;
  Fabric f = ring(n);
  Routing r = clockwise(f, n);
  r.path_sl = [](Lid, Lid) -> uint8_t { return 1; };
  Sl2Vl::Table t{};
  t[1] = 1;  // everything on VL1: the cycle moves to VL1
  r.sl2vl.set_all(f, t);
  CdgBuild b = build_cdg(f, r);
  EXPECT_FALSE(b.cdg.find_cycle(0).has_value());
  auto cyc = b.cdg.find_cycle(1);
  ASSERT_TRUE(cyc.has_value());
  for (auto& c : *cyc) EXPECT_EQ(c.vl, 1);
}

TEST(Cdg, LoopAndUnreachableAreReported) {
  const int n = 4;
  Fabric f = ring(n);
  Routing r = clockwise(f, n);
  const Lid c2 = f.node(n + 2).port(1).base_lid;
  // R1 bounces C2's LID back to R0, R0 sends it to R1: loop R0 <-> R1
  r.lfts.set(1, c2, 2);
  // R3 has no route to C0
  const Lid c0 = f.node(n + 0).port(1).base_lid;
  r.lfts.set(3, c0, kNoPath);
  CdgBuild b = build_cdg(f, r);
  EXPECT_EQ(b.stats.looping, 3u);  // C0, C1, C3 towards C2 end in R0 <-> R1
  EXPECT_EQ(b.stats.dropped, 3u);  // C1, C2, C3 towards C0 stop at R3
  EXPECT_EQ(b.stats.per_kind[static_cast<int>(DropKind::NoRoute)], 3u);
  EXPECT_EQ(b.stats.delivered + b.stats.dropped + b.stats.looping, b.stats.pairs);
  ASSERT_FALSE(b.stats.loop_examples.empty());
  EXPECT_NE(b.stats.loop_examples[0].find("\"R0\"[1] -> \"R1\""), std::string::npos) << b.stats.loop_examples[0];
  ASSERT_FALSE(b.stats.unreachable_examples.empty());
  EXPECT_NE(b.stats.unreachable_examples[0].find("-> C0(" + std::to_string(c0) + ") stops at \"R3\""),
            std::string::npos)
      << b.stats.unreachable_examples[0];
}

TEST(Cdg, DownPortAndBadPort) {
  const int n = 4;
  Fabric f = ring(n);
  Routing r = clockwise(f, n);
  const Lid c2 = f.node(n + 2).port(1).base_lid;
  r.lfts.set(0, c2, 4);   // R0[4] exists but has no link
  r.lfts.set(1, c2, 9);   // R1 has 4 ports
  CdgBuild b = build_cdg(f, r);
  EXPECT_EQ(b.stats.per_kind[static_cast<int>(DropKind::DownPort)], 2u);  // C0, C3
  EXPECT_EQ(b.stats.per_kind[static_cast<int>(DropKind::BadPort)], 1u);   // C1
}

TEST(Cdg, RoutesPerLinkOnALine) {
  // S0 - S1 - S2, one CA per switch: hand-computed routes per directed link.
  Fabric f;
  for (int i = 0; i < 3; i++) f.add_node(NodeType::Switch, "S" + std::to_string(i), 3);
  for (int i = 0; i < 3; i++) f.add_node(NodeType::Ca, "H" + std::to_string(i), 1);
  f.connect(0, 1, 1, 2);
  f.connect(1, 1, 2, 2);
  for (int i = 0; i < 3; i++) f.connect(i, 3, 3 + i, 1);
  f.assign_default_guids();
  f.assign_lids();
  Routing r;
  r.lfts = Lfts(f);
  for (int s = 0; s < 3; s++)
    for (const EndPort& e : f.end_ports()) {
      int home = f.node(e.node).is_switch() ? e.node : e.node - 3;
      r.lfts.set(s, e.base_lid, home == s ? (e.node == s ? 0 : 3) : (home > s ? 1 : 2));
    }
  CdgBuildOptions o;
  o.switch_destinations = false;
  CdgBuild b = build_cdg(f, r, o);
  EXPECT_EQ(b.stats.pairs, 6u);
  auto load = [&](int node, int port) { return b.stats.link_load[static_cast<size_t>(b.cdg.link_id(node, port))]; };
  EXPECT_EQ(load(0, 1), 2u);  // H0->H1, H0->H2
  EXPECT_EQ(load(1, 1), 2u);  // H0->H2, H1->H2
  EXPECT_EQ(load(2, 2), 2u);  // H2->H1, H2->H0
  EXPECT_EQ(load(1, 2), 2u);  // H1->H0, H2->H0
  EXPECT_EQ(load(3, 1), 2u);  // injection H0
  EXPECT_EQ(load(1, 3), 2u);  // delivery to H1
  EXPECT_EQ(b.stats.hop_histogram, (std::vector<uint64_t>{0, 0, 0, 4, 2}));  // neighbours: 3 links, H0<->H2: 4
  EXPECT_FALSE(b.cdg.find_cycle().has_value());
}

// ---- randomized equivalence with a naive per-pair walk ----
#include <map>
#include <random>
#include <cstdio>
#include <cstdlib>

namespace {

struct Naive {
  uint64_t pairs = 0, delivered = 0, dropped = 0, looping = 0;
  uint64_t per_kind[6] = {};
  std::vector<uint64_t> hist, load;
  std::set<std::pair<Cdg::Id, Cdg::Id>> edges;
};

// The obvious algorithm: walk every pair hop by hop.
Naive naive(const Fabric& f, const Routing& r, const Cdg& g, bool switch_sources) {
  Naive n;
  n.load.assign(static_cast<size_t>(g.num_links()), 0);
  for (const EndPort& se : f.end_ports()) {
    const bool sw_src = f.node(se.node).is_switch();
    if (sw_src && !switch_sources) continue;
    if (!sw_src && !f.node(f.node(se.node).port(se.port).peer_node).is_switch()) continue;
    for (const EndPort& de : f.end_ports())
      for (uint32_t dl = de.base_lid; dl <= de.last_lid(); dl++) {
        if (se.node == de.node && se.port == de.port) continue;
        const Lid d = static_cast<Lid>(dl);
        const int sl = r.sl(se.base_lid, d) & 15;
        n.pairs++;
        std::vector<int> links;
        int64_t cin = -1;
        int sw = se.node, in = 0;
        if (!sw_src) {
          const Port& p = f.node(se.node).port(se.port);
          cin = g.id(se.node, se.port, r.sl2vl.vl(se.node, 0, se.port, sl));
          links.push_back(g.link_id(se.node, se.port));
          sw = p.peer_node;
          in = p.peer_port;
        }
        std::set<std::pair<int, int>> seen;
        int kind = -1;  // -1 delivered
        for (;;) {
          const uint8_t o = r.lfts.get(sw, d);
          const bool again = !seen.insert({sw, in}).second;
          if (o == 0) { kind = de.node == sw ? -1 : static_cast<int>(DropKind::NotLocal); break; }
          if (o == kNoPath) { kind = static_cast<int>(DropKind::NoRoute); break; }
          if (o > f.node(sw).num_ports) { kind = static_cast<int>(DropKind::BadPort); break; }
          const Port& op = f.node(sw).port(o);
          if (!op.connected()) { kind = static_cast<int>(DropKind::DownPort); break; }
          const Cdg::Id oc = g.id(sw, o, r.sl2vl.vl(sw, in, o, sl));
          if (cin >= 0) n.edges.insert({static_cast<Cdg::Id>(cin), oc});
          if (again) { kind = static_cast<int>(DropKind::Loop); break; }
          links.push_back(g.link_id(sw, o));
          if (!f.node(op.peer_node).is_switch()) {
            kind = (op.peer_node == de.node && op.peer_port == de.port) ? -1 : static_cast<int>(DropKind::WrongEndpoint);
            break;
          }
          cin = oc;
          sw = op.peer_node;
          in = op.peer_port;
        }
        if (kind < 0) {
          n.delivered++;
          if (n.hist.size() <= links.size()) n.hist.resize(links.size() + 1, 0);
          n.hist[links.size()]++;
          for (int l : links) n.load[static_cast<size_t>(l)]++;
        } else {
          n.per_kind[kind]++;
          (kind == static_cast<int>(DropKind::Loop) ? n.looping : n.dropped)++;
        }
      }
  }
  return n;
}

}  // namespace

TEST(Cdg, MatchesNaivePerPairWalkOnRandomRoutings) {
  for (uint64_t seed = 1; seed <= 40; seed++) {
    std::mt19937_64 rng(seed);
    auto rnd = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
    Fabric f;
    const int ns = 3 + rnd(6), np = 6;
    for (int i = 0; i < ns; i++) f.add_node(NodeType::Switch, "S" + std::to_string(i), np);
    for (int i = 1; i < ns; i++) {  // spanning tree + extra links
      int j = rnd(i);
      for (int a = 1; a <= np; a++)
        if (!f.node(i).port(a).connected()) {
          for (int b = 1; b <= np; b++)
            if (!f.node(j).port(b).connected()) { f.connect(i, a, j, b); break; }
          break;
        }
    }
    for (int k = 0; k < ns; k++) {
      int a = rnd(ns), b = rnd(ns);
      if (a == b) continue;
      int pa = 0, pb = 0;
      for (int p = np; p >= 1 && !pa; p--) if (!f.node(a).port(p).connected()) pa = p;
      for (int p = np; p >= 1 && !pb; p--) if (!f.node(b).port(p).connected()) pb = p;
      if (pa && pb) f.connect(a, pa, b, pb);
    }
    int hosts = 0;
    for (int s = 0; s < ns; s++)
      for (int p = 1; p <= np; p++)
        if (!f.node(s).port(p).connected() && rnd(3) == 0) {
          int c = f.add_node(NodeType::Ca, "H" + std::to_string(hosts++), 1);
          f.connect(c, 1, s, p);
        }
    f.assign_default_guids();
    f.assign_lids(static_cast<uint8_t>(rnd(2)));
    // LFTs: BFS next hop towards the owner, with random damage (loops, drops, bad ports).
    Routing r;
    r.lfts = Lfts(f);
    for (const EndPort& e : f.end_ports()) {
      Attach at = f.attach(e.base_lid);
      if (!at.valid()) continue;
      std::vector<int> dist(static_cast<size_t>(f.size()), -1), via(static_cast<size_t>(f.size()), 0);
      std::vector<int> q{at.sw};
      dist[static_cast<size_t>(at.sw)] = 0;
      for (size_t h = 0; h < q.size(); h++)
        for (int p = 1; p <= np; p++) {
          const Port& x = f.node(q[h]).port(p);
          if (!x.connected() || !f.node(x.peer_node).is_switch() || dist[static_cast<size_t>(x.peer_node)] >= 0) continue;
          dist[static_cast<size_t>(x.peer_node)] = dist[static_cast<size_t>(q[h])] + 1;
          via[static_cast<size_t>(x.peer_node)] = x.peer_port;
          q.push_back(x.peer_node);
        }
      for (uint32_t l = e.base_lid; l <= e.last_lid(); l++)
        for (int s : f.switches()) {
          uint8_t port = s == at.sw ? at.port : static_cast<uint8_t>(via[static_cast<size_t>(s)]);
          const int dmg = rnd(20);
          if (dmg == 0) port = static_cast<uint8_t>(rnd(np + 3));  // random, maybe unlinked or > np
          if (dmg == 1) port = kNoPath;
          r.lfts.set(s, static_cast<Lid>(l), port);
        }
    }
    const int nsl = 1 + rnd(3);
    r.path_sl = [nsl](Lid s, Lid d) -> uint8_t { return static_cast<uint8_t>((s * 7 + d * 3) % nsl); };
    if (rnd(2)) {
      for (int i = 0; i < f.size(); i++)
        for (int in = 0; in <= np; in++)
          for (int o = 1; o <= np; o++)
            if (rnd(2)) {
              Sl2Vl::Table t{};
              for (auto& v : t) v = static_cast<uint8_t>(rnd(3));
              r.sl2vl.set(i, in, o, t);
            }
    }
    const bool sw_src = rnd(2);
    CdgBuildOptions o;
    o.switch_sources = sw_src;
    CdgBuild b = build_cdg(f, r, o);
    Naive nv = naive(f, r, b.cdg, sw_src);
    SCOPED_TRACE("seed " + std::to_string(seed));
    if (std::getenv("CDG_TEST_VERBOSE"))
      std::printf("seed %d: pairs %llu delivered %llu dropped %llu looping %llu edges %zu\n", (int)seed, (unsigned long long)nv.pairs, (unsigned long long)nv.delivered, (unsigned long long)nv.dropped, (unsigned long long)nv.looping, nv.edges.size());
    EXPECT_EQ(b.stats.pairs, nv.pairs);
    EXPECT_EQ(b.stats.delivered, nv.delivered);
    EXPECT_EQ(b.stats.dropped, nv.dropped);
    EXPECT_EQ(b.stats.looping, nv.looping);
    for (int k = 0; k < 6; k++) EXPECT_EQ(b.stats.per_kind[k], nv.per_kind[k]) << "kind " << k;
    auto hist = b.stats.hop_histogram;
    while (!hist.empty() && hist.back() == 0) hist.pop_back();
    while (!nv.hist.empty() && nv.hist.back() == 0) nv.hist.pop_back();
    EXPECT_EQ(hist, nv.hist);
    EXPECT_EQ(b.stats.link_load, nv.load);
    auto e = b.cdg.edges();
    std::set<std::pair<Cdg::Id, Cdg::Id>> es(e.begin(), e.end());
    EXPECT_EQ(es, nv.edges);
  }
}
