// The FT-DRB evaluation of issue 8 (docs/ftdrb.md "Evaluation"), run by `ftroute ftdrb-eval`.
//
// For every topology x fault level x traffic pattern it sweeps the offered load up to
// saturation in flitsim and compares, relative to the same method on the fault-free fabric:
//   single        base LID only (LID offset 0 of the ftdrb routing: balanced min-hop paths, same
//                 SLs/VLs), LFTs re-computed by the subnet manager for the faulty fabric
//                 ("single path + re-route");
//   ftdrb         FT-DRB source (LidPolicy::FtDrb: latency-weighted metapath over the 2^LMC
//                 LIDs) on the ftdrb LFTs re-computed for the faulty fabric (intact trees kept);
//   ftdrb-static  FT-DRB source on the fault-free LFTs with the failed links dead from cycle 0:
//                 no re-route at all, the sources learn the faults by notifications (thesis set-up);
//   single-static base LID on the fault-free LFTs, links dead from cycle 0 (what a single-path
//                 fabric does before the SM re-routes; not in the default method list);
//   ftree         k-ary n-trees only: the ftree-misroute engine (d-mod-k up/down, one path per
//                 LID) re-run on the faulty fabric - the single-path + re-route baseline with the
//                 best single-path engine for fat trees (the ftdrb base path is plain min-hop).
// Faults are static (present from the first cycle). Everything is deterministic: fault sets
// come from topo::inject_faults(seed), traffic from Config::seed; results do not depend on --jobs.
#include "ftroute/ftdrb_eval.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "ftroute/engine.hpp"
#include "ftroute/pipeline.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/fabric_spec.hpp"
#include "ftroute/topology.hpp"

