// bench_dqr opensm [reps] [mesh|tree|all] [ENGINE,...]: DQR after one link fault vs OpenSM's own
// full re-route of the same faulty fabric (issue 6, item 6: ">= 20x faster than a full re-route").
// ENGINE,... restricts the OpenSM engines below to those listed (e.g. `dor` alone).
//
// Faults: one switch-switch link removed, three cases per fabric: the middle link of
// Fabric::switch_links() (the link BENCH_DQR_PROFILE uses) and two links drawn with
// mt19937_64(42) (the first two faults of the in-process bench_dqr samples).
//
// OpenSM (bench/osm_sim.hpp): the faulty fabric is loaded into ibsim and OpenSM 3.3.23 routes it
// from scratch with each built-in engine, `reps` times per engine (interleaved), stopped after the
// routing pass; timed = the routing step from its log ("building routing with 'X'" to "X tables
// configured on all switches"), WALL time. Timeout per OpenSM run: 600 s on the mesh (lash takes
// about a minute there), 300 s on the tree. Engines with per-path SLs (dfsssp, lash, nue) run with
// `qos TRUE` as an admin would run them (as campaign/ does); updn gets a root_guid_file on the mesh
// (the central switch: its root detection by min-hop histogram finds none on a mesh). OpenSM
// falls back to minhop silently when an engine fails: the engine that configured the tables is
// read from the log, and a fallback is reported and not counted as that engine's re-route. An
// engine that fails (no routing pass in the log, or the run timed out) is skipped with a message
// and not repeated.
//   20x20 mesh:       dor (OpenSM's dimension-order routing: the base engine's algorithm; on a
//                     mesh with a missing link it takes other minimal paths), updn, dfsssp, nue,
//                     lash (deadlock free) and minhop (fast but cyclic)
//   648-port tree:    ftree, updn, minhop, dfsssp
// DQR (in-process, CPU time of the thread, median of kDqrRepeats runs on a fresh copy of the
// precomputed channel list): ft-dor base + mesh plug-in (mesh-all) on the mesh, ftree-misroute
// base + end-to-end paths (e2e-all) on the tree; channel list, dqr_tables and mesh recognition
// are precomputed (not timed), as in the other modes.
// Printed per fault and engine: OpenSM median, DQR median, ratio OpenSM / DQR, goal >= 20x.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ftroute/dqr/channel_list.hpp"
#include "ftroute/dqr/dqr.hpp"
#include "ftroute/engine.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/error.hpp"
#include "ftroute/grid.hpp"
#include "ftroute/topology.hpp"
#include "osm_sim.hpp"

using namespace ftroute;

int bench_dqr_opensm(int argc, char** argv);

