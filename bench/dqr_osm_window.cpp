// bench_dqr --opensm R [--timeout S] [--link NODE PORT] [--dqr-options STR] [--keep DIR]
// (issue 29 item 3): inside OpenSM 3.3.23 under ibsim, on the three-level fat tree of radix R
// (topo::fat_tree3(R), the fabric of `bench_dqr tree3 R`), the routing window of DQR's repair
// after the ibsim `Unlink` of one switch-to-switch cable against the window of ftree-misroute's
// full re-route of the same fault, both engines through libftroute.so, in the same run and on the
// same ibsim:
//   1. ftree-misroute: a daemon (`opensm-start`: first routing + LFT upload to SUBNET UP), then
//      `Unlink "NODE"[PORT]` and the daemon's re-route (ftsim.sh wait-reroute), daemon stopped,
//      cable re-linked;
//   2. dqr with `dqr:base=ftree-misroute` (plus --dqr-options): the same; its first pass routes
//      with the base engine (no previous routing), the pass after the Unlink is DQR's repair,
//      including the staged transition (docs/PLUGIN.md "Staged DQR transition": LFT blocks sent
//      stage by stage, acknowledged, drained) that runs inside the routing callback.
// Timed (wall, from OpenSM's log, log_flags 0x47): the routing window ("building routing with
// 'X'" -> "X tables configured on all switches") of the FIRST routing pass after the Unlink (the
// one that sees the cable gone; a second trap of the other cable end may give a second pass, printed
// too), and trap -> SUBNET UP (the first trap 128 notice after the Unlink -> the last SUBNET UP,
// bench/osm_sim.hpp). The default cable: the first up port of the first leaf switch (L0_0 port
// R/2 + 1, as `bench_ftree opensm --reroute`).
//
// Printed: per engine the passes and the plugin's log lines of the repair pass with their offset
// from "building routing with" (the phase breakdown: hop matrices, engine, verdict, LFT writes,
// transition stages; after the last plugin line until "tables configured" is OpenSM's own LFT
// push, osm_ucast_mgr_set_fwd_tables), then one line, exactly
//   radix R: DQR repair window X.XXX s, full re-route window Y.YYY s, ratio Z.ZZZ (goal <= 0.05: MET|NOT MET),
//   DQR window without the staged transition W.WWW s (ratio V.VVV), trap -> SUBNET UP A.A s vs B.B s
// where ratio = DQR's window / ftree-misroute's window of the same run. Exit status 1 when a
// window could not be measured (no re-route, OpenSM fell back to another engine).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ftroute/error.hpp"
#include "ftroute/topology.hpp"
#include "osm_sim.hpp"

using namespace ftroute;

int bench_dqr_osm_window(int argc, char** argv);

namespace {

// Seconds of a log line's "Mon DD HH:MM:SS USEC" stamp (differences only), -1 without one.
double line_stamp(const std::string& line) {
  static const char* months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  char mon[4] = {};
  int day = 0, h = 0, m = 0, sec = 0;
  long usec = 0;
  if (line.size() < 22 || std::sscanf(line.c_str(), "%3s %d %d:%d:%d %ld", mon, &day, &h, &m, &sec, &usec) != 6) return -1;
  for (int i = 0; i < 12; ++i)
    if (std::string(mon) == months[i]) return (i * 31 + day) * 86400.0 + h * 3600.0 + m * 60.0 + sec + usec * 1e-6;
  return -1;
}

struct PassInfo {
  bench::OsmLogPass pass;
  std::vector<std::string> phases;  // "+  1.234 s  ftroute: ..." lines of the pass
  double transition_ms = -1;        // from "dqr transition done: ... in N ms"
};

// The routing passes of a log from the `skip`-th on, each with its plugin lines timed from
// "building routing with".
std::vector<PassInfo> passes_with_phases(const std::string& log, size_t skip) {
  std::vector<bench::OsmLogPass> ps = bench::osm_log_passes(log);
  std::vector<PassInfo> out;
  std::istringstream in(log);
  std::string line;
  size_t k = 0;  // index of the pass being read
  double build = -1;
  PassInfo cur;
  while (std::getline(in, line) && k < ps.size()) {
    const double t = line_stamp(line);
    if (t >= 0 && build < 0 && line.find("building routing with '") != std::string::npos) {
      build = t;
      cur = PassInfo{};
    } else if (build >= 0 && line.find(" tables configured on all switches") != std::string::npos) {
      char b[64];
      std::snprintf(b, sizeof b, "  +%8.3f s  ", t - build);
      cur.phases.push_back(b + line.substr(line.find(']') == std::string::npos ? 0 : line.find(']') + 2));
      if (k >= skip) {
        cur.pass = ps[k];
        out.push_back(cur);
      }
      ++k;
      build = -1;
    } else if (build >= 0 && line.find("No routing engine able") != std::string::npos) {
      build = -1;
    } else if (build >= 0 && t >= 0 && line.find("ftroute: ") != std::string::npos) {
      const size_t at = line.find("ftroute: ");
      char b[64];
      std::snprintf(b, sizeof b, "  +%8.3f s  ", t - build);
      std::string text = line.substr(at);
      if (text.size() > 400) text = text.substr(0, 400) + " ...";
      cur.phases.push_back(b + text);
      if (const size_t d = text.find("dqr transition done:"); d != std::string::npos) {
        const size_t in_at = text.find(" in ", d);
        if (in_at != std::string::npos) cur.transition_ms = std::atof(text.c_str() + in_at + 4);
      }
    }
  }
  return out;
}

struct EngineRun {
  std::string label, engine, options;
  double window = -1, trap_to_up = -1, transition_ms = -1;
  bool ok = false;
};

void run_engine(bench::Sim& sim, EngineRun& r, const std::string& node, int port, const std::string& keep) {
  std::printf("%s: daemon (%s, event_plugin_options '%s')\n", r.label.c_str(), r.engine.c_str(), r.options.c_str());
  std::fflush(stdout);
  auto up = sim.start_daemon({r.engine, true, r.options, {}});
  if (!up) {
    std::printf("  no SUBNET UP\n");
    return;
  }
  std::printf("  up: first routing pass by %s, window %.3f s, OpenSM peak RSS %ld MB\n", up->pass.engine.c_str(),
              up->pass.window, up->vmhwm_kb / 1024);
  std::fflush(stdout);
  const size_t before = bench::osm_log_passes(sim.log_text()).size();
  auto rr = sim.unlink_reroute(node, port);
  const std::string log = sim.log_text();
  if (!keep.empty()) {
    std::filesystem::create_directories(keep);
    std::ofstream(keep + "/" + r.engine + "-osm.log") << log;
  }
  sim.stop_daemon();
  sim.relink(node, port);
  if (!rr) {
    std::printf("  Unlink \"%s\"[%d]: no re-route\n", node.c_str(), port);
    return;
  }
  const std::vector<PassInfo> after = passes_with_phases(log, before);
  for (size_t i = 0; i < after.size(); ++i)
    std::printf("  pass %zu after the Unlink: routed by %s, routing window %.3f s%s\n", i + 1, after[i].pass.engine.c_str(),
                after[i].pass.window, i == 0 ? " (the repair pass)" : "");
  if (after.empty()) return;
  std::printf("  trap -> SUBNET UP %.3f s, OpenSM peak RSS %ld MB; plugin lines of the repair pass (offset from "
              "'building routing with'):\n",
              rr->pass.trap_to_up, rr->vmhwm_kb / 1024);
  for (const auto& l : after[0].phases) std::printf("%s\n", l.c_str());
  std::fflush(stdout);
  if (after[0].pass.engine != r.engine) {
    std::printf("  OpenSM FELL BACK to %s: not counted\n", after[0].pass.engine.c_str());
    return;
  }
  r.window = after[0].pass.window;
  r.trap_to_up = rr->pass.trap_to_up;
  r.transition_ms = after[0].transition_ms;
  r.ok = true;
}

}  // namespace

