// flitsim speed: simulated cycles per second at 0.4 flits/node/cycle uniform load on an 8x8 mesh,
// a 16x16 torus (2 VLs) and an 8-ary 3-tree, printed as ratios against BookSim2 on a machine
// like ours (issue 7 / docs/anchors.md 4.1: ~8.5k-27k cycles/s mesh 8x8, ~2.5k torus 16x16,
// ~160 cycles/s 8-ary 3-tree). BookSim2 is not in this tree, so its figures are the recorded
// reference; the simulator's own work rate (flit-hops/s) is printed too. Also: RSS of a
// 10,648-endpoint fabric (22-ary 3-tree) simulation.
#include <algorithm>
#include <ctime>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "ftroute/flitsim.hpp"
#include "ftroute/flitsim_testnets.hpp"

using namespace ftroute;
using namespace ftroute::flitsim;

static long rss_kb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

// Best of `reps` runs (CPU time): the 2 cores are shared with other jobs, and the fastest run is
// the one least disturbed by them. Every repetition simulates the same thing (same seed).
static double run(const char* name, const Fabric& f, const Routing& r, Config c, int64_t cycles, double ref_lo,
                  double ref_hi, double load = 0.4, int reps = 3, const char* pattern = "uniform") {
  TrafficSpec t;
  t.pattern = pattern;
  t.load = load;
  t.warmup = 1000;
  t.measure = cycles;
  t.max_drain = 0;
  t.flush = false;
  double best = 1e300;
  Result res;
  for (int i = 0; i < reps; i++) {
    Simulator sim(f, r, c);
    std::clock_t c0 = std::clock();
    res = sim.run(t);
    best = std::min(best, static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC);
  }
  double s = best;
  double cps = res.cycles / s;
  double ratio = cps / ref_lo;  // against the fastest BookSim2 figure when a range is given
  if (ref_hi > ref_lo) ratio = cps / ref_hi;
  std::printf("%-15s load %.2f %5d endpoints: %7lld cycles in %6.2f s CPU (best of %d) = %8.0f cycles/s, %5.2f M flit-hops/s, "
              "accepted %.3f, latency %.1f",
              name, load, res.endpoints, static_cast<long long>(res.cycles), s, reps, cps, res.flits_moved / s / 1e6,
              res.accepted, res.avg_latency);
  if (ref_hi > ref_lo)
    std::printf("  | BookSim2 ~%.0f-%.0f cycles/s: %.1fx-%.1fx\n", ref_lo, ref_hi, cps / ref_hi, cps / ref_lo);
  else
    std::printf("  | BookSim2 ~%.0f cycles/s: %.1fx\n", ref_lo, cps / ref_lo);
  return ratio;
}

int main(int argc, char** argv) {
  bool quick = false;
  std::string only;  // --only mesh|torus|tree|big: run one group (profiling)
  for (int i = 1; i < argc; i++) {
    if (std::strcmp(argv[i], "--quick") == 0) quick = true;
    else if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[++i];
    else {
      std::fprintf(stderr, "usage: bench_flitsim [--quick] [--only mesh|torus|tree|big]\n");
      return 2;
    }
  }
  auto want = [&](const char* g) { return only.empty() || only == g; };
  Config c;  // default: VCT, 16-flit packets, 64-flit buffers per VC, 3-cycle router + 1-cycle link
  // The goal: >= 10x BookSim2's cycles/s at 0.4 flits/node/cycle uniform. BookSim2 was
  // measured at 0.4 only on the 8-ary 3-tree; its mesh and torus figures are at lower loads
  // (mesh: 0.1 transpose ~27k, 0.3 uniform ~8.5k; torus: 0.1 uniform ~2.5k), and BookSim2 gets
  // slower as the load (flits to move) grows, so the 0.4 ratios below use its most loaded figure
  // (a conservative comparison); the runs at BookSim2's own loads are the like-for-like ones.
  struct Goal {
    std::string what;
    double ratio;
  };
  std::vector<Goal> goals;
  if (want("mesh")) {
    Fabric f = make_mesh(8, 8, false);
    Routing r = route_dor(f, 8, 8, false);
    goals.push_back({"mesh 8x8 @0.4 vs BookSim2 mesh88 @0.3 (8.5k)",
                     run("mesh 8x8", f, r, c, quick ? 20000 : 200000, 8500, 0)});
    // BookSim2's mesh88_lat runs: 20-flit packets, 0.015 packets/node/cycle uniform = 0.3 flits,
    // and 0.005 packets/node/cycle transpose = 0.1 flits
    Config c20 = c;
    c20.packet_flits = 20, c20.buffer_flits = 80;
    run("mesh 8x8 @0.3", f, r, c20, quick ? 20000 : 200000, 8500, 0, 0.3);
    run("mesh8 transp.", f, r, c20, quick ? 20000 : 200000, 27000, 0, 0.1, 3, "transpose");
  }
  if (want("torus")) {
    Fabric f = make_mesh(16, 16, true);
    Routing r = route_dor(f, 16, 16, true);
    goals.push_back({"torus 16x16 @0.4 vs BookSim2 torus k=16 @0.1 (2.5k)",
                     run("torus 16x16", f, r, c, quick ? 10000 : 50000, 2500, 0)});
    run("torus16 @0.1", f, r, c, quick ? 10000 : 50000, 2500, 0, 0.1);  // BookSim2's torus88 k=16 inj 0.1
  }
  if (want("tree")) {
    Fabric f = make_kary_ntree(8, 3);
    Routing r = route_ntree(f, 8, 3);
    goals.push_back({"8-ary 3-tree @0.4 vs BookSim2 @0.4 (160)", run("8-ary 3-tree", f, r, c, quick ? 5000 : 30000, 160, 0)});
  }
  if (!goals.empty()) std::printf("goal >= 10x BookSim2 at 0.4 load:\n");
  for (auto& g : goals) std::printf("  %-55s %6.1fx  %s\n", g.what.c_str(), g.ratio, g.ratio >= 10 ? "met" : "NOT met");
  if (want("big")) {
    long before = rss_kb();
    Fabric f = make_kary_ntree(22, 3);
    Routing r = route_ntree(f, 22, 3);
    long fabric_kb = rss_kb();
    TrafficSpec t;
    t.load = 0.4, t.warmup = 200, t.measure = quick ? 300 : 2000, t.max_drain = 0, t.flush = false;
    Simulator sim(f, r, c);
    std::clock_t c0 = std::clock();
    Result res = sim.run(t);
    double s = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    long after = rss_kb();
    std::printf("22-ary 3-tree  %5d endpoints, %zu switches: RSS %.1f MB total (fabric+LFTs %.1f MB, simulator %.1f MB); "
                "%lld cycles at 0.4 in %.2f s CPU = %.0f cycles/s (BookSim2 needed 55 MB for the 512-node 8-ary 3-tree)\n",
                res.endpoints, f.switches().size(), after / 1024.0, (fabric_kb - before) / 1024.0,
                (after - fabric_kb) / 1024.0, static_cast<long long>(res.cycles), s, res.cycles / s);
  }
  return 0;
}
