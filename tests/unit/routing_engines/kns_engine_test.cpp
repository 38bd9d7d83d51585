// kns engine: recognition, Hybrid-DOR, intermediate-router fault tolerance, XORDET; every
// routing is walked by the CDG builder (reachability, loops, CDG acyclic per VL and overall).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <tuple>

#include "ftroute/cdg.hpp"
#include "ftroute/engine.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/error.hpp"
#include "ftroute/kns_topology.hpp"
#include "ftroute/netfile.hpp"
#include "ftroute/validate.hpp"
#include "ftroute/kns/fault_stats.hpp"
#include "ftroute/kns/waypoints.hpp"
#include "kns/kns.hpp"

using namespace ftroute;

namespace {

KnsParams xbar(int k, int n, int p = 1) {
  KnsParams q;
  q.k = k;
  q.n = n;
  q.p = p;
  return q;
}

// Every CA/switch source reaches every LID, no loops, CDG acyclic (whole graph and per VL).
void check_routing(const Fabric& f, const Routing& r) {
  // the lft_export validators (what `ftroute check` runs): reachability, loops, LFT entries, CDG
  ValidateOptions vo;
  vo.all_source_lids = true;
  ValidationReport rep = ftroute::validate(f, r, vo);
  EXPECT_TRUE(rep.ok()) << format_report(f, rep);
  // and per VL, explicitly
  CdgBuildOptions o;
  o.ca_sources = true;
  o.switch_sources = false;  // CA sources (ibdmchk default); crossbar-originated traffic: docs/kns.md
  o.switch_destinations = true;
  o.all_source_lids = true;
  CdgBuild b = build_cdg(f, r, o);
  EXPECT_GT(b.stats.pairs, 0u);
  EXPECT_EQ(b.stats.delivered, b.stats.pairs)
      << (b.stats.unreachable_examples.empty() ? "" : b.stats.unreachable_examples[0]);
  EXPECT_EQ(b.stats.looping, 0u) << (b.stats.loop_examples.empty() ? "" : b.stats.loop_examples[0]);
  auto cyc = b.cdg.find_cycle(-1);
  EXPECT_FALSE(cyc.has_value()) << (cyc ? b.cdg.format_cycle(*cyc) : "");
  for (int vl : b.cdg.vls_used()) {
    EXPECT_LT(vl, r.num_vls);
    EXPECT_FALSE(b.cdg.find_cycle(vl).has_value()) << "VL " << vl;
  }
}

Lid ca_lid(const Fabric& f, const std::string& id) { return f.node(*f.find(id)).port(1).base_lid; }

// Switch ids along the LFT path from the router of `src` to DLID.
std::vector<std::string> walk(const Fabric& f, const Routing& r, const std::string& src_router, Lid dlid) {
  std::vector<std::string> out;
  int cur = *f.find(src_router);
  for (int i = 0; i < 64; i++) {
    out.push_back(f.node(cur).id);
    uint8_t p = r.lfts.get(cur, dlid);
    if (p == kNoPath || p == 0) break;
    int nx = f.node(cur).port(p).peer_node;
    if (!f.node(nx).is_switch()) break;
    cur = nx;
  }
  return out;
}

// The same cabling with every node renamed (and no LIDs): recognition must not use names.
Fabric renamed(const Fabric& f) {
  Fabric g;
  for (int i = 0; i < f.size(); i++) g.add_node(f.node(i).type, "n" + std::to_string(i * 7 % 1000 + 1000), f.node(i).num_ports, f.node(i).guid);
  for (int i = 0; i < f.size(); i++)
    for (int p = 1; p <= f.node(i).num_ports; p++) {
      const Port& pt = f.node(i).port(p);
      if (pt.connected()) g.connect(i, p, pt.peer_node, pt.peer_port);
    }
  return g;
}

void kill_switch(Fabric& f, const std::string& id) {
  int x = *f.find(id);
  for (int p = 1; p <= f.node(x).num_ports; p++) f.disconnect(x, p);
  f.set_lid(x, 0, 0);  // a dead switch is not discovered: no LID
}

}  // namespace

TEST(KnsRecognize, CoordinatesFromStructureNotNames) {
  Fabric f = make_kns(xbar(4, 3, 2));
  KnsShape sh = recognize_kns(renamed(f));  // recognition must not care about names
  EXPECT_EQ(sh.k, 4);
  EXPECT_EQ(sh.n, 3);
  EXPECT_EQ(sh.p, 2);
  EXPECT_TRUE(sh.faults.empty());
  for (long R = 0; R < sh.model.K; R++) {
    std::vector<int> c;
    for (int d = 0; d < 3; d++) c.push_back(sh.model.coord(R, d));
    EXPECT_EQ(f.node(sh.router_node[static_cast<size_t>(R)]).id, kns_router_name(xbar(4, 3, 2), c));
  }
}

TEST(KnsRecognize, MissingLinkCoordinateInferredFromLineMates) {
  Fabric f = make_kns(xbar(4, 2));
  f.disconnect(*f.find("R_2_3"), 1);  // its dimension-0 link
  KnsShape sh = recognize_kns(f);
  long R = 2 * 4 + 3;
  EXPECT_EQ(f.node(sh.router_node[static_cast<size_t>(R)]).id, "R_2_3");
  EXPECT_TRUE(sh.model.link_bad[static_cast<size_t>(R * 2 + 0)]);
  EXPECT_EQ(sh.faults.size(), 1u);
}

