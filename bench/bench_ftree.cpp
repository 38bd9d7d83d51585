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
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

#include "ftroute/engine.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/topology.hpp"
#include "ftroute/validate.hpp"
#include "osm_sim.hpp"

using namespace ftroute;
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

void run_opensm(const std::string& label, const Fabric& f, const std::string& dir, int reps, int timeout) {
  std::printf("%s: %zu switches, %zu CAs (ibsim + OpenSM, wall seconds of the routing step)\n", label.c_str(),
              f.switches().size(), f.cas().size());
  std::fflush(stdout);
  const std::vector<Variant> variants = {{"OpenSM ftree", "ftree", ""},
                                         {"ftree-misroute (defaults)", "ftree-misroute", ""},
                                         {"ftree-misroute check=false", "ftree-misroute", "ftree-misroute:check=false"},
                                         // issue 15: the same with OpenSM's own hop matrices
                                         {"ftree-misroute osm matrices", "ftree-misroute", "lid_matrices=opensm"}};
  std::vector<std::vector<double>> t(variants.size());
  {
    Sim sim(f, dir, timeout);
    for (int rep = 0; rep < reps; ++rep)
      for (size_t v = 0; v < variants.size(); ++v) {
        // OpenSM's own ftree is a built-in; the others run inside OpenSM through libftroute.so
        const bool plugin = variants[v].engine != "ftree";
        auto step = sim.route({variants[v].engine, plugin, variants[v].plugin_options, {}});
        if (!step) {
          std::printf("  %-28s no routing pass found in the OpenSM log\n", variants[v].label.c_str());
          continue;
        }
        if (step->engine != variants[v].engine) {
          std::printf("  %-28s OpenSM FELL BACK to %s\n", variants[v].label.c_str(), step->engine.c_str());
          continue;
        }
        t[v].push_back(step->seconds);
        std::printf("  %-28s run %d: %9.3f s\n", variants[v].label.c_str(), rep + 1, step->seconds);
        std::fflush(stdout);
      }
  }
  auto best = [](const std::vector<double>& x) {
    double b = -1;
    for (double v : x)
      if (b < 0 || v < b) b = v;
    return b;
  };
  const double base = best(t[0]);
  for (size_t v = 1; v < variants.size(); ++v) {
    const double m = best(t[v]);
    if (base > 0 && m > 0)
      std::printf("  ratio %-28s / OpenSM ftree = %.2f  (best of %zu: %.3f s vs %.3f s; goal <= 1.5)\n",
                  variants[v].label.c_str(), m / base, t[v].size(), m, base);
  }
}

int main_opensm(int argc, char** argv) {
  int radix = argc > 2 ? std::atoi(argv[2]) : 36;
  int reps = argc > 3 ? std::max(1, std::atoi(argv[3])) : 1;
  const std::string root = (std::filesystem::temp_directory_path() / ("bench_ftree_" + std::to_string(getpid()))).string();
  std::printf("bench_ftree opensm: OpenSM 3.3.23 ftree vs ftree-misroute (libftroute.so) under ibsim\n");
  bench::ScratchDir cleanup{root};
  run_opensm("648-port 2-level", topo::fat_tree648(), root + "/ft648", reps, 300);
  if (radix > 0) {
    Fabric big = topo::fat_tree3(radix);
    run_opensm("3-level radix " + std::to_string(radix), big, root + "/ft3", reps, 1800);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
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
