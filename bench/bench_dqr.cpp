// bench_dqr: DQR after one random link fault vs a full re-route, on the 20x20 mesh (ft-dor
// base, mesh plug-in) and the 648-port two-level fat tree (ft-minhop base, end to end).
// Usage: bench_dqr [mesh|tree|all] [samples]   (target run_bench_dqr runs all)
//        bench_dqr opensm [reps (default 3)] [mesh|tree|all]: against OpenSM's own full re-routes
//          under ibsim (dqr_opensm.cpp; target run_bench_dqr_opensm)
//        bench_dqr --opensm R: inside OpenSM under ibsim on the fattree3:R tree, DQR's repair window
//          after an Unlink against ftree-misroute's full re-route (dqr_osm_window.cpp)
//        bench_dqr tree3 R...: DQR at scale on the three-level fat tree of radix R (fattree3:R;
//          radix 56: 3,920 switches, 47,824 LIDs, 187 M LFT entries), base ftree-misroute
//          (default options, as the plugin runs it), end-to-end repair (e2e-all), 15 random
//          switch-to-switch cable faults (seed 42; BENCH_DQR_SAMPLES=N for another count). One
//          line per radix on stdout, exactly
//            radix R: DQR repair median X.XX ms, full re-route median Y.YY ms, speed-up Z.Zx,
//            entries changed P.PP %, precompute T.TT s, peak RSS M MB
//          (details on stderr). Each radix runs in its own child process, so that its peak RSS
//          (getrusage ru_maxrss of that process) is its own. What is timed (CPU time of the
//          process, CLOCK_PROCESS_CPUTIME_ID: ftree-misroute runs on every core):
//           * DQR repair = dqr_reconfigure() with DqrOptions::patched_tables = false (it returns
//             the changed entries, not a copy of all LFTs), including the deadlock-free transition
//             order (DqrResult::changes, and dqr_transition()'s packed stages for the SM), plus
//             writing the changed entries into the SM's copy of the tables (dqr_apply()). The
//             count of affected flows (a metric) is off, as in the other modes.
//           * full re-route = ftree-misroute route() on the faulty fabric (its default CDG
//             self-check included), same run, same faults; speed-up = its median / DQR's median.
//           * entries changed = median of DqrResult::entries_changed / entries_total.
//           * precompute = what is done once per routing, before any fault (the paper's
//             "background" step): ChannelList::build + dqr_tables(); not timed per sample, nor the
//             copy of the channel list each sample starts from (the SM's state).
//          Every repaired routing is then checked (untimed) with a full build_cdg: every CA pair
//          delivered, no loop, no dependency cycle; a failure is printed and the exit status is 1.
//
// What is timed (CPU time of the thread; the box is shared, wall clock is noisy):
//  * DQR = the whole dqr_reconfigure() call: finding the broken entries, mesh plug-in, path
//    searches, turn enabling, transition order. NOT timed: the channel list and the mesh
//    recognition of the fault-free fabric, built once per routing in advance (the paper's
//    "background" step) and printed separately, and copying that list before each sample.
//  * full re-route = the engine route() call on the faulty fabric. On the mesh the base engine
//    ft-dor cannot route a mesh with a missing link, so the baseline is ft-minhop (the
//    topology-agnostic engine that routes it; its result is not even deadlock-free there, so a
//    real full re-route would cost more). The base engine's time on the fault-free fabric and
//    "full re-route + new channel list" are printed as further reference points.
// Goals (issue 6, item 6): >= 20x faster than a full re-route, < 5 % of the LFT entries changed.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <random>
#include <ctime>

#include "ftroute/cdg.hpp"
#include "ftroute/dqr/channel_list.hpp"
#include "ftroute/dqr/dqr.hpp"
#include "ftroute/engine.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/grid.hpp"
#include "ftroute/topology.hpp"

using namespace ftroute;
using Clock = std::chrono::steady_clock;


// CPU time of this thread in ms: the box is shared, so wall-clock times of a few ms are noisy;
// both DQR and the full re-route are single-threaded, so CPU time compares them fairly.
static double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