namespace ftroute::flitsim {

const std::vector<std::string>& ftdrb_eval_methods() {
  static const std::vector<std::string> all = {"single", "ftdrb", "ftdrb-static", "single-static", "ftree"};
  return all;
}

namespace {

struct TopoSpec {
  std::string name;
  Fabric fabric;  // intact, no LIDs
};

// A topology of --topos: a fabric spec (fattree:4,3, torus:8x8, ...) or a legacy name
// (4ary3tree, torus8x8, mesh4x4), fabric_spec.hpp; the name in the tables is the text as given.
TopoSpec make_topo(const std::string& name) {
  try {
    return TopoSpec{name, topo::build_fabric_spec(name)};
  } catch (const topo::SpecError& e) {
    throw FtdrbEvalInputError(std::string("--topos: ") + e.what());
  }
}

// Links of `intact` missing in `faulty` (same node order), once per link.
std::vector<std::pair<int, int>> removed_links(const Fabric& intact, const Fabric& faulty) {
  std::vector<std::pair<int, int>> r;
  for (int i = 0; i < static_cast<int>(intact.size()); i++)
    for (int p = 1; p <= intact.node(i).num_ports; p++) {
      const Port& a = intact.node(i).port(p);
      if (a.connected() && a.peer_node > i && !faulty.node(i).port(p).connected()) r.push_back({i, p});
    }
  return r;
}


struct Scenario {  // one topology at one fault level
  std::string topo;
  double pct = 0;
  int failed = 0, lmc = 0, vls = 0;
  int vcs = 0;  // VCs simulated: the most VLs any routing of this topology needs (same routers in every run)
  Fabric intact, faulty;  // with LIDs
  Routing r_free, r_fault;
  bool has_ftree = false;  // ftree-misroute routed the faulty fabric (k-ary n-trees only)
  Routing r_ftree;
  std::vector<std::pair<int, int>> dead;  // for the *-static methods
};

struct Point {
  double load;
  Result res;
  bool saturated;
};

struct Job {  // one load sweep
  const Scenario* sc;
  std::string pattern, method;
  std::vector<Point> pts;
  double sat = 0, light_lat = 0, light_acc = 0;
  bool light_ok = false, deadlock = false;
  uint64_t dropped = 0, generated = 0, notifications = 0;
};

struct Params {
  std::vector<double> loads;
  int64_t warmup, measure;
  uint64_t seed;
};

// Saturated: deadlock, measured packets not finished within max_drain, average latency above
// 5x the light-load latency, or (with enough packets for the rate to mean something) accepted
// plus dropped flits below 90 % of the offered load.
bool is_saturated(const Result& r, const TrafficSpec& t, int packet_flits, double light_latency) {
  if (r.deadlock.detected || !r.drained) return true;
  if (light_latency > 0 && r.avg_latency > 5 * light_latency) return true;
  double drop_rate = static_cast<double>(r.measured_dropped) * packet_flits /
                     (static_cast<double>(std::max(1, r.endpoints)) * static_cast<double>(t.measure));
  return r.measured_packets >= 500 && r.accepted + drop_rate < 0.9 * r.offered;
}

void run_job(Job& j, const Params& p) {
  const Scenario& sc = *j.sc;
  const bool stat = j.method == "ftdrb-static" || j.method == "single-static";
  const Fabric& f = stat ? sc.intact : sc.faulty;
  const Routing& r = j.method == "ftree" ? sc.r_ftree : stat ? sc.r_free : sc.r_fault;
  Config c;
  c.seed = p.seed;
  c.num_vcs = sc.vcs;
  c.lid_policy = j.method.rfind("ftdrb", 0) == 0 ? LidPolicy::FtDrb : LidPolicy::Base;
  for (double load : p.loads) {
    TrafficSpec t;
    t.pattern = j.pattern;
    t.load = load;
    t.warmup = p.warmup;
    t.measure = p.measure;
    t.max_drain = p.measure;
    t.flush = false;
    Simulator sim(f, r, c);
    if (stat)
      for (auto [n, port] : sc.dead) sim.schedule_link(0, n, port, false);
    Result res = sim.run(t);
    bool s = is_saturated(res, t, c.packet_flits, j.light_lat);
    j.pts.push_back({load, res, s});
    j.sat = std::max(j.sat, res.accepted);
    j.dropped += res.dropped;
    j.generated += res.generated;
    j.notifications += res.ftdrb_notifications;
    if (res.deadlock.detected) j.deadlock = true;
    if (j.pts.size() == 1) j.light_acc = res.accepted;
    if (j.pts.size() == 1 && !s) j.light_ok = true, j.light_lat = res.avg_latency;
    if (s) break;
  }
}

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

}  // namespace

FtdrbEvalTables ftdrb_eval(const FtdrbEvalOptions& opt) {
  const std::vector<std::string>& topos = opt.topos;
  const std::vector<std::string>& patterns = opt.patterns;
  const std::vector<std::string>& methods = opt.methods;
  const std::vector<double>& faults = opt.faults;
  const long lmc_req = opt.lmc;
  const bool spread = opt.spread;
  const long jobs_n = opt.jobs;
  Params prm;
  prm.loads = opt.loads;
  prm.warmup = opt.warmup;
  prm.measure = opt.measure;
  prm.seed = opt.seed;

  // ---- routings (sequential: a few seconds for 16x16) ----
  std::vector<std::unique_ptr<Scenario>> scen;
  std::vector<TopoSpec> specs;
  for (auto& tn : topos) specs.push_back(make_topo(tn));
  for (size_t ti = 0; ti < specs.size(); ti++) {
    RoutingPipeline ftdrb("ftdrb", EngineOptions::parse("max_vls=15"));  // ftroute/pipeline.hpp
    int lmc = static_cast<int>(lmc_req);
    Fabric intact;
    Routing r_free;
    for (;; lmc--) {
      intact = specs[ti].fabric;
      intact.assign_lids(static_cast<uint8_t>(lmc));
      try {
        r_free = ftdrb.run(intact).routing;
        break;
      } catch (const EngineError& e) {
        if (lmc <= 1) throw;
        std::fprintf(stderr, "%s: LMC %d: %s; trying LMC %d\n", specs[ti].name.c_str(), lmc, e.what(), lmc - 1);
      }
    }
    for (auto& pt : patterns) {  // pattern fits this topology? (fail before hours of work)
      TrafficSpec t;
      t.pattern = pt, t.warmup = 0, t.measure = 1, t.max_drain = 0, t.flush = false;
      try {
        Simulator(intact, r_free, Config{}).run(t);
      } catch (const OptionError& e) {
        throw FtdrbEvalInputError(specs[ti].name + ", pattern " + pt + ": " + e.what());
      }
    }
    const int links = static_cast<int>(intact.switch_links().size());
    for (double pct : faults) {
      auto sc = std::make_unique<Scenario>();
      sc->topo = specs[ti].name;
      sc->pct = pct;
      sc->lmc = lmc;
      sc->intact = intact;
      sc->r_free = r_free;
      sc->failed = static_cast<int>(std::lround(pct / 100.0 * links));
      sc->faulty = intact;
      if (sc->failed > 0) {
        topo::FaultSpec fs;
        fs.random_links = sc->failed;
        fs.keep_connected = true;
        uint64_t h = 1469598103934665603ull;  // FNV-1a of the topology name: same faults in any --topos list
        for (unsigned char ch : specs[ti].name) h = (h ^ ch) * 1099511628211ull;
        fs.seed = prm.seed * 1000003u + h + static_cast<uint64_t>(sc->failed);
        topo::inject_faults(sc->faulty, fs);
        sc->dead = removed_links(intact, sc->faulty);
        sc->r_fault = ftdrb.run(sc->faulty, PreviousRouting{&intact, &r_free}).routing;
      } else {
        sc->r_fault = r_free;
      }
      sc->vls = std::max(r_free.num_vls, sc->r_fault.num_vls);
      if (std::find(methods.begin(), methods.end(), "ftree") != methods.end() &&
          specs[ti].name.find("tree") != std::string::npos) {
        try {  // the fat-tree engine re-run on the faulty fabric: single path + re-route
          sc->r_ftree = RoutingPipeline("ftree-misroute", {}).run(sc->faulty).routing;
          sc->has_ftree = true;
        } catch (const EngineError& e) {
          std::fprintf(stderr, "%s %.1f%%: ftree-misroute: %s\n", sc->topo.c_str(), pct, e.what());
        }
      }
      std::fprintf(stderr, "%s %.1f%%: %d of %d switch links failed, LMC %d, %d VLs\n", sc->topo.c_str(), pct,
                   sc->failed, links, lmc, sc->vls);
      scen.push_back(std::move(sc));
    }
    int vcs = 1;
    for (auto& s : scen)
      if (s->topo == specs[ti].name) vcs = std::max(vcs, s->vls);
    if (spread && vcs > 1) {
      // Same VLs in every run of this topology: first fit packs paths onto the lowest layers,
      // so a fabric needing 1 layer would use 1 of the vcs VCs and one needing 3 would use 3
      // (less head-of-line blocking) - that would show up as a fault "gain". Re-route every
      // scenario with the paths spread evenly over vcs layers (the LFTs do not change).
      try {
        for (int round = 0; round < 3; round++) {  // until every routing spreads over the same VLs
          const int target = vcs;
          RoutingPipeline spread("ftdrb", EngineOptions::parse("max_vls=15,spread_vls=" + std::to_string(target)));
          Routing rf = spread.run(intact).routing;
          std::vector<Routing> rs;
          for (auto& s : scen)
            if (s->topo == specs[ti].name)
              rs.push_back(s->failed ? spread.run(s->faulty, PreviousRouting{&intact, &rf}).routing : rf);
          size_t k = 0;
          for (auto& s : scen)
            if (s->topo == specs[ti].name) {
              s->r_free = rf;
              s->r_fault = rs[k++];
              s->vls = std::max(rf.num_vls, s->r_fault.num_vls);
              vcs = std::max(vcs, s->vls);
            }
          if (vcs == target) break;
        }
        std::fprintf(stderr, "%s: paths spread over %d VLs\n", specs[ti].name.c_str(), vcs);
      } catch (const EngineError& e) {
        std::fprintf(stderr, "%s: spreading over %d VLs failed (%s); first-fit layers kept\n",
                     specs[ti].name.c_str(), vcs, e.what());
      }
    }
    for (auto& s : scen)
      if (s->topo == specs[ti].name) s->vcs = vcs;
  }

  // ---- simulations ----
  std::vector<Job> jobs;
  for (auto& sc : scen)
    for (auto& pt : patterns)
      for (auto& m : methods) {
        // the *-static methods equal their re-routed twins on the fault-free fabric
        if (sc->failed == 0 && (m == "ftdrb-static" || m == "single-static")) continue;
        if (m == "ftree" && !sc->has_ftree) continue;
        jobs.push_back({sc.get(), pt, m, {}, 0, 0, 0, false, false, 0, 0, 0});
      }
  std::atomic<size_t> next{0};
  std::mutex mu;
  size_t done = 0;
  auto worker = [&]() {
    for (size_t i; (i = next++) < jobs.size();) {
      run_job(jobs[i], prm);
      std::lock_guard<std::mutex> lk(mu);
      Job& j = jobs[i];
      std::fprintf(stderr, "[%zu/%zu] %s %.1f%% %s %s: sat %.4f, light latency %.1f, %zu points\n", ++done,
                   jobs.size(), j.sc->topo.c_str(), j.sc->pct, j.pattern.c_str(), j.method.c_str(), j.sat,
                   j.light_lat, j.pts.size());
    }
  };
  std::vector<std::thread> th;
  for (long k = 1; k < jobs_n; k++) th.emplace_back(worker);
  worker();
  for (auto& t : th) t.join();

  // ---- tables ----
  auto find = [&](const std::string& topo, double pct, const std::string& pat, const std::string& m) -> const Job* {
    std::string mm = m;
    if (pct == 0 && m == "ftdrb-static") mm = "ftdrb";
    if (pct == 0 && m == "single-static") mm = "single";
    for (auto& j : jobs)
      if (j.sc->topo == topo && j.sc->pct == pct && j.pattern == pat && j.method == mm) return &j;
    return nullptr;
  };
  std::ostringstream md, cs;
  cs << "topology,lmc,vls,pattern,failed_pct,failed_links,method,sat_throughput,rel_sat,light_load,light_accepted,light_latency,"
        "rel_latency,points,saturated_at,generated,dropped,notifications,deadlock\n";
  md << "Saturation throughput (max accepted flits/endpoint/cycle over the sweep) and average latency at the\n"
        "light load "
     << prm.loads.front() << " (cycles), each also relative to the same method on the fault-free fabric.\n\n";
  for (auto& tn : topos) {
    const Scenario* sc0 = nullptr;
    for (auto& s : scen)
      if (s->topo == tn) sc0 = s.get();
    md << "**" << tn << "** (" << sc0->intact.switches().size() << " switches, " << sc0->intact.cas().size()
       << " CAs, " << sc0->intact.switch_links().size() << " switch links; LMC " << sc0->lmc << ", " << sc0->vcs
       << " VCs in every run)\n\n";
    std::vector<std::string> shown;  // methods with runs on this topology (ftree: k-ary n-trees only)
    for (auto& m : methods)
      for (auto& j : jobs)
        if (j.sc->topo == tn && j.method == m) {
          shown.push_back(m);
          break;
        }
    md << "| pattern | failed links | VLs |";
    for (auto& m : shown) md << " " << m << " sat (rel) | " << m << " latency (rel) |";
    if (std::find(methods.begin(), methods.end(), "ftdrb") != methods.end() &&
        std::find(methods.begin(), methods.end(), "single") != methods.end())
      md << " ftdrb / single sat |";
    md << " thesis ref. |\n|---|---|---|";
    for (size_t i = 0; i < shown.size(); i++) md << "---|---|";
    if (std::find(methods.begin(), methods.end(), "ftdrb") != methods.end() &&
        std::find(methods.begin(), methods.end(), "single") != methods.end())
      md << "---|";
    md << "---|\n";
    for (auto& pt : patterns)
      for (auto& s : scen) {
        if (s->topo != tn) continue;
        md << "| " << pt << " | " << fmt("%g", s->pct) << " % (" << s->failed << ") | " << s->vls << " |";
        for (auto& m : shown) {
          const Job* j = find(tn, s->pct, pt, m);
          const Job* j0 = find(tn, 0, pt, m);
          if (!j) {  // ftree-misroute rejected this faulty fabric
            md << " engine fails | - |";
            continue;
          }
          double rs = j0 && j0->sat > 0 ? j->sat / j0->sat : 0;
          double rl = j0 && j0->light_ok && j->light_ok ? j->light_lat / j0->light_lat : 0;
          std::string lost;
          if (j->dropped) lost = ", " + fmt("%.2g %% lost", 100.0 * static_cast<double>(j->dropped) / std::max<double>(1, static_cast<double>(j->generated)));
          md << " " << fmt("%.3f", j->sat) << " (" << fmt("%.0f %%", 100 * rs) << lost << ")" << (j->deadlock ? " DL" : "")
             << " | " << (j->light_ok ? fmt("%.1f", j->light_lat) + " (" + fmt("%.2f", rl) + ")" : "sat") << " |";
          const Point& last = j->pts.back();
          cs << tn << "," << s->lmc << "," << s->vls << "," << pt << "," << s->pct << "," << s->failed << "," << m
             << "," << fmt("%.5f", j->sat) << "," << fmt("%.5f", rs) << "," << prm.loads.front() << "," << fmt("%.5f", j->light_acc) << ","
             << (j->light_ok ? fmt("%.3f", j->light_lat) : "") << "," << (j->light_ok ? fmt("%.5f", rl) : "") << ","
             << j->pts.size() << "," << (last.saturated ? fmt("%g", last.load) : "") << "," << j->generated << "," << j->dropped << ","
             << j->notifications << "," << (j->deadlock ? 1 : 0) << "\n";
        }
        const Job* jf = find(tn, s->pct, pt, "ftdrb");
        const Job* js = find(tn, s->pct, pt, "single");
        if (jf && js) md << " " << fmt("%.2f", js->sat > 0 ? jf->sat / js->sat : 0) << " |";
        std::string ref = "-";
        if (s->pct >= 9.99) ref = (tn.find("tree") != std::string::npos && pt == "uniform") ? "~80 %" : "> 95 %";
        md << " " << ref << " |\n";
      }
    md << "\n";
  }
  // Side by side with the thesis at the highest fault level. The thesis' "performance" is
  // fault-free latency / faulty latency at its (very light) load (spec §6.4).
  const double top = faults.back();
  if (top > 0) {
    md << "**Summary at " << fmt("%g", top) << " % failed links** (perf = light-load latency fault-free / faulty, the "
       << "thesis metric; sat = saturation throughput kept; lost = dropped / generated over the sweep)\n\n"
       << "| topology | pattern | thesis (perf) |";
    for (auto& m : methods) md << " " << m << " perf / sat |";
    md << "\n|---|---|---|";
    for (size_t i = 0; i < methods.size(); i++) md << "---|";
    md << "\n";
    for (auto& tn : topos)
      for (auto& pt : patterns) {
        md << "| " << tn << " | " << pt << " | "
           << ((tn.find("tree") != std::string::npos && pt == "uniform") ? "~80 %" : "> 95 %") << " |";
        for (auto& m : methods) {
          const Job* j = find(tn, top, pt, m);
          const Job* j0 = find(tn, 0, pt, m);
          if (!j || !j0) {
            md << " - |";
            continue;
          }
          std::string perf = j->light_ok && j0->light_ok ? fmt("%.0f %%", 100 * j0->light_lat / j->light_lat) : "sat";
          md << " " << perf << " / " << fmt("%.0f %%", j0->sat > 0 ? 100 * j->sat / j0->sat : 0);
          if (j->dropped)
            md << fmt(", %.2g %% lost", 100.0 * static_cast<double>(j->dropped) / std::max<double>(1, static_cast<double>(j->generated)));
          md << " |";
        }
        md << "\n";
      }
    md << "\n";
  }  return {md.str(), cs.str()};
}

}  // namespace ftroute::flitsim
