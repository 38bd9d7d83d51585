// Issue 27 item 5: ftree-misroute inside a real OpenSM 3.3.23 (libftroute.so) under ibsim, on
// fabrics with the features of production clusters, through a storm of random cable faults.
//
// Fabrics (both with a SHARP aggregation node on an internal port of every switch):
//  * `ctree:pods=3*3,aggs=3,cores=3,hosts=2,an=1` (27 switches, 18 hosts + 27 ANs), loaded as
//    generated;
//  * the same tree as director chassis whose ASICs all report their chassis GUID
//    (`director=1,chassisguid=shared`, 2 cables per leaf-line pair): ibsim refuses it as generated,
//    so it goes through `ftroute gen` + `ftroute export --to ibsim`, as an admin's dump would.
// For each: OpenSM routes with `routing_engine ftree-misroute` (checked in the log: ftree-misroute
// tables configured, no ERR FT line, no minhop fallback); then 30 seeded random events, each an
// ibsim `Unlink` of a live switch-to-switch cable or a `ReLink` of one unlinked before, at most
// m-1 cables down at once (m = 3 here: docs/ftree-misroute.md section 8, "fewer than m faults are
// tolerated"; this also keeps the fabric physically connected). After every event the test waits
// for OpenSM's next SUBNET UP, asserts OpenSM routed again with ftree-misroute, reads the tables
// back from the simulated switches (ibnetdiscover + dump_fts) and checks what `ftroute check
// --switch-pairs` checks: every pair delivered (switches as sources too, every AN a destination),
// no loops, no entry on a missing port, the CDG on VL0 acyclic, one VL; the simulator shows the
// expected number of cables and no entry uses a dead one. At the end OpenSM and ibsim still run.
// The same storm with `routing_engine dqr` (whose default base on a recognised fat tree is
// ftree-misroute) on the AN tree, 10 events.
// FTROUTE_STORM_SEED=N in the environment replays every storm with seed N instead.
// A refusal inside the storm fails the test with the plugin's ERR FT01 reason, the events so far
// and the `ftroute gen ... --remove-link` command that rebuilds the state offline.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "fabric_check.hpp"
#include "ftroute/netfile.hpp"
#include "ftroute/validate.hpp"
#include "harness.hpp"
#include "plugin_itest.hpp"

using namespace ftroute;
using namespace ftroute::itest;