TEST(KnsRecognize, ClearErrorsNamingSwitchAndPort) {
  auto expect_error = [](const Fabric& f, const std::string& needle) {
    try {
      recognize_kns(f);
      ADD_FAILURE() << "no error, expected " << needle;
    } catch (const EngineError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  {  // crossbar port cabled to a router's dimension-1 port while the rest use port 1
    Fabric f = make_kns(xbar(4, 2));
    int r = *f.find("R_0_1"), x = *f.find("X_0_0");
    f.disconnect(r, 1);
    f.disconnect(r, 2);
    f.connect(r, 2, x, 2);
    expect_error(f, "\"X_0_0\"[2]");
  }
  {  // router-router link
    Fabric f = make_kns(xbar(4, 2, 2));
    int a = *f.find("R_0_0"), b = *f.find("R_1_1");
    f.disconnect(a, 4);
    f.disconnect(b, 4);
    f.connect(a, 4, b, 4);
    expect_error(f, "\"R_0_0\"[4]");
  }
  {  // crossbar and fat-tree subnets mixed: one 4-ary 2-tree subnet replaces crossbar X_0_0
    KnsParams q = xbar(4, 2);
    q.subnet = KnsSubnet::FatTree;
    q.ki = 2;
    Fabric ft = make_kns(q);
    Fabric f = make_kns(xbar(4, 2));
    int x = *f.find("X_0_0");
    for (int p = 1; p <= 4; p++) f.disconnect(x, p);
    std::vector<int> sw;
    for (const char* id : {"F_0_0_0_0", "F_0_0_0_1", "F_0_0_1_0", "F_0_0_1_1"})
      sw.push_back(f.add_node(NodeType::Switch, id, 4, 0x900000 + sw.size()));
    auto idx = [&](int ftnode) {
      const std::string& id = ft.node(ftnode).id;
      for (size_t i = 0; i < 4; i++)
        if (f.node(sw[i]).id == id) return sw[i];
      return *f.find(id);
    };
    for (size_t i = 0; i < 4; i++) {
      int a = *ft.find(f.node(sw[i]).id);
      for (int p = 1; p <= 4; p++) {
        const Port& pt = ft.node(a).port(p);
        if (pt.connected() && !f.node(sw[i]).port(p).connected()) f.connect(sw[i], p, idx(pt.peer_node), pt.peer_port);
      }
    }
    expect_error(f, "mixes crossbar and fat-tree subnets");
  }
  {  // a missing router
    Fabric f = make_kns(xbar(4, 2));
    kill_switch(f, "R_1_1");
    expect_error(f, "router faults are not supported");
  }
  {  // a fabric that is not a KNS at all: two switches with hosts linked directly
    Fabric f;
    int s1 = f.add_node(NodeType::Switch, "S1", 4, 1), s2 = f.add_node(NodeType::Switch, "S2", 4, 2);
    int h = f.add_node(NodeType::Ca, "H", 1), h2 = f.add_node(NodeType::Ca, "H2", 1);
    f.connect(s1, 1, s2, 1);
    f.connect(h, 1, s1, 2);
    f.connect(h2, 1, s2, 2);
    expect_error(f, "directly to router");
  }
}

TEST(KnsEngine, FaultFreeIsHybridDor) {
  Fabric f = make_kns(xbar(8, 2));
  auto eng = make_engine("kns");
  Routing r = eng->route(f);
  // CA traffic is pure Hybrid-DOR on SL/VL 0; only management paths to crossbar LIDs (which end
  // with a dimension-order "restart") may need a second VL.
  EXPECT_LE(r.num_vls, 2);
  check_routing(f, r);
  // spec §1.8(b): <3,5> -> <6,2>: dimension 0 first via X_0_3 to <3,2>, then X_1_2 to <6,2>.
  auto p = walk(f, r, "R_3_5", ca_lid(f, "H_6_2_0"));
  std::vector<std::string> want{"R_3_5", "X_0_3", "R_3_2", "X_1_2", "R_6_2"};
  EXPECT_EQ(p, want);
  EXPECT_EQ(r.lfts.get(*f.find("R_6_2"), ca_lid(f, "H_6_2_0")), 3);  // host port n + 1
  for (int a : f.cas())
    for (int b : f.cas()) EXPECT_EQ(r.sl(f.node(a).port(1).base_lid, f.node(b).port(1).base_lid), 0);
}

TEST(KnsEngine, ThreeDimensionalWithConcentrationAndLmc) {
  Fabric f = make_kns(xbar(4, 3, 2), 1);
  Routing r = make_engine("kns")->route(f);
  check_routing(f, r);
  // both LIDs of a CA route identically
  Lid d = ca_lid(f, "H_3_2_1_1");
  EXPECT_EQ(walk(f, r, "R_0_0_0", d), walk(f, r, "R_0_0_0", static_cast<Lid>(d + 1)));
  EXPECT_EQ(walk(f, r, "R_0_0_0", d).size(), 7u);  // 3 dimensions: 3 crossbars + 4 routers
}

TEST(KnsEngine, LinkFaultUsesIntermediateRouterOnNextVl) {
  Fabric f = make_kns(xbar(4, 2));
  f.disconnect(*f.find("R_0_0"), 1);  // S's dimension-0 link
  Routing r = make_engine("kns")->route(f);
  check_routing(f, r);
  EXPECT_GE(r.num_vls, 2);
  // <0,0> -> <0,2> (same row, dimension 0 only): must leave on dimension 1, then come back.
  Lid d = ca_lid(f, "H_0_2_0");
  auto p = walk(f, r, "R_0_0", d);
  ASSERT_GE(p.size(), 5u);
  EXPECT_EQ(p[1].substr(0, 4), "X_1_");
  EXPECT_EQ(p.back(), "R_0_2");
  EXPECT_EQ(p.size(), 7u);  // 1 IN: <1..3,0> then <.,2> then <0,2>: 3 crossbars
  EXPECT_GE(r.sl(ca_lid(f, "H_0_0_0"), d), 1);  // rerouted pair leaves VL 0
  // unaffected pair keeps DOR on SL 0
  EXPECT_EQ(r.sl(ca_lid(f, "H_1_1_0"), ca_lid(f, "H_2_2_0")), 0);
  EXPECT_EQ(walk(f, r, "R_1_1", ca_lid(f, "H_2_2_0")),
            (std::vector<std::string>{"R_1_1", "X_0_1", "R_1_2", "X_1_2", "R_2_2"}));
}

TEST(KnsEngine, DeadCrossbarAndSeveralFaults) {
  Fabric f = make_kns(xbar(4, 3));
  kill_switch(f, "X_1_5");
  f.disconnect(*f.find("R_1_2_3"), 3);
  f.disconnect(*f.find("R_3_0_2"), 1);
  f.disconnect(*f.find("R_0_1_1"), 2);
  Routing r = make_engine("kns")->route(f);
  check_routing(f, r);
  EXPECT_GE(r.num_vls, 2);
}

TEST(KnsEngine, RandomFaultSetsValidateOrAreRejectedCleanly) {
  std::mt19937_64 rng(7);
  int routed = 0;
  for (int trial = 0; trial < 12; trial++) {
    Fabric f = make_kns(xbar(4, 3));
    kns::Model m(4, 3);
    kns::random_link_faults(m, 6, rng);
    for (long R = 0; R < m.K; R++)
      for (int d = 0; d < 3; d++)
        if (m.link_bad[static_cast<size_t>(R * 3 + d)]) {
          std::vector<int> c{m.coord(R, 0), m.coord(R, 1), m.coord(R, 2)};
          f.disconnect(*f.find(kns_router_name(xbar(4, 3), c)), d + 1);
        }
    bool thesis_ok = kns::thesis_tolerance(m, 2, true).tolerated();
    try {
      Routing r = make_engine("kns")->route(f);
      check_routing(f, r);
      routed++;
      EXPECT_TRUE(thesis_ok);  // the engine never claims more than the thesis criterion
    } catch (const EngineError& e) {
      EXPECT_NE(std::string(e.what()).find("kns:"), std::string::npos);
    }
  }
  EXPECT_GT(routed, 6);
}

TEST(KnsEngine, NotToleratedGivesEngineError) {
  // Lemma 6.1 worst case in 2-D: S's dimension-0 link and D's dimension-1 link down, S and D in
  // one row: no single IN works; with max_in=1 the engine refuses, with 2 INs it routes.
  Fabric f = make_kns(xbar(4, 2));
  f.disconnect(*f.find("R_0_0"), 1);
  f.disconnect(*f.find("R_0_2"), 2);
  EngineOptions one;
  one.set("max_in", "1");
  try {
    make_engine("kns")->route(f, one);
    ADD_FAILURE() << "expected EngineError";
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find("intermediate routers"), std::string::npos) << e.what();
  }
  Routing r = make_engine("kns")->route(f);
  check_routing(f, r);
  EXPECT_GE(r.num_vls, 2);
  // physical disconnection: every dimension link of a router down
  Fabric g = make_kns(xbar(4, 2));
  g.disconnect(*g.find("R_1_1"), 1);
  g.disconnect(*g.find("R_1_1"), 2);
  EXPECT_THROW(make_engine("kns")->route(g), EngineError);
}

TEST(KnsEngine, XordetClassesAsSl) {
  // Table 9.3 (4x4, 4 VCs): from node 0 the destinations 5,10,15 are class 0, 1,11,14 class 1,
  // 2,7,13 class 2, 3,6,9 class 3; node id = r1*4 + r0.
  Fabric f = make_kns(xbar(4, 2));
  EngineOptions o;
  o.set("xordet", "1");
  o.set("vls", "4");
  Routing r = make_engine("kns")->route(f, o);
  EXPECT_GE(r.num_vls, 4);
  EXPECT_LE(r.num_vls, 8);  // management paths from crossbars may use layer 1
  check_routing(f, r);
  const int want[16] = {0, 1, 2, 3, 1, 0, 3, 2, 2, 3, 0, 1, 3, 2, 1, 0};
  Lid s = ca_lid(f, "H_0_0_0");
  for (int id = 1; id < 16; id++) {
    std::string h = "H_" + std::to_string(id / 4) + "_" + std::to_string(id % 4) + "_0";
    EXPECT_EQ(r.sl(s, ca_lid(f, h)), want[id]) << h;
    EXPECT_EQ(kns::xordet_class(static_cast<uint64_t>(id), 4, 4), want[id]);
  }
  // with a fault: classes x layers
  f.disconnect(*f.find("R_0_0"), 1);
  Routing r2 = make_engine("kns")->route(f, o);
  EXPECT_GE(r2.num_vls, 7);  // SL = layer * 4 + class, the rerouted pair below uses SL 6
  check_routing(f, r2);
  EXPECT_EQ(r2.sl(s, ca_lid(f, "H_0_2_0")) % 4, 2);
  EXPECT_GE(r2.sl(s, ca_lid(f, "H_0_2_0")), 4);
}

// 8 XORDET classes on 15 VLs (docs/kns.md "XORDET and a hot-spot"): SL = layer * 8 + class, so
// layer 1 holds classes 0-6 (SL 8-14); the management paths to crossbar LIDs that need it fit
// there. Before, max_vls / classes = 1 layer refused the fabric.
TEST(KnsEngine, EightXordetClassesUseThePartialSecondLayer) {
  Fabric f = make_kns(xbar(8, 2));
  EngineOptions o;
  o.set("xordet", "1");
  o.set("vls", "8");
  o.set("max_vls", "15");
  Routing r = make_engine("kns")->route(f, o);
  EXPECT_GT(r.num_vls, 8);
  EXPECT_LE(r.num_vls, 15);
  check_routing(f, r);  // every pair, no loop, every VL's CDG acyclic with the path SLs
  Lid s = ca_lid(f, "H_0_0_0");
  for (int id = 1; id < 64; id++) {
    std::string h = "H_" + std::to_string(id / 8) + "_" + std::to_string(id % 8) + "_0";
    EXPECT_EQ(r.sl(s, ca_lid(f, h)), kns::xordet_class(static_cast<uint64_t>(id), 6, 8)) << h;  // data: layer 0
  }
  o.set("max_vls", "8");  // one layer of 8 classes: the crossbar paths do not fit
  EXPECT_THROW(make_engine("kns")->route(f, o), EngineError);
}

TEST(KnsEngine, OptionErrors) {
  Fabric f = make_kns(xbar(4, 2));
  auto eng = make_engine("kns");
  EngineOptions bad;
  bad.set("vls", "3");
  bad.set("xordet", "1");
  EXPECT_THROW(eng->route(f, bad), OptionError);
  EngineOptions unk;
  unk.set("bogus", "1");
  EXPECT_THROW(eng->route(f, unk), OptionError);
  EngineOptions shape;
  shape.set("k", "5");
  EXPECT_THROW(eng->route(f, shape), EngineError);
}

TEST(KnsFaults, ThesisLemmasOnSmallNetworks) {
  // Lemma 6.1: 1 IN tolerates n - 1 faults (every single fault in 2-D, any 2 in 3-D).
  kns::Model m(4, 2);
  for (long l = 0; l < m.K * m.n; l++) {
    std::fill(m.link_bad.begin(), m.link_bad.end(), 0);
    m.link_bad[static_cast<size_t>(l)] = 1;
    EXPECT_TRUE(kns::thesis_tolerance(m, 1).tolerated());
    EXPECT_TRUE(kns::tree_tolerance(m, 1).tolerated());
  }
  // 2-D worst case with 2 faults (S x-link, D y-link, same row): needs 2 INs.
  std::fill(m.link_bad.begin(), m.link_bad.end(), 0);
  m.link_bad[0 * 2 + 0] = 1;
  m.link_bad[2 * 2 + 1] = 1;
  EXPECT_FALSE(kns::thesis_tolerance(m, 1).tolerated());
  auto t2 = kns::thesis_tolerance(m, 2);
  EXPECT_TRUE(t2.tolerated());
  EXPECT_GT(t2.in2, 0);
  EXPECT_TRUE(kns::tree_tolerance(m, 2).tolerated());
  // 3-D, every pair of faults tolerated with 1 IN (n - 1 = 2), checked on a sample
  kns::Model m3(4, 3);
  std::mt19937_64 rng(1);
  for (int i = 0; i < 30; i++) {
    kns::random_link_faults(m3, 2, rng);
    EXPECT_TRUE(kns::thesis_tolerance(m3, 1).tolerated());
  }
}

TEST(KnsFaults, FastPairEnumerationMatchesBruteForce) {
  // thesis_tolerance enumerates the pairs crossing each failed link; compare with dor_ok on
  // every pair and with a brute-force IN search.
  std::mt19937_64 rng(3);
  for (auto [k, n, faults] : {std::tuple{4, 2, 3}, std::tuple{3, 3, 5}, std::tuple{4, 3, 8}, std::tuple{5, 2, 4}}) {
    kns::Model m(k, n);
    for (int trial = 0; trial < 5; trial++) {
      kns::random_link_faults(m, faults, rng);
      if (trial == 4) m.xbar_dead[1] = 1;
      long bad = 0, fail1 = 0;
      for (long S = 0; S < m.K; S++)
        for (long D = 0; D < m.K; D++) {
          if (S == D || m.dor_ok(S, D)) continue;
          bad++;
          bool one = false;
          for (long I = 0; I < m.K && !one; I++) one = m.dor_ok(S, I) && m.dor_ok(I, D);
          fail1 += !one;
        }
      kns::Tolerance t = kns::thesis_tolerance(m, 1);
      EXPECT_EQ(t.pairs - t.dor, bad);
      EXPECT_EQ(t.failed, fail1);
      m.xbar_dead[1] = 0;
    }
  }
}

TEST(KnsFaults, ThesisInsFollowTheThesisRules) {
  // Thesis Fig. 5.2(A): 4-ary 2-D, the source's X link failed: the IN is in the source's column
  // and the destination's row, the one minimal choice, whatever the tie rule.
  kns::Model m(4, 2);
  std::mt19937_64 rng(5);
  m.link_bad[static_cast<size_t>(0 * 2 + 0)] = 1;  // router (0,0), dimension 0
  const long S = 0, D = 2 + 3 * 4;                  // (0,0) -> (2,3)
  for (auto ties : {kns::InTies::First, kns::InTies::Random}) {
    auto ins = kns::thesis_ins(m, S, D, 2, ties, rng);
    ASSERT_TRUE(ins.has_value());
    EXPECT_EQ(*ins, std::vector<long>{0 + 3 * 4});  // (0,3)
    EXPECT_EQ(kns::thesis_ins(m, 5, 6, 2, ties, rng), std::vector<long>{});  // DOR path works
  }
  // A router with every link failed: no path.
  m.link_bad[static_cast<size_t>(0 * 2 + 1)] = 1;
  EXPECT_FALSE(kns::thesis_ins(m, S, D, 2, kns::InTies::First, rng).has_value());
  // 2-D worst case of ThesisLemmasOnSmallNetworks: S x-link and D y-link, same row: two INs.
  std::fill(m.link_bad.begin(), m.link_bad.end(), 0);
  m.link_bad[0 * 2 + 0] = 1;
  m.link_bad[2 * 2 + 1] = 1;
  EXPECT_FALSE(kns::thesis_ins(m, 0, 2, 1, kns::InTies::First, rng).has_value());
  auto two = kns::thesis_ins(m, 0, 2, 2, kns::InTies::First, rng);
  ASSERT_TRUE(two.has_value());
  EXPECT_EQ(two->size(), 2u);
}

// Brute force over every sequence of at most two INs: the fewest hops, then the fewest INs, and
// the first such path with the INs in increasing router numbers (the First tie rule).
struct BestIns {
  std::pair<int, int> cost{1 << 30, 9};  // (hops, INs)
  std::vector<long> first;
};
// minimal_first: the cost is (0 for a minimal path, else 1; INs), kns::InLength::MinimalFirst.
BestIns best_in_path(const kns::Model& m, long S, long D, bool minimal_first = false) {
  BestIns b;
  if (m.dor_ok(S, D)) return {{m.diff(S, D), 0}, {}};
  auto offer = [&](std::pair<int, int> c, std::vector<long> ins) {
    if (minimal_first) c.first = c.first == m.diff(S, D) ? 0 : 1;
    if (c < b.cost) b.cost = c, b.first = std::move(ins);
  };
  for (long a = 0; a < m.K; a++)
    if (a != S && a != D && m.dor_ok(S, a) && m.dor_ok(a, D)) offer({m.diff(S, a) + m.diff(a, D), 1}, {a});
  for (long a = 0; a < m.K; a++) {
    if (a == S || a == D || !m.dor_ok(S, a)) continue;
    for (long c = 0; c < m.K; c++)
      if (c != a && c != S && c != D && m.dor_ok(a, c) && m.dor_ok(c, D))
        offer({m.diff(S, a) + m.diff(a, c) + m.diff(c, D), 2}, {a, c});
  }
  return b;
}

// The hops of S -> INs -> D, each leg checked to be a fault-free Hybrid-DOR path.
int leg_hops(const kns::Model& m, long S, long D, const std::vector<long>& ins) {
  std::vector<long> path{S};
  path.insert(path.end(), ins.begin(), ins.end());
  path.push_back(D);
  int hops = 0;
  for (size_t i = 0; i + 1 < path.size(); i++) {
    EXPECT_TRUE(m.dor_ok(path[i], path[i + 1])) << "leg " << i << " of " << S << " -> " << D;
    hops += m.diff(path[i], path[i + 1]);
  }
  return hops;
}

TEST(KnsFaults, ThesisInsAreTheBestPathOfDorLegs) {
  // thesis_ins against the brute force on random faulty 3-D and 2-D networks, both tie rules:
  // every leg fault-free, the fewest hops, then the fewest INs, every faulty pair served exactly
  // when the brute force finds a path; First takes the lowest router numbers, Random often not. The cases must include minimal two-IN paths
  // (chosen over longer one-IN ones) and non-minimal paths, or the test proves little.
  std::mt19937_64 rng(17);
  long two_minimal = 0, non_minimal = 0, pairs = 0, random_other = 0;
  for (auto [k, n, faults] : {std::tuple{3, 3, 10}, std::tuple{4, 3, 14}, std::tuple{4, 2, 6}}) {
    kns::Model m(k, n);
    for (int trial = 0; trial < 4; trial++) {
      kns::random_link_faults(m, faults, rng);
      for (auto ties : {kns::InTies::First, kns::InTies::Random})
        for (auto [S, D] : kns::faulty_dor_pairs(m)) {
          ASSERT_FALSE(m.dor_ok(S, D));
          const BestIns want = best_in_path(m, S, D);
          const auto got = kns::thesis_ins(m, S, D, 2, ties, rng);
          ASSERT_EQ(got.has_value(), want.cost.first < (1 << 30)) << S << " -> " << D;
          if (!got) continue;
          pairs++;
          const int hops = leg_hops(m, S, D, *got);
          EXPECT_EQ(std::pair(hops, static_cast<int>(got->size())), want.cost) << S << " -> " << D;
          if (ties == kns::InTies::First) EXPECT_EQ(*got, want.first) << S << " -> " << D;
          else random_other += *got != want.first;
          two_minimal += got->size() == 2 && hops == m.diff(S, D);
          non_minimal += hops > m.diff(S, D);
        }
    }
  }
  EXPECT_GT(pairs, 10000);  // 12,050 (seed 17)
  EXPECT_GT(two_minimal, 40);  // 88
  EXPECT_GT(non_minimal, 1000);  // 2,760
  EXPECT_GT(random_other, 1000);  // Random picks other equal paths than First
}

TEST(KnsFaults, MinimalFirstTakesTheFewestInsWhenNoPathIsMinimal) {
  // kns::InLength::MinimalFirst against the brute force: a minimal path with the fewest INs when
  // there is one (then the same pick as Shortest), otherwise the fewest INs whatever the length;
  // First = the brute force's first such path. The cases must include pairs where it takes a
  // longer path than Shortest, or the option would be indistinguishable.
  std::mt19937_64 rng(23);
  long pairs = 0, longer = 0, same_as_shortest = 0, random_other = 0;
  for (auto [k, n, faults] : {std::tuple{4, 3, 14}, std::tuple{5, 2, 8}}) {
    kns::Model m(k, n);
    for (int trial = 0; trial < 4; trial++) {
      kns::random_link_faults(m, faults, rng);
      for (auto ties : {kns::InTies::First, kns::InTies::Random})
        for (auto [S, D] : kns::faulty_dor_pairs(m)) {
          const BestIns want = best_in_path(m, S, D, true);
          const auto got = kns::thesis_ins(m, S, D, 2, ties, rng, kns::InLength::MinimalFirst);
          ASSERT_EQ(got.has_value(), want.cost.first < (1 << 30)) << S << " -> " << D;
          if (!got) continue;
          pairs++;
          const int hops = leg_hops(m, S, D, *got);
          EXPECT_EQ(std::pair(hops == m.diff(S, D) ? 0 : 1, static_cast<int>(got->size())), want.cost) << S << " -> " << D;
          if (ties == kns::InTies::First) {
            EXPECT_EQ(*got, want.first) << S << " -> " << D;
            const auto shortest = kns::thesis_ins(m, S, D, 2, ties, rng);
            const int short_hops = best_in_path(m, S, D).cost.first;
            same_as_shortest += *shortest == *got;
            longer += hops > short_hops;
            if (hops == m.diff(S, D)) {
              EXPECT_EQ(*got, *shortest) << S << " -> " << D;
            }
          } else {
            random_other += *got != want.first;
          }
        }
    }
  }
  EXPECT_GT(pairs, 5000);
  EXPECT_GT(longer, 100);            // paths longer than Shortest's
  EXPECT_GT(same_as_shortest, 1000);  // (every minimal one)
  EXPECT_GT(random_other, 1000);
  std::printf("MinimalFirst: %ld pairs, %ld longer than Shortest, %ld the same, %ld Random picks differ from First\n",
              pairs, longer, same_as_shortest, random_other);
}

TEST(KnsWaypoints, EveryHostPairOfEveryFaultyRouterPair) {
  // 4-ary 2-D with two hosts per router and the thesis' 2-D worst case failed (router (0,0)'s
  // dimension-0 link, router (2,0)'s dimension-1 link): each router pair whose DOR path is faulty
  // appears once per host pair (2 x 2), with the INs thesis_ins() picks as router nodes.
  Fabric f = make_kns(xbar(4, 2, 2));
  const KnsShape sh0 = recognize_kns(f);
  f.disconnect(sh0.router_node[0], 1);
  f.disconnect(sh0.router_node[2], 2);
  const KnsShape sh = recognize_kns(f);
  const KnsWaypointTable t = kns_thesis_waypoints(f, 2, kns::InTies::First, 1);
  EXPECT_EQ(t.k, 4);
  EXPECT_EQ(t.n, 2);
  EXPECT_EQ(t.failed_links, 2);
  const auto bad = kns::faulty_dor_pairs(sh.model);
  EXPECT_EQ(t.router_pairs, static_cast<long>(bad.size()));
  EXPECT_EQ(t.with_one + t.with_two, t.router_pairs);
  EXPECT_GT(t.with_two, 0);
  ASSERT_EQ(t.pairs.size(), 4 * bad.size());
  std::mt19937_64 rng(1);
  for (size_t i = 0; i < t.pairs.size(); i++) {
    const auto [S, D] = bad[i / 4];
    const KnsWaypoints& w = t.pairs[i];
    EXPECT_EQ(f.node(w.src).port(1).peer_node, sh.router_node[static_cast<size_t>(S)]);
    EXPECT_EQ(f.node(w.dst).port(1).peer_node, sh.router_node[static_cast<size_t>(D)]);
    const auto ins = kns::thesis_ins(sh.model, S, D, 2, kns::InTies::First, rng);
    ASSERT_TRUE(ins.has_value());
    std::vector<int> want;
    for (long I : *ins) want.push_back(sh.router_node[static_cast<size_t>(I)]);
    EXPECT_EQ(w.via, want);
  }
  // One IN does not pass the worst case: an error naming both routers.
  try {
    kns_thesis_waypoints(f, 1, kns::InTies::First, 1);
    ADD_FAILURE() << "no error";
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find("no path from router \"R_"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("within 1 intermediate router"), std::string::npos) << e.what();
  }
}

TEST(KnsFaults, TreesNeverClaimMoreThanTheThesisCriterion) {
  // A tree path with r restarts is a sequence of r intermediate routers with fault-free DOR
  // legs, so tree-tolerated => thesis-tolerated; the converse can fail (one exit per crossbar).
  std::mt19937_64 rng(11);
  kns::Model m(4, 3);
  int both = 0;
  for (int i = 0; i < 60; i++) {
    kns::random_link_faults(m, 8, rng);
    for (int max_in = 1; max_in <= 2; max_in++) {
      bool tree = kns::tree_tolerance(m, max_in).tolerated();
      bool thesis = kns::thesis_tolerance(m, max_in).tolerated();
      if (tree) {
        EXPECT_TRUE(thesis);
      }
      both += tree && thesis;
    }
  }
  EXPECT_GT(both, 60);
}

TEST(KnsEngine, ShippedNetsRouteAndValidate) {
  for (const char* name : {"kns_4x2", "kns_4x2_p2", "kns_8x2", "kns_4x3", "kns_4x3_f3"}) {
    SCOPED_TRACE(name);
    Fabric f = read_net_file(std::string(FTROUTE_SOURCE_DIR) + "/ibsim_topologies/nets/" + name + ".net");
    Routing r = make_engine("kns")->route(f);
    check_routing(f, r);
    EXPECT_LE(r.num_vls, 8);
  }
}

TEST(KnsEngine, FatTreeSubnetsRouteWithDestro) {
  for (const char* name : {"kns_4x2_ft2", "kns_8x2_ft3"}) {
    SCOPED_TRACE(name);
    Fabric f = read_net_file(std::string(FTROUTE_SOURCE_DIR) + "/ibsim_topologies/nets/" + name + ".net");
    Routing r = make_engine("kns")->route(f);
    check_routing(f, r);
  }
  // §1.8(c): 8-ary 2-direct 3-indirect, dimension 0 from r_0 = 5 to x_0 = 2: up to stage 2 and
  // down again (6 links in the subnet), the DESTRO path, then the destination router.
  KnsParams q = xbar(8, 2);
  q.subnet = KnsSubnet::FatTree;
  q.ki = 2;
  Fabric f = make_kns(q);
  Routing r = make_engine("kns")->route(f);
  auto path = walk(f, r, "R_3_5", ca_lid(f, "H_3_2_0"));
  ASSERT_EQ(path.size(), 7u);
  EXPECT_EQ(path.front(), "R_3_5");
  EXPECT_EQ(path.back(), "R_3_2");
  // stages from the generator's names F_<d>_<line>_<stage>_<order>: 0 1 2 1 0 in line 3 of dim 0
  const char* stages[] = {"0", "1", "2", "1", "0"};
  for (int i = 0; i < 5; i++) {
    EXPECT_EQ(path[static_cast<size_t>(i + 1)].rfind("F_0_3_", 0), 0u) << path[static_cast<size_t>(i + 1)];
    EXPECT_EQ(path[static_cast<size_t>(i + 1)].substr(6, 1), stages[i]) << path[static_cast<size_t>(i + 1)];
  }
  // the first hop is up port 2 + t_0 = 2 (1-based 3) of the leaf, the top switch goes down t_2 = 0
  EXPECT_EQ(r.lfts.get(*f.find(path[1]), ca_lid(f, "H_3_2_0")), 3);
  // coordinates come from the structure (ports), not from names
  KnsShape sh = recognize_kns(renamed(f));
  EXPECT_EQ(sh.k, 8);
  EXPECT_EQ(sh.ki, 2);
  EXPECT_EQ(sh.s, 3);
  EXPECT_TRUE(sh.faults.empty());
  for (long R = 0; R < sh.model.K; R++)
    EXPECT_EQ(f.node(sh.router_node[static_cast<size_t>(R)]).id,
              kns_router_name(q, {sh.model.coord(R, 0), sh.model.coord(R, 1)}));
}

TEST(KnsEngine, FatTreeSubnetsWithRouterLinkFaults) {
  KnsParams q = xbar(8, 2);
  q.subnet = KnsSubnet::FatTree;
  q.ki = 2;
  Fabric f = make_kns(q, 1);
  // router-subnet links fail (the thesis' fault model): rerouted through intermediate routers
  for (const char* r : {"R_0_1", "R_2_5", "R_7_7"}) f.disconnect(*f.find(r), 1);
  f.disconnect(*f.find("R_3_3"), 2);
  Routing r = make_engine("kns")->route(f, EngineOptions::parse("max_in=2"));
  check_routing(f, r);
  EXPECT_GT(r.num_vls, 1);
  auto path = walk(f, r, "R_0_0", ca_lid(f, "H_0_1_0"));
  EXPECT_EQ(path.back(), "R_0_1");
  EXPECT_EQ(path[1].rfind("F_1_0_", 0), 0u) << path[1] << ": R_0_1 lost its dimension-0 link, the path must leave in dimension 1";
  // a link inside a fat-tree subnet: refused with the switch and port
  Fabric g = make_kns(q);
  int leaf = *g.find("F_1_4_0_2");
  g.disconnect(leaf, 3);
  try {
    make_engine("kns")->route(g);
    ADD_FAILURE() << "internal fault accepted";
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find("inside fat-tree subnets are not supported"), std::string::npos) << e.what();
  }
  // two up links of one leaf swapped: not the k-ary s-tree wiring, named
  Fabric h = make_kns(q);
  int a = *h.find("F_0_0_0_0");
  int pa3 = h.node(a).port(3).peer_node, pp3 = h.node(a).port(3).peer_port;
  int pa4 = h.node(a).port(4).peer_node, pp4 = h.node(a).port(4).peer_port;
  h.disconnect(a, 3);
  h.disconnect(a, 4);
  h.connect(a, 3, pa4, pp4);
  h.connect(a, 4, pa3, pp3);
  try {
    make_engine("kns")->route(h);
    ADD_FAILURE() << "miswired subnet accepted";
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find("does not follow the k-ary s-tree wiring"), std::string::npos) << e.what();
  }
}

