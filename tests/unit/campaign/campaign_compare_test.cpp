// campaign/compare.cpp: OpenSM routing-step timing from log timestamps, and the markdown
// comparison table of docs/ftree-misroute.md (issue 4).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "ftroute/campaign_compare.hpp"
#include "ftroute/error.hpp"

using namespace ftroute;
using namespace ftroute::campaign;

namespace {

const char* kTwoPasses =
    "Nov 22 13:18:50 100000 [42B326C0] 0x02 -> osm_vendor_init: 1000 pending umads specified\n"
    "Nov 22 13:18:50 260791 [42B326C0] 0x04 -> ucast_mgr_route: building routing with 'ftree' routing algorithm...\n"
    "Nov 22 13:18:50 307262 [42B326C0] 0x02 -> osm_ucast_mgr_process: ftree tables configured on all switches\n"
    "Nov 22 13:18:51 275115 [42B326C0] 0x02 -> SUBNET UP\n"
    // second pass: ftree fails, OpenSM falls back to minhop; crosses midnight of Dec 31
    "Dec 31 23:59:59 900000 [42B326C0] 0x04 -> ucast_mgr_route: building routing with 'ftree' routing algorithm...\n"
    "Dec 31 23:59:59 950000 [42B326C0] 0x01 -> ERR AB0E: ftree failed\n"
    "Jan  1 00:00:00 000000 [42B326C0] 0x04 -> ucast_mgr_route: building routing with 'minhop' routing algorithm...\n"
    "Jan  1 00:00:01 250000 [42B326C0] 0x02 -> osm_ucast_mgr_process: minhop tables configured on all switches\n";

}  // namespace

TEST(OsmRoutingStep, LastPassWithFallbackAndYearChange) {
  auto s = opensm_routing_step(kTwoPasses);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->engine, "minhop");
  ASSERT_EQ(s->tried.size(), 2u);
  EXPECT_EQ(s->tried[0], "ftree");
  EXPECT_EQ(s->tried[1], "minhop");
  EXPECT_NEAR(s->seconds, 1.35, 1e-6);  // from ftree's start (failed attempt included) to minhop's end
}

TEST(OsmRoutingStep, FirstPassMicroseconds) {
  std::string log(kTwoPasses);
  log = log.substr(0, log.find("Dec 31"));
  auto s = opensm_routing_step(log);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->engine, "ftree");
  EXPECT_NEAR(s->seconds, 0.046471, 1e-9);
}

TEST(OsmRoutingStep, NoVerboseLinesOrNoSuccessGivesNothing) {
  EXPECT_FALSE(opensm_routing_step(
      "Nov 22 13:18:50 307262 [42B326C0] 0x02 -> osm_ucast_mgr_process: ftree tables configured on all switches\n"));
  EXPECT_FALSE(opensm_routing_step(
      "Nov 22 13:18:50 260791 [1] 0x04 -> ucast_mgr_route: building routing with 'ftree' routing algorithm...\n"
      "Nov 22 13:18:51 260791 [1] 0x01 -> osm_ucast_mgr_process: No routing engine able to successfully configure  "
      "switch tables on current fabric\n"));
  EXPECT_FALSE(opensm_routing_step(""));
}

TEST(OsmRoutingStep, BadTimestampNamesTheLine) {
  try {
    opensm_routing_step("x\ngarbage building routing with 'ftree' routing algorithm...\n");
    FAIL() << "no ParseError";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("osm.log:2: no 'Mon DD"), std::string::npos) << e.what();
  }
}

namespace {
RunResult row(const std::string& engine, const std::string& lf, int seed) {
  RunResult r;
  r.key = {"fattree:4,3", engine, lf, "0", seed};
  r.engine_used = engine.rfind("opensm:", 0) == 0 ? engine.substr(7) : engine;
  r.deadlock_checked = true;
  r.vls_used = 1;
  r.efi_max = 10;
  r.efi_avg = 2.5;
  r.route_seconds = 0.002;
  return r;
}
}  // namespace

