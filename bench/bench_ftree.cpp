// bench_ftree: routing time of ftree-misroute on the 648-port two-level tree (36 leaves x 18
// hosts, 18 spines) and on a three-level fat tree of radix-36 switches (11664 hosts, 1620
// switches).
//
// Mode 1 (default), in-process: fault-free and with random switch-link faults, CPU time of
// Engine::route; baseline measured in the same run: ft-minhop on the same fabric.
//
// Mode 2, `bench_ftree opensm`: the target, <= 1.5x OpenSM's own ftree. Each fabric is
// loaded into ibsim (bench/osm_sim.hpp: scripts/ftsim.sh, ibsim's node/switch/port limits raised
// with -N/-S/-P) and OpenSM 3.3.23 routes it once per engine, stopped right after the routing pass (`opensm-once
// --until-routed`: no LFT upload, which takes minutes on the big tree). The routing step of each
// engine is read from OpenSM's log (log_flags 0x47; "building routing with 'X'" to "X tables
// configured on all switches", microsecond timestamps; campaign::opensm_routing_step). Both
// engines pay the same OpenSM overheads inside that window. ftree-misroute runs inside OpenSM
// through libftroute.so, once with its defaults (check=auto: the CDG/reachability check runs on
// every size since issue 15), once with check=false, and once with lid_matrices=opensm (OpenSM's
// osm_ucast_mgr_build_lid_matrices instead of the plugin's own BFS hop matrices, issue 15). Printed: seconds per run and the ratios
// ftree-misroute / OpenSM ftree. Wall time (OpenSM logs wall clock), so run it on a quiet machine
// or repeat (REPS).
//
// Usage: bench_ftree [radix of the 3-level tree (default 36)] [faults (default 8)] [validate]
//          "validate" also checks the big tree (switch sources, CDG), which takes minutes.
//        bench_ftree opensm [radix (default 36; 0 = 648-port tree only)] [REPS (default 1)]
//                           [--main] [--reroute] [--no-648] [--misroute-first] [--timeout SECONDS (default 1800)]
//                           [--reroute-only] [--reroute-skip-ftree]
//          --main: OpenSM ftree and ftree-misroute (defaults) only; --reroute: then a daemon per
//          engine (SUBNET UP, i.e. with the LFT upload) and ibsim `Unlink` of a CA link and of
//          a switch link of one leaf: each re-route's routing window and trap -> SUBNET UP.
//          Every OpenSM run also reports "ENTERING SM MASTER STATE" -> "tables configured" and
//          OpenSM's peak RSS (VmHWM of the opensm process), with ratios against OpenSM ftree.
//        bench_ftree replicas [--reps N (default 5)] [--no-opensm]
//          the production-cluster presets (ctree preset=hdr-3tier|edr-director|hdr-mcs8500):
//          ftree-misroute's routing ms against ft-minhop in process, then OpenSM's routing window
//          for ftree-misroute (plugin) against OpenSM's ftree and updn in the same run.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

#include "ftroute/cluster_tree.hpp"
#include "ftroute/engine.hpp"
#include "ftroute/netfile.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/topology.hpp"
#include "ftroute/validate.hpp"
#include "osm_sim.hpp"

using namespace ftroute;
using ftroute::bench::OsmLogPass;
using ftroute::bench::OsmMeasure;
using ftroute::bench::Sim;

