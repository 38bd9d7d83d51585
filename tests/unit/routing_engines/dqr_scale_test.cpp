// DQR at scale (docs/dqr.md "At scale", docs/scale.md section 16): the per-routing tables DQR
// now reads (the old routing's traffic per LID, all-pairs switch distances, the end ports that
// send, each LID's attach point), the channel list's turn bits, and repairs with every shortcut
// cross-checked against the computation it replaced (DqrOptions::cross_check) on small fabrics:
// the same repair with and without the check, every CA pair delivered, no loop, the CDG acyclic
// with every dependency up in the list, and every transition stage loop-free and deadlock-free.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "dor/dor.hpp"
#include "ftroute/cdg.hpp"
#include "ftroute/dqr/channel_list.hpp"
#include "ftroute/dqr/dqr.hpp"
#include "ftroute/grid.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/topology.hpp"
#include "test_grids.hpp"
#include "test_scale.hpp"

using namespace ftroute;
using Id = ChannelList::Id;

namespace {

Fabric grid(int x, int y, bool torus = false, int hosts = 1) { return ftroute::mesh({x, y}, hosts, torus); }

Fabric with_lids(Fabric f) {
  f.assign_lids();
  return f;
}

Routing with_lfts(const Routing& base, Lfts l) {
  Routing r = base;
  r.lfts = std::move(l);
  r.transition.reset();
  return r;
}

// "" if the routing of g delivers every CA pair without a loop and with an acyclic CDG whose
// dependencies all go up in `list`; else what is wrong.
std::string unsafe(const Fabric& g, const Routing& r, const ChannelList& list, bool need_all_pairs, bool switch_sources) {
  CdgBuildOptions co;
  co.switch_sources = switch_sources;
  co.collect_loads = false;
  CdgBuild b = build_cdg(g, r, co);
  if (b.stats.looping) return "loop: " + (b.stats.loop_examples.empty() ? std::string() : b.stats.loop_examples.front());
  if (need_all_pairs && b.stats.delivered != b.stats.pairs)
    return "undelivered: " + (b.stats.unreachable_examples.empty() ? std::string() : b.stats.unreachable_examples.front());
  if (auto c = b.cdg.find_cycle()) return "CDG cycle " + b.cdg.format_cycle(*c);
  for (auto [a, c] : b.cdg.edges())
    if (list.pos(a) >= list.pos(c)) return "dependency " + list.name(a) + " -> " + list.name(c) + " goes down in the list";
  return "";
}

struct Case {
  const char* name;
  Fabric fabric;
  std::string engine;
  std::string variant;
  bool switch_sources = false;
  bool layers = false;
};

struct Tally {
  int faults = 0, repaired = 0, staged = 0, searched = 0;
};

// One fault set (`after`) on `before` routed by r with the precomputed list: cross-checked and
// plain repairs agree, and a repair is safe in its final state and after every stage.
void check_fault(const Case& c, const Fabric& before, const Fabric& after, const Routing& r, const ChannelList& list0,
                 const DqrOptions& o, const std::string& ctx, Tally& tally, bool ca_fault = false) {
  tally.faults++;
  ChannelList plain_list = list0, checked_list = list0;
  DqrOptions checked = o;
  checked.cross_check = true;
  const DqrResult plain = dqr_reconfigure(plain_list, before, after, r, o);
  DqrResult cross;
  try {
    cross = dqr_reconfigure(checked_list, before, after, r, checked);
  } catch (const Error& e) {
    ADD_FAILURE() << ctx << ": " << e.what();
    return;
  }
  ASSERT_EQ(plain.ok, cross.ok) << ctx;
  ASSERT_EQ(plain.lfts, cross.lfts) << ctx;
  ASSERT_EQ(plain.changes.size(), cross.changes.size()) << ctx;
  for (size_t i = 0; i < plain.changes.size(); i++) {
    ASSERT_EQ(plain.changes[i].sw, cross.changes[i].sw) << ctx;
    ASSERT_EQ(plain.changes[i].lid, cross.changes[i].lid) << ctx;
    ASSERT_EQ(plain.changes[i].new_port, cross.changes[i].new_port) << ctx;
    ASSERT_EQ(plain.changes[i].stage, cross.changes[i].stage) << ctx;
  }
  ASSERT_EQ(plain.search_states, cross.search_states) << ctx;
  ASSERT_EQ(plain_list.order(), checked_list.order()) << ctx;
  // the sources are the CA ports still linked to a switch (a CA that lost its link sends nothing)
  uint64_t cas = 0;
  for (const EndPort& ep : after.end_ports()) {
    const Node& n = after.node(ep.node);
    cas += !n.is_switch() && n.port(ep.port).connected() && after.node(n.port(ep.port).peer_node).is_switch();
  }
  EXPECT_EQ(plain.flows_total, cas * (cas - 1)) << ctx;
  // the entries of a LID whose CA lost its link stay as they were
  for (const LftChange& ch : plain.changes) {
    const Attach was = before.attach(ch.lid), now = after.attach(ch.lid);
    EXPECT_TRUE(was.valid() && now.valid() && was.sw == now.sw) << ctx << ": LID " << ch.lid << " lost its link but changed";
  }
  if (!plain.ok) {
    EXPECT_EQ(plain.lfts, r.lfts) << ctx << ": a failed repair keeps the old tables";
    return;
  }
  tally.repaired++;
  tally.searched += plain.search_states > 0;
  // the changes without a copy of the tables give the same tables
  {
    ChannelList l = list0;
    DqrOptions lean = o;
    lean.patched_tables = false;
    const DqrResult res = dqr_reconfigure(l, before, after, r, lean);
    EXPECT_EQ(res.lfts.num_nodes(), 0) << ctx;
    Lfts applied = r.lfts;
    dqr_apply(applied, res);
    EXPECT_EQ(applied, plain.lfts) << ctx;
  }
  const Routing fixed = dqr_routing(r, plain);
  // (a CA that lost its link can be reached by no routing: every pair only without CA faults)
  EXPECT_EQ(unsafe(after, fixed, plain_list, !ca_fault, c.switch_sources), "") << ctx << ": the repaired routing";
  // the transition, stage by stage from the old tables (layer moves first: the moved SLs are in
  // place before the first stage, so every state is checked with the new path SLs)
  const LftTransition t = dqr_transition(plain, false);
  if (t.stages.size() > 1) tally.staged++;
  Lfts state = r.lfts;
  for (size_t i = 0; i < t.stages.size(); i++) {
    for (const auto& e : t.stages[i].entries) {
      ASSERT_EQ(state.get(e.sw, e.lid), e.old_port) << ctx;
      state.set(e.sw, e.lid, e.new_port);
    }
    EXPECT_EQ(unsafe(after, with_lfts(fixed, state), plain_list, false, c.switch_sources), "")
        << ctx << ": after stage " << i + 1 << " of " << t.stages.size();
  }
  EXPECT_EQ(state, plain.lfts) << ctx;
}

Tally run_case(Case c, int double_faults) {
  Tally tally;
  const Fabric& f = c.fabric;
  EngineOptions eo;
  const Routing r = make_engine(c.engine)->route(f, eo);
  DqrOptions o = dqr_variant(c.variant);
  o.switch_sources = c.switch_sources;
  if (c.layers) o.layers = DqrOptions::Layers::All;
  if (o.mesh_plugin) {
    auto g = recognise_mesh(f);
    if (g) o.mesh = std::make_shared<const MeshGrid>(*g);
  }
  o.tables = dqr_tables(f, r);
  ChannelListOptions clo;
  clo.switch_sources = c.switch_sources;
  const ChannelList list0 = ChannelList::build(f, r, clo);
  const std::string head = std::string(c.name) + " " + c.variant + (c.switch_sources ? " switch sources" : "");
  // every single switch link fault (every third one under ASan+UBSan: test_scale.hpp)
  const auto& links0 = f.switch_links();
  for (size_t li = 0; li < links0.size(); li++) {
    if (!test_scale::sampled(li, 3)) continue;
    auto [s, p] = links0[li];
    Fabric g = f;
    g.disconnect(s, p);
    check_fault(c, f, g, r, list0, o, head + ", fault " + f.port_name(s, p), tally);
  }
  // some CA link faults (a source and destination leave; the attach point of its LIDs changes)
  std::mt19937_64 rng(5);
  std::vector<std::pair<int, int>> ca_links;
  for (int n = 0; n < f.size(); n++)
    if (!f.node(n).is_switch())
      for (int p = 1; p <= f.node(n).num_ports; p++)
        if (f.node(n).port(p).connected()) ca_links.push_back({n, p});
  for (int i = 0; i < 3 && !ca_links.empty(); i++) {
    auto [n, p] = ca_links[rng() % ca_links.size()];
    auto [s, q] = f.switch_links()[rng() % f.switch_links().size()];
    Fabric g = f;
    g.disconnect(n, p);
    g.disconnect(s, q);
    check_fault(c, f, g, r, list0, o, head + ", CA fault " + f.port_name(n, p) + " + " + f.port_name(s, q), tally, true);
  }
  // double faults on the repaired routing (the second repair starts from the first's list)
  for (int i = 0; i < double_faults; i++) {
    auto links = f.switch_links();
    auto [s1, p1] = links[rng() % links.size()];
    Fabric g1 = f;
    g1.disconnect(s1, p1);
    if (!g1.connected()) continue;
    ChannelList list1 = list0;
    const DqrResult first = dqr_reconfigure(list1, f, g1, r, o);
    if (!first.ok) continue;
    const Routing r1 = dqr_routing(r, first);
    auto links1 = g1.switch_links();
    auto [s2, p2] = links1[rng() % links1.size()];
    Fabric g2 = g1;
    g2.disconnect(s2, p2);
    if (!g2.connected()) continue;
    DqrOptions o2 = o;
    o2.tables = dqr_tables(g1, r1);
    check_fault(c, g1, g2, r1, list1, o2, head + ", faults " + f.port_name(s1, p1) + " then " + g1.port_name(s2, p2), tally);
  }
  return tally;
}

}  // namespace

