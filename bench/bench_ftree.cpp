// bench_ftree: routing time of ftree-misroute on the 648-port two-level tree (36 leaves x 18
// hosts, 18 spines) and on a three-level fat tree of radix-36 switches (11664 hosts, 1620
// switches).
//
// Mode 1 (default), in-process: fault-free and with random switch-link faults, CPU time of
// Engine::route; baseline measured in the same run: ft-minhop on the same fabric.
//
// Mode 2, `bench_ftree opensm`: the target, <= 1.5x OpenSM's own ftree. Each fabric is
// loaded into ibsim (scripts/ftsim.sh, ibsim's node/switch/port limits raised with -N/-S/-P) and
// OpenSM 3.3.23 routes it once per engine, stopped right after the routing pass (`opensm-once
// --until-routed`: no LFT upload, which takes minutes on the big tree). The routing step of each
// engine is read from OpenSM's log (log_flags 0x47; "building routing with 'X'" to "X tables
// configured on all switches", microsecond timestamps; campaign::opensm_routing_step). Both
// engines pay the same OpenSM overheads inside that window. ftree-misroute runs inside OpenSM
// through libftroute.so, once with its defaults (check=auto: the CDG/reachability check runs when
// the max LID is <= 4096) and once with check=false. Printed: seconds per run and the ratios
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
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "ftroute/campaign_compare.hpp"
#include "ftroute/engine.hpp"
#include "ftroute/netfile.hpp"
#include "ftroute/topology.hpp"
#include "ftroute/validate.hpp"

using namespace ftroute;

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

std::string quote(const std::string& s) {
  std::string o = "'";
  for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return o + "'";
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// ibsim + ftsim.sh work directory for one fabric; stopped (by ftsim.sh, by PID) in the destructor.
class Sim {
 public:
  Sim(const Fabric& f, const std::string& dir, int timeout) : dir_(dir), timeout_(timeout) {
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    NetWriteOptions wo;
    wo.write_lids = false;
    {
      std::ofstream o(dir_ + "/input.net");
      o << write_net(f, wo);
    }
    const long nodes = static_cast<long>(f.switches().size() + f.cas().size());
    const long ports = (2L * f.num_links() + nodes) * 3 / 2 + 1000;
    env_ = "env FTSIM_LIFETIME=" + std::to_string(4 * timeout + 600) + " FTSIM_START_TIMEOUT=600 FTSIM_IBSIM_OPTS=" +
           quote("-N " + std::to_string(nodes + 64) + " -S " + std::to_string(f.switches().size() + 16) + " -P " +
                 std::to_string(ports)) +
           " bash " + quote(std::string(FTROUTE_SOURCE_DIR) + "/scripts/ftsim.sh") + " -w " + quote(dir_) + " ";
    if (std::system((env_ + "start " + quote(dir_ + "/input.net") + " >" + quote(dir_ + "/start.out") + " 2>&1").c_str()) != 0)
      throw Error("ibsim did not start (" + dir_ + "/start.out): " + slurp(dir_ + "/start.out"));
  }
  ~Sim() { (void)std::system((env_ + "stop >/dev/null 2>&1").c_str()); }
  Sim(const Sim&) = delete;
  Sim& operator=(const Sim&) = delete;

  // One OpenSM routing pass; returns the routing step from the log (nullopt: OpenSM routed nothing).
  std::optional<campaign::OsmRoutingStep> route(const std::string& engine, const std::string& plugin_options) {
    std::string cmd = env_ + "opensm-once --until-routed --engine " + quote(engine) + " --timeout " +
                      std::to_string(timeout_) + " --conf 'log_flags 0x47'";
    if (engine != "ftree")
      cmd += " --plugin ftroute --plugin-dir " + quote(FTROUTE_PLUGIN_DIR) +
             (plugin_options.empty() ? "" : " --plugin-options " + quote(plugin_options));
    const std::string out = dir_ + "/osm-" + std::to_string(++runs_) + ".out";
    int rc = std::system((cmd + " >" + quote(out) + " 2>&1").c_str());
    const std::string log = dir_ + "/opensm-" + std::to_string(runs_) + "/osm.log";
    if (rc != 0) std::printf("    (OpenSM run failed, rc %d: %s)\n", rc, slurp(out).c_str());
    auto step = campaign::opensm_routing_step(slurp(log), log);
    std::filesystem::remove(log);  // VERBOSE logs of the big tree are tens of MB
    return step;
  }

 private:
  std::string dir_, env_;
  int timeout_;
  int runs_ = 0;
};

struct Variant {
  std::string label, engine, plugin_options;
};

void run_opensm(const std::string& label, const Fabric& f, const std::string& dir, int reps, int timeout) {
  std::printf("%s: %zu switches, %zu CAs (ibsim + OpenSM, wall seconds of the routing step)\n", label.c_str(),
              f.switches().size(), f.cas().size());
  std::fflush(stdout);
  const std::vector<Variant> variants = {{"OpenSM ftree", "ftree", ""},
                                         {"ftree-misroute (defaults)", "ftree-misroute", ""},
                                         {"ftree-misroute check=false", "ftree-misroute", "ftree-misroute:check=false"}};
  std::vector<std::vector<double>> t(variants.size());
  {
    Sim sim(f, dir, timeout);
    for (int rep = 0; rep < reps; ++rep)
      for (size_t v = 0; v < variants.size(); ++v) {
        auto step = sim.route(variants[v].engine, variants[v].plugin_options);
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
  struct Cleanup {
    std::string dir;
    ~Cleanup() { std::filesystem::remove_all(dir); }
  } cleanup{root};
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