static void bench(const char* name, Fabric f, const std::string& base_engine, const std::string& full_engine,
                  DqrOptions o, int samples) {
  f.assign_lids();
  auto base = make_engine(base_engine);
  double c = cpu_ms();
  Routing r = base->route(f);
  const double base_ms = cpu_ms() - c;
  // Precomputation, once per routing (the paper builds the channel list "in the background
  // after network configuration has completed"): channel list + mesh recognition.
  c = cpu_ms();
  ChannelList list0 = ChannelList::build(f, r);
  o.tables = dqr_tables(f, r);
  if (o.mesh_plugin) {
    auto g = recognise_mesh(f);
    if (g) o.mesh = std::make_shared<const MeshGrid>(*g);
  }
  const double list_ms = cpu_ms() - c;
  std::vector<std::pair<int, int>> links;
  for (int s : f.switches())
    for (int p = 1; p <= f.node(s).num_ports; p++) {
      const Port& pt = f.node(s).port(p);
      if (pt.connected() && f.node(pt.peer_node).is_switch() && pt.peer_node > s) links.push_back({s, p});
    }
  if (const char* rep = std::getenv("BENCH_DQR_PROFILE")) {  // profiling aid: DQR only, one fault, N times
    Fabric g = f;
    const size_t li = std::getenv("BENCH_DQR_LINK") ? std::strtoul(std::getenv("BENCH_DQR_LINK"), nullptr, 10) % links.size() : links.size() / 2;
    g.disconnect(links[li].first, links[li].second);
    double cpu = 0;
    const int n = std::max(1, std::atoi(rep));
    for (int i = 0; i < n; i++) {
      ChannelList list = list0;
      double c0 = cpu_ms();
      DqrOptions timed = o;
      timed.count_affected = false;
      DqrResult res = dqr_reconfigure(list, f, g, r, timed);
      cpu += cpu_ms() - c0;
    }
    std::printf("%s: DQR %.3f ms CPU (mean of %d)\n", name, cpu / n, n);
    return;
  }
  std::mt19937_64 rng(42);
  std::vector<double> dfs_calls, dfs_visited, ratio, states;
  std::vector<double> dqr_ms, full_ms, changed_pct, full_changed_pct, flows_pct;
  int ok = 0;
  for (int i = 0; i < samples; i++) {
    auto [s, p] = links[topo::uniform_index(rng, links.size())];
    Fabric g = f;
    g.disconnect(s, p);
    ChannelList list = list0;  // the precomputed list (copy not timed: it is the SM's state)
    const uint64_t c0 = list.dfs_calls(), v0 = list.dfs_visited();
    DqrOptions timed = o;
    timed.count_affected = false;  // a metric, not part of the repair: counted in an untimed run below
    c = cpu_ms();
    DqrResult res = dqr_reconfigure(list, f, g, r, timed);  // everything from the fault to the new LFTs
    const double dqr = cpu_ms() - c;
    dfs_calls.push_back(static_cast<double>(list.dfs_calls() - c0));
    dfs_visited.push_back(static_cast<double>(list.dfs_visited() - v0));
    states.push_back(static_cast<double>(res.search_states));
    if (!res.ok) continue;
    ok++;
    dqr_ms.push_back(dqr);
    changed_pct.push_back(100.0 * static_cast<double>(res.entries_changed) / static_cast<double>(res.entries_total));
    {
      ChannelList again = list0;
      const DqrResult counted = dqr_reconfigure(again, f, g, r, o);
      if (counted.lfts != res.lfts) std::printf("  WARNING: counting the affected flows changed the result\n");
      flows_pct.push_back(100.0 * static_cast<double>(counted.flows_affected) / static_cast<double>(counted.flows_total));
    }
    c = cpu_ms();
    // "engine:key=value,..." = engine with options
    const auto colon = full_engine.find(':');
    auto full = make_engine(full_engine.substr(0, colon));
    Routing fr = full->route(g, colon == std::string::npos ? EngineOptions{} : EngineOptions::parse(full_engine.substr(colon + 1)));
    full_ms.push_back(cpu_ms() - c);
    ratio.push_back(full_ms.back() / std::max(dqr, 1e-6));
    uint64_t diff = 0, total = 0;
    for (int sw : g.switches())
      for (Lid l = 1; l <= g.max_lid(); l++) {
        if (r.lfts.get(sw, l) == kNoPath) continue;
        total++;
        if (fr.lfts.get(sw, l) != r.lfts.get(sw, l)) diff++;
      }
    full_changed_pct.push_back(100.0 * static_cast<double>(diff) / static_cast<double>(total));
  }
  const double d = median(dqr_ms), fm = median(full_ms), rt = median(ratio);
  std::printf("%s (%s base, %zu switches, %d/%d random single faults repaired by %s)\n", name, base_engine.c_str(),
              f.switches().size(), ok, samples, o.variant_name().c_str());
  std::printf("  precomputation once per routing: base routing (%s, fault-free) %.2f ms, channel list + tables by LID%s %.2f ms\n",
              base_engine.c_str(), base_ms, o.mesh ? " + mesh recognition" : "", list_ms);
  std::printf("  DQR median %.3f ms | full re-route (%s, faulty fabric) median %.2f ms | speed-up median %.1fx "
              "(goal >= 20x) %s\n",
              d, full_engine.c_str(), fm, rt, rt >= 20 ? "MET" : "NOT MET");
  std::printf("  vs the base engine on the fault-free fabric (%.2f ms): %.1fx | vs full re-route + new channel list "
              "(%.2f ms): %.1fx\n",
              base_ms, base_ms / std::max(d, 1e-6), fm + list_ms, (fm + list_ms) / std::max(d, 1e-6));
  std::printf("  entries changed: DQR %.2f %% (goal < 5 %%) %s | full re-route %.2f %%\n", median(changed_pct),
              median(changed_pct) < 5 ? "MET" : "NOT MET", median(full_changed_pct));
  std::printf("  can_enable searches per reconfiguration (median): %.0f, channels visited %.0f; path search states "
              "popped %.0f (max %.0f)\n",
              median(dfs_calls), median(dfs_visited), median(states),
              states.empty() ? 0.0 : *std::max_element(states.begin(), states.end()));
  std::printf("  CA flows rerouted (crossed the fault): %.2f %%\n\n", median(flows_pct));
}