namespace {

double cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double time_engine(const std::string& name, const Fabric& f, const EngineOptions& o, Routing* out = nullptr) {
  auto e = make_engine(name);
  double t0 = cpu_now();
  Routing r = e->route(f, o);
  double t = cpu_now() - t0;
  if (out) *out = std::move(r);
  return t;
}

void run(const std::string& label, Fabric f, int faults, bool validate_result) {
  if (faults > 0) {
    topo::FaultSpec spec;
    spec.random_links = faults;
    spec.seed = 7;
    spec.keep_connected = true;
    topo::inject_faults(f, spec);
  }
  f.assign_lids();
  EngineOptions nocheck;
  nocheck.set("check", "false");
  EngineOptions check;
  check.set("check", "true");
  Routing r;
  double tm = 0, tf = 0, tc = -1, tv = -1;
  try {
    tf = time_engine("ftree-misroute", f, nocheck, &r);
  } catch (const Error& e) {
    std::printf("%-34s ftree-misroute failed: %s\n", label.c_str(), e.what());
    return;
  }
  tm = time_engine("ft-minhop", f, {});
  if (validate_result) {
    tc = time_engine("ftree-misroute", f, check);
    double t0 = cpu_now();
    ValidateOptions vo;
    vo.switch_sources = true;
    ValidationReport rep = validate(f, r, vo);
    tv = cpu_now() - t0;
    if (!rep.ok()) std::printf("%-34s VALIDATION FAILED\n%s", label.c_str(), format_report(f, rep).c_str());
  }
  std::printf("%-34s %6d LIDs  ftree-misroute %8.3f s  ft-minhop %8.3f s  ratio %5.2f", label.c_str(),
              static_cast<int>(f.max_lid()), tf, tm, tm > 0 ? tf / tm : 0.0);
  if (tc >= 0) std::printf("  (with check %.3f s; validate %.3f s)", tc, tv);
  std::printf("\n");
}

// ---------------- mode 2: OpenSM's ftree vs ftree-misroute inside OpenSM ----------------

struct Variant {
  std::string label, engine, plugin_options;
};

struct OsmOpts {
  int reps = 1;
  bool all_variants = true;  // false: OpenSM ftree and ftree-misroute (defaults) only
  bool reroute = false;      // the Unlink re-route sweep (daemons, LFT upload)
  bool misroute_first = false;
  bool reroute_only = false;       // --reroute-only: no `opensm-once` runs before the daemons
  bool reroute_skip_ftree = false; // --reroute-skip-ftree: no OpenSM ftree daemon
  int timeout = 1800;
};

double best(const std::vector<double>& x) {
  double b = -1;
  for (double v : x)
    if (b < 0 || v < b) b = v;
  return b;
}

std::string mb(long kb) { return kb < 0 ? std::string("?") : std::to_string((kb + 512) / 1024) + " MB"; }

// A leaf switch (one with CAs), its first CA port and its first switch port.
struct LeafPorts {
  std::string leaf;
  int ca_port = 0, up_port = 0;
};
LeafPorts pick_leaf(const Fabric& f) {
  for (int i = 0; i < f.size(); ++i) {
    const Node& n = f.node(i);
    if (!n.is_switch()) continue;
    LeafPorts lp{n.desc.empty() ? n.id : n.desc, 0, 0};
    for (int p = 1; p <= n.num_ports; ++p) {
      if (!n.port(p).connected()) continue;
      const bool to_switch = f.node(n.port(p).peer_node).is_switch();
      if (to_switch && !lp.up_port) lp.up_port = p;
      if (!to_switch && !lp.ca_port) lp.ca_port = p;
    }
    if (lp.ca_port && lp.up_port) return lp;
  }
  throw Error("no leaf switch with a CA and a switch link");
}

void run_opensm(const std::string& label, const Fabric& f, const std::string& dir, const OsmOpts& o) {
  std::printf("%s: %zu switches, %zu CAs (ibsim + OpenSM; wall seconds from OpenSM's log; peak RSS = VmHWM of opensm)\n",
              label.c_str(), f.switches().size(), f.cas().size());
  std::fflush(stdout);
  std::vector<Variant> variants = {{"OpenSM ftree", "ftree", ""}, {"ftree-misroute (defaults)", "ftree-misroute", ""}};
  if (o.all_variants) {
    variants.push_back({"ftree-misroute check=false", "ftree-misroute", "ftree-misroute:check=false"});
    // issue 15: the same with OpenSM's own hop matrices
    variants.push_back({"ftree-misroute osm matrices", "ftree-misroute", "lid_matrices=opensm"});
  }
  std::vector<std::vector<double>> win(variants.size()), mtc(variants.size());
  std::vector<long> hwm(variants.size(), -1);
  {
    Sim sim(f, dir, o.timeout);
    for (int rep = 0; rep < (o.reroute_only ? 0 : o.reps); ++rep)
      for (size_t k = 0; k < variants.size(); ++k) {
        // --misroute-first: ftree last (at radix 52 it takes the longest)
        const size_t v = o.misroute_first ? (k + 1) % variants.size() : k;
        // OpenSM's own ftree is a built-in; the others run inside OpenSM through libftroute.so
        const bool plugin = variants[v].engine != "ftree";
        auto m = sim.measure({variants[v].engine, plugin, variants[v].plugin_options, {}});
        if (!m) {
          std::printf("  %-28s no routing pass found in the OpenSM log\n", variants[v].label.c_str());
          continue;
        }
        if (m->pass.engine != variants[v].engine) {
          std::printf("  %-28s OpenSM FELL BACK to %s\n", variants[v].label.c_str(), m->pass.engine.c_str());
          continue;
        }
        win[v].push_back(m->pass.window);
        if (m->pass.master_to_conf >= 0) mtc[v].push_back(m->pass.master_to_conf);
        hwm[v] = std::max(hwm[v], m->vmhwm_kb);
        std::printf("  %-28s run %d: routing window %9.3f s, MASTER -> tables configured %9.3f s, OpenSM peak RSS %s\n",
                    variants[v].label.c_str(), rep + 1, m->pass.window, m->pass.master_to_conf, mb(m->vmhwm_kb).c_str());
        std::fflush(stdout);
      }
    const double bw = best(win[0]), bm = best(mtc[0]);
    for (size_t v = 1; v < variants.size(); ++v) {
      const double w = best(win[v]), mm = best(mtc[v]);
      if (bw > 0 && w > 0)
        std::printf("  ratio %-28s / OpenSM ftree: window %.3f (%.3f s vs %.3f s; goal <= 0.15), MASTER -> configured %.3f "
                    "(%.3f s vs %.3f s), peak RSS %.3f (%s vs %s)\n",
                    variants[v].label.c_str(), w / bw, w, bw, (bm > 0 && mm > 0) ? mm / bm : -1.0, mm, bm,
                    (hwm[0] > 0 && hwm[v] > 0) ? static_cast<double>(hwm[v]) / static_cast<double>(hwm[0]) : -1.0,
                    mb(hwm[v]).c_str(), mb(hwm[0]).c_str());
    }
    std::fflush(stdout);
    if (!o.reroute) return;

    // The re-route sweep: a daemon per engine (SUBNET UP includes the LFT upload), then ibsim
    // `Unlink` of a CA link and of a switch link of one leaf, each re-routed by the daemon.
    const LeafPorts lp = pick_leaf(f);
    std::printf("  re-route sweep after Unlink (daemon per engine; leaf %s: CA port %d, then switch port %d)\n",
                lp.leaf.c_str(), lp.ca_port, lp.up_port);
    struct Ev {
      std::string what;
      int port;
    };
    const std::vector<Ev> evs = {{"CA link", lp.ca_port}, {"switch link", lp.up_port}};
    std::vector<std::vector<OsmMeasure>> res(2);
    for (size_t v = o.reroute_skip_ftree ? 1 : 0; v < 2; ++v) {
      const bool plugin = variants[v].engine != "ftree";
      auto up = sim.start_daemon({variants[v].engine, plugin, variants[v].plugin_options, {}});
      if (!up) {
        std::printf("  %-28s daemon: no SUBNET UP\n", variants[v].label.c_str());
        continue;
      }
      std::printf("  %-28s daemon up (%s): routing window %.3f s, OpenSM peak RSS %s\n", variants[v].label.c_str(),
                  up->pass.engine.c_str(), up->pass.window, mb(up->vmhwm_kb).c_str());
      std::fflush(stdout);
      for (const Ev& ev : evs) {
        auto r = sim.unlink_reroute(lp.leaf, ev.port);
        if (!r) {
          std::printf("  %-28s Unlink %s: no re-route\n", variants[v].label.c_str(), ev.what.c_str());
          res[v].push_back({});
          continue;
        }
        res[v].push_back(*r);
        std::printf("  %-28s Unlink %-11s -> re-routed by %s: routing window %.3f s, trap -> SUBNET UP %.3f s, "
                    "OpenSM peak RSS %s\n",
                    variants[v].label.c_str(), ev.what.c_str(), r->pass.engine.c_str(), r->pass.window, r->pass.trap_to_up,
                    mb(r->vmhwm_kb).c_str());
        std::fflush(stdout);
      }
      sim.stop_daemon();
      for (const Ev& ev : evs) sim.relink(lp.leaf, ev.port);
    }
    for (size_t e = 0; e < evs.size(); ++e) {
      if (res[0].size() <= e || res[1].size() <= e) continue;
      const OsmLogPass &a = res[1][e].pass, &b = res[0][e].pass;
      if (a.window > 0 && b.window > 0)
        std::printf("  ratio re-route after Unlink %-11s ftree-misroute / %s: window %.3f (%.3f s vs %.3f s), "
                    "trap -> SUBNET UP %.3f (%.3f s vs %.3f s)\n",
                    evs[e].what.c_str(), b.engine == "ftree" ? "OpenSM ftree" : ("OpenSM ftree configured, fell back to " + b.engine).c_str(),
                    a.window / b.window, a.window, b.window, (a.trap_to_up > 0 && b.trap_to_up > 0) ? a.trap_to_up / b.trap_to_up : -1.0,
                    a.trap_to_up, b.trap_to_up);
    }
  }
}

int main_opensm(int argc, char** argv) {
  std::vector<std::string> pos;
  OsmOpts o;
  bool small = true;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--reroute") o.reroute = true;
    else if (a == "--main") o.all_variants = false;
    else if (a == "--no-648") small = false;
    else if (a == "--misroute-first") o.misroute_first = true;
    else if (a == "--reroute-only") o.reroute = o.reroute_only = true;
    else if (a == "--reroute-skip-ftree") o.reroute_skip_ftree = true;
    else if (a == "--timeout" && i + 1 < argc) o.timeout = std::atoi(argv[++i]);
    else if (!a.empty() && a[0] == '-') throw Error("unknown option " + a);
    else pos.push_back(a);
  }
  const int radix = !pos.empty() ? std::atoi(pos[0].c_str()) : 36;
  o.reps = pos.size() > 1 ? std::max(1, std::atoi(pos[1].c_str())) : 1;
  const std::string root = (std::filesystem::temp_directory_path() / ("bench_ftree_" + std::to_string(getpid()))).string();
  std::printf("bench_ftree opensm: OpenSM 3.3.23 ftree vs ftree-misroute (libftroute.so) under ibsim\n");
  bench::ScratchDir cleanup{root};
  if (small || radix == 0) {
    OsmOpts s = o;
    s.timeout = 300;
    run_opensm("648-port 2-level", topo::fat_tree648(), root + "/ft648", s);
  }
  if (radix > 0) {
    Fabric big = topo::fat_tree3(radix);
    run_opensm("3-level radix " + std::to_string(radix), big, root + "/ft3", o);
  }
  return 0;
}

}  // namespace