// The tables are what the fabric and the routing say, computed another way here.
TEST(DqrTables, TrafficDistancesSourcesAndAttachPoints) {
  struct Named {
    std::string name;
    Fabric f;
    std::string engine;
  };
  std::vector<Named> fabrics;
  fabrics.push_back({"4-ary 3-tree", with_lids(topo::kary_ntree(4, 3)), "ftree-misroute"});
  fabrics.push_back({"fattree3:8", with_lids(topo::fat_tree3(8)), "ftree-misroute"});
  Fabric m = grid(5, 4, false, 2);
  m.disconnect(m.switch_links()[3].first, m.switch_links()[3].second);  // a missing link
  for (int n = 0; n < m.size(); n++)                                      // a CA without a link
    if (!m.node(n).is_switch()) {
      m.disconnect(n, 1);
      break;
    }
  fabrics.push_back({"5x4 mesh, 2 hosts, a link and a CA missing", m, "ft-minhop"});
  for (auto& [name, f, engine] : fabrics) {
    const Routing r = make_engine(engine)->route(f);
    const auto t = dqr_tables(f, r);
    const std::vector<int>& sws = f.switches();
    // traffic: a switch carries the old routing's CA traffic to d iff the route of some switch
    // with a CA (not d's own switch) passes it
    for (Lid d = 1; d <= f.max_lid(); d++) {
      const Attach at = f.attach(d);
      std::set<int> carry;
      if (at.valid()) {
        for (const EndPort& ep : f.end_ports()) {
          const Node& n = f.node(ep.node);
          if (n.is_switch() || !n.port(ep.port).connected()) continue;
          int y = n.port(ep.port).peer_node;
          if (!f.node(y).is_switch() || y == at.sw) continue;
          for (size_t hops = 0; hops <= sws.size() && y >= 0; hops++) {
            carry.insert(y);
            if (y == at.sw) break;
            const uint8_t q = r.lfts.get(y, d);
            if (q == 0 || q == kNoPath || q > f.node(y).num_ports || !f.node(y).port(q).connected()) break;
            y = f.node(y).port(q).peer_node;
            if (!f.node(y).is_switch()) break;
          }
        }
      }
      for (int s : sws) ASSERT_EQ(t->carries(s, d), carry.count(s) > 0) << name << " LID " << d << " at " << f.node_name(s);
      EXPECT_EQ(t->lid_sw[d], at.sw) << name << " LID " << d;
      if (at.valid()) {
        EXPECT_EQ(t->lid_port[d], at.port) << name << " LID " << d;
      }
    }
    // distances: breadth-first from every switch
    for (int a : sws) {
      std::vector<int> dist(static_cast<size_t>(f.size()), -1);
      std::vector<int> q{a};
      dist[static_cast<size_t>(a)] = 0;
      for (size_t i = 0; i < q.size(); i++)
        for (int p = 1; p <= f.node(q[i]).num_ports; p++) {
          const Port& pt = f.node(q[i]).port(p);
          if (pt.connected() && f.node(pt.peer_node).is_switch() && dist[static_cast<size_t>(pt.peer_node)] < 0)
            dist[static_cast<size_t>(pt.peer_node)] = dist[static_cast<size_t>(q[i])] + 1, q.push_back(pt.peer_node);
        }
      for (int b : sws)
        ASSERT_EQ(t->dist(a, b), dist[static_cast<size_t>(b)] < 0 ? 255 : dist[static_cast<size_t>(b)])
            << name << " " << f.node_name(a) << " -> " << f.node_name(b);
    }
    // the end ports that send, in end_ports() order, and every port's peer
    size_t k = 0;
    for (const EndPort& ep : f.end_ports()) {
      const Node& n = f.node(ep.node);
      if (!n.is_switch() && (!n.port(ep.port).connected() || !f.node(n.port(ep.port).peer_node).is_switch())) continue;
      ASSERT_LT(k, t->end_sources.size()) << name;
      const DqrTables::EndSource& e = t->end_sources[k++];
      EXPECT_EQ(e.lid, ep.base_lid) << name;
      EXPECT_EQ(e.node, ep.node) << name;
      EXPECT_EQ(e.port, n.is_switch() ? 0 : ep.port) << name;
      EXPECT_EQ(e.sw, n.is_switch() ? ep.node : n.port(ep.port).peer_node) << name;
    }
    EXPECT_EQ(k, t->end_sources.size()) << name;
    for (int n = 0; n < f.size(); n++)
      for (int p = 1; p <= f.node(n).num_ports; p++) {
        const Port& pt = f.node(n).port(p);
        const size_t l = static_cast<size_t>(t->link_id(n, p));
        EXPECT_EQ(t->peer[l], pt.peer_node) << name << " " << f.port_name(n, p);
        if (pt.connected()) {
          EXPECT_EQ(t->peer_port[l], pt.peer_port) << name << " " << f.port_name(n, p);
        }
      }
  }
}

