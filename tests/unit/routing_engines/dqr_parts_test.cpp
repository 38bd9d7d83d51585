// DQR part by part (routing_engines/engines/dqr/, one suite per file that had no test of its own):
// each suite drives dqr_reconfigure() (or the part's public function) so that its part decides, on
// small meshes and fat trees, and checks what that part promises:
//   DqrDependencies  dependencies.cpp   every dependency of the repaired routing goes up in the list
//   DqrPathSearch    path_search.cpp    new entries avoid the fault and reach their LID, no loop
//   DqrSearchBound   search_bound.cpp   the bound's answers equal the reference DFS (cross_check)
//   DqrDistances     distances.cpp      the distances the repair orders by equal a BFS
//   DqrTraffic       traffic.cpp        the traffic masks equal the in-tree recursion (cross_check)
//   DqrRepair        repair.cpp         the affected entries, LIDs and flows are the routes over the fault
//   DqrStaging       staging.cpp        a change's stage is its hop count along the new routes
//   DqrOptions       options.cpp        variant names round-trip, bad values are named
//   DqrLocalReroute  local_reroute.cpp  tlr repairs two faults at once soundly
//   DqrMeshPlugin    mesh_plugin.cpp    the detour towards the centre is enabled; a non-mesh is named
// (ChannelList, DqrTables, DqrReconf, DqrEngine, DqrEval, DqrTransition: the other test files.)
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <queue>
#include <set>
#include <tuple>

#include "dor/dor.hpp"
#include "ftroute/cdg.hpp"
#include "ftroute/dqr/channel_list.hpp"
#include "ftroute/dqr/dqr.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/topology.hpp"
#include "test_grids.hpp"

using namespace ftroute;

namespace {

Fabric mesh(int x, int y) { return ftroute::mesh({x, y}); }

Fabric without(const Fabric& f, std::initializer_list<std::pair<int, int>> links) {
  Fabric g = f;
  for (auto [s, p] : links) g.disconnect(s, p);
  return g;
}

// Switch hops from switch y to the switch LID d attaches to, along lfts over g's links; -1 when
// an entry is missing, leads over no link, to a CA other than d's, or the walk loops.
int hops_to(const Fabric& g, const Lfts& l, int y, Lid d) {
  const Attach at = g.attach(d);
  for (int hops = 0; hops <= static_cast<int>(g.switches().size()); hops++) {
    const uint8_t p = l.get(y, d);
    if (y == at.sw) return p == at.port ? hops : -1;
    if (p == 0 || p == kNoPath || p > g.node(y).num_ports || !g.node(y).port(p).connected()) return -1;
    y = g.node(y).port(p).peer_node;
    if (!g.node(y).is_switch()) return -1;
  }
  return -1;
}

// Every CA pair delivered, no loop, no CDG cycle, every dependency up in `list`.
void expect_sound(const Fabric& g, const Routing& r, const ChannelList& list, const std::string& ctx) {
  CdgBuild b = build_cdg(g, r);
  EXPECT_EQ(b.stats.looping, 0u) << ctx;
  EXPECT_EQ(b.stats.delivered, b.stats.pairs) << ctx;
  EXPECT_FALSE(b.cdg.find_cycle()) << ctx;
  for (auto [a, c] : b.cdg.edges())
    EXPECT_LT(list.pos(a), list.pos(c)) << ctx << ": " << list.name(a) << " -> " << list.name(c) << " goes down";
}

Routing patched(const Routing& r, const DqrResult& res) { return dqr_routing(r, res); }

// Hop distances to switch t over g's switch links (BFS), -1 where cut off.
std::vector<int> bfs_to(const Fabric& g, int t) {
  std::vector<int> d(static_cast<size_t>(g.size()), -1);
  std::queue<int> q;
  d[static_cast<size_t>(t)] = 0;
  q.push(t);
  while (!q.empty()) {
    const int u = q.front();
    q.pop();
    for (int p = 1; p <= g.node(u).num_ports; p++) {
      const Port& x = g.node(u).port(p);
      if (!x.connected() || !g.node(x.peer_node).is_switch() || d[static_cast<size_t>(x.peer_node)] >= 0) continue;
      d[static_cast<size_t>(x.peer_node)] = d[static_cast<size_t>(u)] + 1;
      q.push(x.peer_node);
    }
  }
  return d;
}

}  // namespace

