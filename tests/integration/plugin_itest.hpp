// Shared pieces of the integration tests that load libftroute.so into OpenSM: where the plugin
// is, the OpenSM configuration that loads it, the skip rule when it is not built, and the
// comparison of live LFTs (read back from ibsim's switches) with an offline routing, and the SL /
// SL2VL checks of multi-VL engines (SA PathRecord SLs, switch SL2VL tables, logged VL count).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "ftroute/fabric.hpp"
#include "ftroute/routing.hpp"
#include "ftroute/validate.hpp"
#include "harness.hpp"

namespace ftroute::itest {

// <build>/plugin, or $FTROUTE_PLUGIN_DIR.
inline std::string plugin_dir() {
  if (const char* d = std::getenv("FTROUTE_PLUGIN_DIR")) return d;
  return FTROUTE_PLUGIN_DIR;
}

// OpenSM loading libftroute.so (event_plugin_name ftroute) and routing with `engine`.
inline OpensmConfig plugin_config(const std::string& engine, const std::string& options = "",
                                  std::vector<std::string> extra_conf = {}) {
  OpensmConfig c;
  c.engines = {engine};
  c.plugin_dir = plugin_dir();
  c.event_plugin_name = "ftroute";
  c.event_plugin_options = options;
  c.extra_conf = std::move(extra_conf);
  return c;
}

// Entries that differ between live LFTs of fabric f and an offline routing of fabric g (the same
// fabric, possibly in another node order: switches are matched by GUID). Every LID of every end
// port of f is compared; *first describes the first difference.
inline int lft_differences(const Fabric& f, const Lfts& live, const Fabric& g, const Lfts& offline,
                           std::string* first) {
  int diff = 0;
  for (int s : f.switches()) {
    auto t = g.find_guid(f.node(s).guid);
    for (const EndPort& e : f.end_ports())
      for (uint32_t lid = e.base_lid; lid <= e.last_lid(); lid++) {
        const uint8_t a = live.get(s, static_cast<Lid>(lid));
        const uint8_t b = t ? offline.get(*t, static_cast<Lid>(lid)) : kNoPath;
        if (a == b) continue;
        if (!diff && first)
          *first = "switch " + f.node(s).desc + " LID " + std::to_string(lid) + ": live port " +
                   std::to_string(a) + ", offline port " + std::to_string(b);
        diff++;
      }
  }
  return diff;
}
inline int lft_differences(const Fabric& f, const Lfts& live, const Lfts& offline, std::string* first) {
  return lft_differences(f, live, f, offline, first);
}

// VL count of the last "ftroute: <engine> routed ... (VLs N, ..." line of an OpenSM log, -1 if none.
inline int logged_vls(const std::string& log, const std::string& engine) {
  // engine names are letters and '-' (literal in a regex outside brackets)
  const std::regex re("ftroute: " + engine + " routed [^\\n]*\\(VLs ([0-9]+),");
  int vls = -1;
  for (auto it = std::sregex_iterator(log.begin(), log.end(), re); it != std::sregex_iterator(); ++it)
    vls = std::stoi((*it)[1].str());
  return vls;
}

// Polls the OpenSM log until `needle` occurs after byte `from`; false after timeout_s.
inline bool wait_for_log(SimFabric& sim, const std::string& needle, size_t from = 0, double timeout_s = 30) {
  const auto t0 = std::chrono::steady_clock::now();
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < timeout_s) {
    const std::string log = sim.opensm_log();
    if (log.size() > from && log.find(needle, from) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// ---- SLs and VLs of multi-VL routings (OpenSM with `qos TRUE`) ----

// SL of the PathRecord OpenSM's SA answers for slid -> dlid (OpenSM asks the routing engine's
// path_sl callback), -1 if saquery fails or prints no SL.
inline int sa_path_sl(SimFabric& sim, Lid slid, Lid dlid) {
  ProcResult r = sim.run_tool({"saquery", "--src-to-dst", std::to_string(slid) + ":" + std::to_string(dlid)}, 20);
  std::smatch m;
  static const std::regex re("\\bsl\\.+0x([0-9a-fA-F]+)");
  if (!r.ok() || !std::regex_search(r.out, m, re)) return -1;
  return std::stoi(m[1].str(), nullptr, 16);
}

// The live tables with the SLs OpenSM's SA answered for HCA pairs (`sa`; other pairs SL 0),
// validated over the HCA pairs: all `pairs` delivered, deadlock free per VL. Returns the report
// for further checks.
inline ValidationReport expect_live_with_sa_sls_valid(const Fabric& f, const Lfts& live,
                                                      const std::map<std::pair<Lid, Lid>, int>& sa, int num_vls,
                                                      uint64_t pairs) {
  Routing with_sa;
  with_sa.lfts = live;
  with_sa.num_vls = num_vls;
  with_sa.path_sl = [&sa](Lid s, Lid d) -> uint8_t {
    auto it = sa.find({s, d});
    return it == sa.end() ? 0 : static_cast<uint8_t>(it->second);
  };
  ValidateOptions vo;
  vo.switch_destinations = false;  // the SA was asked for HCA pairs
  ValidationReport rep = validate(f, with_sa, vo);
  EXPECT_EQ(rep.delivered, rep.pairs);
  EXPECT_EQ(rep.pairs, pairs);
  EXPECT_TRUE(rep.deadlock_checked);
  EXPECT_TRUE(rep.cdg_acyclic) << rep.cycle_text;
  return rep;
}

// Checks that the SA gives every CA pair whose offline path needs a higher SL that SL, plus a
// few SL-0 pairs; returns the number of pairs with SL > 0.
inline int expect_sa_sls(SimFabric& sim, const Fabric& f, const Routing& off, const std::string& what) {
  int high = 0, low = 0;
  for (const EndPort& a : f.end_ports())
    for (const EndPort& b : f.end_ports()) {
      if (f.node(a.node).is_switch() || f.node(b.node).is_switch() || a.node == b.node) continue;
      const int sl = off.sl(a.base_lid, b.base_lid);
      if (sl == 0 && low >= 6) continue;
      (sl ? high : low)++;
      EXPECT_EQ(sa_path_sl(sim, a.base_lid, b.base_lid), sl)
          << what << ": SA PathRecord SL for LID " << a.base_lid << " -> " << b.base_lid;
    }
  return high;
}

// SL2VL tables in the simulated switches (smpquery): for the SLs the engine uses, VL = SL on every
// (in, out) pair of one switch's port 1 (identity SL2VL, docs/kns.md).
inline void expect_identity_sl2vl(SimFabric& sim, const Fabric& f, int sw, int num_vls, const std::string& what) {
  ProcResult r = sim.run_tool({"smpquery", "sl2vl", std::to_string(f.node(sw).port(0).base_lid), "1"}, 20);
  ASSERT_TRUE(r.ok()) << r.err;
  static const std::regex row("ports: in +([0-9]+), out +([0-9]+):((?: *\\| *[0-9]+)+)");
  int rows = 0;
  for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), row); it != std::sregex_iterator(); ++it) {
    std::vector<int> vl;
    static const std::regex cell("\\| *([0-9]+)");
    const std::string cells = (*it)[3].str();
    for (auto c = std::sregex_iterator(cells.begin(), cells.end(), cell); c != std::sregex_iterator(); ++c)
      vl.push_back(std::stoi((*c)[1].str()));
    ASSERT_EQ(vl.size(), 16u) << r.out;
    for (int sl = 0; sl < num_vls; sl++)
      EXPECT_EQ(vl[static_cast<size_t>(sl)], sl) << what << ": " << f.node(sw).desc << " in " << (*it)[1] << " out "
                                                  << (*it)[2] << " SL " << sl;
    rows++;
  }
  EXPECT_GT(rows, 0) << r.out;
}

}  // namespace ftroute::itest

// Skips (with the reason) when ibsim/OpenSM tools or libftroute.so are missing; scripts/test.sh
// installs the tools and builds the plugin, so CI never skips.
#define REQUIRE_PLUGIN()                                                                         \
  do {                                                                                           \
    if (auto m = ::ftroute::itest::missing_tools(); !m.empty()) GTEST_SKIP() << m;               \
    if (!std::filesystem::exists(::ftroute::itest::plugin_dir() + "/libftroute.so"))             \
      GTEST_SKIP() << "libftroute.so not built (FTROUTE_BUILD_PLUGIN off or no libopensm-dev)"; \
  } while (0)
