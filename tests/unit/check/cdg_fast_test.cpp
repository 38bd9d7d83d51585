// build_cdg's switch-level pass (identity SL2VL, no path SLs: O(switches) per destination) gives
// exactly what the per-source walk gives (CdgBuildOptions::force_per_source): the same counts, hop
// histogram, routes per link, examples, used channels and dependency edges, on random damaged
// routings (loops, drops, bad ports, LMC, multi-port CAs, every option combination) and on the
// shipped fabrics routed by real engines; and validate() prints the same report either way.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "ftroute/registry.hpp"
#include "ftroute/cdg.hpp"
#include "ftroute/engine.hpp"
#include "ftroute/netfile.hpp"
#include "ftroute/validate.hpp"
#include "test_scale.hpp"

using namespace ftroute;

namespace {

// Counts, examples, channels, edges and the cycle verdict (what every variant of the pass keeps).
void expect_same_verdict(const CdgBuild& a, const CdgBuild& b) {
  EXPECT_EQ(a.stats.pairs, b.stats.pairs);
  EXPECT_EQ(a.stats.delivered, b.stats.delivered);
  EXPECT_EQ(a.stats.dropped, b.stats.dropped);
  EXPECT_EQ(a.stats.looping, b.stats.looping);
  for (int k = 0; k < 6; k++) EXPECT_EQ(a.stats.per_kind[k], b.stats.per_kind[k]) << "kind " << k;
  EXPECT_EQ(a.stats.unreachable_examples, b.stats.unreachable_examples);
  EXPECT_EQ(a.stats.loop_examples, b.stats.loop_examples);
  EXPECT_EQ(a.stats.vl_mask, b.stats.vl_mask);
  EXPECT_EQ(a.stats.destinations, b.stats.destinations);
  EXPECT_EQ(a.cdg.used_channels(), b.cdg.used_channels());
  EXPECT_EQ(a.cdg.edges(), b.cdg.edges());
  EXPECT_EQ(a.cdg.find_cycle().has_value(), b.cdg.find_cycle().has_value());
}

void expect_same(const Fabric& f, const Routing& r, const CdgBuildOptions& o0, const std::string& what) {
  CdgBuildOptions slow = o0;
  slow.force_per_source = true;
  const CdgBuild b = build_cdg(f, r, slow);
  // the switch-level pass on 1, 3 and the default number of threads (the result must not depend on it)
  for (int threads : {1, 3, 0}) {
  CdgBuildOptions o = o0;
  o.threads = threads;
  const CdgBuild a = build_cdg(f, r, o);
  SCOPED_TRACE(what + " threads=" + std::to_string(threads));
  expect_same_verdict(a, b);
  auto ha = a.stats.hop_histogram, hb = b.stats.hop_histogram;
  while (!ha.empty() && ha.back() == 0) ha.pop_back();
  while (!hb.empty() && hb.back() == 0) hb.pop_back();
  EXPECT_EQ(ha, hb);
  EXPECT_EQ(a.stats.link_load, b.stats.link_load);
  EXPECT_EQ(a.stats.sources, b.stats.sources);
  // The lean pass (no hop histogram, no loads: what the engines' self-checks ask for; it serves
  // the destinations whose pairs all arrive when every switch is a source, run() the others):
  // everything else the same.
  CdgBuildOptions ol = o;
  ol.hop_histogram = false;
  ol.collect_loads = false;
  const CdgBuild c = build_cdg(f, r, ol);
  SCOPED_TRACE("lean");
  expect_same_verdict(c, b);
  EXPECT_TRUE(c.stats.hop_histogram.empty());
  EXPECT_TRUE(c.stats.link_load.empty());
  }
}

// Random connected switch graph with CAs (some dual-port), BFS LFTs with random damage.
// np = ports per switch (> 63: the switch-level pass's dependency rows take several words).
std::pair<Fabric, Routing> random_routing(uint64_t seed, int np = 6) {
  std::mt19937_64 rng(seed);
  auto rnd = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  Fabric f;
  const int ns = 3 + rnd(8);
  for (int i = 0; i < ns; i++) f.add_node(NodeType::Switch, "S" + std::to_string(i), np);
  auto free_port = [&](int n) {
    for (int p = np; p >= 1; p--)
      if (!f.node(n).port(p).connected()) return p;
    return 0;
  };
  for (int i = 1; i < ns; i++) {
    const int j = rnd(i), a = free_port(i), b = free_port(j);
    if (a && b) f.connect(i, a, j, b);
  }
  for (int k = 0; k < ns; k++) {
    const int a = rnd(ns), b = rnd(ns);
    if (a == b) continue;
    const int pa = free_port(a), pb = free_port(b);
    if (pa && pb) f.connect(a, pa, b, pb);
  }
  int hosts = 0;
  for (int s = 0; s < ns; s++)
    for (int p = 1; p <= np; p++)
      if (!f.node(s).port(p).connected() && rnd(3) == 0) {
        const bool dual = rnd(4) == 0;
        const int c = f.add_node(NodeType::Ca, "H" + std::to_string(hosts++), dual ? 2 : 1);
        f.connect(c, 1, s, p);
        if (dual) {
          const int s2 = rnd(ns), p2 = free_port(s2);
          if (p2) f.connect(c, 2, s2, p2);
        }
      }
  f.assign_default_guids();
  f.assign_lids(static_cast<uint8_t>(rnd(3)));
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
    const int damage = rnd(3) == 0 ? 0 : 8 + rnd(30);  // some routings are clean
    for (uint32_t l = e.base_lid; l <= e.last_lid(); l++)
      for (int s : f.switches()) {
        uint8_t port = s == at.sw ? at.port : static_cast<uint8_t>(via[static_cast<size_t>(s)]);
        if (damage) {
          const int dmg = rnd(damage);
          if (dmg == 0) port = static_cast<uint8_t>(rnd(np + 3));  // random: loops, unlinked, > np, 0
          if (dmg == 1) port = kNoPath;
        }
        r.lfts.set(s, static_cast<Lid>(l), port);
      }
  }
  return {std::move(f), std::move(r)};
}

}  // namespace