// dependencies.cpp: the turns a new path adds (its entry, the junction onto a route that reaches
// d) are checked against the list. Whatever the turn mode, the repaired routing's every
// dependency is up in the updated list, and the old routing's dependencies stay in it (all of
// them: every single fault of the 5x5 mesh is repaired on the first attempt, the one that keeps
// the failed link's dependencies).
TEST(DqrDependencies, EveryDependencyOfTheRepairIsUpInTheList) {
  const Fabric f = mesh(5, 5);
  const Routing r = DorEngine().route(f);
  const ChannelList base = ChannelList::build(f, r);
  const auto old_deps = build_cdg(f, r).cdg.edges();
  const auto links = f.switch_links();
  for (auto turns : {DqrOptions::Turns::Single, DqrOptions::Turns::All})
    for (size_t i = 0; i < links.size(); i += 3) {
      const Fabric g = without(f, {links[i]});
      ChannelList list = base;
      DqrOptions o;
      o.paths = DqrOptions::Paths::EndToEnd;
      o.turns = turns;
      const DqrResult res = dqr_reconfigure(list, f, g, r, o);
      const std::string ctx = "fault " + f.port_name(links[i].first, links[i].second);
      ASSERT_TRUE(res.ok) << ctx;
      ASSERT_FALSE(res.changes.empty()) << ctx;
      EXPECT_TRUE(list.valid()) << ctx;
      expect_sound(g, patched(r, res), list, ctx);
      EXPECT_FALSE(res.dropped_failed_deps) << ctx;
      for (auto [a, c] : old_deps) EXPECT_TRUE(list.has_dep(a, c)) << ctx << ": old " << list.name(a) << " -> " << list.name(c);
    }
}

// path_search.cpp: a new entry leads over a working link (never the failed one) and the route it
// starts reaches its LID without a loop; so does every other switch's route to every LID.
TEST(DqrPathSearch, NewEntriesAvoidTheFaultAndReachTheirLid) {
  const Fabric f = mesh(6, 6);
  const Routing r = DorEngine().route(f);
  const ChannelList base = ChannelList::build(f, r);
  const auto links = f.switch_links();
  uint64_t states = 0;
  for (size_t i = 0; i < links.size(); i += 4) {
    const auto [s, p] = links[i];
    const int peer = f.node(s).port(p).peer_node;
    const Fabric g = without(f, {links[i]});
    ChannelList list = base;
    DqrOptions o;
    o.paths = DqrOptions::Paths::EndToEnd;
    const DqrResult res = dqr_reconfigure(list, f, g, r, o);
    const std::string ctx = "fault " + f.port_name(s, p);
    if (!res.ok) continue;  // a failed repair leaves the tables as they were (DqrReconf)
    states += res.search_states;
    for (const LftChange& c : res.changes) {
      ASSERT_NE(c.new_port, kNoPath) << ctx;
      EXPECT_TRUE(g.node(c.sw).port(c.new_port).connected()) << ctx << ": " << g.port_name(c.sw, c.new_port);
      EXPECT_FALSE(c.sw == s && c.new_port == p) << ctx;
      EXPECT_FALSE(c.sw == peer && c.new_port == f.node(s).port(p).peer_port) << ctx;
      EXPECT_GE(hops_to(g, res.lfts, c.sw, c.lid), 0) << ctx << ": " << g.node_name(c.sw) << " LID " << c.lid;
    }
    for (int y : g.switches())
      for (const EndPort& e : g.end_ports()) ASSERT_GE(hops_to(g, res.lfts, y, e.base_lid), 0) << ctx;
  }
  EXPECT_GT(states, 0u) << "no repair needed a path search";
}

