// The ftree-misroute engine inside a real OpenSM 3.3.23 (libftroute.so) on the shipped 4-ary
// 3-tree (ibsim_topologies/nets/4ary3tree.net, 48 switches, 64 HCAs):
//  * fault-free and after each of 5 seeded sets of 1..3 failed switch-to-switch links (ibsim
//    `Unlink` on a running OpenSM daemon, `event_plugin_name ftroute`, `routing_engine
//    ftree-misroute`), OpenSM reports "ftree-misroute tables configured" (no minhop fallback), the
//    LFTs read back with dump_fts equal what FtreeMisrouteEngine computes offline on the
//    ibnetdiscover fabric, every pair is delivered without loops, the CDG on VL0 is acyclic and
//    no LFT entry uses a dead link; after `ReLink` the fault-free routing comes back;
//  * contrast on the shipped faulty variant 4ary3tree_f3.net (3 failed switch links): OpenSM's
//    own `ftree` refuses it ("Fabric topology is not a fat-tree") and OpenSM falls back to
//    minhop, while ftree-misroute routes the same simulated fabric (live == offline, checks ok,
//    ibdmchk finds no credit loop in OpenSM's dump).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <tuple>
#include <vector>

#include "fabric_check.hpp"
#include "ftree_misroute/ftree_misroute.hpp"
#include "harness.hpp"
#include "plugin_itest.hpp"

using namespace ftroute;
using namespace ftroute::itest;