// ---------------- mode 3: the production-cluster replicas (issue 27) ----------------
// Per `ctree` preset: ftree-misroute's routing time in process (median of REPS) against
// ft-minhop on the same fabric in the same run, then (unless --no-opensm) OpenSM's routing window
// for ftree-misroute (libftroute.so) against OpenSM's own ftree and updn, one pass each, under
// ibsim (the shared-GUID preset loaded as its ibsim copy). A fallback is printed as such.
int main_replicas(int argc, char** argv) {
  bool opensm = true;
  int reps = 5;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--no-opensm") opensm = false;
    else if (a == "--reps" && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
    else throw Error("unknown option " + a);
  }
  const std::string root = (std::filesystem::temp_directory_path() / ("bench_ftree_rep_" + std::to_string(getpid()))).string();
  bench::ScratchDir cleanup{root};
  std::printf("bench_ftree replicas: ftree-misroute on the production-cluster presets (median of %d, CPU ms)\n", reps);
  for (const char* preset : {"hdr-3tier", "edr-director", "hdr-mcs8500"}) {
    Fabric f = topo::cluster_tree(topo::parse_cluster_tree(std::string("preset=") + preset));
    make_ibsim_loadable(f);  // the same fabric as OpenSM sees it (own GUIDs for shared ones)
    f.assign_lids();
    auto median_ms = [&](const std::string& engine) {
      std::vector<double> t;
      for (int r = 0; r < reps; ++r) {
        const double t0 = cpu_now();
        make_engine(engine)->route(f, {});
        t.push_back((cpu_now() - t0) * 1e3);
      }
      std::sort(t.begin(), t.end());
      return t[t.size() / 2];
    };
    const double fm = median_ms("ftree-misroute"), mh = median_ms("ft-minhop");
    std::printf("%-13s %zu switches, %zu CAs: ftree-misroute %.2f ms, ft-minhop %.2f ms (%.2fx)\n", preset,
                f.switches().size(), f.cas().size(), fm, mh, mh > 0 ? fm / mh : 0.0);
    std::fflush(stdout);
    if (!opensm) continue;
    Sim sim(f, root + "/" + preset, 600);
    double base = -1;
    for (const auto& [label, engine] : std::vector<std::pair<std::string, std::string>>{
             {"ftree-misroute", "ftree-misroute"}, {"OpenSM ftree", "ftree"}, {"OpenSM updn", "updn"}}) {
      auto m = sim.measure({engine, engine == "ftree-misroute", "", {}});
      if (!m) {
        std::printf("  %-15s no routing pass found in the OpenSM log\n", label.c_str());
        continue;
      }
      const bool fell = m->pass.engine != engine;
      if (engine == "ftree-misroute" && !fell) base = m->pass.window;
      std::printf("  %-15s routing window %8.3f s%s", label.c_str(), m->pass.window,
                  fell ? (" (OpenSM FELL BACK to " + m->pass.engine + ")").c_str() : "");
      if (engine != "ftree-misroute" && base > 0 && m->pass.window > 0)
        std::printf(", ftree-misroute / this %.3f", base / m->pass.window);
      std::printf("\n");
      std::fflush(stdout);
    }
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "replicas") {
    try {
      return main_replicas(argc, argv);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "bench_ftree replicas: %s\n", e.what());
      return 1;
    }
  }
  if (argc > 1 && std::string(argv[1]) == "opensm") {
    try {
      return main_opensm(argc, argv);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "bench_ftree opensm: %s\n", e.what());
      return 1;
    }
  }
  int radix = argc > 1 ? std::atoi(argv[1]) : 36;
  int faults = argc > 2 ? std::atoi(argv[2]) : 8;
  bool validate_big = argc > 3 && std::string(argv[3]) == "validate";
  std::printf("bench_ftree: CPU seconds per routing run (ratio = ftree-misroute / ft-minhop)\n");
  run("648-port 2-level, no faults", topo::fat_tree648(), 0, true);
  run("648-port 2-level, " + std::to_string(faults) + " faults", topo::fat_tree648(), faults, true);
  run("4-ary 3-tree, 3 faults", topo::kary_ntree(4, 3), 3, true);
  std::string big = "3-level radix " + std::to_string(radix);
  run(big + ", no faults", topo::fat_tree3(radix), 0, validate_big);
  run(big + ", " + std::to_string(faults) + " faults", topo::fat_tree3(radix), faults, validate_big);
  return 0;
}
