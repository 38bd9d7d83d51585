// bench_ftree: routing time of ftree-misroute on the 648-port two-level tree (36 leaves x 18
// hosts, 18 spines) and on a three-level fat tree of radix-36 switches (11664 hosts, 1620
// switches), fault-free and with random switch-link faults. Baseline measured in the same run:
// ft-minhop (balanced min-hop, the reference engine) on the same fabric. The target is
// <= 1.5x OpenSM's ftree; OpenSM itself is not run here (see docs/ftree-misroute.md), so the
// printed ratio is against ft-minhop, a routing of the same work (every switch x every LID).
// CPU time of this process is reported (the machine is shared, wall time is noisy).
//
// Usage: bench_ftree [radix of the 3-level tree (default 36)] [faults (default 8)] [validate]
//   "validate" also checks the big tree (switch sources, CDG), which takes minutes.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

#include "ftroute/engine.hpp"
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

}  // namespace

int main(int argc, char** argv) {
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
