// Connections lost before re-routing (seed 003 section III-C-1, Eqs. 5-6; campaign/lost.cpp): the
// routes of the intact routing a fault set cuts, counted by hand on a 4-ary 2-tree and against a
// plain per-pair walk; Eq. 6; the same CSV for every job count; older results.csv files; the
// `campaign-table --lost` view; one OpenSM run for the intact routing of an opensm:* engine.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "ftroute/campaign.hpp"
#include "ftroute/campaign_lost.hpp"
#include "ftroute/pipeline.hpp"
#include "ftroute/route_walk.hpp"
#include "ftroute/topology.hpp"

using namespace ftroute;
namespace fs = std::filesystem;

namespace {

std::string tmpdir(const std::string& name) {
  std::string d = fs::temp_directory_path().string() + "/campaign_lost_test_" + std::to_string(getpid()) + "_" + name;
  fs::remove_all(d);
  return d;
}

campaign::Config tree_config(const std::string& spec, const std::string& out = "") {
  campaign::Config c;
  c.fabrics.push_back(campaign::parse_fabric_source(spec, false));
  c.out_dir = out;
  return c;
}

// The routes crossing the failed elements, counted pair by pair (one walk per CA port and CA
// LID, no grouping by switch): the intact fabric routed by `engine`, the faults of inject_faults
// with the run's seed, a route lost when it visits a failed switch or crosses a removed cable.
uint64_t lost_by_pairs(const std::string& spec, const std::string& engine, int links, int switches, int seed) {
  Fabric f = campaign::build_fabric(campaign::parse_fabric_source(spec, false));
  f.assign_lids(0);
  PipelineOptions po;
  po.require_ok = false;
  const Lfts lfts = RoutingPipeline(engine, EngineOptions{}, po).run(f).routing.lfts;
  Fabric faulty = f;
  topo::FaultSpec fsp;
  fsp.seed = static_cast<uint64_t>(seed);
  fsp.keep_connected = true;
  fsp.random_links = links;
  fsp.random_switches = switches;
  topo::inject_faults(faulty, fsp);
  auto gone = [&](int n) { return !faulty.find(f.node(n).id); };
  auto cut = [&](int n, int p) {  // the cable at port p of node n is gone
    if (gone(n) || gone(f.node(n).port(p).peer_node)) return true;
    const Port& y = faulty.node(*faulty.find(f.node(n).id)).port(p);
    return !y.connected() || faulty.node(y.peer_node).id != f.node(f.node(n).port(p).peer_node).id;
  };
  uint64_t lost = 0;
  for (int s : f.cas())
    for (int d : f.cas()) {
      if (s == d) continue;
      const Port& sp = f.node(s).port(1);
      const Lid lid = f.node(d).port(1).base_lid;
      bool crossed = cut(s, 1);
      const PathWalk w = walk_path(f, lfts, sp.peer_node, lid, d, 1, [&](int sw, const RouteHop& h) {
        if (gone(sw) || (h.kind != RouteHop::Dropped && cut(sw, h.port))) crossed = true;
      });
      if (w.end == PathWalk::Delivered && crossed) ++lost;
    }
  return lost;
}

}  // namespace

// A 4-ary 2-tree: 4 leaves of 4 hosts, 4 spines, one cable from every leaf to every spine (16).
// Both engines spread the destinations of a leaf over the spines, one each, so a leaf-spine cable
// carries down the routes of 12 remote hosts to 1 host (12) and up those of the 4 local hosts to
// the 3 remote hosts the spine serves (12): 24 routes, exactly what one failed cable loses, and
// Eq. 5 = 16 x 24 / 16 = 24.
TEST(LostRoutes, OneFailedLinkLosesTheRoutesOfThatLink) {
  const std::string spec = "fattree:4,2";
  campaign::Config c = tree_config(spec);
  const Fabric f = campaign::build_fabric(c.fabrics[0]);
  for (const std::string engine : {"ftree-misroute", "ft-minhop"})
    for (int seed = 1; seed <= 4; ++seed) {
      const campaign::RunResult r = campaign::run_one(c, f, {spec, engine, "1", "0", seed});
      ASSERT_EQ(r.status, "ok") << r.message;
      EXPECT_EQ(r.links_removed, 1);
      EXPECT_EQ(r.lost_routes, 24) << engine << " seed " << seed;
      EXPECT_DOUBLE_EQ(r.lost_eq6, 24.0) << engine;
      EXPECT_EQ(static_cast<uint64_t>(r.lost_routes), lost_by_pairs(spec, engine, 1, 0, seed)) << engine;
    }
}