// search_bound.cpp: with cross_check every answer of the A* bound's monotone-channel test is
// compared with the reference DFS over the list (a difference throws); the bounded search then
// finds the same repair as the plain one.
TEST(DqrSearchBound, BoundAnswersEqualTheReferenceAndKeepTheRepair) {
  const Fabric f = mesh(7, 7);
  const Routing r = DorEngine().route(f);
  const ChannelList base = ChannelList::build(f, r);
  const auto links = f.switch_links();
  int differ = 0;
  for (size_t i = 0; i < links.size(); i += 7) {
    const Fabric g = without(f, {links[i]});
    DqrOptions o;
    o.paths = DqrOptions::Paths::EndToEnd;
    o.cross_check = true;
    DqrOptions plain = o;
    plain.search_bound = false;
    ChannelList lb = base, lp = base;
    const std::string ctx = "fault " + f.port_name(links[i].first, links[i].second);
    DqrResult rb, rp;
    ASSERT_NO_THROW(rb = dqr_reconfigure(lb, f, g, r, o)) << ctx;
    rp = dqr_reconfigure(lp, f, g, r, plain);
    ASSERT_EQ(rb.ok, rp.ok) << ctx;
    EXPECT_EQ(rb.lfts, rp.lfts) << ctx;
    differ += rb.search_states != rp.search_states;  // the bound changed the search, not its result
    if (rb.ok) expect_sound(g, patched(r, rb), lb, ctx);
  }
  EXPECT_GT(differ, 0) << "the bound never steered a search: nothing was cross-checked";
}

// distances.cpp: the repair orders switches by their hop distance to the destination's switch
// after the fault, from the fault-free table where a shortest path survived, else by a search;
// with cross_check each distance is compared with a BFS (a difference throws). The table itself
// is the fault-free BFS. Two faults on one shortest path force the search.
TEST(DqrDistances, DistancesAfterTheFaultEqualABfs) {
  const Fabric f = mesh(5, 5);
  const Routing r = DorEngine().route(f);
  const auto tables = dqr_tables(f, r);
  for (int t : f.switches()) {
    const std::vector<int> d = bfs_to(f, t);
    for (int v : f.switches()) ASSERT_EQ(tables->dist(t, v), d[static_cast<size_t>(v)]) << f.node_name(v);
  }
  const ChannelList base = ChannelList::build(f, r);
  const int a = *f.find("S1_2"), b = *f.find("S2_2");
  for (int p = 1; p <= f.node(a).num_ports; p++) {  // every link of S1_2, and with it one of S2_2
    if (!f.node(a).port(p).connected() || !f.node(f.node(a).port(p).peer_node).is_switch()) continue;
    for (int q = 1; q <= f.node(b).num_ports; q++) {
      const Port& x = f.node(b).port(q);
      if (!x.connected() || !f.node(x.peer_node).is_switch() || x.peer_node == a) continue;
      const Fabric g = without(f, {{a, p}, {b, q}});
      if (!g.connected()) continue;
      DqrOptions o;
      o.paths = DqrOptions::Paths::EndToEnd;
      o.cross_check = true;
      o.tables = tables;
      ChannelList list = base;
      const std::string ctx = "faults " + f.port_name(a, p) + ", " + f.port_name(b, q);
      DqrResult res;
      ASSERT_NO_THROW(res = dqr_reconfigure(list, f, g, r, o)) << ctx;
      if (res.ok) expect_sound(g, patched(r, res), list, ctx);
    }
  }
}

