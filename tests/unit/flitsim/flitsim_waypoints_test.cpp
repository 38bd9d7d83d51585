// Waypoints (flitsim.hpp, docs/flitsim.md "Waypoints"): source routes through intermediate
// switches, here the KNS thesis' per-pair intermediate routers (kns_thesis_waypoints) replayed
// over the fault-free Hybrid-DOR tables of a faulty KNS; and the waypoint file format.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "ftroute/flitsim.hpp"
#include "ftroute/input_file.hpp"
#include "ftroute/kns_topology.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/kns/waypoints.hpp"
#include "kns/kns.hpp"

using namespace ftroute;
using namespace ftroute::flitsim;

namespace {

// 4-ary 2-direct KNS, one host per router, routed by kns without faults; `faulty` is the same
// fabric (same LIDs) with the thesis' 2-D worst case failed: router 0's dimension-0 link and
// router 2's dimension-1 link (same row), which some pairs pass only with two INs.
struct KnsCase {
  Fabric healthy, faulty;
  Routing dor;
};
KnsCase kns_case() {
  KnsParams q;
  q.k = 4, q.n = 2, q.p = 1;
  KnsCase c;
  c.healthy = make_kns(q);
  c.dor = make_engine("kns")->route(c.healthy);
  c.faulty = c.healthy;
  const KnsShape sh = recognize_kns(c.healthy);
  c.faulty.disconnect(sh.router_node[0], 1);
  c.faulty.disconnect(sh.router_node[2], 2);
  return c;
}

std::vector<Waypoints> thesis_table(const Fabric& f, long* two = nullptr) {
  const KnsWaypointTable t = kns_thesis_waypoints(f, 2, kns::InTies::First, 1);
  if (two) *two = t.with_two;
  std::string text = "# written by format_waypoints\n";
  for (const KnsWaypoints& w : t.pairs) text += format_waypoints(f, w.src, w.dst, w.via);
  return parse_waypoints(f, text, "thesis.txt");
}

TrafficSpec light() {
  TrafficSpec t;
  t.load = 0.05, t.warmup = 200, t.measure = 3000;
  return t;
}

}  // namespace

TEST(FlitsimWaypoints, ThesisInsDeliverOverTheFaultFreeDorTables) {
  KnsCase c = kns_case();
  long two = 0;
  const std::vector<Waypoints> w = thesis_table(c.faulty, &two);
  ASSERT_GT(w.size(), 0u);
  ASSERT_GT(two, 0);  // the case needs pairs with two INs
  Config cfg;
  cfg.num_vcs = 3;  // a VC per leg: S -> I1 -> I2 -> D
  // The DOR tables alone send some packets into the failed links.
  Simulator bare(c.faulty, c.dor, cfg);
  Result rb = bare.run(light());
  EXPECT_GT(rb.dropped, 0u);
  EXPECT_EQ(rb.drops["LFT port missing or unlinked"], rb.dropped);
  // With the thesis' source tables every packet arrives, and the ones with waypoints take longer
  // paths (their legs restart the dimension order).
  Simulator sim(c.faulty, c.dor, cfg);
  sim.set_waypoints(w);
  std::set<std::pair<int, int>> routed;
  for (const Waypoints& x : w) routed.insert({x.src, x.dst});
  long via_delivered = 0;
  sim.on_deliver = [&](uint64_t, int s, int d, int64_t) { via_delivered += routed.count({s, d}); };
  Result r = sim.run(light());
  EXPECT_EQ(r.dropped, 0u);
  EXPECT_EQ(r.delivered, r.generated);
  EXPECT_TRUE(r.flushed);
  EXPECT_GT(via_delivered, 0);
  EXPECT_GT(r.avg_hops, rb.avg_hops);
  // Two INs need three VCs.
  cfg.num_vcs = 2;
  Simulator few(c.faulty, c.dor, cfg);
  EXPECT_THROW(few.set_waypoints(w), OptionError);
}