namespace {

// A fault set of the 4-ary 3-D model that the thesis criterion tolerates with 1 IN but one
// destination tree per destination does not (sources that need disagreeing next hops).
kns::Model fault_set_needing_lmc(uint64_t seed) {
  std::mt19937_64 rng(seed);
  kns::Model m(4, 3);
  for (int i = 0; i < 5000; i++) {
    kns::random_link_faults(m, 8, rng);
    if (!kns::tree_tolerance(m, 1, true).tolerated() && kns::thesis_tolerance(m, 1, true).tolerated()) return m;
  }
  ADD_FAILURE() << "no fault set found";
  return m;
}

std::string router_name(const kns::Model& m, long R) {
  std::string s = "R";
  for (int d = m.n - 1; d >= 0; d--) s += "_" + std::to_string(m.coord(R, d));
  return s;
}

// Restarts (intermediate routers) on the LFT path from the router of CA `src` to dlid: a router
// hop on dimension port 1+d is a restart when d is not above the dimension it arrived on.
int path_restarts(const Fabric& f, const Routing& r, int n, int src_router, Lid dlid) {
  int cur = src_router, arrived = -1, restarts = 0;
  for (int i = 0; i < 64; i++) {
    uint8_t p = r.lfts.get(cur, dlid);
    if (p == kNoPath || p == 0) return 99;
    int nx = f.node(cur).port(p).peer_node;
    if (!f.node(nx).is_switch()) return restarts;       // delivered to the host
    bool router = false;  // routers are the switches with hosts
    for (int q = n + 1; q <= f.node(cur).num_ports; q++)
      router |= f.node(cur).port(q).connected() && !f.node(f.node(cur).port(q).peer_node).is_switch();
    if (router) {
      int d = p - 1;
      if (arrived >= 0 && d <= arrived) restarts++;
      arrived = d;
    }
    cur = nx;
  }
  return 99;
}

}  // namespace

