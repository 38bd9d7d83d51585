// ftree-misroute inside a real OpenSM 3.3.23 (libftroute.so) on fat trees cabled like clusters
// (issue 16, `ftroute gen ctree`): a tree with leaves of different host counts and an empty leaf,
// a tree with two cables per leaf-spine pair, and a tree with dual-rail (2-port) HCAs on
// neighbouring leaves. For each: OpenSM keeps ftree-misroute (no minhop fallback), the LFTs read
// back from ibsim equal the offline routing of the discovered fabric, every pair is delivered with
// an acyclic CDG on one VL with switches as sources too (--switch-pairs); after an ibsim `Unlink`
// of a switch-to-switch cable (and, on the dual-rail tree, of one rail of an HCA) OpenSM re-routes
// with ftree-misroute again and the same checks hold, with no entry on the dead port.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "fabric_check.hpp"
#include "ftree_misroute/ftree_misroute.hpp"
#include "ftroute/cluster_tree.hpp"
#include "ftroute/netfile.hpp"
#include "ftroute/validate.hpp"
#include "harness.hpp"
#include "plugin_itest.hpp"

using namespace ftroute;
using namespace ftroute::itest;

namespace {

struct Cut {
  std::string node;
  int port;
};

// The live routing is ftree-misroute's and passes the switch-pair check.
void expect_misroute(const LiveRouting& l, const std::string& what, const EngineOptions& opts = {}) {
  EXPECT_TRUE(l.check.ok()) << what << ": " << l.check.summary();
  Routing off = FtreeMisrouteEngine().route(l.fabric, opts);
  EXPECT_EQ(off.num_vls, 1) << what;
  std::string first;
  EXPECT_EQ(lft_differences(l.fabric, l.lfts, l.fabric, off.lfts, &first), 0) << what << ": " << first;
  ValidateOptions o;
  o.switch_sources = true;
  Routing live;
  live.lfts = l.lfts;
  live.num_vls = 1;
  ValidationReport v = validate(l.fabric, live, o);
  EXPECT_TRUE(v.ok()) << what << "\n" << format_report(l.fabric, v);
  EXPECT_LE(v.vls_used.size(), 1u) << what;
}

void run_shape(const std::string& name, const std::string& spec, const std::vector<Cut>& cuts) {
  REQUIRE_PLUGIN();
  SimFabric sim(name);
  sim.start_text(write_net(topo::cluster_tree(topo::parse_cluster_tree(spec)), {}));
  sim.start_opensm_daemon(plugin_config("ftree-misroute"));
  ASSERT_EQ(sim.engine_used(), "ftree-misroute") << sim.opensm_log();
  EXPECT_EQ(sim.opensm_log().find("ERR FT"), std::string::npos) << sim.opensm_log();
  LiveRouting l0 = read_live(sim);
  expect_misroute(l0, spec + " fault-free");

  for (const Cut& c : cuts) sim.unlink(c.node, c.port);
  ASSERT_TRUE(sim.wait_for_reroute(30, 1.5)) << sim.opensm_log();
  EXPECT_EQ(sim.engine_used(), "ftree-misroute") << "fell back; log in " << sim.opensm_dir();
  LiveRouting l = read_live(sim);
  EXPECT_LT(l.fabric.num_links(), l0.fabric.num_links()) << "links not down in the simulator";
  expect_misroute(l, spec + " after Unlink");
  for (const Cut& c : cuts) {
    auto n = find_node(l.fabric, c.node);
    ASSERT_TRUE(n.has_value()) << c.node;
    if (l.fabric.node(*n).is_switch()) {
      EXPECT_EQ(entries_using_port(l.lfts, *n, c.port), 0) << "dead port used at " << c.node;
    }
  }
}

}  // namespace

// Leaves with 6, 6, 3 and 0 hosts; the empty leaf L3 loses one of its cables.
TEST(FtreeShapesPlugin, EmptyLeafTree) {
  run_shape("ftshape_empty", "leaves=8,spines=4,hosts=6/6/3/0", {{"L3", 2}, {"L0", 8}});
}

// Two cables per leaf-spine pair; one cable of the L0-S1 bundle goes down.
TEST(FtreeShapesPlugin, ParallelCableTree) {
  run_shape("ftshape_parallel", "leaves=6,spines=3,hosts=6,links=2", {{"L0", 9}});
}

// Dual-rail HCAs D<even leaf>_x on leaves 2i and 2i+1; one rail of D0_0 and a leaf up-link go down.
TEST(FtreeShapesPlugin, DualRailTree) {
  run_shape("ftshape_dual", "leaves=6,spines=3,hosts=3,dual=2", {{"D0_0", 2}, {"L2", 7}});
}

