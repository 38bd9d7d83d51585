// The ftdrb engine inside a real OpenSM 3.3.23 (libftroute.so) on real ibsim fabrics:
//  * with `lmc 2` every one of an HCA's 4 LIDs is routed, the LFTs read back from the simulated
//    switches equal what the engine computes offline for the discovered fabric, and the
//    alternative LIDs leave a leaf through different uplinks (multipath through intermediates);
//  * after a link fault the plugin hands the previous routing to the engine: the dead link is
//    unused, every LID is still reachable, and the result equals the offline "previous routing +
//    fault" computation (trees that did not use the link are kept; the log says how many).
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "fabric_check.hpp"
#include "ftdrb/ftdrb.hpp"
#include "harness.hpp"
#include "plugin_itest.hpp"
#include "nets.hpp"

using namespace ftroute;
using namespace ftroute::itest;

namespace {

OpensmConfig ftdrb_cfg() { return plugin_config("ftdrb", "", {"lmc 2"}); }


}  // namespace

TEST(FtdrbPlugin, FatTreeLmc2MultipathMatchesOffline) {
  REQUIRE_PLUGIN();
  SimFabric sim("ftdrb_ft");
  sim.start_text(kary_ntree_net(4, 2));  // 8 switches, 16 HCAs
  OpensmRun run = sim.run_opensm_once(ftdrb_cfg());
  ASSERT_TRUE(run.subnet_up) << run.log;
  EXPECT_EQ(run.engine_used, "ftdrb") << "fell back; log in " << run.dir;
  EXPECT_NE(run.log.find("ftroute: ftdrb: "), std::string::npos) << run.log;

  Fabric f = fabric_from_ibnetdiscover(sim.ibnetdiscover());
  Lfts live = lfts_from_dump_fts(f, sim.dump_fts());
  RoutingCheck chk = check_routing(f, live);
  EXPECT_TRUE(chk.ok()) << chk.summary();  // up*/down* only: acyclic on one VL
  Routing off = FtDrbEngine().route(f);
  EXPECT_EQ(off.num_vls, 1);
  std::string first;
  EXPECT_EQ(lft_differences(f, live, off.lfts, &first), 0) << first;

  int leaf = *find_node(f, kary_ntree_switch(4, 2, 0, 0));
  int remote = 0;
  for (const EndPort& e : f.end_ports()) {
    if (f.node(e.node).is_switch() || f.attach(e.base_lid).sw == leaf) continue;
    ASSERT_EQ(e.lmc, 2);
    std::set<int> ports;
    for (uint32_t lid = e.base_lid; lid <= e.last_lid(); lid++) ports.insert(live.get(leaf, static_cast<Lid>(lid)));
    EXPECT_GE(ports.size(), 3u) << "LIDs of " << f.node(e.node).desc << " share uplinks";
    remote++;
  }
  EXPECT_EQ(remote, 12);
}

TEST(FtdrbPlugin, LinkFaultKeepsIntactTreesAndMatchesOffline) {
  REQUIRE_PLUGIN();
  SimFabric sim("ftdrb_fault");
  sim.start_text(torus2d_net(4, 4, 1));
  sim.start_opensm_daemon(ftdrb_cfg());
  ASSERT_EQ(sim.engine_used(), "ftdrb") << sim.opensm_log();
  Fabric f0 = fabric_from_ibnetdiscover(sim.ibnetdiscover());
  Lfts live0 = lfts_from_dump_fts(f0, sim.dump_fts());
  Routing off0 = FtDrbEngine().route(f0);
  std::string first;
  ASSERT_EQ(lft_differences(f0, live0, off0.lfts, &first), 0) << first;

  const std::string sw = "T1_1";
  int s0 = *find_node(f0, sw);
  ASSERT_GT(entries_using_port(live0, s0, 2), 0);  // +x link in use
  sim.unlink(sw, 2);
  ASSERT_TRUE(sim.wait_for_reroute()) << sim.opensm_log();
  EXPECT_EQ(sim.engine_used(), "ftdrb") << sim.opensm_log();
  EXPECT_NE(sim.opensm_log().find("LID trees from the previous routing"), std::string::npos) << sim.opensm_log();

  Fabric f1 = fabric_from_ibnetdiscover(sim.ibnetdiscover());
  Lfts live1 = lfts_from_dump_fts(f1, sim.dump_fts());
  RoutingCheck chk = check_routing(f1, live1);
  EXPECT_TRUE(chk.all_delivered()) << chk.summary();
  EXPECT_EQ(chk.looping, 0u) << chk.summary();
  int s1 = *find_node(f1, sw);
  EXPECT_EQ(entries_using_port(live1, s1, 2), 0) << "dead link still used";
  Routing off1 = FtDrbEngine().route(f1, {}, PreviousRouting{&f0, &off0});
  EXPECT_EQ(lft_differences(f1, live1, off1.lfts, &first), 0) << first;
  // most trees survive a single link fault unchanged
  int kept = 0, total = 0;
  for (const EndPort& e : f1.end_ports())
    for (uint32_t lid = e.base_lid; lid <= e.last_lid(); lid++) {
      bool same = true;
      for (int s : f1.switches()) {
        int s_before = *find_node(f0, f1.node(s).desc);
        same = same && live0.get(s_before, static_cast<Lid>(lid)) == live1.get(s, static_cast<Lid>(lid));
      }
      kept += same;
      total++;
    }
  EXPECT_GT(kept, total / 2) << kept << " of " << total << " LID trees unchanged";
  EXPECT_LT(kept, total);
}