// has_dep() answers from the turn bits of a fabric-built list: the same as the successor lists,
// for every turn of every channel, after upward inserts, reorders and a replacement; the order
// version moves with the positions.
TEST(ChannelList, TurnBitsAgreeWithTheDependencyLists) {
  const Fabric f = grid(4, 4, true, 1);
  const Routing r = DorEngine().route(f);
  ChannelList list = ChannelList::build(f, r);
  const Cdg ids(f);
  auto agree = [&](const std::string& when) {
    int checked = 0;
    for (Id a : list.order()) {
      const int head_link = static_cast<int>(a / kNumVlSlots);
      const Port& pt = f.node(ids.link_node(head_link)).port(ids.link_port(head_link));
      if (ids.link_port(head_link) == 0 || !pt.connected()) continue;
      const int y = pt.peer_node;
      for (int q = 1; q <= f.node(y).num_ports; q++)
        for (int vl = 0; vl < 4; vl++) {
          const Id b = ids.id(y, q, vl);
          const auto& succ = list.successors(a);
          ASSERT_EQ(list.has_dep(a, b), std::binary_search(succ.begin(), succ.end(), b))
              << when << ": " << list.name(a) << " -> " << list.name(b);
          checked++;
        }
    }
    EXPECT_GT(checked, 1000) << when;
  };
  agree("as built");
  // an upward insert keeps the order; a downward turn that can be enabled reorders
  uint64_t v = list.order_version();
  int up = 0, down = 0;
  for (size_t i = 0; i + 1 < list.order().size() && (up < 20 || down < 3); i += 7) {
    const Id a = list.order()[i];
    const int l = static_cast<int>(a / kNumVlSlots);
    const Port& pt = f.node(ids.link_node(l)).port(ids.link_port(l));
    if (ids.link_port(l) == 0 || !pt.connected() || !f.node(pt.peer_node).is_switch()) continue;
    for (int q = 1; q <= f.node(pt.peer_node).num_ports; q++) {
      const Id b = ids.id(pt.peer_node, q, Cdg::vl_of(a));
      if (!list.contains(b) || list.has_dep(a, b)) continue;
      const bool goes_up = list.pos(a) < list.pos(b);
      if (goes_up && up < 20) {
        ASSERT_TRUE(list.enable(a, b));
        EXPECT_EQ(list.order_version(), v) << "an upward insert moved the order";
        EXPECT_TRUE(list.has_dep(a, b));
        up++;
      } else if (!goes_up && down < 3 && list.can_enable(a, b)) {
        ASSERT_TRUE(list.enable(a, b));
        EXPECT_NE(list.order_version(), v) << "a reorder kept the version";
        EXPECT_TRUE(list.has_dep(a, b));
        v = list.order_version();
        down++;
      }
    }
  }
  EXPECT_EQ(up, 20);
  EXPECT_EQ(down, 3);
  std::string why;
  EXPECT_TRUE(list.valid(&why)) << why;
  agree("after enabling");
  std::vector<ChannelList::Dep> deps = list.dependencies();
  deps.resize(deps.size() / 2);
  list.replace_dependencies(deps);
  agree("after replacing");
}