namespace {

std::string net(const std::string& file) { return source_dir() + "/ibsim_topologies/nets/" + file; }

OpensmConfig misroute_cfg() { return plugin_config("ftree-misroute"); }

// The plugin hands the engine the fabric in OpenSM's node order (node_guid_tbl: ascending node
// GUID, id = node description); ibnetdiscover lists nodes in discovery order. The engine orders
// switches by GUID itself, so both must give the same LFTs; the test routes the discovered fabric
// as listed and rebuilt in GUID order (same nodes, links, LIDs) and expects both to match.
Fabric guid_ordered(const Fabric& f) {
  std::vector<int> order(static_cast<size_t>(f.size()));
  for (int i = 0; i < f.size(); i++) order[static_cast<size_t>(i)] = i;
  std::sort(order.begin(), order.end(), [&](int a, int b) { return f.node(a).guid < f.node(b).guid; });
  Fabric g;
  std::vector<int> to(static_cast<size_t>(f.size()), -1);
  for (int i : order) {
    const Node& n = f.node(i);
    int j = g.add_node(n.type, n.desc, n.num_ports, n.guid);
    g.node(j).desc = n.desc;
    for (int p = 0; p <= n.num_ports && p < static_cast<int>(n.ports.size()); p++) g.node(j).ports[static_cast<size_t>(p)].guid = n.ports[static_cast<size_t>(p)].guid;
    to[static_cast<size_t>(i)] = j;
  }
  for (int i = 0; i < f.size(); i++) {
    const Node& n = f.node(i);
    for (int p = 1; p <= n.num_ports; p++) {
      const Port& pt = n.port(p);
      if (pt.connected() && std::tie(i, p) < std::tie(pt.peer_node, pt.peer_port))
        g.connect(to[static_cast<size_t>(i)], p, to[static_cast<size_t>(pt.peer_node)], pt.peer_port);
    }
  }
  for (const EndPort& e : f.end_ports()) g.set_lid(to[static_cast<size_t>(e.node)], e.port, e.base_lid, e.lmc);
  return g;
}


// A switch-to-switch link by ibsim node ids (desc) and ports, lower end first.
struct SwLink {
  std::string a;
  int pa;
  std::string b;
  int pb;
  bool operator<(const SwLink& o) const { return std::tie(a, pa) < std::tie(o.a, o.pa); }
};

std::vector<SwLink> switch_links(const Fabric& f) {
  std::vector<SwLink> out;
  for (int s : f.switches()) {
    const Node& n = f.node(s);
    for (int p = 1; p <= n.num_ports; p++) {
      const Port& port = n.ports[p];
      if (!port.connected() || !f.node(port.peer_node).is_switch()) continue;
      SwLink l{n.desc, p, f.node(port.peer_node).desc, port.peer_port};
      if (std::tie(l.a, l.pa) < std::tie(l.b, l.pb)) out.push_back(l);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

using Live = LiveRouting;

// Live LFTs are ftree-misroute's: same as offline on the discovered fabric, all checks pass.
void expect_misroute_routing(const Live& l, const std::string& what) {
  EXPECT_TRUE(l.check.ok()) << what << ": " << l.check.summary();
  Routing off = FtreeMisrouteEngine().route(l.fabric);  // discovery order
  EXPECT_EQ(off.num_vls, 1) << what;
  std::string first;
  EXPECT_EQ(lft_differences(l.fabric, l.lfts, l.fabric, off.lfts, &first), 0) << what << " (discovery order): " << first;
  Fabric g = guid_ordered(l.fabric);
  Routing off_g = FtreeMisrouteEngine().route(g);  // OpenSM's order
  EXPECT_EQ(lft_differences(l.fabric, l.lfts, g, off_g.lfts, &first), 0) << what << " (GUID order): " << first;
}

}  // namespace

TEST(FtreeMisroutePlugin, SeededSwitchLinkFaultsOnRunningOpensm) {
  REQUIRE_PLUGIN();
  SimFabric sim("ftmis_faults");
  sim.start(net("4ary3tree.net"));
  sim.start_opensm_daemon(misroute_cfg());
  ASSERT_EQ(sim.engine_used(), "ftree-misroute") << sim.opensm_log();

  Live l0 = read_live(sim);
  ASSERT_EQ(l0.fabric.switches().size(), 48u);
  expect_misroute_routing(l0, "fault-free");
  std::vector<SwLink> links = switch_links(l0.fabric);
  ASSERT_EQ(links.size(), 128u);

  for (unsigned seed = 1; seed <= 5; seed++) {
    const size_t nfail = 1 + (seed - 1) % 3;  // 1, 2, 3, 1, 2 links
    std::vector<SwLink> pick = links;
    std::shuffle(pick.begin(), pick.end(), std::mt19937(seed));
    pick.resize(nfail);
    std::string what = "seed " + std::to_string(seed) + " (";
    for (const SwLink& d : pick) what += " \"" + d.a + "\"[" + std::to_string(d.pa) + "]-\"" + d.b + "\"[" + std::to_string(d.pb) + "]";
    what += " )";
    SCOPED_TRACE(what);

    for (const SwLink& d : pick) sim.unlink(d.a, d.pa);
    ASSERT_TRUE(sim.wait_for_reroute(30, 1.5)) << sim.opensm_log();
    EXPECT_EQ(sim.engine_used(), "ftree-misroute") << "fell back; log in " << sim.opensm_dir();

    Live l = read_live(sim);
    ASSERT_EQ(switch_links(l.fabric).size(), links.size() - nfail) << "links not down in the simulator";
    expect_misroute_routing(l, what);
    for (const SwLink& d : pick) {
      EXPECT_EQ(entries_using_port(l.lfts, *find_node(l.fabric, d.a), d.pa), 0) << "dead link used at " << d.a;
      EXPECT_EQ(entries_using_port(l.lfts, *find_node(l.fabric, d.b), d.pb), 0) << "dead link used at " << d.b;
    }

    for (const SwLink& d : pick) sim.relink(d.a, d.pa);
    ASSERT_TRUE(sim.wait_for_reroute(30, 1.5)) << sim.opensm_log();
  }
  // back to the intact tree: the fault-free routing again
  Live back = read_live(sim);
  EXPECT_EQ(switch_links(back.fabric).size(), links.size());
  expect_misroute_routing(back, "after ReLink");
  EXPECT_EQ(sim.engine_used(), "ftree-misroute");
}

TEST(FtreeMisroutePlugin, OpensmFtreeFallsBackWhereMisrouteRoutes) {
  REQUIRE_PLUGIN();
  SimFabric sim("ftmis_contrast");
  sim.start(net("4ary3tree_f3.net"));

  OpensmConfig ftree;
  ftree.engines = {"ftree"};
  OpensmRun base = sim.run_opensm_once(ftree);
  ASSERT_TRUE(base.subnet_up) << base.log;
  EXPECT_EQ(base.engine_used, "minhop") << "OpenSM's ftree accepted the faulty tree; log in " << base.dir;
  EXPECT_NE(base.log.find("Fabric topology is not a fat-tree"), std::string::npos) << base.log;

  OpensmRun run = sim.run_opensm_once(misroute_cfg());
  ASSERT_TRUE(run.subnet_up) << run.log;
  EXPECT_EQ(run.engine_used, "ftree-misroute") << "fell back; log in " << run.dir;
  EXPECT_EQ(run.log.find("ERR FT"), std::string::npos) << run.log;
  Live l = read_live(sim);
  EXPECT_EQ(switch_links(l.fabric).size(), 125u);
  expect_misroute_routing(l, "4ary3tree_f3");
  // independent cross-check of OpenSM's own dump (one VL: ibdmchk's credit-loop search applies)
  IbdmchkResult chk = run_ibdmchk(run.dump_dir, sim.scratch());
  ASSERT_TRUE(chk.ran) << chk.text;
  EXPECT_FALSE(chk.credit_loops) << chk.text;
}