// A failed leaf takes its 4 hosts: their routes to the 15 others (60) and those of the 12 remote
// hosts to them (48) are lost, 108. A failed spine carries the routes to the 4 hosts it serves
// (one per leaf) from the 12 hosts of the other leaves: 48. Eq. 6 for one switch: (4 x 108 +
// 4 x 48) / 8 = 78.
TEST(LostRoutes, FailedSwitchLosesTheRoutesThroughItAndOfItsHosts) {
  const std::string spec = "fattree:4,2";
  campaign::Config c = tree_config(spec);
  const Fabric f = campaign::build_fabric(c.fabrics[0]);
  std::set<int> seen_hosts_removed;
  for (int seed = 1; seed <= 8; ++seed) {
    const campaign::RunResult r = campaign::run_one(c, f, {spec, "ftree-misroute", "0", "1", seed});
    ASSERT_EQ(r.status, "ok") << r.message;
    ASSERT_EQ(r.switches_removed, 1);
    seen_hosts_removed.insert(r.hosts_removed);
    EXPECT_EQ(r.lost_routes, r.hosts_removed == 4 ? 108 : 48) << "seed " << seed << ", hosts removed " << r.hosts_removed;
    EXPECT_DOUBLE_EQ(r.lost_eq6, 78.0);
    EXPECT_EQ(static_cast<uint64_t>(r.lost_routes), lost_by_pairs(spec, "ftree-misroute", 0, 1, seed));
  }
  EXPECT_EQ(seen_hosts_removed, (std::set<int>{0, 4})) << "the seeds should fail both a leaf and a spine";
}

// A 3-level tree with several failures: the grouped count equals the pair-by-pair walk, and a
// fault-free run loses nothing.
TEST(LostRoutes, SeveralFailuresOnAThreeLevelTreeEqualThePairWalk) {
  const std::string spec = "fattree:4,3";
  campaign::Config c = tree_config(spec);
  const Fabric f = campaign::build_fabric(c.fabrics[0]);
  for (const std::string engine : {"ftree-misroute", "ft-minhop"})
    for (int seed = 1; seed <= 3; ++seed) {
      const campaign::RunResult r = campaign::run_one(c, f, {spec, engine, "3", "1", seed});
      ASSERT_EQ(r.status, "ok") << r.message;
      EXPECT_GT(r.lost_routes, 0);
      EXPECT_EQ(static_cast<uint64_t>(r.lost_routes), lost_by_pairs(spec, engine, 3, 1, seed)) << engine << " " << seed;
      EXPECT_GT(r.lost_eq6, 0);
    }
  const campaign::RunResult none = campaign::run_one(c, f, {spec, "ft-minhop", "0", "0", 1});
  EXPECT_EQ(none.lost_routes, 0);
  EXPECT_EQ(none.lost_eq6, 0.0);
}

// Eq. 6's sums on the 4-ary 2-tree: 240 routes of 3 switches (inter-leaf, 192) or 1 (intra-leaf,
// 48): pi over switches = 192 x 3 + 48 = 624; over the 16 leaf-spine cables 192 x 2 = 384; over
// the 16 host cables 2 x 240. With --host-links a failed cable is any of the 32.
TEST(LostRoutes, IntactRoutingSumsAndHostLinks) {
  campaign::Config c = tree_config("fattree:4,2");
  const Fabric f = campaign::build_fabric(c.fabrics[0]);
  const auto base = campaign::compute_intact_routing(c, f, "fattree:4,2", "ftree-misroute");
  ASSERT_EQ(base->status, "ok") << base->message;
  EXPECT_EQ(base->routes, 240u);
  EXPECT_EQ(base->pi_switches, 624u);
  EXPECT_EQ(base->pi_switch_links, 384u);
  EXPECT_EQ(base->pi_host_links, 480u);
  EXPECT_EQ(base->switches, 8);
  EXPECT_EQ(base->switch_links, 16);
  EXPECT_EQ(base->host_links, 16);
  // one host cable cut: that host's 15 routes out and 15 in
  Fabric faulty = f;
  const int h = *faulty.find("H00");
  faulty.disconnect(h, 1);
  campaign::LostRoutes l = campaign::count_lost_routes(*base, faulty, /*host_links=*/true);
  EXPECT_EQ(l.lost, 30u);
  EXPECT_EQ(l.failed_links, 1);
  EXPECT_DOUBLE_EQ(l.eq6, (384.0 + 480.0) / 32);
  l = campaign::count_lost_routes(*base, faulty, /*host_links=*/false);  // not a candidate: no Eq. 6 term
  EXPECT_EQ(l.lost, 30u);
  EXPECT_EQ(l.failed_links, 0);
  EXPECT_EQ(l.eq6, 0.0);
  // an engine that refuses the intact fabric: no figures
  const auto kns = campaign::compute_intact_routing(c, f, "fattree:4,2", "kns");
  EXPECT_EQ(kns->status, "refused");
  const campaign::RunResult r = campaign::run_one(c, f, {"fattree:4,2", "kns", "1", "0", 1});
  EXPECT_EQ(r.lost_routes, -1);
  EXPECT_TRUE(std::isnan(r.lost_eq6));
}

