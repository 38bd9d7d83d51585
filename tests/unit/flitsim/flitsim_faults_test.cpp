// flitsim: more fault / deadlock / VL cases (see flitsim_test.cpp for the main properties).
#include <gtest/gtest.h>

#include "ftroute/flitsim.hpp"
#include "ftroute/flitsim_testnets.hpp"

using namespace ftroute;
using namespace ftroute::flitsim;

TEST(FlitsimWormhole, OneVlTorusDeadlockIsReportedAsAChannelCycle) {
  // minimal routing on a 4x4 torus with one VL has cyclic channel dependencies; with tiny
  // wormhole buffers and heavy load it locks up, and the report must show a closed cycle.
  Fabric f = make_mesh(4, 4, true);
  Routing r = route_minhop(f);
  Config c;
  c.switching = Switching::Wormhole;
  c.packet_flits = 16, c.buffer_flits = 2;
  c.deadlock_timeout = 500;
  TrafficSpec t;
  t.pattern = "uniform";
  t.load = 0.9, t.warmup = 0, t.measure = 20000;
  Simulator sim(f, r, c);
  Result res = sim.run(t);
  ASSERT_TRUE(res.deadlock.detected) << format_result(res);
  ASSERT_GE(res.deadlock.cycle_channels.size(), 2u) << res.deadlock.text;
  // Each channel waits for the next one: either the downstream buffer it needs ("A"->"B" then
  // "B"->...) or, at the same switch, the input whose packet owns the output VC it wants
  // ("A"->"B" then "C"->"B"). The cycle must close and contain at least one downstream edge.
  const auto& cc = res.deadlock.cycle_channels;
  auto to = [](const std::string& x) {
    std::string t = x.substr(x.find("->") + 2);
    return t.substr(0, t.find('['));
  };
  auto from = [](const std::string& x) { return x.substr(0, x.find('[')); };
  int downstream = 0;
  for (size_t i = 0; i < cc.size(); i++) {
    const std::string& a = cc[i];
    const std::string& b = cc[(i + 1) % cc.size()];
    bool down = to(a) == from(b), owner = to(a) == to(b);
    EXPECT_TRUE(down || owner) << a << " then " << b << "\n" << res.deadlock.text;
    downstream += down;
  }
  EXPECT_GT(downstream, 0);
  EXPECT_EQ(res.generated, res.delivered + res.dropped + res.in_network + res.in_source);
  EXPECT_GE(res.min_credits, 0);
}

TEST(FlitsimVl, PacketsOnAMissingVlAreDroppedWithAReason) {
  Fabric f = make_mesh(4, 4, true);
  Routing r = route_dor(f, 4, 4, true);  // needs 2 VLs
  Config c;
  c.num_vcs = 1;
  TrafficSpec t;
  t.load = 0.1, t.warmup = 0, t.measure = 2000;
  Simulator sim(f, r, c);
  Result res = sim.run(t);
  EXPECT_GT(res.drops["VL out of range"], 0u);
  EXPECT_TRUE(res.flushed);
  EXPECT_EQ(res.generated, res.delivered + res.dropped);
}

TEST(FlitsimFaults, HeldPacketsTakeNewLftsAfterAReroute) {
  // Hold policy: packets queue at a dead link; new LFTs at a later cycle route them around it.
  Fabric f = make_mesh(4, 4, false);
  Routing r = route_dor(f, 4, 4, false);
  int s = *f.find("S1_1");
  Fabric g = f;
  g.disconnect(s, 2);
  Routing r2 = route_minhop(g);
  Config c;
  c.fault_policy = FaultPolicy::Hold;
  TrafficSpec t;
  t.load = 0.15, t.warmup = 0, t.measure = 5000;
  Simulator sim(f, r, c);
  sim.schedule_link(1000, s, 2, false);
  sim.schedule_routing(1300, &r2);
  Result res = sim.run(t);
  EXPECT_TRUE(res.flushed) << format_result(res);
  EXPECT_FALSE(res.deadlock.detected) << res.deadlock.text;
  // only a packet caught on the link itself is lost; held heads wait and take the new LFTs
  EXPECT_EQ(res.dropped, res.drops["link failed while the packet crossed it"]);
  EXPECT_LE(res.dropped, 1u);
  EXPECT_EQ(res.delivered + res.dropped, res.generated);
}

TEST(FlitsimFaults, SourceLinkDownDropsItsQueue) {
  Fabric f = make_mesh(2, 2, false);
  Routing r = route_dor(f, 2, 2, false);
  int h = *f.find("H0_0");
  Config c;
  TrafficSpec t;
  t.load = 0.2, t.warmup = 0, t.measure = 3000;
  Simulator sim(f, r, c);
  sim.schedule_link(100, h, 1, false);
  Result res = sim.run(t);
  EXPECT_GT(res.drops["source link down"], 0u);
  EXPECT_TRUE(res.flushed);
  EXPECT_EQ(res.generated, res.delivered + res.dropped);
  EXPECT_THROW(sim.schedule_link(5, h, 7, false), FabricError);
}