int bench_dqr_opensm(int argc, char** argv);  // dqr_opensm.cpp
int bench_dqr_osm_window(int argc, char** argv);  // dqr_osm_window.cpp

// CPU time of the whole process in ms (ftree-misroute and build_cdg use every core).
static double process_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

// Resident memory of this process now, MB (/proc/self/statm), 0 if unknown.
static long rss_mb() {
  long pages = 0, resident = 0;
  if (FILE* fp = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(fp, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(fp);
  }
  return resident * (sysconf(_SC_PAGESIZE) / 1024) / 1024;
}

// One radix of `bench_dqr tree3` (run in a child process, see the usage comment). 0 = every
// repair checked fine.
static int bench_tree3(int radix, int samples) {
  Fabric f = topo::fat_tree3(radix);
  f.assign_lids();
  auto engine = make_engine("ftree-misroute");
  double c = process_cpu_ms();
  const Routing r = engine->route(f);
  const double base_ms = process_cpu_ms() - c;
  const long rss0 = rss_mb();
  c = process_cpu_ms();
  const ChannelList list0 = ChannelList::build(f, r);
  const long rss_list = rss_mb();
  DqrOptions o;
  o.paths = DqrOptions::Paths::EndToEnd;
  o.count_affected = false;
  o.patched_tables = false;
  o.tables = dqr_tables(f, r);
  const double pre_ms = process_cpu_ms() - c;
  std::fprintf(stderr,
               "radix %d: %zu switches, %d LIDs; base routing %.2f s CPU; precompute %.2f s CPU (%zu channels, %zu deps); "
               "resident memory: %ld MB before, channel list +%ld MB, tables +%ld MB\n",
               radix, f.switches().size(), static_cast<int>(f.max_lid()), base_ms / 1e3, pre_ms / 1e3, list0.num_channels(),
               list0.num_deps(), rss0, rss_list - rss0, rss_mb() - rss_list);
  std::vector<std::pair<int, int>> links;
  for (int s : f.switches())
    for (int p = 1; p <= f.node(s).num_ports; p++) {
      const Port& pt = f.node(s).port(p);
      if (pt.connected() && f.node(pt.peer_node).is_switch() && pt.peer_node > s) links.push_back({s, p});
    }
  std::mt19937_64 rng(42);
  if (const char* rep = std::getenv("BENCH_DQR_PROFILE")) {  // profiling aid: DQR only, one fault, N times
    size_t li = topo::uniform_index(rng, links.size());
    if (const char* l = std::getenv("BENCH_DQR_LINK")) li = std::strtoul(l, nullptr, 10) % links.size();
    Fabric g = f;
    g.disconnect(links[li].first, links[li].second);
    double cpu = 0, best = 1e30;
    const int n = std::max(1, std::atoi(rep));
    for (int i = 0; i < n; i++) {
      ChannelList list = list0;
      c = process_cpu_ms();
      const DqrResult res = dqr_reconfigure(list, f, g, r, o);
      const double t = process_cpu_ms() - c;
      cpu += t, best = std::min(best, t);
      uint64_t digest = 1469598103934665603ull;  // FNV-1a over the changes: same repair before and after a change
      for (const LftChange& ch : res.changes)
        for (uint64_t v : {uint64_t(ch.sw), uint64_t(ch.lid), uint64_t(ch.old_port), uint64_t(ch.new_port), uint64_t(ch.stage), uint64_t(ch.idle)})
          digest = (digest ^ v) * 1099511628211ull;
      if (i == 0)
        std::fprintf(stderr,
                     "  %s: %llu entries changed (digest %016llx), %llu DLIDs, %llu search states, %llu turns enabled, %llu channels moved, "
                     "%llu can_enable searches over %llu channels\n",
                     res.ok ? "repaired" : "NOT repaired", static_cast<unsigned long long>(res.entries_changed),
                     static_cast<unsigned long long>(digest),
                     static_cast<unsigned long long>(res.dlids_affected), static_cast<unsigned long long>(res.search_states),
                     static_cast<unsigned long long>(res.turns_enabled), static_cast<unsigned long long>(res.channels_moved),
                     static_cast<unsigned long long>(list.dfs_calls() - list0.dfs_calls()),
                     static_cast<unsigned long long>(list.dfs_visited() - list0.dfs_visited()));
    }
    std::printf("radix %d, fault %s: DQR %.3f ms CPU (mean of %d, best %.3f)\n", radix,
                f.port_name(links[li].first, links[li].second).c_str(), cpu / n, n, best);
    return 0;
  }
  std::vector<double> dqr_ms, full_ms, changed_pct;
  Lfts sm = r.lfts;  // the SM's tables: each sample's changes are written in and taken out again
  int bad = 0;
  for (int i = 0; i < samples; i++) {
    auto [s, p] = links[topo::uniform_index(rng, links.size())];
    Fabric g = f;
    g.disconnect(s, p);
    ChannelList list = list0;  // the precomputed list (copy not timed: it is the SM's state)
    c = process_cpu_ms();
    const DqrResult res = dqr_reconfigure(list, f, g, r, o);
    const LftTransition stages = dqr_transition(res, false);
    if (res.ok) dqr_apply(sm, res);
    const double dqr = process_cpu_ms() - c;
    std::fprintf(stderr, "  fault %d %s: %s, %.2f ms, %llu entries changed, %zu stages, %llu search states, %llu turns enabled, %llu channels moved\n", i + 1,
                 f.port_name(s, p).c_str(), res.ok ? "repaired" : "NOT repaired", dqr,
                 static_cast<unsigned long long>(res.entries_changed), stages.stages.size(),
                 static_cast<unsigned long long>(res.search_states), static_cast<unsigned long long>(res.turns_enabled), static_cast<unsigned long long>(res.channels_moved));
    if (!res.ok) {
      bad++;
      continue;
    }
    dqr_ms.push_back(dqr);
    changed_pct.push_back(100.0 * static_cast<double>(res.entries_changed) / static_cast<double>(res.entries_total));
    {  // untimed: the repaired routing is complete, loop-free and deadlock-free
      Routing fixed;
      fixed.engine = r.engine;
      fixed.lfts = std::move(sm);
      CdgBuildOptions co;
      co.switch_sources = false;
      co.collect_loads = false;
      co.hop_histogram = false;
      CdgBuild b = build_cdg(g, fixed, co);
      if (b.stats.dropped || b.stats.looping || b.cdg.find_cycle()) {
        std::fprintf(stderr, "  fault %d: repaired routing FAILS the check (%llu dropped, %llu looping)\n", i + 1,
                     static_cast<unsigned long long>(b.stats.dropped), static_cast<unsigned long long>(b.stats.looping));
        bad++;
      }
      sm = std::move(fixed.lfts);
      for (const LftChange& ch : res.changes) sm.set(ch.sw, ch.lid, ch.old_port);  // back to the fault-free tables
    }
    c = process_cpu_ms();
    const Routing fr = engine->route(g);
    full_ms.push_back(process_cpu_ms() - c);
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  const double d = median(dqr_ms), fm = median(full_ms);
  std::printf("radix %d: DQR repair median %.2f ms, full re-route median %.2f ms, speed-up %.1fx, entries changed %.2f %%, "
              "precompute %.2f s, peak RSS %ld MB\n",
              radix, d, fm, fm / std::max(d, 1e-9), median(changed_pct), pre_ms / 1e3, ru.ru_maxrss / 1024);
  std::fflush(stdout);
  if (bad) std::fprintf(stderr, "radix %d: %d of %d faults not repaired or not checked fine\n", radix, bad, samples);
  return bad ? 1 : 0;
}

// Usage: bench_dqr [mesh|tree|all] [samples] | bench_dqr opensm [reps] [mesh|tree|all] [ENGINE,...]
int main(int argc, char** argv) {
  const std::string which = argc > 1 ? argv[1] : "all";
  if (which == "opensm") {
    try {
      return bench_dqr_opensm(argc, argv);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "bench_dqr opensm: %s\n", e.what());
      return 1;
    }
  }
  if (which == "--opensm") {
    try {
      return bench_dqr_osm_window(argc, argv);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "bench_dqr --opensm: %s\n", e.what());
      return 1;
    }
  }
  if (which == "tree3") {
    const char* ns = std::getenv("BENCH_DQR_SAMPLES");
    const int samples = ns ? std::max(1, std::atoi(ns)) : 15;
    int rc = 0;
    for (int i = 2; i < argc; i++) {
      const int radix = std::atoi(argv[i]);
      if (radix < 4 || radix % 2) {
        std::fprintf(stderr, "bench_dqr tree3: radix '%s' must be an even number >= 4\n", argv[i]);
        return 2;
      }
      std::fflush(stdout);
      const pid_t pid = fork();  // own process: its peak RSS is this radix's alone
      if (pid == 0) {
        int code = 1;
        try {
          code = bench_tree3(radix, samples);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "bench_dqr tree3 %d: %s\n", radix, e.what());
        }
        std::fflush(stdout);
        _exit(code);
      }
      int status = 0;
      if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) rc = 1;
    }
    return rc;
  }
  const int samples = argc > 2 ? std::atoi(argv[2]) : 0;
  if (which == "all" || which == "mesh") {
    topo::Grid g;
    g.dims = {20, 20};
    DqrOptions mesh;
    mesh.mesh_plugin = true;
    bench("20x20 mesh", topo::grid(g), "ft-dor", "ft-minhop", mesh, samples > 0 ? samples : 25);
  }
  if (which == "all" || which == "tree") {
    DqrOptions e2e;
    e2e.paths = DqrOptions::Paths::EndToEnd;
    // ftree-misroute (d-mod-k up/down, the project's fat-tree engine and dqr-eval's base): its
    // full re-route as configured by default includes its own CDG self-check (check=auto)
    bench("648-port 2-level fat tree", topo::fat_tree648(), "ftree-misroute", "ftree-misroute", e2e, samples > 0 ? samples : 15);
    bench("648-port 2-level fat tree", topo::fat_tree648(), "ftree-misroute", "ftree-misroute:check=off", e2e,
          samples > 0 ? samples : 15);
    bench("648-port 2-level fat tree", topo::fat_tree648(), "ft-minhop", "ft-minhop", e2e, samples > 0 ? samples : 15);
  }
  return 0;
}