TEST(FlitsimWaypoints, EachWaypointRaisesTheSl) {
  // SL 2 (a packet past its second waypoint) maps to VL 7, beyond the 3 VCs: exactly the packets
  // of the two-IN pairs are dropped "VL out of range", every other one arrives.
  KnsCase c = kns_case();
  const std::vector<Waypoints> w = thesis_table(c.faulty);
  std::set<std::pair<int, int>> two_in;
  for (const Waypoints& x : w)
    if (x.via.size() == 2) two_in.insert({x.src, x.dst});
  ASSERT_FALSE(two_in.empty());
  Routing r = c.dor;
  Sl2Vl::Table t = Sl2Vl::identity();
  t[2] = 7;
  r.sl2vl.set_all(c.faulty, t);
  Config cfg;
  cfg.num_vcs = 3;
  Simulator sim(c.faulty, r, cfg);
  sim.set_waypoints(w);
  long delivered_two = 0;
  sim.on_deliver = [&](uint64_t, int s, int d, int64_t) { delivered_two += two_in.count({s, d}); };
  Result res = sim.run(light());
  EXPECT_EQ(delivered_two, 0);
  EXPECT_GT(res.dropped, 0u);
  EXPECT_EQ(res.drops["VL out of range"], res.dropped);
  EXPECT_EQ(res.delivered + res.dropped, res.generated);
}

TEST(FlitsimWaypoints, FileErrorsNameTheLine) {
  KnsCase c = kns_case();
  const Fabric& f = c.faulty;
  auto error_of = [&](const std::string& text) -> std::string {
    try {
      parse_waypoints(f, text, "w.txt");
    } catch (const ParseError& e) {
      return e.what();
    }
    return "no error";
  };
  const std::string ok = "\"H_0_0_0\" \"H_2_0_0\" \"R_0_3\"\n";
  EXPECT_EQ(parse_waypoints(f, "# comment\n\n" + ok, "w.txt").size(), 1u);
  EXPECT_NE(error_of(ok + "\"H_0_0_0\" \"nope\" \"R_0_3\"\n").find("w.txt:2"), std::string::npos);
  EXPECT_NE(error_of(ok + "\"H_0_0_0\" \"nope\" \"R_0_3\"\n").find("no node \"nope\""), std::string::npos);
  EXPECT_NE(error_of(ok + ok).find("given twice"), std::string::npos);
  EXPECT_NE(error_of("\"R_0_3\" \"H_2_0_0\" \"R_0_0\"\n").find("not a CA or router"), std::string::npos);
  EXPECT_NE(error_of("\"H_0_0_0\" \"H_2_0_0\" \"H_1_0_0\"\n").find("not a switch with a LID"), std::string::npos);
  EXPECT_NE(error_of("\"H_0_0_0\" \"H_2_0_0\"\n").find("at least one"), std::string::npos);
  EXPECT_NE(error_of("\"H_0_0_0\" \"H_2_0_0\" \"R_0_3\n").find("no closing"), std::string::npos);
  EXPECT_NE(error_of("H_0_0_0 H_2_0_0 R_0_3\n").find("expected a quoted node name"), std::string::npos);
  // hostile names: quotes, backslashes and control characters round-trip through the escapes
  Fabric g;
  const std::string evil = "H\"0\\\x1b[31m", evil_sw = "S \"#1\"";
  const int sw = g.add_node(NodeType::Switch, evil_sw, 4), h0 = g.add_node(NodeType::Ca, evil, 1),
            h1 = g.add_node(NodeType::Ca, "H1", 1);
  g.connect(sw, 1, h0, 1);
  g.connect(sw, 2, h1, 1);
  g.assign_lids();
  const std::string line = format_waypoints(g, h0, h1, {sw});
  EXPECT_EQ(line.find('\x1b'), std::string::npos) << line;
  auto back = parse_waypoints(g, line, "w.txt");
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(g.node(endpoints_of(g)[static_cast<size_t>(back[0].src)].node).id, evil);
  EXPECT_EQ(back[0].via, std::vector<Lid>{g.node(sw).port(0).base_lid});
}

