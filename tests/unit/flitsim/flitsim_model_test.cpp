// flitsim's BookSim router model (RouterModel::BookSim, `ftroute sim --model booksim`): the
// zero-load latency formula of docs/flitsim.md "Router models", credit_delay 0, Bernoulli
// injection in flits, self traffic, per-flit switch allocation (packets interleave on a link
// across VCs), wait_tail_credit, and that the Ib model is untouched by the new fields.
#include <gtest/gtest.h>
#include "sim_check.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <unistd.h>

#include "test_fabrics.hpp"
#include "ftroute/flitsim.hpp"
#include "ftroute/flitsim_testnets.hpp"

using namespace ftroute;
using namespace ftroute::flitsim;

using ftroute::test_fabrics::make_dumbbell;

namespace {

// one file per process: ctest runs every test case as its own process, in parallel under -j
std::string tmpfile(const std::string& name, const std::string& content) {
  std::string p = std::string(FTROUTE_BINARY_DIR) + "/flitsim_model_test_" + std::to_string(getpid()) + "_" + name;
  std::ofstream(p) << content;
  return p;
}

Config booksim() { return Config::preset("booksim"); }


// Latency of each traced packet, keyed by (src, dst).
std::map<std::pair<int, int>, int64_t> trace_latencies(const Fabric& f, const Routing& r, const Config& c,
                                                       const std::string& trace, Result* res_out = nullptr) {
  TrafficSpec t;
  t.pattern = "trace";
  t.trace_file = tmpfile("t.trace", trace);
  Simulator sim(f, r, c);
  std::map<std::pair<int, int>, int64_t> got;
  sim.on_deliver = [&](uint64_t, int s, int d, int64_t lat) { got[{s, d}] = lat; };
  Result res = sim.run(t);
  EXPECT_GE(res.min_credits, 0);
  if (res_out) *res_out = res;
  return got;
}

}  // namespace

TEST(FlitsimBookSimModel, PresetSetsBookSimDefaults) {
  Config c = booksim();
  EXPECT_EQ(c.model, RouterModel::BookSim);
  EXPECT_EQ(c.switching, Switching::Wormhole);
  EXPECT_EQ(c.allocator, Allocator::ISlip);
  EXPECT_EQ(c.islip_iterations, 1);
  EXPECT_EQ(c.routing_delay, 1);
  EXPECT_EQ(c.vc_alloc_delay, 1);
  EXPECT_EQ(c.alloc_delay, 1);
  EXPECT_EQ(c.xbar_delay, 1);
  EXPECT_EQ(c.credit_delay, 0);
  EXPECT_FALSE(c.wait_tail_credit);
  EXPECT_TRUE(c.va_per_vc);     // BookSim2's VC allocator matches VCs, not ports
  EXPECT_TRUE(c.eject_any_vc);  // and its dim_order torus ejects on any VC
  EXPECT_NO_THROW(c.validate());
  // set_model(Ib) gives back the defaults of the fields it sets
  Config d;
  c.set_model(RouterModel::Ib);
  EXPECT_EQ(c.switching, d.switching);
  EXPECT_EQ(c.credit_delay, d.credit_delay);
  EXPECT_EQ(c.allocator, d.allocator);
  EXPECT_FALSE(c.va_per_vc);
  EXPECT_FALSE(c.eject_any_vc);
}

TEST(FlitsimBookSimModel, CreditDelayZeroIsLegalOnlyInTheBookSimModel) {
  Config ib;
  ib.credit_delay = 0;
  EXPECT_THROW(ib.validate(), OptionError);
  Config bs = booksim();
  bs.credit_delay = 0;
  EXPECT_NO_THROW(bs.validate());
  bs.switching = Switching::VirtualCutThrough;
  EXPECT_THROW(bs.validate(), OptionError);  // per-flit credits only
  Config nac = booksim();
  nac.nac = true;
  EXPECT_THROW(nac.validate(), OptionError);
  Config zero = booksim();
  zero.vc_alloc_delay = 0;
  EXPECT_THROW(zero.validate(), OptionError);  // BookSim2 refuses 0-cycle allocators too

  // a loaded run with credit_delay 0 and 4-flit buffers (the credit loop limits throughput):
  // everything is delivered, credits stay in range (checked inside), nothing deadlocks
  Fabric f = make_mesh(4, 4, false);
  Routing r = route_dor(f, 4, 4, false);
  for (int cd : {0, 2}) {
    Config c = booksim();
    c.credit_delay = cd;
    c.buffer_flits = 4, c.packet_flits = 4;
    TrafficSpec t;
    t.load = 0.2;
    t.warmup = 500, t.measure = 3000;
    Simulator sim(f, r, c);
    Result res = sim.run(t);
    EXPECT_TRUE(res.flushed) << "credit_delay " << cd;
    EXPECT_FALSE(res.deadlock.detected);
    EXPECT_GE(res.min_credits, 0);
    EXPECT_NEAR(res.accepted, res.offered, 0.01) << "credit_delay " << cd;
  }
}

