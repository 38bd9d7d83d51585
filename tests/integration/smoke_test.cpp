// Smoke test of the harness itself: ibsim + OpenSM minhop on ibsim's own example fabric.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

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

namespace {
// PIDs of live (non-zombie) processes whose environment holds exactly `kv` (e.g. the unique
// IBSIM_SOCKNAME of one SimFabric).
std::vector<int> pids_with_env(const std::string& kv) {
  std::vector<int> pids;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    std::string n = e.path().filename();
    if (n.empty() || !std::isdigit(static_cast<unsigned char>(n[0]))) continue;
    std::string env = read_file(e.path().string() + "/environ");
    size_t pos = 0;
    while (pos < env.size()) {
      size_t end = env.find('\0', pos);
      if (end == std::string::npos) end = env.size();
      if (env.compare(pos, end - pos, kv) == 0) {
        pids.push_back(std::stoi(n));
        break;
      }
      pos = end + 1;
    }
  }
  return pids;
}
}  // namespace

// The test process dies without running any destructor (as when ctest kills it on TIMEOUT):
// ibsim and OpenSM must die with it (PR_SET_PDEATHSIG through timeout(1)).
TEST(HarnessSmoke, NothingSurvivesAKilledTestProcess) {
  if (auto m = missing_tools(); !m.empty()) GTEST_SKIP() << m;
  int to_parent[2], to_child[2];
  ASSERT_EQ(pipe(to_parent), 0);
  ASSERT_EQ(pipe(to_child), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(to_parent[0]);
    close(to_child[1]);
    std::string sock;
    try {
      auto* sim = new SimFabric("orphan");  // leaked on purpose: no destructor runs
      sim->start("/usr/share/doc/ibsim-utils/net-examples/net.2sw2path4hca");
      sim->start_opensm_daemon({});
      sock = sim->sockname();
    } catch (...) {
    }
    sock += "\n";
    if (write(to_parent[1], sock.data(), sock.size()) < 0) _exit(3);
    char c;
    if (read(to_child[0], &c, 1) < 0) _exit(3);  // wait until the parent has looked
    _exit(0);
  }
  close(to_parent[1]);
  close(to_child[0]);
  std::string sock;
  char c;
  while (read(to_parent[0], &c, 1) == 1 && c != '\n') sock += c;
  ASSERT_FALSE(sock.empty()) << "child could not start the simulator";
  // While the child lives: ibsim and OpenSM (each under timeout(1)) carry the socket name.
  std::vector<int> alive = pids_with_env("IBSIM_SOCKNAME=" + sock);
  EXPECT_GE(alive.size(), 2u) << "the /proc scan does not see the simulator";
  ASSERT_EQ(write(to_child[1], "x", 1), 1);
  int st = 0;
  ASSERT_EQ(waitpid(child, &st, 0), child);
  std::vector<int> left;
  for (int i = 0; i < 100; ++i) {  // up to 10 s for SIGTERM to propagate
    left = pids_with_env("IBSIM_SOCKNAME=" + sock);
    if (left.empty()) break;
    usleep(100000);
  }
  EXPECT_TRUE(left.empty()) << left.size() << " processes of socket " << sock << " survived";
  for (int p : left) kill(p, SIGKILL);  // only these exact PIDs, should the test fail
}

// `opensm -o` never exits when routing fails with no_fallback; the harness timeout ends it.
TEST(HarnessSmoke, OpensmOnceIsBoundedByTimeout) {
  if (auto m = missing_tools(); !m.empty()) GTEST_SKIP() << m;
  SimFabric sim("smoke_timeout");
  sim.start("/usr/share/doc/ibsim-utils/net-examples/net.2sw2path4hca");
  // updn finds no root on this two-switch mesh and fails; no_fallback forbids minhop.
  OpensmRun run = sim.run_opensm_once({.engines = {"updn", "no_fallback"}, .timeout_s = 4});
  EXPECT_TRUE(run.proc.timed_out) << "exit " << run.proc.exit_code;
  EXPECT_FALSE(run.subnet_up);
  EXPECT_EQ(run.engine_used, "");
  EXPECT_NE(run.log.find("updn"), std::string::npos) << run.log;
}

// SIGHUP makes the daemon sweep and route again (wait_for_reroute's fallback path).
TEST(HarnessSmoke, SighupForcesReroute) {
  if (auto m = missing_tools(); !m.empty()) GTEST_SKIP() << m;
  SimFabric sim("smoke_sighup");
  sim.start("/usr/share/doc/ibsim-utils/net-examples/net.2sw2path4hca");
  sim.start_opensm_daemon({});
  int configured = count_occurrences(sim.opensm_log(), "tables configured on all switches");
  sim.opensm_sighup();
  ASSERT_TRUE(sim.wait_for_reroute(20)) << sim.opensm_log();
  EXPECT_GT(count_occurrences(sim.opensm_log(), "tables configured on all switches"), configured);
}
