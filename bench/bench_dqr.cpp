// bench_dqr: DQR after one link fault vs a full re-route, on the 20x20 mesh (DOR base) and
// the 648-port two-level fat tree (ft-minhop base). Prints, per topology (median of several
// faults): DQR time, channel-list build time (background work in the paper, done once after
// routing), full re-route time, their ratio, and entries changed vs a full re-route.
// Goals (brief): >= 20x faster than a full re-route and < 5 % of the LFT entries changed.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <random>

#include "ftroute/cdg.hpp"
#include "ftroute/channel_list.hpp"
#include "ftroute/dqr.hpp"
#include "ftroute/engine.hpp"
#include "ftroute/topology.hpp"

using namespace ftroute;
using Clock = std::chrono::steady_clock;

static double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count() * 1e3; }

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

static void bench(const char* name, Fabric f, const std::string& base_engine, const std::string& full_engine,
                  DqrOptions o, int samples) {
  f.assign_lids();
  auto base = make_engine(base_engine);
  auto t = Clock::now();
  Routing r = base->route(f);
  double base_ms = since(t);
  t = Clock::now();
  ChannelList list0 = ChannelList::build(f, r);
  double list_ms = since(t);
  std::vector<std::pair<int, int>> links;
  for (int s : f.switches())
    for (int p = 1; p <= f.node(s).num_ports; p++) {
      const Port& pt = f.node(s).port(p);
      if (pt.connected() && f.node(pt.peer_node).is_switch() && pt.peer_node > s) links.push_back({s, p});
    }
  if (const char* rep = std::getenv("BENCH_DQR_PROFILE")) {  // profiling aid: DQR only, one fault, N times
    Fabric g = f;
    g.disconnect(links[links.size() / 2].first, links[links.size() / 2].second);
    for (int i = 0; i < std::atoi(rep); i++) {
      ChannelList list = list0;
      DqrResult res = dqr_reconfigure(list, f, g, r, o);
      if (i == 0) std::printf("%s: DQR %.2f ms\n", name, res.seconds * 1e3);
    }
    return;
  }
  std::mt19937_64 rng(42);
  std::vector<double> dfs_calls, dfs_visited;
  std::vector<double> dqr_ms, full_ms, changed_pct, full_changed_pct, flows_pct;
  int ok = 0;
  for (int i = 0; i < samples; i++) {
    auto [s, p] = links[topo::uniform_index(rng, links.size())];
    Fabric g = f;
    g.disconnect(s, p);
    ChannelList list = list0;
    const uint64_t c0 = list.dfs_calls(), v0 = list.dfs_visited();
    DqrResult res = dqr_reconfigure(list, f, g, r, o);
    dfs_calls.push_back(static_cast<double>(list.dfs_calls() - c0));
    dfs_visited.push_back(static_cast<double>(list.dfs_visited() - v0));
    if (!res.ok) continue;
    ok++;
    dqr_ms.push_back(res.seconds * 1e3);
    changed_pct.push_back(100.0 * static_cast<double>(res.entries_changed) / static_cast<double>(res.entries_total));
    flows_pct.push_back(100.0 * static_cast<double>(res.flows_affected) / static_cast<double>(res.flows_total));
    auto full = make_engine(full_engine);
    t = Clock::now();
    Routing fr = full->route(g);
    full_ms.push_back(since(t));
    uint64_t diff = 0, total = 0;
    for (int sw : g.switches())
      for (Lid l = 1; l <= g.max_lid(); l++) {
        if (r.lfts.get(sw, l) == kNoPath) continue;
        total++;
        if (fr.lfts.get(sw, l) != r.lfts.get(sw, l)) diff++;
      }
    full_changed_pct.push_back(100.0 * static_cast<double>(diff) / static_cast<double>(total));
  }
  double d = median(dqr_ms), fm = median(full_ms);
  std::printf("%s (%s base, %zu switches, %d/%d faults repaired by %s)\n", name, base_engine.c_str(),
              f.switches().size(), ok, samples, o.variant_name().c_str());
  std::printf("  base routing %.1f ms, channel list build %.1f ms (once, after routing)\n", base_ms, list_ms);
  std::printf("  DQR median %.2f ms | full re-route (%s) median %.2f ms | speed-up %.1fx (goal >= 20x) %s\n", d,
              full_engine.c_str(), fm, d > 0 ? fm / d : 0.0, d > 0 && fm / d >= 20 ? "MET" : "NOT MET");
  std::printf("  DQR + list build %.2f ms | speed-up incl. list build %.2fx\n", d + list_ms, fm / (d + list_ms));
  std::printf("  entries changed: DQR %.2f %% (goal < 5 %%) %s | full re-route %.2f %% | ratio %.3f\n",
              median(changed_pct), median(changed_pct) < 5 ? "MET" : "NOT MET", median(full_changed_pct),
              median(full_changed_pct) > 0 ? median(changed_pct) / median(full_changed_pct) : 0.0);
  std::printf("  can_enable searches per reconfiguration (median): %.0f, channels visited %.0f\n", median(dfs_calls),
              median(dfs_visited));
  std::printf("  CA flows rerouted (crossed the fault): %.2f %%\n\n", median(flows_pct));
}

// Usage: bench_dqr [mesh|tree|all] [samples]
int main(int argc, char** argv) {
  const std::string which = argc > 1 ? argv[1] : "all";
  const int samples = argc > 2 ? std::atoi(argv[2]) : 0;
  if (which == "all" || which == "mesh") {
    topo::Grid g;
    g.dims = {20, 20};
    DqrOptions mesh;
    mesh.mesh_plugin = true;
    bench("20x20 mesh", topo::grid(g), "ft-dor", "ft-minhop", mesh, samples > 0 ? samples : 9);
  }
  if (which == "all" || which == "tree") {
    DqrOptions e2e;
    e2e.paths = DqrOptions::Paths::EndToEnd;
    bench("648-port 2-level fat tree", topo::fat_tree648(), "ft-minhop", "ft-minhop", e2e, samples > 0 ? samples : 5);
  }
  return 0;
}