// Every single switch link fault (plus CA link and double faults) of small fabrics, repaired with
// every shortcut cross-checked: the same repair as without the check, safe in every state.
TEST(DqrScale, CrossCheckedRepairsAreTheSameAndSafe) {
  std::vector<Case> cases;
  cases.push_back({"4-ary 3-tree", with_lids(topo::kary_ntree(4, 3)), "ftree-misroute", "e2e-all", false});
  cases.push_back({"4-ary 3-tree", with_lids(topo::kary_ntree(4, 3)), "ftree-misroute", "e2e-all", true});
  cases.push_back({"4-ary 3-tree", with_lids(topo::kary_ntree(4, 3)), "ftree-misroute", "local-single", false});
  cases.push_back({"fattree3:8", with_lids(topo::fat_tree3(8)), "ftree-misroute", "e2e-all", false});
  cases.push_back({"fattree3:8", with_lids(topo::fat_tree3(8)), "ftree-misroute", "local-all", false});
  cases.push_back({"6x6 mesh", grid(6, 6), "ft-dor", "mesh-all", false});
  cases.push_back({"6x6 mesh", grid(6, 6), "ft-dor", "e2e-all", false});
  cases.push_back({"5x5 torus", grid(5, 5, true), "ft-dor", "local-all", false, true});
  Tally all;
  for (Case& c : cases) {
    const Tally t = run_case(c, test_scale::rounds(6, 3));
    all.faults += t.faults, all.repaired += t.repaired, all.staged += t.staged, all.searched += t.searched;
  }
  // enough repairs, with stages and with path searches, to have exercised what is checked (a
  // third of them in the sanitizer build, which samples the single faults)
  const int part = test_scale::kSanitizerBuild ? 3 : 1;
  EXPECT_GE(all.faults, 500 / part);
  EXPECT_GE(all.repaired, all.faults * 3 / 4);
  EXPECT_GE(all.staged, 100 / part);
  EXPECT_GE(all.searched, 100 / part);
}
