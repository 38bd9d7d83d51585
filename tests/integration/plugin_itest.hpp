// Shared pieces of the integration tests that load libftroute.so into OpenSM: where the plugin
// is, the OpenSM configuration that loads it, the skip rule when it is not built, and the
// comparison of live LFTs (read back from ibsim's switches) with an offline routing.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "ftroute/fabric.hpp"
#include "ftroute/routing.hpp"
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

}  // namespace ftroute::itest

// Skips (with the reason) when ibsim/OpenSM tools or libftroute.so are missing; scripts/test.sh
// installs the tools and builds the plugin, so CI never skips.
#define REQUIRE_PLUGIN()                                                                         \
  do {                                                                                           \
    if (auto m = ::ftroute::itest::missing_tools(); !m.empty()) GTEST_SKIP() << m;               \
    if (!std::filesystem::exists(::ftroute::itest::plugin_dir() + "/libftroute.so"))             \
      GTEST_SKIP() << "libftroute.so not built (FTROUTE_BUILD_PLUGIN off or no libopensm-dev)"; \
  } while (0)