// traffic.cpp: which VLs carry traffic for d out of each switch (old routing + committed paths).
// cross_check compares the table-driven masks with the recursion over the in-tree (a difference
// throws), on one VL (the fast path) and on a torus whose dateline routing uses several VLs, also
// with switch-sourced traffic.
TEST(DqrTraffic, MasksEqualTheRecursionOnOneAndSeveralVls) {
  const Fabric torus = ftroute::torus({4, 4});
  for (const Fabric& f : {mesh(5, 5), torus})
    for (bool switch_sources : {false, true}) {
      const Routing r = DorEngine().route(f);
      ChannelListOptions co;
      co.switch_sources = switch_sources;
      const ChannelList base = ChannelList::build(f, r, co);
      const auto links = f.switch_links();
      int repaired = 0;
      for (size_t i = 0; i < links.size(); i += 5) {
        const Fabric g = without(f, {links[i]});
        DqrOptions o;
        o.cross_check = true;
        o.switch_sources = switch_sources;
        ChannelList list = base;
        const std::string ctx = std::to_string(f.switches().size()) + " switches, " + std::to_string(r.num_vls) +
                                " VLs, fault " + f.port_name(links[i].first, links[i].second);
        DqrResult res;
        ASSERT_NO_THROW(res = dqr_reconfigure(list, f, g, r, o)) << ctx;
        if (!res.ok) continue;
        repaired++;
        EXPECT_TRUE(list.valid()) << ctx;
        if (!switch_sources) expect_sound(g, patched(r, res), list, ctx);
      }
      EXPECT_GT(repaired, 0);
    }
}

// repair.cpp: the affected entries of a LID are the switches whose old route to it crossed a
// failed link (and reached it before); the metrics count them, their LIDs and the CA flows.
TEST(DqrRepair, AffectedEntriesLidsAndFlowsAreTheRoutesOverTheFault) {
  const Fabric f = mesh(5, 5);
  const Routing r = DorEngine().route(f);
  const ChannelList base = ChannelList::build(f, r);
  const auto links = f.switch_links();
  for (size_t i = 0; i < links.size(); i += 4) {
    const auto [s, p] = links[i];
    const int peer = f.node(s).port(p).peer_node;
    const uint8_t pp = f.node(s).port(p).peer_port;
    const Fabric g = without(f, {links[i]});
    uint64_t entries = 0, lids = 0, flows = 0;
    for (const EndPort& e : f.end_ports()) {
      const Lid d = e.base_lid;
      bool any = false;
      for (int y : f.switches()) {
        bool crosses = false;
        int z = y;
        for (int hops = 0; hops <= static_cast<int>(f.switches().size()) && f.node(z).is_switch(); hops++) {
          const uint8_t q = r.lfts.get(z, d);
          if (q == 0 || q == kNoPath) break;
          crosses = crosses || (z == s && q == p) || (z == peer && q == pp);
          z = f.node(z).port(q).peer_node;
        }
        if (!crosses) continue;
        any = true;
        entries++;
        if (e.port != 0) flows += 1;  // one CA per switch
      }
      lids += any;
    }
    ChannelList list = base;
    const DqrResult res = dqr_reconfigure(list, f, g, r, DqrOptions{});
    const std::string ctx = "fault " + f.port_name(s, p);
    ASSERT_GT(entries, 0u) << ctx;
    EXPECT_EQ(res.entries_affected, entries) << ctx;
    EXPECT_EQ(res.dlids_affected, lids) << ctx;
    EXPECT_EQ(res.flows_affected, flows) << ctx;
    EXPECT_EQ(res.failed_channels, 2) << ctx;
    // local repair changes only LIDs that were affected
    std::set<Lid> changed;
    for (const LftChange& c : res.changes) changed.insert(c.lid);
    EXPECT_LE(changed.size(), lids) << ctx;
  }
}

