// OpenSM under ibsim for the benchmarks (bench_ftree opensm, bench_dqr opensm): a fabric is loaded
// into ibsim (scripts/ftsim.sh, ibsim's node/switch/port limits raised with -N/-S/-P) and OpenSM
// 3.3.23 routes it once per call, stopped right after the routing pass (`opensm-once
// --until-routed`: no LFT upload). The routing step is read from OpenSM's log (log_flags 0x47;
// "building routing with 'X'" to "X tables configured on all switches", microsecond timestamps;
// campaign::opensm_routing_step): wall time, so the figures depend on the load of the machine.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ftroute/campaign_compare.hpp"
#include "ftroute/fabric.hpp"

namespace ftroute::bench {

// Single-quoted for sh.
std::string quote(const std::string& s);
// Whole file ("" when it cannot be read).
std::string slurp(const std::string& path);

// One OpenSM routing pass.
struct OsmRun {
  std::string engine;               // routing_engine (OpenSM built-in or ftroute engine)
  bool plugin = false;              // load libftroute.so (FTROUTE_PLUGIN_DIR) as event plugin
  std::string plugin_options;       // event_plugin_options (with plugin)
  std::vector<std::string> conf;    // extra opensm.conf lines, e.g. "qos TRUE"
};

// ibsim + ftsim.sh work directory for one fabric; stopped (by ftsim.sh, by PID) in the destructor.
// Every ftsim.sh call runs under timeout(1), so a hanging ibsim/OpenSM cannot hang the bench.
class Sim {
 public:
  // timeout: seconds per OpenSM run (ftsim.sh --timeout; the call itself is bounded a bit above).
  Sim(const Fabric& f, const std::string& dir, int timeout);
  ~Sim();
  Sim(const Sim&) = delete;
  Sim& operator=(const Sim&) = delete;

  // One OpenSM routing pass; returns the routing step from the log (nullopt: OpenSM routed
  // nothing, e.g. it failed or timed out; a message with its output is printed). The step's
  // `engine` is the engine that configured the tables: a silent fallback shows as engine !=
  // run.engine (and in `tried`).
  std::optional<campaign::OsmRoutingStep> route(const OsmRun& run);

 private:
  std::string dir_, env_;
  int timeout_;
  int runs_ = 0;
};

// Removes a directory tree on scope exit.
struct ScratchDir {
  std::string path;
  ~ScratchDir();
};

}  // namespace ftroute::bench