namespace {

const std::string kAggregationNode = "Mellanox Technologies Aggregation Node";

// A switch-to-switch cable: both ends by ibsim node id (the console's names), GUID and port.
struct Cable {
  std::string a, b;
  int pa = 0, pb = 0;
  uint64_t ga = 0, gb = 0;
  bool operator<(const Cable& o) const { return std::tie(ga, pa) < std::tie(o.ga, o.pa); }
  bool operator==(const Cable& o) const { return ga == o.ga && pa == o.pa; }
};

std::string quoted(const std::string& node, int port) { return "\"" + node + "\"[" + std::to_string(port) + "]"; }
std::string text(const Cable& c) { return quoted(c.a, c.pa) + "-" + quoted(c.b, c.pb); }

// Every switch-to-switch cable of a fabric, lower GUID end first.
std::vector<Cable> switch_cables(const Fabric& f) {
  std::vector<Cable> out;
  for (int s : f.switches()) {
    const Node& n = f.node(s);
    for (int p = 1; p <= n.num_ports; p++) {
      const Port& pt = n.port(p);
      if (!pt.connected() || !f.node(pt.peer_node).is_switch()) continue;
      const Node& m = f.node(pt.peer_node);
      if (std::tie(n.guid, p) > std::tie(m.guid, pt.peer_port)) continue;
      out.push_back({n.id, m.id, p, pt.peer_port, n.guid, m.guid});
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The same cables in a live fabric (ibnetdiscover), by GUID and port.
std::set<std::pair<uint64_t, int>> live_cable_ends(const Fabric& live) {
  std::set<std::pair<uint64_t, int>> ends;
  for (const Cable& c : switch_cables(live)) ends.insert({c.ga, c.pa});
  return ends;
}

struct Storm {
  std::string name;         // scratch dir / socket name
  std::string engine;       // routing_engine and what OpenSM must report using
  std::string options;      // event_plugin_options
  int events = 30;
  unsigned seed = 1;
  int max_down = 2;         // m - 1
  std::string gen_spec;     // the fabric's `ftroute gen` spec (for the offline reproduction)
  std::string gen_net;      // the generated file the simulator copy was made from (GUIDs -> gen ids)
};

// Offline reproduction of the state: gen + --remove-link with the generator's node ids.
std::string repro(const Storm& s, const std::vector<Cable>& down) {
  std::map<uint64_t, std::string> gen_id;
  if (!s.gen_net.empty()) {
    std::vector<std::string> warnings;  // shared chassis GUIDs: known, not news here
    NetReadOptions ro;
    ro.warnings = &warnings;
    const Fabric g = read_net_file(s.gen_net, ro);
    for (const Node& n : g.nodes()) gen_id[n.guid] = n.id;
  }
  auto id = [&](uint64_t g, const std::string& fallback) {
    auto it = gen_id.find(g);
    return it == gen_id.end() ? fallback : it->second;
  };
  std::string cmd = "ftroute gen 'ctree:" + s.gen_spec + "'";
  for (const Cable& c : down) cmd += " --remove-link '" + quoted(id(c.ga, c.a), c.pa) + "'";
  return cmd + " -o state.net && ftroute show-tree state.net && ftroute route -e ftree-misroute state.net -o lfts.dump" +
         " && ftroute check state.net --lfts lfts.dump --switch-pairs";
}

// Lines of `log` from byte `from` on that contain `needle`.
std::string lines_with(const std::string& log, size_t from, const std::string& needle) {
  std::string out;
  std::istringstream in(log.substr(std::min(from, log.size())));
  for (std::string l; std::getline(in, l);)
    if (l.find(needle) != std::string::npos) out += l + "\n";
  return out;
}

// The live state passes the `ftroute check --switch-pairs` checks, uses no dead cable and shows
// exactly the cables that should be up.
void expect_live_ok(const LiveRouting& l, const std::vector<Cable>& all, const std::vector<Cable>& down,
                    const std::string& what) {
  // ANs present and routed like every LID
  int ans = 0;
  for (const Node& n : l.fabric.nodes()) ans += n.desc == kAggregationNode;
  EXPECT_EQ(ans, static_cast<int>(l.fabric.switches().size())) << what << ": an AN on every switch";
  EXPECT_TRUE(l.check.ok()) << what << ": " << l.check.summary();
  Routing live;
  live.lfts = l.lfts;
  live.num_vls = 1;
  ValidateOptions o;
  o.switch_sources = true;  // --switch-pairs
  const ValidationReport v = validate(l.fabric, live, o);
  EXPECT_TRUE(v.ok()) << what << "\n" << format_report(l.fabric, v);
  EXPECT_TRUE(v.deadlock_checked) << what;
  EXPECT_LE(v.vls_used.size(), 1u) << what;
  // every switch and every CA port (ANs included) a source, every LID a destination
  EXPECT_EQ(v.sources, static_cast<int>(l.fabric.end_ports().size())) << what;
  EXPECT_EQ(v.destinations, static_cast<int>(l.fabric.end_ports().size())) << what;
  EXPECT_EQ(v.delivered, v.pairs) << what;
  // the simulator has exactly the cables that should be up
  const auto ends = live_cable_ends(l.fabric);
  EXPECT_EQ(ends.size(), all.size() - down.size()) << what << ": cables up in the simulator";
  for (const Cable& c : down) {
    EXPECT_EQ(ends.count({c.ga, c.pa}), 0u) << what << ": " << text(c) << " still up";
    for (auto [g, p, id] : {std::tuple{c.ga, c.pa, c.a}, std::tuple{c.gb, c.pb, c.b}}) {
      auto n = l.fabric.find_guid(g);
      ASSERT_TRUE(n.has_value()) << what << ": " << id << " not discovered";
      EXPECT_EQ(entries_using_port(l.lfts, *n, p), 0) << what << ": dead cable used at " << quoted(id, p);
    }
  }
}

void run_storm(SimFabric& sim, Storm s) {
  if (const char* e = std::getenv("FTROUTE_STORM_SEED"); e && *e) s.seed = static_cast<unsigned>(std::stoul(e));
  const auto t0 = std::chrono::steady_clock::now();
  const Fabric net = read_net_file(sim.netfile());  // the simulator's fabric, with ibsim's node ids
  const std::vector<Cable> all = switch_cables(net);
  ASSERT_GT(all.size(), 0u);

  sim.start_opensm_daemon(plugin_config(s.engine, s.options));
  ASSERT_EQ(sim.engine_used(), s.engine) << sim.opensm_log();
  const std::string routed = "ftroute: " + s.engine + " routed ";
  EXPECT_EQ(sim.opensm_log().find("ERR FT"), std::string::npos) << sim.opensm_log();
  EXPECT_NE(sim.opensm_log().find(routed), std::string::npos) << sim.opensm_log();
  {
    LiveRouting l0 = read_live(sim);
    ASSERT_EQ(live_cable_ends(l0.fabric).size(), all.size());
    expect_live_ok(l0, all, {}, s.name + " fault-free");
    // the engine saw the ANs as aggregation nodes (no leaves made of spines or cores)
    const std::string ans = std::to_string(l0.fabric.switches().size()) + " aggregation nodes";
    EXPECT_NE(sim.opensm_log().find(ans), std::string::npos) << "no '" << ans << "' in the shape note";
    if (::testing::Test::HasFailure()) return;  // the storm needs a good start
  }

  std::mt19937 rng(s.seed);
  std::vector<Cable> down;
  std::string events;  // the sequence so far, for messages
  std::map<std::string, int> engines;
  int unlinks = 0, relinks = 0;
  for (int e = 1; e <= s.events; e++) {
    // ReLink when at the limit, Unlink when nothing is down, else either (Unlink 60 %)
    const bool relink = !down.empty() && (static_cast<int>(down.size()) >= s.max_down || rng() % 10 >= 6);
    Cable c;
    if (relink) {
      const size_t i = rng() % down.size();
      c = down[i];
      down.erase(down.begin() + static_cast<long>(i));
      events += " " + std::to_string(e) + ":ReLink " + quoted(c.a, c.pa);
      relinks++;
    } else {
      std::vector<Cable> up;
      for (const Cable& x : all)
        if (std::find(down.begin(), down.end(), x) == down.end()) up.push_back(x);
      c = up[rng() % up.size()];
      down.push_back(c);
      events += " " + std::to_string(e) + ":Unlink " + quoted(c.a, c.pa);
      unlinks++;
    }
    const std::string what = s.name + " event " + std::to_string(e) + " (" + (relink ? "ReLink " : "Unlink ") + text(c) +
                             "; down:" + [&] {
                               std::string d;
                               for (const Cable& x : down) d += " " + text(x);
                               return d.empty() ? std::string(" none") : d;
                             }() + ")";
    SCOPED_TRACE(what);
    const size_t log_mark = sim.opensm_log().size();
    const int routed_before = count_occurrences(sim.opensm_log(), routed);
    if (relink)
      sim.relink(c.a, c.pa);
    else
      sim.unlink(c.a, c.pa);
    ASSERT_TRUE(sim.wait_for_reroute(30, 1.0)) << "no SUBNET UP; log in " << sim.opensm_dir();
    const std::string log = sim.opensm_log();
    const std::string used = engine_from_log(log);
    engines[used]++;
    const std::string errors = lines_with(log, log_mark, "ERR FT");
    if (used != s.engine || !errors.empty()) {
      std::vector<Cable> sorted = down;
      std::sort(sorted.begin(), sorted.end());
      FAIL() << s.engine << " not used after event " << e << " (OpenSM used '" << used << "')\n"
             << "plugin: " << (errors.empty() ? "(no ERR FT line)\n" : errors) << "events:" << events
             << "\noffline: " << repro(s, sorted) << "\nlog in " << sim.opensm_dir();
    }
    EXPECT_GT(count_occurrences(log, routed), routed_before) << "OpenSM did not route again";
    LiveRouting l = read_live(sim);
    expect_live_ok(l, all, down, what);
    if (::testing::Test::HasFailure()) {
      std::vector<Cable> sorted = down;
      std::sort(sorted.begin(), sorted.end());
      FAIL() << "events:" << events << "\noffline: " << repro(s, sorted);
    }
  }
  EXPECT_TRUE(sim.opensm_running()) << "OpenSM died; log in " << sim.opensm_dir();
  EXPECT_NE(sim.console("Dump", 5).find("sim>"), std::string::npos) << "ibsim does not answer";
  EXPECT_EQ(sim.opensm_log().find("ERR FT"), std::string::npos);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("[ storm    ] %s: %s, %d events (%d Unlink, %d ReLink), seed %u, at most %d cables down of %zu;"
              " engine after each:",
              s.name.c_str(), s.engine.c_str(), s.events, unlinks, relinks, s.seed, s.max_down, all.size());
  for (const auto& [eng, n] : engines) std::printf(" %s x%d", eng.c_str(), n);
  std::printf("; %.1f s\n[ storm    ] events:%s\n", secs, events.c_str());
}

const std::string kAnTree = "pods=3*3,aggs=3,cores=3,hosts=2,an=1";
const std::string kDirector = "pods=3*3,aggs=3,cores=3,hosts=2,links=2,an=1,director=1,chassisguid=shared";

std::string cli() { return binary_dir() + "/cli/ftroute"; }

// `ftroute gen ctree:SPEC -o DIR/gen.net`.
void gen(const std::string& spec, const std::string& dir) {
  ProcResult g = run_process({cli(), "gen", "ctree:" + spec, "-o", dir + "/gen.net"}, {}, dir, 60);
  if (!g.ok()) throw HarnessError("ftroute gen: " + g.err);
}

// gen, then `ftroute export --to ibsim` (as an admin does with an ibnetdiscover dump); returns
// the ibsim copy's path.
std::string gen_export(const std::string& spec, const std::string& dir) {
  gen(spec, dir);
  ProcResult x = run_process({cli(), "export", dir + "/gen.net", "--to", "ibsim", "-o", dir + "/ibsim.net"}, {}, dir, 60);
  if (!x.ok()) throw HarnessError("ftroute export: " + x.err);
  return dir + "/ibsim.net";
}


}  // namespace

TEST(FtreeStormPlugin, AggregationNodeTreeThirtyEvents) {
  REQUIRE_PLUGIN();
  const std::string dir = fresh_scratch_dir("ftstorm_an_files");
  gen(kAnTree, dir);
  SimFabric sim("ftstorm_an");
  sim.start(dir + "/gen.net");  // ibsim loads it as generated (unique GUIDs)
  run_storm(sim, {.name = "an-tree", .engine = "ftree-misroute", .events = 30, .seed = 27, .max_down = 2,
                  .gen_spec = kAnTree, .gen_net = dir + "/gen.net"});
}

TEST(FtreeStormPlugin, DirectorSharedGuidThirtyEvents) {
  REQUIRE_PLUGIN();
  const std::string dir = fresh_scratch_dir("ftstorm_dir_files");
  const std::string net = gen_export(kDirector, dir);
  {
    SimFabric raw("ftstorm_dir_raw");  // the chassis GUID twice: ibsim refuses the generated file
    EXPECT_THROW(raw.start(dir + "/gen.net", 10), HarnessError);
  }
  SimFabric sim("ftstorm_dir");
  sim.start(net);
  run_storm(sim, {.name = "director", .engine = "ftree-misroute", .events = 30, .seed = 5, .max_down = 2,
                  .gen_spec = kDirector, .gen_net = dir + "/gen.net"});
}

TEST(FtreeStormPlugin, DqrOnAggregationNodeTreeTenEvents) {
  REQUIRE_PLUGIN();
  const std::string dir = fresh_scratch_dir("ftstorm_dqr_files");
  gen(kAnTree, dir);
  SimFabric sim("ftstorm_dqr");
  sim.start(dir + "/gen.net");
  run_storm(sim, {.name = "an-tree-dqr", .engine = "dqr", .events = 10, .seed = 9, .max_down = 2,
                  .gen_spec = kAnTree, .gen_net = dir + "/gen.net"});
  // dqr's full routings are ftree-misroute's
  const std::string log = sim.opensm_log();
  EXPECT_NE(log.find("full routing with base engine 'ftree-misroute'"), std::string::npos) << log;
  EXPECT_EQ(log.find("full routing with base engine 'ft-minhop'"), std::string::npos) << log;
}