// docs/flitsim.md "Router models": a packet of P flits that crosses h switches, R = routing +
// vc_alloc + alloc + xbar delays, switch links of L cycles, CA links 1 cycle (BookSim2's
// injection/ejection channels) has the zero-load latency (creation to tail ejected)
//     h*R + (h-1)*L + 3 + (P - 1),
// BookSim2's 5*h + 2 + (P - 1) with its defaults on a mesh.
TEST(FlitsimBookSimModel, ZeroLoadLatencyMatchesTheFormula) {
  Fabric f = make_mesh(4, 4, false);
  Routing r = route_dor(f, 4, 4, false);
  struct Case {
    int L, RD, VA, SA, ST, P, CD;
  };
  for (Case k : {Case{1, 1, 1, 1, 1, 16, 0}, Case{2, 1, 1, 1, 1, 4, 0}, Case{1, 0, 1, 1, 1, 1, 0},
                 Case{3, 2, 2, 1, 2, 8, 3}, Case{1, 1, 1, 2, 1, 5, 1}}) {
    Config c = booksim();
    c.link_latency = k.L, c.routing_delay = k.RD, c.vc_alloc_delay = k.VA, c.alloc_delay = k.SA;
    c.xbar_delay = k.ST, c.packet_flits = k.P, c.credit_delay = k.CD;
    c.buffer_flits = 64;
    std::vector<std::pair<int, int>> pairs{{0, 15}, {15, 0}, {5, 6}, {3, 12}, {0, 1}, {9, 13}};
    std::string trace;
    for (size_t i = 0; i < pairs.size(); i++)
      trace += std::to_string(i * 1000) + " " + std::to_string(pairs[i].first) + " " +
               std::to_string(pairs[i].second) + " " + std::to_string(k.P) + "\n";
    Result res;
    auto got = trace_latencies(f, r, c, trace, &res);
    ASSERT_EQ(res.delivered, pairs.size());
    const int R = k.RD + k.VA + k.SA + k.ST;
    for (auto [s, d] : pairs) {
      int h = std::abs(s % 4 - d % 4) + std::abs(s / 4 - d / 4) + 1;  // switches crossed
      int64_t expect = h * R + (h - 1) * k.L + 3 + (k.P - 1);
      EXPECT_EQ((got[{s, d}]), expect) << "pair " << s << "->" << d << " L=" << k.L << " P=" << k.P
                                       << " R=" << R;
    }
  }
  // BookSim2's defaults on a mesh: 5h + 2 + (P - 1)
  Config c = booksim();
  c.packet_flits = 16;
  auto got = trace_latencies(f, r, c, "0 0 15 16\n");
  EXPECT_EQ((got[{0, 15}]), 5 * 7 + 2 + 15);
}