TEST(KnsFaults, LmcAlternativeTreesReachTheThesisCriterion) {
  // Thesis criterion = per-pair free choice; the base tree alone loses some sets (one next hop
  // per crossbar and destination); with alternative trees on the LMC LIDs none is lost.
  std::mt19937_64 rng(3);
  kns::Model m(4, 3);
  int lost_by_base = 0, sets = 0;
  for (int i = 0; i < 400; i++) {
    kns::random_link_faults(m, 8, rng);
    kns::Tolerance th = kns::thesis_tolerance(m, 1);
    kns::Tolerance base = kns::tree_tolerance(m, 1);
    kns::Tolerance lmc = kns::tree_tolerance(m, 1, false, 2);
    EXPECT_EQ(lmc.failed, th.failed) << "set " << i;  // pair by pair: same number not served
    EXPECT_LE(lmc.failed, base.failed);
    lost_by_base += th.tolerated() && !base.tolerated();
    sets++;
  }
  EXPECT_GT(lost_by_base, 0) << "the sample should contain sets the base tree loses";
  // Every alternative tree is loop-free and serves its pinned sources within max_in.
  kns::Model f = fault_set_needing_lmc(5);
  for (long D = 0; D < f.K; D++) {
    kns::LidTrees lt = kns::build_lid_trees(f, D, 1, 4);
    for (long S = 0; S < f.K; S++)
      if (S != D) {
        EXPECT_LE(lt.best[static_cast<size_t>(S)], 1) << S << "->" << D;
        EXPECT_LT(lt.choice[static_cast<size_t>(S)], lt.trees.size());
      }
  }
}