// staging.cpp: a changed entry's stage is its switch's hop count to the LID's switch along the
// new routes; changes are ordered by (stage, LID, switch), idle entries in one last stage.
TEST(DqrStaging, StageIsTheHopCountAlongTheNewRoutes) {
  const Fabric mf = mesh(6, 6);
  Fabric tree = topo::kary_ntree(4, 3);
  tree.assign_lids();
  int idle = 0;
  for (const Fabric* fp : {&mf, static_cast<const Fabric*>(&tree)}) {
    const Fabric& f = *fp;
    const Routing r = fp == &mf ? DorEngine().route(f) : make_engine("ftree-misroute")->route(f);
    const ChannelList base = ChannelList::build(f, r);
    const auto links = f.switch_links();
    for (size_t i = 0; i < links.size(); i += 9) {
      const Fabric g = without(f, {links[i]});
      DqrOptions o;
      o.paths = DqrOptions::Paths::EndToEnd;
      ChannelList list = base;
      const DqrResult res = dqr_reconfigure(list, f, g, r, o);
      const std::string ctx = "fault " + f.port_name(links[i].first, links[i].second);
      if (!res.ok) continue;
      int deepest = 0;
      for (const LftChange& c : res.changes) {
        if (c.idle) continue;
        EXPECT_EQ(c.stage, hops_to(g, res.lfts, c.sw, c.lid)) << ctx << ": " << g.node_name(c.sw) << " LID " << c.lid;
        deepest = std::max(deepest, c.stage);
      }
      for (size_t k = 0; k < res.changes.size(); k++) {
        const LftChange& c = res.changes[k];
        if (c.idle) {
          idle++;
          EXPECT_EQ(c.stage, deepest + 1) << ctx;
        }
        if (k > 0) {
          const LftChange& b = res.changes[k - 1];
          EXPECT_LT(std::tie(b.stage, b.lid, b.sw), std::tie(c.stage, c.lid, c.sw)) << ctx;
        }
      }
    }
  }
  EXPECT_GT(idle, 0) << "no idle entry: the last stage was not exercised";
}

// options.cpp: every variant name parses into options whose name is the variant again; a bad
// variant or option value is an OptionError naming it; plugin=auto follows the mesh recognition;
// the staging options keep their declared ranges.
TEST(DqrOptions, VariantsRoundTripAndBadValuesAreNamed) {
  for (const char* v : {"local-all", "local-single", "e2e-all", "e2e-single", "mesh-all", "mesh-single", "tlr",
                        "tlr-all", "mesh-tlr", "mesh-tlr-all", "tlr-e2e", "tlr-e2e-all", "mesh-tlr-e2e"})
    EXPECT_EQ(dqr_variant(v).variant_name(), v);
  try {
    dqr_variant("e2e-some");
    ADD_FAILURE() << "e2e-some accepted";
  } catch (const OptionError& e) {
    EXPECT_STREQ(e.what(), "unknown variant 'e2e-some' (use e2e|local|mesh - all|single, or [mesh-]tlr[-e2e][-single|-all])");
  }
  EngineOptions o;
  EXPECT_TRUE(dqr_options_from(o, true).mesh_plugin);
  EXPECT_FALSE(dqr_options_from(o, false).mesh_plugin);
  EXPECT_EQ(dqr_options_from(o, false).paths, DqrOptions::Paths::Local);
  EXPECT_EQ(dqr_options_from(o, false).turns, DqrOptions::Turns::All);
  o.set("paths", "sideways");
  try {
    dqr_options_from(o, false);
    ADD_FAILURE() << "paths=sideways accepted";
  } catch (const OptionError& e) {
    EXPECT_STREQ(e.what(), "option paths=sideways for engine 'dqr': expected local or e2e");
  }
  const auto eng = make_engine("dqr");
  auto check = [&](const std::string& k, const std::string& v) {
    EngineOptions x;
    x.set(k, v);
    eng->check_options(x);
  };
  EXPECT_NO_THROW(check("drain_ms", "60000"));
  EXPECT_THROW(check("drain_ms", "60001"), OptionError);
  EXPECT_THROW(check("ack_timeout_ms", "99"), OptionError);
  EXPECT_THROW(check("no_such_option", "1"), OptionError);
  std::set<std::string> names;
  for (const OptionSpec& s : dqr_option_specs()) EXPECT_TRUE(names.insert(s.name).second) << s.name << " twice";
}