namespace {

constexpr int kDqrRepeats = 15;

double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

std::string link_name(const Fabric& f, int s, int p) {
  const Port& pt = f.node(s).port(p);
  return f.port_name(s, p) + " - " + f.port_name(pt.peer_node, pt.peer_port);
}

struct Fault {
  std::string label;  // "middle", "random 1", ...
  int sw = -1, port = 0;
};

// The middle switch link and two distinct random ones (mt19937_64(42), as bench_dqr's samples).
std::vector<Fault> pick_faults(const Fabric& f) {
  const auto links = f.switch_links();
  std::vector<Fault> out{{"middle", links[links.size() / 2].first, links[links.size() / 2].second}};
  std::mt19937_64 rng(42);
  while (out.size() < 3) {
    auto [s, p] = links[topo::uniform_index(rng, links.size())];
    bool dup = false;
    for (const auto& x : out) dup |= x.sw == s && x.port == p;
    if (!dup) out.push_back({"random " + std::to_string(out.size()), s, p});
  }
  return out;
}

struct EngineResult {
  std::string engine;
  std::string used;             // engine that configured the tables ("" = no routing pass)
  std::string tried;            // "a,b" when OpenSM tried more than one
  std::vector<double> ms;       // routing steps of the runs that used `engine`
  double fallback_ms = -1;      // routing step of a run that fell back
  std::string error;
};

struct Row {
  std::string fabric, fault, engine, used;
  double osm_ms = -1, dqr_ms = -1;
  bool dqr_ok = false;
};

// The switch of least eccentricity over switch links (first in node order): up*/down*'s root on
// the mesh, where OpenSM's root detection by min-hop histogram finds none ("no root nodes were
// found") and updn falls back to minhop; an admin gives it a root_guid_file.
int center_switch(const Fabric& f) {
  int best = -1, best_ecc = 1 << 30;
  for (int s : f.switches()) {
    std::map<int, int> dist{{s, 0}};
    std::vector<int> q{s};
    int ecc = 0;
    for (size_t i = 0; i < q.size(); ++i)
      for (int p = 1; p <= f.node(q[i]).num_ports; ++p) {
        const Port& pt = f.node(q[i]).port(p);
        if (!pt.connected() || !f.node(pt.peer_node).is_switch() || dist.count(pt.peer_node)) continue;
        ecc = std::max(ecc, dist[pt.peer_node] = dist[q[i]] + 1);
        q.push_back(pt.peer_node);
      }
    if (ecc < best_ecc) best = s, best_ecc = ecc;
  }
  return best;
}

bool wants_qos(const std::string& e) { return e == "dfsssp" || e == "lash" || e == "nue"; }

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

void run_fabric(const std::string& name, Fabric f, const std::string& base_engine, DqrOptions o,
                const std::vector<std::string>& engines, int reps, int timeout, const std::string& dir,
                bool updn_root, std::vector<Row>& rows) {
  f.assign_lids();
  // Precomputation once per routing (not timed): base routing, channel list, tables by LID, mesh.
  Routing r = make_engine(base_engine)->route(f);
  const ChannelList list0 = ChannelList::build(f, r);
  o.tables = dqr_tables(f, r);
  if (o.mesh_plugin) {
    auto g = recognise_mesh(f);
    if (g) o.mesh = std::make_shared<const MeshGrid>(*g);
  }
  o.count_affected = false;  // not part of the repair (as the timed runs of the other modes)
  std::printf("%s: %zu switches, %zu CAs; DQR base %s, variant %s; OpenSM engines %s\n", name.c_str(),
              f.switches().size(), f.cas().size(), base_engine.c_str(), o.variant_name().c_str(), join(engines).c_str());
  std::string updn_conf;
  if (updn_root) {
    const int c = center_switch(f);
    std::filesystem::create_directories(dir);
    char guid[32];
    std::snprintf(guid, sizeof guid, "0x%016llx", static_cast<unsigned long long>(f.node(c).guid));
    std::ofstream(dir + "/updn_roots.txt") << guid << "\n";
    updn_conf = "root_guid_file " + dir + "/updn_roots.txt";
    std::printf("  updn root (root_guid_file): %s (%s), the switch of least eccentricity\n", f.node(c).id.c_str(), guid);
  }
  std::fflush(stdout);
  const std::vector<Fault> faults = pick_faults(f);
  for (size_t fi = 0; fi < faults.size(); ++fi) {
    const Fault& fault = faults[fi];
    Fabric g = f;
    g.disconnect(fault.sw, fault.port);
    std::printf("  fault %-8s link %s removed\n", fault.label.c_str(), link_name(f, fault.sw, fault.port).c_str());
    // DQR, in-process
    std::vector<double> dqr;
    DqrResult res;
    for (int i = 0; i < kDqrRepeats; ++i) {
      ChannelList list = list0;
      const double c = thread_cpu_ms();
      res = dqr_reconfigure(list, f, g, r, o);
      dqr.push_back(thread_cpu_ms() - c);
    }
    const double dqr_ms = median_of(dqr);
    if (res.ok)
      std::printf("    DQR %s: %.3f ms CPU (median of %d), %.2f %% of the entries changed\n", o.variant_name().c_str(),
                  dqr_ms, kDqrRepeats, 100.0 * static_cast<double>(res.entries_changed) / static_cast<double>(res.entries_total));
    else
      std::printf("    DQR %s FAILED: %s\n", o.variant_name().c_str(),
                  res.failures.empty() ? "?" : res.failures.front().c_str());
    std::fflush(stdout);
    // OpenSM full re-routes of the faulty fabric
    std::vector<EngineResult> er(engines.size());
    for (size_t e = 0; e < engines.size(); ++e) er[e].engine = engines[e];
    try {
      bench::Sim sim(g, dir + "/fault" + std::to_string(fi), timeout);
      for (int rep = 0; rep < reps; ++rep)
        for (auto& x : er) {
          if (!x.error.empty() || (!x.used.empty() && x.used != x.engine)) continue;  // failed / fell back: not repeated
          bench::OsmRun run{x.engine, false, "", {}};
          if (wants_qos(x.engine)) run.conf.push_back("qos TRUE");
          if (x.engine == "updn" && !updn_conf.empty()) run.conf.push_back(updn_conf);
          std::optional<campaign::OsmRoutingStep> step;
          try {
            step = sim.route(run);
          } catch (const Error& ex) {
            x.error = ex.what();
          }
          if (!step) {
            if (x.error.empty()) x.error = "no complete routing pass in the OpenSM log (failed or timed out after " +
                                           std::to_string(timeout) + " s)";
            std::printf("    OpenSM %-7s SKIPPED: %s\n", x.engine.c_str(), x.error.c_str());
            continue;
          }
          x.used = step->engine;
          if (step->tried.size() > 1) x.tried = join(step->tried);
          if (step->engine != x.engine) {
            x.fallback_ms = step->seconds * 1e3;
            std::printf("    OpenSM %-7s FELL BACK to %s (tried %s): %.1f ms, not a %s re-route; not repeated\n",
                        x.engine.c_str(), step->engine.c_str(), join(step->tried).c_str(), x.fallback_ms, x.engine.c_str());
          } else {
            x.ms.push_back(step->seconds * 1e3);
            std::printf("    OpenSM %-7s run %d: %9.1f ms (engine used: %s)\n", x.engine.c_str(), rep + 1, x.ms.back(),
                        step->engine.c_str());
          }
          std::fflush(stdout);
        }
    } catch (const std::exception& ex) {
      std::printf("    ibsim/OpenSM not available, OpenSM runs of this fault skipped: %s\n", ex.what());
    }
    for (const auto& x : er) {
      Row row{name, fault.label, x.engine, x.used, -1, dqr_ms, res.ok};
      if (!x.ms.empty()) row.osm_ms = median_of(x.ms);
      else if (x.fallback_ms >= 0) row.osm_ms = x.fallback_ms;
      if (!x.error.empty()) row.used = "(failed)";
      rows.push_back(row);
    }
  }
  std::printf("\n");
}

void print_caveat() {
  std::printf("Caveat: OpenSM's routing step is WALL time from its log (ibsim + OpenSM on a shared 2-core box, "
              "includes\n  OpenSM's lid matrices/queuing of the LFT blocks); DQR is the CPU time of the thread, "
              "in-process, with the\n  channel list precomputed. The ratios compare those two clocks.\n");
}

}  // namespace

