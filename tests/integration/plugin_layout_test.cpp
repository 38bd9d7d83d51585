// The plugin's struct layout check (plugin/osm_plugin.cpp create(), docs/PLUGIN.md "Which OpenSM")
// inside a real OpenSM under ibsim:
//  * the plugin of this build in the OpenSM of this build (Debian's 3.3.23, or OPENSM_PREFIX's):
//    the offsets the plugin was compiled with are the running OpenSM's (sm.p_subn and sm.p_log
//    found where the headers put them, event_plugin_name names ftroute): "struct layout check
//    passed", and the load line names the OpenSM version it was built for;
//  * a plugin built against one OpenSM's headers that claims another OpenSM's version string
//    (-DFTROUTE_PLUGIN_CLAIM_VERSION, plugin/claim/libftroute.so; scripts/test.sh builds it against
//    3.3.24 claiming "OpenSM 3.3.23"), loaded into that other OpenSM (FTROUTE_PLUGIN_CLAIM_OPENSM,
//    Debian's 3.3.23): OpenSM's own version check passes, the plugin's layout check refuses with
//    one ERR FT00 line naming both versions, registers nothing, and OpenSM routes with minhop.
//    Skipped (with the reason) in builds without the claim plugin.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "ftroute_version.hpp"  // FTROUTE_VERSION_STRING, FTROUTE_OPENSM_VERSION
#include "harness.hpp"
#include "nets.hpp"
#include "plugin_itest.hpp"

using namespace ftroute::itest;

namespace {
// The log lines containing needle.
std::vector<std::string> lines_with(const std::string& log, const std::string& needle) {
  std::vector<std::string> out;
  size_t p = 0;
  while ((p = log.find(needle, p)) != std::string::npos) {
    const size_t a = log.rfind('\n', p) == std::string::npos ? 0 : log.rfind('\n', p) + 1;
    const size_t b = log.find('\n', p);
    out.push_back(log.substr(a, b == std::string::npos ? std::string::npos : b - a));
    p = b == std::string::npos ? log.size() : b;
  }
  return out;
}
}  // namespace

TEST(PluginLayout, BuildsOwnOpensmPassesTheLayoutCheck) {
  REQUIRE_PLUGIN();
  SimFabric sim("layout_own");
  sim.start_text(kary_ntree_net(2, 3));
  OpensmRun run = sim.run_opensm_once(plugin_config("ft-minhop"));
  ASSERT_TRUE(run.subnet_up) << run.log;
  EXPECT_EQ(run.engine_used, "ft-minhop") << run.dir;
  const std::string v = std::string("OpenSM ") + FTROUTE_OPENSM_VERSION;
  EXPECT_EQ(lines_with(run.log, "ftroute: built for " + v + ", running " + v + ": struct layout check passed").size(), 1u)
      << run.log;
  EXPECT_EQ(lines_with(run.log, "), version " + std::string(FTROUTE_VERSION_STRING) + ", plugin built for " + v).size(), 1u)
      << run.log;
  EXPECT_TRUE(lines_with(run.log, "ERR FT00").empty()) << run.log;
}

TEST(PluginLayout, ForeignOpensmIsRefusedWithBothVersions) {
  if (auto m = missing_tools(); !m.empty()) GTEST_SKIP() << m;
  const std::string dir = FTROUTE_CLAIM_PLUGIN_DIR;
  if (dir.empty())
    GTEST_SKIP() << "no claim plugin in this build (-DFTROUTE_PLUGIN_CLAIM_VERSION='OpenSM x.y.z'; "
                    "scripts/test.sh's OpenSM matrix builds it against 3.3.24 claiming 3.3.23)";
  ASSERT_TRUE(std::filesystem::exists(dir + "/libftroute.so")) << dir;
  const std::string foreign = FTROUTE_PLUGIN_CLAIM_OPENSM;
  if (!have_program(foreign)) GTEST_SKIP() << "the OpenSM the claim plugin claims to be, '" << foreign << "', is missing";
  const std::string built = std::string("OpenSM ") + FTROUTE_OPENSM_VERSION;
  const std::string claimed = FTROUTE_PLUGIN_CLAIM_VERSION;
  ASSERT_NE(built, claimed) << "the claim plugin must claim another version than its headers'";

  SimFabric sim("layout_foreign");
  sim.start_text(kary_ntree_net(2, 3));
  OpensmConfig cfg = plugin_config("ft-minhop");
  cfg.plugin_dir = dir;
  cfg.opensm = foreign;
  OpensmRun run = sim.run_opensm_once(cfg);
  ASSERT_TRUE(run.subnet_up) << run.log;
  // OpenSM's own check passed (the plugin claims the running version) ...
  EXPECT_NE(run.log.find(claimed), std::string::npos) << "the running OpenSM is not " << claimed << ": " << run.log;
  EXPECT_EQ(run.log.find("OpenSM version mismatch - plugin was built against"), std::string::npos) << run.log;
  // ... and the plugin refused in one line naming both versions
  const auto ft00 = lines_with(run.log, "ERR FT00");
  ASSERT_EQ(ft00.size(), 1u) << run.log;
  EXPECT_NE(ft00[0].find("plugin built for " + built + ", running " + claimed), std::string::npos) << ft00[0];
  EXPECT_NE(ft00[0].find("struct layouts differ (osm_subn_t "), std::string::npos) << ft00[0];
  EXPECT_NE(ft00[0].find("no engines registered"), std::string::npos) << ft00[0];
  EXPECT_EQ(run.log.find("ftroute: plugin loaded"), std::string::npos) << run.log;
  EXPECT_EQ(run.engine_used, "minhop") << run.dir;
}