TEST(FlitsimBookSimModel, BernoulliInjectionMeanRateIsTheLoadInFlits) {
  // 4x4 mesh, uniform, well below saturation: the offered flits/endpoint/cycle of the window
  // (Bernoulli packets with p = load / packet_flits per cycle) is the load. 16 sources x 40000
  // cycles x 0.15 / 4 = 24000 packets expected: 3 sigma is 2 % of it.
  Fabric f = make_mesh(4, 4, false);
  Routing r = route_dor(f, 4, 4, false);
  for (int P : {1, 4, 16}) {
    Config c = booksim();
    c.packet_flits = P, c.buffer_flits = 32;
    TrafficSpec t;
    t.load = 0.15;
    t.self_traffic = true;
    t.warmup = 1000, t.measure = 40000;
    Simulator sim(f, r, c);
    int self = 0, all = 0;
    sim.on_deliver = [&](uint64_t, int s, int d, int64_t) { self += s == d, all++; };
    Result res = sim.run(t);
    const double tol = 3 * std::sqrt(16 * 40000 * 0.15 / P) / (16 * 40000 * 0.15 / P);
    EXPECT_NEAR(res.offered, 0.15, 0.15 * std::max(tol, 0.005)) << "P=" << P;
    EXPECT_NEAR(res.accepted, res.offered, 0.01) << "P=" << P;
    // self traffic: uniform destinations include the source (1 in 16)
    EXPECT_NEAR(static_cast<double>(self) / all, 1.0 / 16, 0.01) << "P=" << P;
  }
}

TEST(FlitsimBookSimModel, SwitchAllocationPerFlitInterleavesPacketsAcrossVcs) {
  // Endpoints 0 and 1 (on SA) send one 16-flit packet each, in the same cycle, to 2 and 3 (on
  // SB): both need the SA->SB link. With one VC the second packet waits for the first one's VC;
  // the first is not delayed. With two VCs (a 1-VL routing: both VCs are one class) the two
  // packets get one VC each and their flits interleave on the link, so the first packet's tail
  // is late by about its length while the pair finishes at the same time as before.
  Fabric f = make_dumbbell(2);
  Routing r = route_minhop(f);
  const std::string trace = "10 0 2 16\n10 1 3 16\n";
  Config one = booksim();
  one.num_vcs = 1, one.packet_flits = 16;
  auto a = trace_latencies(f, r, one, trace);
  Config two = one;
  two.num_vcs = 2;
  auto b = trace_latencies(f, r, two, trace);
  const int64_t zl = 2 * 4 + 1 * 1 + 3 + 15;  // h = 2 switches
  ASSERT_EQ(a.size(), 2u);
  ASSERT_EQ(b.size(), 2u);
  int64_t a_first = std::min(a[{0, 2}], a[{1, 3}]), a_last = std::max(a[{0, 2}], a[{1, 3}]);
  int64_t b_first = std::min(b[{0, 2}], b[{1, 3}]), b_last = std::max(b[{0, 2}], b[{1, 3}]);
  EXPECT_EQ(a_first, zl);               // 1 VC: no interleaving, the winner is not delayed
  EXPECT_GE(a_last, zl + 16);           // the other one follows the whole packet
  EXPECT_GE(b_first, zl + 12);          // 2 VCs: flit by flit, both tails are late
  EXPECT_LE(b_last - b_first, 2);       // and arrive together
  // the Ib model never interleaves, even with 2 VCs (VC = SL2VL = VL0 for both, one at a time)
  Config ib;
  ib.switching = Switching::Wormhole, ib.num_vcs = 2, ib.packet_flits = 16;
  auto c = trace_latencies(f, r, ib, trace);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_GE(std::max(c[{0, 2}], c[{1, 3}]) - std::min(c[{0, 2}], c[{1, 3}]), 16);
}

TEST(FlitsimBookSimModel, WaitTailCreditHoldsTheVcUntilTheBufferIsEmpty) {
  // Same pair of packets, 1 VC, 16-flit buffers, credit_delay 20: without wait_tail_credit the
  // second packet's head follows the first one's tail into the downstream VC; with it, the VC
  // is free again only when the first packet's last credit is back (about 20 cycles later).
  Fabric f = make_dumbbell(2);
  Routing r = route_minhop(f);
  const std::string trace = "10 0 2 16\n10 1 3 16\n";
  Config c = booksim();
  c.num_vcs = 1, c.packet_flits = 16, c.buffer_flits = 64, c.credit_delay = 20;
  auto a = trace_latencies(f, r, c, trace);
  c.wait_tail_credit = true;
  auto b = trace_latencies(f, r, c, trace);
  int64_t a_last = std::max(a[{0, 2}], a[{1, 3}]), b_last = std::max(b[{0, 2}], b[{1, 3}]);
  EXPECT_EQ(std::min(a[{0, 2}], a[{1, 3}]), std::min(b[{0, 2}], b[{1, 3}]));
  EXPECT_GE(b_last, a_last + 20);
}