TEST(KnsEngine, LmcLidsCarryPerSourceAlternativePaths) {
  kns::Model m = fault_set_needing_lmc(5);
  auto faulty_fabric = [&](uint8_t lmc) {
    Fabric f = make_kns(xbar(4, 3), lmc);
    for (long R = 0; R < m.K; R++)
      for (int d = 0; d < m.n; d++)
        if (m.link_bad[static_cast<size_t>(R * m.n + d)]) f.disconnect(*f.find(router_name(m, R)), d + 1);
    return f;
  };
  EngineOptions one_in = EngineOptions::parse("max_in=1");
  // LMC 0: one tree per destination cannot serve every source within one IN
  EXPECT_THROW(make_engine("kns")->route(faulty_fabric(0), one_in), EngineError);
  Fabric f = faulty_fabric(1);
  EXPECT_THROW(make_engine("kns")->route(f, EngineOptions::parse("max_in=1,lmc_alt=0")), EngineError);
  KnsEngine eng;
  Routing r = eng.route(f, one_in);
  check_routing(f, r);
  // each CA source, on the DLID the engine tells it to use, crosses at most one IN; some pairs
  // need the alternative LID and their base-LID path needs more (else LMC 0 would have worked)
  int alt = 0, checked = 0;
  for (const EndPort& s : f.end_ports()) {
    if (f.node(s.node).is_switch()) continue;
    const int sr = f.attach(s.base_lid).sw;
    for (const EndPort& d : f.end_ports()) {
      if (f.node(d.node).is_switch() || f.attach(d.base_lid).sw == sr) continue;
      Lid use = eng.preferred_dlid(s.base_lid, d.base_lid);
      ASSERT_GE(use, d.base_lid);
      ASSERT_LE(use, d.last_lid());
      EXPECT_LE(path_restarts(f, r, m.n, sr, use), 1) << f.node(s.node).id << " -> " << f.node(d.node).id;
      if (use != d.base_lid) {
        alt++;
        EXPECT_GT(path_restarts(f, r, m.n, sr, d.base_lid), 1);
      }
      checked++;
    }
  }
  EXPECT_GT(alt, 0);
  EXPECT_EQ(checked, 64 * 63);
}