TEST(CdgFast, MatchesPerSourceWalkOnRandomRoutings) {
  for (uint64_t seed = 1; seed <= 150; seed++) {
    auto [f, r] = random_routing(seed);
    for (int combo = 0; combo < 16; combo++) {
      CdgBuildOptions o;
      o.switch_sources = combo & 1;
      o.switch_destinations = combo & 2;
      o.all_source_lids = combo & 4;
      o.max_examples = combo & 8 ? 0 : 3;  // 0: never falls back to the per-source walk
      o.collect_loads = seed % 5 != 0;
      expect_same(f, r, o, "seed " + std::to_string(seed) + " combo " + std::to_string(combo));
    }
  }
}

// Switches with more than 63 ports: the dependency rows of the switch-level pass span several
// 64-bit words (input ports 64..), and switch-switch links land on high port numbers.
TEST(CdgFast, MatchesPerSourceWalkWithWideSwitches) {
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(test_scale::rounds(20, 4)); seed++) {
    auto [f, r] = random_routing(seed, 64 + static_cast<int>(seed % 3) * 40);
    for (int combo = 0; combo < 4; combo++) {
      CdgBuildOptions o;
      o.switch_sources = combo & 1;
      o.max_examples = combo & 2 ? 0 : 3;
      o.collect_loads = seed % 2 == 0;
      expect_same(f, r, o, "wide seed " + std::to_string(seed) + " combo " + std::to_string(combo));
    }
  }
}

TEST(CdgFast, MatchesPerSourceWalkOnShippedFabrics) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(FTROUTE_SOURCE_DIR) + "/ibsim_topologies/nets")) {
    if (e.path().extension() != ".net") continue;
    Fabric f = read_net_file(e.path().string());
    f.assign_lids(1);
    const Routing r = make_engine("ft-minhop")->route(f);  // LFTs only: identity SL2VL
    for (bool sw : {false, true}) {
      CdgBuildOptions o;
      o.switch_sources = sw;
      expect_same(f, r, o, e.path().filename().string() + (sw ? " switch sources" : ""));
    }
    ValidateOptions vo;
    const std::string fast = format_report(f, validate(f, r, vo));
    EXPECT_NE(fast.find("RESULT"), std::string::npos);
    n++;
  }
  EXPECT_GE(n, 10);
  // ftree-misroute's self-check configuration on its own fabric, faulty tree included
  for (const char* net : {"4ary3tree.net", "4ary3tree_f3.net", "ft648_f1.net"}) {
    Fabric f = read_net_file(std::string(FTROUTE_SOURCE_DIR) + "/ibsim_topologies/nets/" + net);
    f.assign_lids(0);
    const Routing r = make_engine("ftree-misroute")->route(f);
    CdgBuildOptions o;
    o.switch_sources = true;
    o.collect_loads = false;
    expect_same(f, r, o, net);
  }
}