TEST(ComparisonTable, CountsToleratedFallbackAndUncheckedRuns) {
  std::vector<RunResult> rows;
  rows.push_back(row("ftree-misroute", "2", 1));
  rows.push_back(row("ftree-misroute", "2", 2));
  rows.back().status = "refused";
  rows.push_back(row("opensm:ftree", "2", 1));
  rows.back().fallback = true;
  rows.back().engine_used = "minhop";
  rows.back().cdg_acyclic = false;  // minhop's routes have a cycle: not tolerated
  rows.back().efi_max = 20;
  rows.push_back(row("opensm:ftree", "2", 2));
  rows.back().fallback = true;
  rows.back().engine_used = "minhop";
  rows.back().efi_max = 30;
  rows.push_back(row("opensm:dfsssp", "2", 1));
  rows.back().deadlock_checked = false;  // per-path SLs not visible
  rows.push_back(row("ftree-misroute", "10", 1));
  rows.back().unreachable = 3;
  rows.push_back(row("ftree-misroute", "0", 1));
  std::string t = comparison_table(rows, {"opensm:ftree", "ftree-misroute"});
  // fault levels in numeric order (0, 2, 10), engines in the given order, then the rest
  auto at = [&](const std::string& s) {
    auto p = t.find(s);
    EXPECT_NE(p, std::string::npos) << s << "\n" << t;
    return p;
  };
  size_t r0 = at("| fattree:4,3 | 0 links | ftree-misroute | 1/1 | 1 | 10.0 (10) | 2.50 | 2.0 | - |");
  size_t r2a = at("| fattree:4,3 | 2 links | opensm:ftree | 1/2 | 1 | 25.0 (30) | 2.50 | 2.0 | 2/2 → minhop |");
  size_t r2b = at("| fattree:4,3 | 2 links | ftree-misroute | 1/2, 1 refused | 1 | 10.0 (10) |");
  size_t r2c = at("| fattree:4,3 | 2 links | opensm:dfsssp | 0/1 (+1 reachable, CDG not checkable †) | ? † |");
  size_t r10 = at("| fattree:4,3 | 10 links | ftree-misroute | 0/1 |");
  EXPECT_LT(r0, r2a);
  EXPECT_LT(r2a, r2b);
  EXPECT_LT(r2b, r2c);
  EXPECT_LT(r2c, r10);
  at("* †:");
}

// Real ibsim + OpenSM: an ftroute engine inside OpenSM (opensm:<ftroute engine> loads
// libftroute.so) and OpenSM's ftree on the same faulty tree. route_seconds must be the routing
// step read from the log, not the whole `opensm -o` run (ibsim start, discovery, LFT upload).
TEST(ComparisonCampaign, FtroutePluginAndOpensmFtreeUnderIbsim) {
  namespace fs = std::filesystem;
  if (!fs::exists("/usr/sbin/opensm") || !fs::exists("/usr/bin/ibsim")) GTEST_SKIP() << "ibsim/opensm not installed";
  if (!fs::exists(std::string(FTROUTE_BINARY_DIR) + "/plugin/libftroute.so")) GTEST_SKIP() << "libftroute.so not built";
  const std::string d = (fs::temp_directory_path() / ("ftroute_cmp_test_" + std::to_string(::getpid()))).string();
  Config c;
  c.fabrics.push_back(parse_fabric_source("fattree:2,3", false));
  c.out_dir = d;
  c.opensm_timeout = 30;
  c.keep_scratch = true;  // the run's osm.log stays, to check route_seconds against it
  Fabric f = build_fabric(c.fabrics[0]);
  std::vector<RunResult> rows;
  auto run_dirs = [&] {
    std::set<std::string> r;
    if (fs::exists(d + "/scratch"))
      for (const auto& e : fs::directory_iterator(d + "/scratch")) r.insert(e.path().string());
    return r;
  };
  for (const std::string e : {"opensm:ftree-misroute", "opensm:ftree"}) {
    const auto before = run_dirs();
    RunResult r = run_one(c, f, {"fattree:2,3", e, "1", "0", 2});
    ASSERT_EQ(r.status, "ok") << e << ": " << r.message;
    EXPECT_EQ(r.links_removed, 1);
    EXPECT_EQ(r.unreachable, 0u) << e;
    EXPECT_GT(r.route_seconds, 0.0) << e;
    // route_seconds is the routing step between the two log lines that bracket it (not the wall
    // time of the whole `opensm -o`): exactly what opensm_routing_step reads from this run's log.
    std::string dir;
    for (const auto& x : run_dirs())
      if (!before.count(x)) dir = x;
    ASSERT_FALSE(dir.empty()) << e << ": no run directory kept under " << d << "/scratch";
    std::ifstream in(dir + "/opensm-1/osm.log");
    const std::string log((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto step = opensm_routing_step(log, dir + "/opensm-1/osm.log");
    ASSERT_TRUE(step.has_value()) << e << ": no routing step in " << dir << "/opensm-1/osm.log";
    EXPECT_EQ(r.route_seconds, step->seconds) << e << ": route_seconds is not the routing step alone";
    rows.push_back(r);
  }
  EXPECT_EQ(rows[0].engine_used, "ftree-misroute");
  EXPECT_FALSE(rows[0].fallback);
  EXPECT_TRUE(rows[0].deadlock_checked && rows[0].cdg_acyclic);
  EXPECT_EQ(rows[0].vls_used, 1);
  EXPECT_EQ(rows[1].engine_used, "minhop");  // OpenSM 3.3.23's ftree refuses a tree with a missing link
  EXPECT_TRUE(rows[1].fallback);
  const std::string t = comparison_table(rows);
  EXPECT_NE(t.find("| opensm:ftree | 1/1 |"), std::string::npos);
  EXPECT_NE(t.find("1/1 → minhop |"), std::string::npos) << t;
  fs::remove_all(d);
}