TEST(KnsEngine, SwitchSourcedTrafficDeadlockFree) {
  // Paths from the subnet switches' own LIDs (SMA/PMA responses) also get acyclic VL layers:
  // in 2-D within the layers the CA traffic uses, in 3-D with switch_sources=1.
  auto check_all_sources = [](const Fabric& f, const Routing& r) {
    CdgBuildOptions o;
    o.ca_sources = true;
    o.switch_sources = true;
    o.switch_destinations = true;
    CdgBuild b = build_cdg(f, r, o);
    EXPECT_EQ(b.stats.delivered, b.stats.pairs);
    EXPECT_EQ(b.stats.looping, 0u);
    for (int vl : b.cdg.vls_used()) {
      EXPECT_LT(vl, r.num_vls);
      EXPECT_FALSE(b.cdg.find_cycle(vl).has_value()) << "VL " << vl;
    }
  };
  for (const char* name : {"kns_8x2", "kns_4x2_ft2", "kns_4x3", "kns_4x3_f3"}) {
    SCOPED_TRACE(name);
    Fabric f = read_net_file(std::string(FTROUTE_SOURCE_DIR) + "/ibsim_topologies/nets/" + name + ".net");
    Routing r = make_engine("kns")->route(f, EngineOptions::parse("switch_sources=1,max_vls=15"));
    check_routing(f, r);
    check_all_sources(f, r);
    if (std::string(name).find("x2") != std::string::npos) {  // 2-D: no extra VL needed
      Routing d = make_engine("kns")->route(f);
      EXPECT_EQ(d.num_vls, r.num_vls);
      for (const auto& note : d.notes) EXPECT_EQ(note.find("keep SL 0"), std::string::npos) << note;
      check_all_sources(f, d);
    }
  }
}