TEST(FlitsimWaypoints, SlSpreadUsesTheVcsTheLegsLeaveFree) {
  // Config::sl_spread: a packet adds a random 0..N-1-w to its SL (w = its waypoints). Without
  // faults the traffic then shares 3 VCs instead of VC 0 alone: less head-of-line blocking, more
  // accepted at saturation. With the thesis' waypoints every packet still arrives: a two-IN
  // packet keeps SL 0 and ends on VL 2 (were the legs ignored, SLs 3-4 would be dropped "VL out
  // of range").
  KnsCase c = kns_case();
  c.dor.path_sl = nullptr;  // the LFTs alone, as `sim --lfts` reads them (the spread picks the SLs)
  Config cfg;
  cfg.num_vcs = 3;
  TrafficSpec sat = light();
  sat.load = 1.0;
  Simulator one(c.healthy, c.dor, cfg);
  const Result r1 = one.run(sat);
  cfg.sl_spread = 3;
  Simulator spread(c.healthy, c.dor, cfg);
  const Result r3 = spread.run(sat);
  EXPECT_EQ(r3.dropped, 0u);
  EXPECT_GT(r3.accepted, r1.accepted * 1.05) << r1.accepted << " -> " << r3.accepted;
  Simulator sim(c.faulty, c.dor, cfg);
  sim.set_waypoints(thesis_table(c.faulty));
  const Result rw = sim.run(sat);
  EXPECT_EQ(rw.dropped, 0u) << (rw.drops.empty() ? "" : rw.drops.begin()->first);
  EXPECT_GT(rw.delivered, 0u);
  // Refused: more spread than VCs, SL2VL tables, escape paths.
  cfg.sl_spread = 4;
  EXPECT_THROW(Simulator(c.healthy, c.dor, cfg), OptionError);
  cfg.sl_spread = 2;
  Routing r = c.dor;
  r.sl2vl.set_all(c.healthy, Sl2Vl::identity());
  EXPECT_THROW(Simulator(c.healthy, r, cfg), OptionError);
  Routing with_sls = c.dor;  // path SLs: SL 1 + a spread of 1 would run on VL 2 of 2
  with_sls.path_sl = [](Lid, Lid) -> uint8_t { return 1; };
  EXPECT_THROW(Simulator(c.healthy, with_sls, cfg), OptionError);
  cfg.fault_policy = FaultPolicy::Escape;
  EXPECT_THROW(Simulator(c.healthy, c.dor, cfg), OptionError);
}

TEST(FlitsimWaypoints, SlSpreadLeavesTheTrafficAsItIs) {
  // The spread's draws come from a stream of their own: the same seed gives the same packets
  // (sources and destinations) with and without it, and with or without
  // waypoints (which change how many SLs a packet may draw), so a comparison of two runs
  // compares the routing, not two traffics.
  KnsCase c = kns_case();
  c.dor.path_sl = nullptr;
  Config cfg;
  cfg.num_vcs = 3;
  auto packets = [&](const Fabric& f, int spread, bool waypoints) {
    cfg.sl_spread = spread;
    Simulator sim(f, c.dor, cfg);
    if (waypoints) sim.set_waypoints(thesis_table(f));
    std::vector<std::pair<int, int>> got;
    sim.on_deliver = [&](uint64_t, int s, int d, int64_t) { got.emplace_back(s, d); };
    const Result r = sim.run(light());
    EXPECT_EQ(r.dropped, 0u);
    std::sort(got.begin(), got.end());
    return std::make_pair(got, r.generated);
  };
  const auto base = packets(c.healthy, 1, false);
  ASSERT_GT(base.first.size(), 100u);
  EXPECT_EQ(packets(c.healthy, 3, false), base) << "the spread changed the traffic";
  EXPECT_EQ(packets(c.faulty, 3, true), packets(c.faulty, 1, true)) << "the spread changed the traffic with waypoints";
  EXPECT_EQ(packets(c.faulty, 3, true).first, base.first) << "waypoints changed the traffic";
}