// The intact routing of a (fabric, engine) is computed once, whichever thread asks first; every
// thread gets the same one.
TEST(LostRoutes, IntactRoutingsSharedAcrossThreads) {
  campaign::Config c = tree_config("fattree:4,3");
  const Fabric f = campaign::build_fabric(c.fabrics[0]);
  campaign::IntactRoutings cache;
  std::vector<const campaign::IntactRouting*> got(8);
  std::vector<std::thread> th;
  for (int i = 0; i < 8; ++i)
    th.emplace_back([&, i] { got[static_cast<size_t>(i)] = cache.get(c, f, "fattree:4,3", i % 2 ? "ft-minhop" : "ftree-misroute").get(); });
  for (auto& t : th) t.join();
  EXPECT_EQ(cache.computed(), 2);
  for (int i = 2; i < 8; ++i) EXPECT_EQ(got[static_cast<size_t>(i)], got[static_cast<size_t>(i % 2)]) << i;
  EXPECT_NE(got[0], got[1]);
}

// --jobs: the same rows (lost routes and Eq. 6 included) for 1, 2 and 4 parallel runs; only the
// CPU time of the routing differs.
TEST(LostRoutes, SameCsvForEveryJobCount) {
  std::vector<std::string> ref;
  for (int jobs : {1, 2, 4}) {
    const std::string d = tmpdir("jobs" + std::to_string(jobs));
    campaign::Config c = tree_config("fattree:4,3", d);
    c.engines = {"ftree-misroute", "ft-minhop"};
    c.link_failures = {"0", "1", "3"};
    c.switch_failures = {"0", "1"};
    c.seeds = 3;
    c.jobs = jobs;
    std::vector<campaign::RunResult> rows = campaign::run_campaign(c);
    ASSERT_EQ(rows.size(), 36u);
    std::vector<std::string> lines;
    std::map<std::string, int64_t> faulty_lost;  // (ft-minhop leaves links unused: a run may lose nothing)
    for (auto r : rows) {
      EXPECT_GE(r.lost_routes, 0) << r.key.id();
      if (r.key.link_failures == "0" && r.key.switch_failures == "0") EXPECT_EQ(r.lost_routes, 0) << r.key.id();
      else faulty_lost[r.key.engine] += r.lost_routes;
      r.route_seconds = 0;
      lines.push_back(campaign::csv_row(r));
    }
    for (const auto& [e, n] : faulty_lost) EXPECT_GT(n, 0) << e;
    EXPECT_EQ(faulty_lost.size(), 2u);
    std::sort(lines.begin(), lines.end());
    if (ref.empty()) ref = lines;
    else EXPECT_EQ(lines, ref) << "jobs " << jobs;
    fs::remove_all(d);
  }
}

// A results.csv from before the lost columns: read with the figures unknown (written back as empty
// fields); a campaign resumed in its directory rewrites it with the full header, keeps its rows and
// adds the new ones with their figures.
TEST(LostRoutes, OlderResultsCsvReadsAndResumes) {
  const std::string d = tmpdir("old");
  campaign::Config c = tree_config("fattree:4,2", d);
  c.engines = {"ft-minhop"};
  c.link_failures = {"1"};
  c.seeds = 2;
  c.jobs = 1;
  campaign::run_campaign(c);
  // strip the columns added since lost_routes (the lost-route pair and the later simulation
  // columns): header and rows, as a file written before them
  std::ifstream in(d + "/results.csv");
  std::string line, old;
  const std::string suffix = ",lost_routes,lost_eq6,sim_net_latency,sim_hca_min,sim_hca_q1,sim_hca_median,sim_hca_q3,sim_hca_max";
  while (std::getline(in, line)) {
    if (old.empty()) {
      ASSERT_EQ(line.substr(line.size() - suffix.size()), suffix);
      old += line.substr(0, line.size() - suffix.size()) + "\n";
      continue;
    }
    for (int k = 0; k < 8; k++) line.erase(line.rfind(','));
    old += line + "\n";
  }
  in.close();
  std::vector<campaign::RunResult> rows = campaign::parse_csv(old, "old.csv");
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& r : rows) {
    EXPECT_EQ(r.lost_routes, -1);
    EXPECT_TRUE(std::isnan(r.lost_eq6));
    const std::string row = campaign::csv_row(r);
    EXPECT_EQ(row.substr(row.size() - 2), ",,") << row;
  }
  std::ofstream(d + "/results.csv") << old;
  c.seeds = 3;  // one run more
  rows = campaign::run_campaign(c);
  ASSERT_EQ(rows.size(), 3u);
  for (const auto& r : rows) EXPECT_EQ(r.lost_routes, r.key.seed == 3 ? 24 : -1) << r.key.id();
  std::ifstream again(d + "/results.csv");
  std::getline(again, line);
  EXPECT_EQ(line, campaign::csv_header());
  // the view counts the rows without figures apart
  const std::string t = campaign::lost_routes_table(rows);
  EXPECT_NE(t.find("| fattree:4,2 | 1 links | ft-minhop | 1 of 3 * | 24 [24-24] (24-24) | 24.0 | 24.0 | 1.00 | 1.00 |"),
            std::string::npos) << t;
  fs::remove_all(d);
}