TEST(KnsFaults, FaultDrawModels) {
  // docs/kns.md §5 "fault model": the thesis draws distinct random links and counts sets that
  // disconnect a node as not tolerated (distinct); the other draws exist to measure how far other
  // readings of the thesis would move its "> 99.5 %".
  kns::Model m(4, 3);
  auto worst = [&] {
    int w = 0;
    for (long R = 0; R < m.K; R++) {
      int b = 0;
      for (int d = 0; d < m.n; d++) b += m.link_bad[static_cast<size_t>(R * m.n + d)];
      w = std::max(w, b);
    }
    return w;
  };
  auto count = [&] {
    long c = 0;
    for (auto b : m.link_bad) c += b;
    return c;
  };
  std::mt19937_64 a(5), b(5), rng(9);
  bool saw_double = false, saw_isolated = false, saw_collapsed = false;
  for (int i = 0; i < 400; i++) {
    // distinct = the draw used before the option existed (same sets for the same seed)
    EXPECT_EQ(kns::draw_link_faults(m, 12, kns::Draw::distinct, a), 0);
    std::vector<char> first(m.link_bad.begin(), m.link_bad.end());
    kns::random_link_faults(m, 12, b);
    EXPECT_TRUE(std::equal(first.begin(), first.end(), m.link_bad.begin()));
    EXPECT_EQ(count(), 12);
    saw_double |= worst() >= 2;
    kns::draw_link_faults(m, 12, kns::Draw::no_double, rng);
    EXPECT_EQ(count(), 12);
    EXPECT_LE(worst(), 1);
    kns::draw_link_faults(m, 40, kns::Draw::no_isolated, rng);
    EXPECT_EQ(count(), 40);
    EXPECT_LE(worst(), 2);
    kns::draw_link_faults(m, 40, kns::Draw::distinct, rng);
    saw_isolated |= worst() == 3;
    kns::draw_link_faults(m, 40, kns::Draw::replace, rng);
    EXPECT_LE(count(), 40);
    saw_collapsed |= count() < 40;
  }
  EXPECT_TRUE(saw_double);
  EXPECT_TRUE(saw_isolated);
  EXPECT_TRUE(saw_collapsed);
  EXPECT_EQ(kns::parse_draw("no-double"), kns::Draw::no_double);
  EXPECT_EQ(kns::parse_draw("router-count"), kns::Draw::router_count);
  EXPECT_THROW(kns::parse_draw("uniform"), std::invalid_argument);
  // router-count: the sets of replace (same seed, same links); in 2-D a router is drawn twice
  // exactly when both its links failed or a link was drawn twice.
  kns::Model m2(8, 2);
  std::mt19937_64 c(3), d(3);
  bool saw_repeat = false, saw_both = false, saw_clean = false;
  for (int i = 0; i < 400; i++) {
    kns::draw_link_faults(m2, 6, kns::Draw::replace, c);
    std::vector<char> rep(m2.link_bad.begin(), m2.link_bad.end());
    bool hit = false;
    kns::draw_link_faults(m2, 6, kns::Draw::router_count, d, &hit);
    ASSERT_TRUE(std::equal(rep.begin(), rep.end(), m2.link_bad.begin()));
    long links = 0;
    bool both = false;
    for (long R = 0; R < m2.K; R++) {
      links += m2.link_bad[static_cast<size_t>(2 * R)] + m2.link_bad[static_cast<size_t>(2 * R + 1)];
      both |= m2.link_bad[static_cast<size_t>(2 * R)] && m2.link_bad[static_cast<size_t>(2 * R + 1)];
    }
    EXPECT_EQ(hit, both || links < 6) << i;
    saw_repeat |= links < 6, saw_both |= both, saw_clean |= !hit;
  }
  EXPECT_TRUE(saw_repeat && saw_both && saw_clean);
  // The share of sets tolerated is then the birthday probability over the 64 routers,
  // 63*62*61*60*59 / 64^5 = 0.786, against about 0.89 for distinct links.
  const kns::FaultStats rc = kns::fault_stats(m2, 6, 2, 3000, 0, 0, 1, kns::Draw::router_count);
  const kns::FaultStats dl = kns::fault_stats(m2, 6, 2, 3000, 0, 0, 1, kns::Draw::distinct);
  EXPECT_NEAR(rc.ok / 3000.0, 0.786, 0.03);
  EXPECT_GT(rc.count_isolated, 0);
  EXPECT_GT(dl.ok / 3000.0, 0.86);
  EXPECT_THROW(kns::draw_link_faults(m, 65, kns::Draw::no_double, rng), std::invalid_argument);

  // The property the KNS row of docs/REPRODUCTION.md rests on: with 1 IN every set that is not
  // tolerated has a router with two failed links, so redrawing those sets tolerates them all,
  // while the thesis' uniform draw does not.
  const kns::FaultStats uni = kns::fault_stats(m, 4, 1, 1500, 0, 0, 1, kns::Draw::distinct);
  EXPECT_LT(uni.ok, 1500);
  EXPECT_EQ(uni.fail_two_bad, 1500 - uni.ok);
  EXPECT_EQ(uni.redrawn, 0);
  const kns::FaultStats nd = kns::fault_stats(m, 4, 1, 1500, 0, 0, 1, kns::Draw::no_double);
  EXPECT_EQ(nd.ok, 1500);
  EXPECT_GT(nd.redrawn, 0);
}