TEST(FlitsimBookSimModel, TornadoOnRingVcAllocationMatchesBookSim2) {
  // 6-ring, dateline routing on 2 VLs, tornado (+2 hops): every +x link carries 2 flows, so
  // accepted <= 1/2 flit/node/cycle. 1-flit packets: per-flit switch allocation wastes no link
  // cycle, but an input VC carries a packet only every routing + VA + SA = 3 cycles (the next
  // head is routed after the tail left, BookSim2's iq_router without speculation), so the VC
  // allocator is the bottleneck. BookSim2 28f43299 on this configuration (topology = torus; k = 6;
  // n = 1; dim_order; use_noc_latency = 0; vc_buf_size = 16; packet_size = 1; tornado; 0.8
  // flits/node/cycle; 3 x 3000 cycles): accepted 0.125 with 2 VCs, 0.3197 with 8 VCs.
  // va_per_vc (BookSim2's allocator, iSLIP over VCs, 1 iteration: a head requests every free VC
  // of its class, several output VCs grant the same head and it accepts one) gives the same; the
  // per-port allocator (one grant per output port per cycle, any free VC) reaches the link bound
  // with 8 VCs (4 per dateline class hide the pipeline).
  Fabric f = make_mesh(6, 1, true);
  Routing r = route_dor(f, 6, 1, true);
  TrafficSpec t;
  t.pattern = "tornado";
  t.load = 0.8;
  t.warmup = 3000, t.measure = 20000, t.max_drain = 0, t.flush = false;
  std::map<std::pair<int, bool>, double> acc;
  for (int vcs : {2, 8})
    for (bool per_vc : {true, false}) {
      Config c = booksim();
      c.num_vcs = vcs;
      c.packet_flits = 1, c.buffer_flits = 16;
      c.va_per_vc = per_vc;
      Simulator sim(f, r, c);
      Result res = sim.run(t);
      acc[{vcs, per_vc}] = res.accepted;
      std::printf("booksim model, ring6 tornado @0.8, 1-flit packets, %d VCs, VA per %s: accepted %.4f (bound 0.5)\n",
                  vcs, per_vc ? "VC" : "port", res.accepted);
      EXPECT_LE(res.accepted, 0.5 + 0.003);
      EXPECT_FALSE(res.deadlock.detected);
      EXPECT_GE(res.min_credits, 0);
    }
  // 2 VCs (one per dateline class): the -x input of a switch takes two flows (one ejecting there,
  // one passing on) that share its VC, which serves a packet only every 3 cycles: 2 x <= 1/3, and
  // head-of-line blocking behind the passing packet keeps it below that
  EXPECT_NEAR((acc[{2, true}]), 0.125, 0.006);
  EXPECT_LT((acc[{2, false}]), 1.0 / 6 + 0.003);
  EXPECT_NEAR((acc[{8, true}]), 0.3197, 0.015);
  EXPECT_GE((acc[{8, false}]), 0.5 - 0.003);
}

// ---- BookSim2's VC allocation and torus routing details (docs/flitsim.md "Remaining
// differences and the experiments that isolate them") ----