// Hosts on every core switch are ambiguous from the graph (the cores look like leaves). OpenSM's
// own `root_guid_file` in opensm.conf (the file its ftree reads) reaches ftree-misroute through the
// plugin and gives the 3-level reading; without it the cores are ranked as a leaf level and the
// engine refuses the fabric (OpenSM falls back).
TEST(FtreeShapesPlugin, OpensmRootGuidFileReachesTheEngine) {
  REQUIRE_PLUGIN();
  const Fabric gen = topo::cluster_tree(topo::parse_cluster_tree("pods=2/2,aggs=2,cores=2,hosts=2,tophosts=1"));
  SimFabric sim("ftshape_roots");
  sim.start_text(write_net(gen, {}));
  const std::string roots = sim.scratch() + "/roots.txt";
  {
    std::ofstream r(roots);
    for (int n : gen.switches())
      if (gen.node(n).id[0] == 'C') {
        char b[32];
        std::snprintf(b, sizeof b, "0x%016llx\n", static_cast<unsigned long long>(gen.node(n).guid));
        r << b;
      }
  }
  // without the file: cores taken as leaves, pod-to-pod routes would U-turn at a core outside
  // the valley chain -> the misrouting is refused with a reason and, without the Up*/Down* last
  // resort, OpenSM falls back
  OpensmRun plain = sim.run_opensm_once(plugin_config("ftree-misroute", "ftree-misroute:updn_fallback=false"));
  ASSERT_TRUE(plain.subnet_up) << plain.log;
  EXPECT_EQ(plain.engine_used, "minhop") << plain.log;
  EXPECT_NE(plain.log.find("ERR FT01: ftroute: engine 'ftree-misroute' failed"), std::string::npos) << plain.log;

  OpensmRun rooted = sim.run_opensm_once(plugin_config("ftree-misroute", "", {"root_guid_file " + roots}));
  ASSERT_TRUE(rooted.subnet_up) << rooted.log;
  EXPECT_EQ(rooted.engine_used, "ftree-misroute") << rooted.log;
  EXPECT_NE(rooted.log.find("ftree-misroute: 3-level fat tree"), std::string::npos) << rooted.log;
  LiveRouting l = read_live(sim);
  EngineOptions o;
  o.set("root_guid_file", roots);
  expect_misroute(l, "with root_guid_file", o);
}

// Valley chains inside OpenSM (ftree-misroute:vls=2, `qos TRUE`): a 3-level tree in planes with an
// aggregation node on every switch, so routes between the ANs of different planes turn at a
// leaf. OpenSM keeps ftree-misroute on 2 VLs; the LFTs read back from ibsim equal the offline
// routing of the discovered fabric; OpenSM's SA answers each HCA pair's PathRecord with the
// engine's SL (its destination's chain); the live tables with those SLs are deadlock free per VL,
// and the switches map SL s to VL s. After the Unlink of a spine-core cable the same holds.
TEST(FtreeShapesPlugin, ValleyChainsOnTwoVlsWithQos) {
  REQUIRE_PLUGIN();
  SimFabric sim("ftree_chains");
  sim.start_text(write_net(topo::cluster_tree(topo::parse_cluster_tree("pods=3*2,aggs=2,cores=2,hosts=2,an=1")), {}));
  sim.start_opensm_daemon(plugin_config("ftree-misroute", "ftree-misroute:vls=2", {"qos TRUE"}));
  EngineOptions opts;
  opts.set("vls", "2");
  for (int round = 0; round < 2; round++) {
    const std::string what = round == 0 ? "fault-free" : "after Unlink";
    if (round == 1) {
      sim.unlink("A0_1", 4);  // spine A0_1's cable up to its core
      ASSERT_TRUE(sim.wait_for_reroute(30, 1.5)) << sim.opensm_log();
    }
    const std::string log = sim.opensm_log();
    ASSERT_EQ(sim.engine_used(), "ftree-misroute") << what << ": fell back; log in " << sim.opensm_dir();
    EXPECT_EQ(log.find("ERR FT"), std::string::npos) << log;
    EXPECT_EQ(logged_vls(log, "ftree-misroute"), 2) << what << "\n" << log;
    LiveRouting l = read_live(sim);
    Routing off = FtreeMisrouteEngine().route(l.fabric, opts);
    ASSERT_EQ(off.num_vls, 2) << what;
    std::string first;
    EXPECT_EQ(lft_differences(l.fabric, l.lfts, l.fabric, off.lfts, &first), 0) << what << ": " << first;
    int per_sl[2] = {0, 0};
    for (const EndPort& a : l.fabric.end_ports())
      for (const EndPort& b : l.fabric.end_ports()) {
        if (l.fabric.node(a.node).is_switch() || l.fabric.node(b.node).is_switch() || a.node == b.node) continue;
        const int sl = off.sl(a.base_lid, b.base_lid);
        // every pair towards an SL-1 destination, and a sample of the others
        if (sl == 0 && per_sl[0] >= 12) continue;
        const int got = sa_path_sl(sim, a.base_lid, b.base_lid);
        ASSERT_GE(got, 0) << "saquery failed";
        EXPECT_EQ(got, sl) << what << ": SA PathRecord SL for LID " << a.base_lid << " -> " << b.base_lid;
        per_sl[sl]++;
      }
    EXPECT_GT(per_sl[1], 0) << what << ": no HCA pair on SL 1";
    // the live tables with the engine's SLs (which the SA was just seen to serve), every HCA pair
    Routing live;
    live.lfts = l.lfts;
    live.num_vls = 2;
    live.path_sl = off.path_sl;
    ValidateOptions vo;
    vo.switch_sources = true;
    const ValidationReport rep = validate(l.fabric, live, vo);
    EXPECT_TRUE(rep.ok()) << what << "\n" << format_report(l.fabric, rep);
    EXPECT_TRUE(rep.deadlock_checked && rep.cdg_acyclic) << what << ": " << rep.cycle_text;
    EXPECT_EQ(rep.vls_used, (std::vector<int>{0, 1})) << what;
    for (int s : {l.fabric.switches().front(), l.fabric.switches().back()}) expect_identity_sl2vl(sim, l.fabric, s, 2, what);
  }
}
