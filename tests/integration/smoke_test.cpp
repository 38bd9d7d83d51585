// Smoke test of the harness itself: ibsim + OpenSM minhop on ibsim's own example fabric.
#include <gtest/gtest.h>

#include "harness.hpp"

using namespace ftroute::itest;

TEST(HarnessSmoke, MinhopOnIbsimExample) {
  if (auto m = missing_tools(); !m.empty()) GTEST_SKIP() << m;
  SimFabric sim("smoke_minhop");
  sim.start("/usr/share/doc/ibsim-utils/net-examples/net.2sw2path4hca");
  OpensmRun run = sim.run_opensm_once({});
  ASSERT_TRUE(run.subnet_up) << run.log;
  EXPECT_EQ(run.engine_used, "minhop");
  std::string fts = sim.dump_fts();
  EXPECT_EQ(count_occurrences(fts, "Unicast lids"), 2) << fts;
  std::string disc = sim.ibnetdiscover();
  EXPECT_NE(disc.find("Switch1"), std::string::npos) << disc;
}

// Daemon + link fault: Unlink one of the two Switch1-Switch2 links, OpenSM re-routes around it,
// ReLink brings it back.
TEST(HarnessSmoke, DaemonUnlinkRelink) {
  if (auto m = missing_tools(); !m.empty()) GTEST_SKIP() << m;
  SimFabric sim("smoke_daemon");
  sim.start("/usr/share/doc/ibsim-utils/net-examples/net.2sw2path4hca");
  sim.start_opensm_daemon({});
  EXPECT_EQ(sim.engine_used(), "minhop");
  std::string before = sim.dump_fts();
  ASSERT_NE(before.find("0x0003 003"), std::string::npos) << before;  // Switch1 -> Switch2 via 3
  int ups = sim.subnet_up_count();
  sim.unlink("Switch1", 3);
  ASSERT_TRUE(sim.wait_for_reroute()) << sim.opensm_log();
  EXPECT_GT(sim.subnet_up_count(), ups);
  std::string after = sim.dump_fts();
  // Switch1's table is the second block; no entry may use port 3 any more.
  auto s1 = after.find("(Switch1)");
  ASSERT_NE(s1, std::string::npos) << after;
  std::string s1_block = after.substr(s1, after.find("dumped", s1) - s1);
  EXPECT_EQ(s1_block.find(" 003 :"), std::string::npos) << s1_block;
  sim.relink("Switch1", 3);
  ASSERT_TRUE(sim.wait_for_reroute()) << sim.opensm_log();
  EXPECT_TRUE(sim.opensm_running());
  sim.stop();
  EXPECT_FALSE(sim.opensm_running());
}