TEST(FlitsimBookSimModel, TorusTiesFollowTheLidOffsetWithTiesByLmc) {
  // 8-ring, LMC 1: destination 4 hops away is a tie. Default: + for every LID. ties_by_lmc: the
  // base LID goes +, base + 1 goes - (and then crosses the dateline: SL bit 0); a non-tie
  // destination goes the short way for both LIDs.
  Fabric f = make_mesh(8, 1, true);
  f.assign_lids(1);
  const int s0 = *f.find("S0_0");
  const Lid h4 = f.node(*f.find("H4_0")).port(1).base_lid, h2 = f.node(*f.find("H2_0")).port(1).base_lid;
  const Lid h0 = f.node(*f.find("H0_0")).port(1).base_lid;
  Routing plus = route_dor(f, 8, 1, true);
  EXPECT_EQ(plus.lfts.get(s0, h4), 2);
  EXPECT_EQ(plus.lfts.get(s0, static_cast<Lid>(h4 + 1)), 2);
  Routing lmc = route_dor(f, 8, 1, true, false, true);
  EXPECT_EQ(lmc.lfts.get(s0, h4), 2);                       // +x
  EXPECT_EQ(lmc.lfts.get(s0, static_cast<Lid>(h4 + 1)), 3);  // -x
  EXPECT_EQ(lmc.lfts.get(s0, h2), 2);
  EXPECT_EQ(lmc.lfts.get(s0, static_cast<Lid>(h2 + 1)), 2);
  EXPECT_EQ(lmc.sl(h0, h4), 0);                            // 0 -> 4 going + does not wrap
  EXPECT_EQ(lmc.sl(h0, static_cast<Lid>(h4 + 1)), 1);      // 0 -> 4 going - wraps 0 -> 7
  // the whole path of the - LID goes -: S7, S6, S5 forward it on -x
  for (const char* sw : {"S7_0", "S6_0", "S5_0"})
    EXPECT_EQ(lmc.lfts.get(*f.find(sw), static_cast<Lid>(h4 + 1)), 3) << sw;
  // 2-D, LMC 2: bit 0 picks the x direction of a tie, bit 1 the y direction
  Fabric t = make_mesh(4, 4, true);
  t.assign_lids(2);
  Routing r = route_dor(t, 4, 4, true, false, true);
  const Lid d = t.node(*t.find("H2_2")).port(1).base_lid;
  const int a = *t.find("S0_0"), b = *t.find("S2_0");
  EXPECT_EQ(r.lfts.get(a, d), 2);
  EXPECT_EQ(r.lfts.get(a, static_cast<Lid>(d + 1)), 3);
  EXPECT_EQ(r.lfts.get(a, static_cast<Lid>(d + 2)), 2);
  EXPECT_EQ(r.lfts.get(b, d), 4);
  EXPECT_EQ(r.lfts.get(b, static_cast<Lid>(d + 2)), 5);
  EXPECT_EQ(r.lfts.get(b, static_cast<Lid>(d + 3)), 5);
}

TEST(FlitsimBookSimModel, RandomTiesSpreadTieTrafficOverBothDirections) {
  // 8-ring, every source sends to the node 4 hops away (tornado with shift 4 = all ties):
  // ties + put all of it on the + links (accepted <= 1/4: four flows per + link); a LID at random
  // per packet with ties by LMC uses both directions (<= 1/2), as BookSim2's random tie-breaking.
  Fabric f = make_mesh(8, 1, true);
  f.assign_lids(1);
  TrafficSpec t;
  t.pattern = "trace";
  std::string trace;
  for (int c = 0; c < 3000; c += 2)
    for (int s = 0; s < 8; s++) trace += std::to_string(c) + " " + std::to_string(s) + " " + std::to_string((s + 4) % 8) + " 1\n";
  t.trace_file = tmpfile("ties.trace", trace);
  double cycles[2];
  for (int i = 0; i < 2; i++) {
    Routing r = route_dor(f, 8, 1, true, false, i == 1);
    Config c = booksim();
    c.num_vcs = 8, c.packet_flits = 1, c.buffer_flits = 16;
    c.lid_policy = LidPolicy::Random;
    Simulator sim(f, r, c);
    Result res = sim.run(t);
    EXPECT_EQ(res.delivered, 1500u * 8);
    cycles[i] = static_cast<double>(res.cycles);
  }
  // 12000 one-flit packets of 4 hops: + links only: 6000 flits per link -> >= 6000 cycles;
  // both directions: >= 3000 (the trace itself spans 3000 cycles)
  EXPECT_GE(cycles[0], 6000);
  EXPECT_LT(cycles[1], 0.7 * cycles[0]);
}

