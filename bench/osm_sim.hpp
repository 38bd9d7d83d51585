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

// Times read from one OpenSM log (log_flags with VERBOSE, "Mon DD HH:MM:SS USEC" stamps).
struct OsmLogPass {
  std::string engine;          // engine of "X tables configured on all switches"
  double window = -1;          // "building routing with" -> "tables configured" (s)
  double master_to_conf = -1;  // the last SM MASTER banner before it -> "tables configured" (s)
  double trap_to_up = -1;      // first trap 128 notice after the previous SUBNET UP -> the next SUBNET UP (s)
  double trap_at = -1, up_at = -1;  // log times of that trap and of the first SUBNET UP after the pass
};
// Every complete routing pass of the log, in order. master_to_conf is set for the first pass
// after an "ENTERING SM MASTER STATE" banner (its time: the last stamped line before the
// banner); trap_to_up for a pass that follows a "Received Generic Notice ... num:128" and is
// followed by a SUBNET UP.
std::vector<OsmLogPass> osm_log_passes(const std::string& log_text);

// One OpenSM pass measured: routing window, MASTER -> tables configured, OpenSM's peak RSS.
struct OsmMeasure {
  OsmLogPass pass;
  long vmhwm_kb = -1;  // VmHWM of the opensm process (/proc/PID/status), -1 when unknown
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

  // The same (`opensm-once --until-routed`), with the routing window, MASTER -> tables
  // configured and OpenSM's VmHWM read just before it is stopped. nullopt: no routing pass.
  std::optional<OsmMeasure> measure(const OsmRun& run);

  // OpenSM as a daemon (`opensm-start`, waits for SUBNET UP, i.e. the LFT upload): the first
  // routing pass. nullopt: no SUBNET UP within the timeout (the daemon is stopped).
  std::optional<OsmMeasure> start_daemon(const OsmRun& run);
  // ibsim `Unlink "node"[port]` and the daemon's re-route (ftsim.sh wait-reroute): the last
  // routing pass after it, trap -> SUBNET UP, VmHWM so far. nullopt: no re-route.
  std::optional<OsmMeasure> unlink_reroute(const std::string& node, int port);
  // ibsim `ReLink "node"[port]` (no waiting; for restoring the fabric between daemons).
  void relink(const std::string& node, int port);
  void stop_daemon();
  // The current (or last) OpenSM's log ("" when there is none).
  std::string log_text();

 private:
  std::string ftsim(const std::string& args, int seconds, int* rc = nullptr);
  std::string osm_options(const OsmRun& run) const;
  std::string current_dir();
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