// local_reroute.cpp: turn local reroute makes a detour around each failed link legal before the
// per-destination repairs; with two faults at once every repair it reports is sound.
TEST(DqrLocalReroute, TwoFaultsAtOnceAreDetouredSoundly) {
  const Fabric f = mesh(6, 6);
  const Routing r = DorEngine().route(f);
  const ChannelList base = ChannelList::build(f, r);
  const auto links = f.switch_links();
  int ok = 0, n = 0;
  for (size_t i = 0; i + 11 < links.size(); i += 6) {
    const Fabric g = without(f, {links[i], links[i + 11]});
    if (!g.connected()) continue;
    ChannelList list = base;
    const DqrResult res = dqr_reconfigure(list, f, g, r, dqr_variant("tlr"));
    const std::string ctx = "faults " + f.port_name(links[i].first, links[i].second) + ", " +
                            f.port_name(links[i + 11].first, links[i + 11].second);
    n++;
    EXPECT_EQ(res.failed_channels, 4) << ctx;
    if (!res.ok) continue;
    ok++;
    EXPECT_TRUE(list.valid()) << ctx;
    expect_sound(g, patched(r, res), list, ctx);
  }
  EXPECT_GT(n, 0);
  EXPECT_GT(ok, 0) << "no double fault repaired";
}

// mesh_plugin.cpp: on a recognised mesh every failed link gets the detour one hop towards the
// centre of the mesh, with its turns enabled in the list before any path search; on a fabric
// that is not a mesh the plug-in says why and the generic repair alone runs.
TEST(DqrMeshPlugin, DetourTowardsTheCentreIsEnabledOrTheRefusalIsNamed) {
  const Fabric f = mesh(5, 5);
  const Routing r = DorEngine().route(f);
  const int a = *f.find("S0_0"), b = *f.find("S1_0"), a2 = *f.find("S0_1"), b2 = *f.find("S1_1");
  auto port_to = [&](int x, int y) {
    for (int p = 1; p <= f.node(x).num_ports; p++)
      if (f.node(x).port(p).connected() && f.node(x).port(p).peer_node == y) return p;
    return 0;
  };
  const Fabric g = without(f, {{a, port_to(a, b)}});
  const ChannelList before = ChannelList::build(f, r);
  ChannelList list = before;
  DqrOptions o;
  o.mesh_plugin = true;
  const DqrResult res = dqr_reconfigure(list, f, g, r, o);
  ASSERT_TRUE(res.ok);
  EXPECT_TRUE(res.plugin_applied);
  // S0_0 -> S1_0 is replaced by S0_0 -> S0_1 -> S1_1 -> S1_0 (the centre is at y = 2), and back
  const Cdg& ids = list.ids();
  for (auto [from, f2, t2, to] : {std::array<int, 4>{a, a2, b2, b}, std::array<int, 4>{b, b2, a2, a}}) {
    const auto c1 = ids.id(from, port_to(from, f2), 0), c2 = ids.id(f2, port_to(f2, t2), 0),
               c3 = ids.id(t2, port_to(t2, to), 0);
    EXPECT_FALSE(before.has_dep(c1, c2)) << "a Y-then-X turn in an XY routing";
    EXPECT_TRUE(list.has_dep(c1, c2)) << list.name(c1) << " -> " << list.name(c2);
    EXPECT_TRUE(list.has_dep(c2, c3)) << list.name(c2) << " -> " << list.name(c3);
  }
  EXPECT_TRUE(list.valid());
  expect_sound(g, patched(r, res), list, "mesh plug-in");

  Fabric tree = topo::kary_ntree(4, 2);
  tree.assign_lids();
  const Routing rt = make_engine("ft-minhop")->route(tree);
  const auto [s, p] = tree.switch_links()[0];
  ChannelList lt = ChannelList::build(tree, rt);
  const DqrResult rr = dqr_reconfigure(lt, tree, without(tree, {{s, p}}), rt, o);
  EXPECT_FALSE(rr.plugin_applied);
  bool named = false;
  for (const auto& n : rr.notes) named = named || n.rfind("mesh plug-in not applied: ", 0) == 0;
  EXPECT_TRUE(named);
}