int bench_dqr_osm_window(int argc, char** argv) {
  int radix = -1, timeout = 1800, port = 0;
  std::string node, dqr_extra, keep;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--timeout" && i + 1 < argc) timeout = std::atoi(argv[++i]);
    else if (a == "--link" && i + 2 < argc) {
      node = argv[++i];
      port = std::atoi(argv[++i]);
    } else if (a == "--dqr-options" && i + 1 < argc) dqr_extra = argv[++i];
    else if (a == "--keep" && i + 1 < argc) keep = argv[++i];
    else if (radix < 0 && !a.empty() && a[0] != '-') radix = std::atoi(a.c_str());
    else throw Error("unknown argument '" + a + "' (usage: bench_dqr --opensm R [--timeout S] [--link NODE PORT] "
                     "[--dqr-options STR] [--keep DIR])");
  }
  if (radix < 4 || radix % 2) throw Error("radix must be an even number >= 4");
  Fabric f = topo::fat_tree3(radix);
  if (node.empty()) {  // the first leaf's first port to a switch
    for (int s : f.switches()) {
      const Node& n = f.node(s);
      int up = 0;
      bool ca = false;
      for (int p = 1; p <= n.num_ports; ++p) {
        if (!n.port(p).connected()) continue;
        if (f.node(n.port(p).peer_node).is_switch()) up = up ? up : p;
        else ca = true;
      }
      if (ca && up) {
        node = n.desc.empty() ? n.id : n.desc;
        port = up;
        break;
      }
    }
  }
  std::printf("bench_dqr --opensm %d: %zu switches, %zu CAs; OpenSM 3.3.23 under ibsim, cable Unlink \"%s\"[%d]\n", radix,
              f.switches().size(), f.cas().size(), node.c_str(), port);
  std::fflush(stdout);
  const std::string root = (std::filesystem::temp_directory_path() / ("bench_dqr_osm_" + std::to_string(getpid()))).string();
  bench::ScratchDir cleanup{root};
  bench::Sim sim(f, root + "/sim", timeout);
  EngineRun full{"full re-route", "ftree-misroute", "", -1, -1, -1, false};
  EngineRun dqr{"DQR repair", "dqr", "dqr:base=ftree-misroute" + (dqr_extra.empty() ? "" : " " + dqr_extra), -1, -1, -1, false};
  run_engine(sim, full, node, port, keep);
  run_engine(sim, dqr, node, port, keep);
  if (!full.ok || !dqr.ok) {
    std::printf("radix %d: not measured (%s)\n", radix, !full.ok ? "no ftree-misroute re-route" : "no DQR repair");
    return 1;
  }
  const double q = dqr.window / full.window;
  const double without = dqr.transition_ms >= 0 ? dqr.window - dqr.transition_ms * 1e-3 : -1;
  std::printf("radix %d: DQR repair window %.3f s, full re-route window %.3f s, ratio %.3f (goal <= 0.05: %s), "
              "DQR window without the staged transition %.3f s (ratio %.3f), trap -> SUBNET UP %.1f s vs %.1f s\n",
              radix, dqr.window, full.window, q, q <= 0.05 ? "MET" : "NOT MET", without,
              without >= 0 ? without / full.window : -1.0, dqr.trap_to_up, full.trap_to_up);
  return 0;
}