TEST(LostRoutes, QuantilesAndTable) {
  EXPECT_DOUBLE_EQ(campaign::quantile({10, 20, 30, 40, 50}, 0.25), 20);
  EXPECT_DOUBLE_EQ(campaign::quantile({10, 20, 30, 40}, 0.5), 25);
  EXPECT_DOUBLE_EQ(campaign::quantile({10, 20, 30, 40}, 0.25), 17.5);
  EXPECT_DOUBLE_EQ(campaign::quantile({7}, 0.75), 7);
  EXPECT_TRUE(std::isnan(campaign::quantile({}, 0.5)));
  std::vector<campaign::RunResult> rows;
  const int lost[] = {50, 10, 40, 20, 30};
  for (int s = 1; s <= 5; ++s) {
    campaign::RunResult a, b;
    a.key = {"f", "A", "2", "0", s};
    a.lost_routes = lost[s - 1];
    a.lost_eq6 = 25;
    b.key = {"f", "B", "2", "0", s};
    b.lost_routes = s == 1 ? 0 : 100;
    b.lost_eq6 = s == 1 ? 0 : 80;
    rows.push_back(b);
    rows.push_back(a);
  }
  const std::string t = campaign::lost_routes_table(rows, {"A", "B"});
  EXPECT_NE(t.find("| f | 2 links | A | 5 | 30 [20-40] (10-50) | 30.0 | 25.0 | 1.20 | 1.20 |\n"), std::string::npos) << t;
  EXPECT_NE(t.find("| f | 2 links | B | 5 | 100 [100-100] (0-100) | 80.0 | 64.0 | 1.56 | 1.25 |\n"), std::string::npos) << t;
  EXPECT_LT(t.find("| A |"), t.find("| B |"));
  EXPECT_EQ(t.find("*: runs without"), std::string::npos);
}

// opensm:<x>: the intact routing comes from one OpenSM run on the intact fabric, shared by the
// campaign's runs (4 runs + 1 intact routing = 5 run directories kept), and minhop's routes of
// the 4-ary 2-tree lose 24 per failed cable as above.
TEST(Campaign, OpenSmLostRoutesFromOneIntactRun) {
  if (!fs::exists("/usr/sbin/opensm") || !fs::exists("/usr/bin/ibsim")) GTEST_SKIP() << "ibsim/opensm not installed";
  const std::string d = tmpdir("opensm");
  campaign::Config c = tree_config("fattree:4,2", d);
  c.engines = {"opensm:minhop"};
  c.link_failures = {"0", "1"};
  c.seeds = 2;
  c.jobs = 2;
  c.opensm_timeout = 30;
  c.keep_scratch = true;
  const std::vector<campaign::RunResult> rows = campaign::run_campaign(c);
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& r : rows) {
    ASSERT_EQ(r.status, "ok") << r.message;
    EXPECT_EQ(r.lost_routes, r.key.link_failures == "1" ? 24 : 0) << r.key.id();
  }
  int dirs = 0, intact = 0;
  for (const auto& e : fs::directory_iterator(d + "/scratch")) {
    ++dirs;
    std::ifstream net(e.path() / "input.net");
    std::string first;
    std::getline(net, first);
    intact += first.find("campaign intact routing fattree:4,2|opensm:minhop") != std::string::npos;
  }
  EXPECT_EQ(dirs, 5);  // 4 runs, 1 intact routing
  EXPECT_EQ(intact, 1);
  fs::remove_all(d);
}