TEST(FlitsimBookSimModel, EjectAnyVcLetsTwoPacketsInterleaveIntoTheirCa) {
  // 4-ring, 2 VCs = one per dateline class; H0 -> H1 (+x) and H2 -> H1 (-x), 16 flits each, in
  // the same cycle: both reach S1 together and want its CA port. Its SL2VL class is VL0 = VC 0
  // only, so the second packet waits for the first one's tail; with eject_any_vc (BookSim2's
  // dim_order at the destination router) it takes VC 1 and the two interleave.
  Fabric f = make_mesh(4, 1, true);
  Routing r = route_dor(f, 4, 1, true);
  const std::string trace = "10 0 1 16\n10 2 1 16\n";
  Config c = booksim();
  c.num_vcs = 2, c.packet_flits = 16, c.buffer_flits = 64, c.link_latency = 2;
  c.eject_any_vc = false;
  auto a = trace_latencies(f, r, c, trace);
  c.eject_any_vc = true;
  auto b = trace_latencies(f, r, c, trace);
  ASSERT_EQ(a.size(), 2u);
  ASSERT_EQ(b.size(), 2u);
  const int64_t zl = 2 * 4 + 1 * 2 + 3 + 15;  // 2 switches, one 2-cycle link between them
  int64_t a_first = std::min(a[{0, 1}], a[{2, 1}]), a_last = std::max(a[{0, 1}], a[{2, 1}]);
  int64_t b_first = std::min(b[{0, 1}], b[{2, 1}]), b_last = std::max(b[{0, 1}], b[{2, 1}]);
  EXPECT_EQ(a_first, zl);
  EXPECT_GE(a_last, zl + 16);
  EXPECT_GE(b_first, zl + 12);
  EXPECT_LE(b_last - b_first, 2);
}

TEST(FlitsimBookSimModel, VaPerVcIsThePerPortAllocatorWithOneVcAndSafeWithMore) {
  // With one VC per port, matching input VCs to output VCs is matching ports: identical runs.
  // With more VCs it may grant several VCs of a port per cycle (never one VC twice: grant()
  // checks) and must deliver the same traffic without deadlock.
  Fabric f = make_mesh(4, 4, false);
  Routing r = route_dor(f, 4, 4, false);
  TrafficSpec t;
  t.load = 0.35;
  t.warmup = 1000, t.measure = 4000;
  for (int vcs : {1, 3}) {
    Result res[2];
    for (int i = 0; i < 2; i++) {
      Config c = booksim();
      c.num_vcs = vcs, c.packet_flits = 4, c.buffer_flits = 8;
      c.va_per_vc = i == 1;
      Simulator sim(f, r, c);
      res[i] = sim.run(t);
      EXPECT_FALSE(res[i].deadlock.detected);
      EXPECT_GE(res[i].min_credits, 0);
    }
    if (vcs == 1) {
      EXPECT_EQ(res[0].delivered, res[1].delivered);
      EXPECT_EQ(res[0].avg_latency, res[1].avg_latency);
    } else {
      EXPECT_NEAR(res[1].accepted, res[0].accepted, 0.02);
    }
  }
}

TEST(FlitsimBookSimModel, TreeUpPortsFollowTheLidOffsetWithUpsByLmc) {
  // 4-ary 2-tree, LMC 2: host 0 to host 5 goes up from leaf 0. D-mod-k: the up port is digit 0 of
  // the destination (5 % 4 = 1: port 4 + 1 + 1) for every LID; ups_by_lmc: digit 0 of the LID
  // offset, so the 4 LIDs of host 5 use the 4 up ports. Traffic within a leaf never goes up.
  Fabric f = make_kary_ntree(4, 2);
  f.assign_lids(2);
  const int leaf0 = *f.find("S0_0");
  const Lid h5 = f.node(*f.find("H5")).port(1).base_lid, h1 = f.node(*f.find("H1")).port(1).base_lid;
  Routing d = route_ntree(f, 4, 2);
  Routing r = route_ntree(f, 4, 2, true);
  for (int o = 0; o < 4; o++) {
    EXPECT_EQ(d.lfts.get(leaf0, static_cast<Lid>(h5 + o)), 4 + 1 + 1) << o;
    EXPECT_EQ(r.lfts.get(leaf0, static_cast<Lid>(h5 + o)), 4 + 1 + o) << o;
    EXPECT_EQ(r.lfts.get(leaf0, static_cast<Lid>(h1 + o)), 2) << o;  // host 1 is on leaf 0, port 2
  }
  EXPECT_TRUE(sim_check(f, r, false).ok());
}