int bench_dqr_opensm(int argc, char** argv) {
  const int reps = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
  const std::string which = argc > 3 ? argv[3] : "all";
  std::vector<std::string> only;  // argv[4]: comma list of OpenSM engines to keep
  if (argc > 4) {
    std::istringstream list(argv[4]);
    for (std::string e; std::getline(list, e, ',');)
      if (!e.empty()) only.push_back(e);
  }
  auto pick = [&](std::vector<std::string> engines) {
    if (only.empty()) return engines;
    std::vector<std::string> kept;
    for (const auto& e : engines)
      if (std::find(only.begin(), only.end(), e) != only.end()) kept.push_back(e);
    return kept;
  };
  const std::string root = (std::filesystem::temp_directory_path() / ("bench_dqr_" + std::to_string(getpid()))).string();
  bench::ScratchDir cleanup{root};
  std::printf("bench_dqr opensm: DQR (in-process, CPU ms) vs OpenSM 3.3.23 full re-route of the same faulty fabric "
              "(ibsim,\n  routing step from its log, median of %d runs per engine); one link fault at a time\n", reps);
  print_caveat();
  std::printf("\n");
  std::vector<Row> rows;
  if (which == "all" || which == "mesh") {
    topo::Grid grid;
    grid.dims = {20, 20};
    DqrOptions mesh;
    mesh.mesh_plugin = true;
    run_fabric("20x20 mesh", topo::grid(grid), "ft-dor", mesh, pick({"dor", "updn", "dfsssp", "nue", "lash", "minhop"}),
               reps, 600, root + "/mesh", true, rows);
  }
  if (which == "all" || which == "tree") {
    DqrOptions e2e;
    e2e.paths = DqrOptions::Paths::EndToEnd;
    run_fabric("648-port 2-level fat tree", topo::fat_tree648(), "ftree-misroute", e2e,
               pick({"ftree", "updn", "minhop", "dfsssp"}), reps, 300, root + "/tree", false, rows);
  }
  std::printf("Summary: ratio = OpenSM <engine> full re-route (wall ms, median) / DQR (CPU ms, median); goal >= 20x\n");
  std::printf("  %-26s %-9s %-7s %-9s %12s %9s %10s  %s\n", "fabric", "fault", "engine", "used", "OpenSM ms", "DQR ms",
              "ratio", "goal >= 20x");
  for (const auto& r : rows) {
    std::string goal;
    char ratio[32] = "-";
    if (r.osm_ms >= 0 && r.dqr_ok) std::snprintf(ratio, sizeof ratio, "%.0fx", r.osm_ms / std::max(r.dqr_ms, 1e-6));
    if (!r.dqr_ok) goal = "n/a (DQR failed)";
    else if (r.used.empty() || r.used == "(failed)") goal = "n/a (OpenSM failed)";
    else if (r.used != r.engine) goal = "n/a (OpenSM fell back to " + r.used + ")";
    else goal = r.osm_ms / std::max(r.dqr_ms, 1e-6) >= 20 ? "MET" : "NOT MET";
    char osm[32] = "-";
    if (r.osm_ms >= 0) std::snprintf(osm, sizeof osm, "%.1f", r.osm_ms);
    std::printf("  %-26s %-9s %-7s %-9s %12s %9.3f %10s  %s\n", r.fabric.c_str(), r.fault.c_str(), r.engine.c_str(),
                r.used.empty() ? "-" : r.used.c_str(), osm, r.dqr_ms, ratio, goal.c_str());
  }
  // Per engine over the faults (fallbacks and failures do not count as that engine's re-route)
  std::vector<std::pair<std::string, std::string>> order;  // (fabric, engine)
  std::map<std::pair<std::string, std::string>, std::vector<const Row*>> by;
  for (const auto& r : rows) {
    auto k = std::make_pair(r.fabric, r.engine);
    if (!by.count(k)) order.push_back(k);
    by[k].push_back(&r);
  }
  std::printf("Per engine:\n");
  for (const auto& k : order) {
    int met = 0, valid = 0;
    std::string ratios;
    for (const Row* r : by[k]) {
      if (!r->dqr_ok || r->osm_ms < 0 || r->used != r->engine) continue;
      const double q = r->osm_ms / std::max(r->dqr_ms, 1e-6);
      ++valid;
      met += q >= 20;
      char b[32];
      std::snprintf(b, sizeof b, "%s%.0fx", ratios.empty() ? "" : ", ", q);
      ratios += b;
    }
    if (valid == 0)
      std::printf("  %-26s OpenSM %-7s / DQR: no valid %s re-route measured -> goal n/a\n", k.first.c_str(),
                  k.second.c_str(), k.second.c_str());
    else
      std::printf("  %-26s OpenSM %-7s / DQR = %s -> goal >= 20x %s (%d/%d faults)\n", k.first.c_str(), k.second.c_str(),
                  ratios.c_str(), met == valid ? "MET" : "NOT MET", met, valid);
  }
  print_caveat();
  return 0;
}
