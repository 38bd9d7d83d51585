// FT-DRB routing side: every LMC LID reachable and loop free, alternatives really take other
// paths, the CDG of every VL acyclic, faults re-routed while intact trees are kept.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>

#include "ftdrb/ftdrb.hpp"
#include "ftroute/engine.hpp"
#include "ftroute/pipeline.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/topology.hpp"
#include "ftroute/validate.hpp"

using namespace ftroute;

namespace {

// X x Y torus (wrap links) or mesh, `hosts` CAs per switch. Switch (x,y) ports: 1=+x 2=-x 3=+y
// 4=-y, CAs on 5...
Fabric grid(int X, int Y, bool torus, int hosts) {
  Fabric f;
  auto id = [&](int x, int y) { return "S" + std::to_string(x) + "_" + std::to_string(y); };
  for (int y = 0; y < Y; y++)
    for (int x = 0; x < X; x++) f.add_node(NodeType::Switch, id(x, y), 4 + hosts);
  auto sw = [&](int x, int y) { return *f.find(id(x, y)); };
  for (int y = 0; y < Y; y++)
    for (int x = 0; x < X; x++) {
      if (x + 1 < X || (torus && X > 2)) f.connect(sw(x, y), 1, sw((x + 1) % X, y), 2);
      if (y + 1 < Y || (torus && Y > 2)) f.connect(sw(x, y), 3, sw(x, (y + 1) % Y), 4);
      for (int h = 0; h < hosts; h++) {
        int c = f.add_node(NodeType::Ca, "H" + std::to_string(x) + "_" + std::to_string(y) + "_" + std::to_string(h), 1);
        f.connect(c, 1, sw(x, y), 5 + h);
      }
    }
  return f;
}

// 2-level fat tree: L leaves with H hosts, S spines, one link per leaf-spine pair.
Fabric two_level(int L, int S, int H) {
  Fabric f;
  for (int s = 0; s < S; s++) f.add_node(NodeType::Switch, "Spine" + std::to_string(s), L);
  for (int l = 0; l < L; l++) {
    int leaf = f.add_node(NodeType::Switch, "Leaf" + std::to_string(l), S + H);
    for (int s = 0; s < S; s++) f.connect(leaf, s + 1, s, l + 1);
    for (int h = 0; h < H; h++) {
      int c = f.add_node(NodeType::Ca, "H" + std::to_string(l) + "_" + std::to_string(h), 1);
      f.connect(c, 1, leaf, S + 1 + h);
    }
  }
  return f;
}

struct Walk {
  bool ok = false;
  std::vector<std::pair<int, int>> channels;  // (node, out port) switch-to-switch hops
};

Walk walk(const Fabric& f, const Routing& r, Lid slid, Lid dlid) {
  Walk w;
  Attach a = f.attach(slid);
  int s = a.sw;
  for (int hops = 0; hops <= f.size(); hops++) {
    uint8_t p = r.lfts.get(s, dlid);
    if (p == kNoPath) return w;
    if (p == 0) {
      w.ok = f.owner(dlid)->node == s;
      return w;
    }
    const Port& x = f.node(s).port(p);
    if (!x.connected()) return w;
    if (!f.node(x.peer_node).is_switch()) {
      w.ok = f.owner(dlid)->node == x.peer_node;
      return w;
    }
    w.channels.push_back({s, p});
    s = x.peer_node;
  }
  return w;  // loop
}

// Checks every CA -> LID pair and the CDG of every SL (identity SL2VL) for cycles; returns
// false if a layer's CDG has a cycle.
bool expect_valid(const Fabric& f, const Routing& r) {
  std::map<int, std::map<std::pair<int, int>, std::set<std::pair<int, int>>>> deps;  // sl -> edges
  size_t pairs = 0;
  for (const EndPort& src : f.end_ports()) {
    if (f.node(src.node).is_switch()) continue;
    for (const EndPort& dst : f.end_ports())
      for (uint32_t d = dst.base_lid; d <= dst.last_lid(); d++) {
        if (src.node == dst.node) continue;
        Walk w = walk(f, r, src.base_lid, static_cast<Lid>(d));
        EXPECT_TRUE(w.ok) << f.node(src.node).id << " -> LID " << d;
        if (!w.ok) return false;
        pairs++;
        int sl = r.sl(src.base_lid, static_cast<Lid>(d));
        EXPECT_LT(sl, r.num_vls);
        for (size_t k = 0; k + 1 < w.channels.size(); k++) deps[sl][w.channels[k]].insert(w.channels[k + 1]);
      }
  }
  EXPECT_GT(pairs, 0u);
  bool acyclic = true;
  for (auto& layer : deps) {  // DFS cycle check per layer
    auto& g = layer.second;  // (a named reference: clang 14 cannot capture structured bindings)
    std::map<std::pair<int, int>, int> color;
    std::function<bool(std::pair<int, int>)> cyc = [&](std::pair<int, int> c) {
      color[c] = 1;
      for (auto& n : g[c]) {
        if (color[n] == 1) return true;
        if (color[n] == 0 && cyc(n)) return true;
      }
      color[c] = 2;
      return false;
    };
    for (auto& [c, _] : g)
      if (color[c] == 0 && cyc(c)) acyclic = false;
  }
  // the shared validator must agree (all LMC source LIDs, CA-to-everything)
  ValidateOptions vo;
  vo.all_source_lids = true;
  ValidationReport rep = validate(f, r, vo);
  EXPECT_TRUE(rep.reachability_ok() && rep.loops_ok() && rep.entries_ok()) << format_report(f, rep);
  EXPECT_EQ(rep.cdg_acyclic, acyclic) << format_report(f, rep);
  return acyclic;
}

}  // namespace

TEST(FtDrb, TorusLmc2AllPathsValidAndLayered) {
  Fabric f = grid(4, 4, true, 1);
  f.assign_lids(2);
  auto e = make_engine("ftdrb");
  Routing r = e->route(f);
  EXPECT_TRUE(expect_valid(f, r));
  // a torus needs more than one layer for minimal routing on rings
  EXPECT_GE(r.num_vls, 2);
  EXPECT_LE(r.num_vls, 8);
  // the checker is not vacuous: the same paths squeezed onto SL 0 have a CDG cycle
  Routing one = r;
  one.path_sl = nullptr;
  EXPECT_FALSE(expect_valid(f, one));
}

TEST(FtDrb, AlternativesTakeDifferentPaths) {
  Fabric f = grid(4, 4, true, 1);
  f.assign_lids(2);
  Routing r = make_engine("ftdrb")->route(f);
  Lid src = f.node(*f.find("H0_0_0")).port(1).base_lid;
  Lid dst = f.node(*f.find("H2_1_0")).port(1).base_lid;
  std::set<std::vector<std::pair<int, int>>> distinct;
  for (int i = 0; i < 4; i++) distinct.insert(walk(f, r, src, static_cast<Lid>(dst + i)).channels);
  EXPECT_GE(distinct.size(), 3u);
}

TEST(FtDrb, FatTreeStaysOnOneLayer) {
  Fabric f = two_level(4, 4, 2);
  f.assign_lids(2);
  Routing r = make_engine("ftdrb")->route(f);
  EXPECT_TRUE(expect_valid(f, r));
  EXPECT_EQ(r.num_vls, 1);  // every path through a spine is up*/down*
}

TEST(FtDrb, SpreadVlsUsesEveryLayerAndStaysAcyclic) {
  Fabric ft = two_level(4, 4, 2);
  ft.assign_lids(2);
  Routing r = make_engine("ftdrb")->route(ft, EngineOptions::parse("spread_vls=3"));
  EXPECT_TRUE(expect_valid(ft, r));
  EXPECT_EQ(r.num_vls, 3);
  std::map<int, size_t> per_sl;  // CA -> LID paths per SL
  size_t total = 0;
  for (const EndPort& s : ft.end_ports())
    for (const EndPort& d : ft.end_ports())
      if (!ft.node(s.node).is_switch() && !ft.node(d.node).is_switch() && ft.attach(s.base_lid).sw != ft.attach(d.base_lid).sw)
        for (uint32_t l = d.base_lid; l <= d.last_lid(); l++) per_sl[r.sl(s.base_lid, static_cast<Lid>(l))]++, total++;
  ASSERT_EQ(per_sl.size(), 3u);
  for (auto& [sl, n] : per_sl) EXPECT_GT(n * 3 * 10, total * 7) << "SL " << sl << " carries too few paths";
  // tori: spreading must still give an acyclic CDG per VL
  Fabric t = grid(4, 4, true, 1);
  t.assign_lids(2);
  Routing rt = make_engine("ftdrb")->route(t, EngineOptions::parse("spread_vls=6"));
  EXPECT_TRUE(expect_valid(t, rt));
  EXPECT_GE(rt.num_vls, 6);
  EXPECT_THROW(make_engine("ftdrb")->route(t, EngineOptions::parse("spread_vls=9")), OptionError);  // > max_vls 8
}

TEST(FtDrb, LinkFaultKeepsIntactTreesAndAvoidsDeadLink) {
  Fabric f = grid(4, 4, true, 1);
  f.assign_lids(2);
  f.assign_default_guids();
  auto e = make_engine("ftdrb");
  Routing before = e->route(f);
  Fabric g = f;
  int s = *g.find("S1_1");
  g.disconnect(s, 1);  // S1_1 +x link
  Routing after = e->route(g, {}, PreviousRouting{&f, &before});
  EXPECT_TRUE(expect_valid(g, after));
  for (Lid l = 1; l <= g.max_lid(); l++) EXPECT_NE(after.lfts.get(s, l), 1) << "LID " << l << " uses the dead port";
  // trees not touching the dead link are kept unchanged
  size_t same = 0, total = 0;
  for (Lid l = 1; l <= g.max_lid(); l++) {
    if (!g.owner(l)) continue;
    total++;
    bool eq = true;
    for (int n : g.switches()) eq = eq && before.lfts.get(n, l) == after.lfts.get(n, l);
    same += eq;
  }
  EXPECT_GT(same, total / 2);
  EXPECT_LT(same, total);
  ASSERT_EQ(after.notes.size(), 2u);
  EXPECT_NE(after.notes[1].find("kept"), std::string::npos);
}

TEST(FtDrb, RejectsDisconnectedFabricAndBadOptions) {
  Fabric f = grid(3, 1, false, 1);  // a line S0-S1-S2
  f.assign_lids(1);
  f.disconnect(*f.find("S0_0"), 1);
  auto e = make_engine("ftdrb");
  EXPECT_THROW(e->route(f), EngineError);
  Fabric ok = grid(3, 3, false, 1);
  ok.assign_lids(1);
  EXPECT_THROW(e->route(ok, EngineOptions::parse("bogus=1")), OptionError);
  EXPECT_THROW(e->route(ok, EngineOptions::parse("max_vls=0")), OptionError);
}

TEST(FtDrb, TooFewLayersIsAnEngineError) {
  Fabric f = grid(4, 4, true, 1);
  f.assign_lids(2);
  EXPECT_THROW(make_engine("ftdrb")->route(f, EngineOptions::parse("max_vls=1")), EngineError);
}

// deadlock=recovery (the thesis' escape paths plus NAC instead of VLs, docs/ftdrb.md "Dynamic
// faults"): the same forwarding trees as with layers, every path on SL 0, the routing marked for
// deadlock recovery; the pipeline refuses it where tables go to InfiniBand switches (the plugin,
// `route`) and hands it to the simulator (require_ok = false) with its CDG cycle in the verdict.
TEST(FtDrb, DeadlockRecoveryPutsEveryPathOnOneVlAndThePipelineRefusesIt) {
  Fabric f = grid(4, 4, true, 1);
  f.assign_lids(2);
  Routing layered = make_engine("ftdrb")->route(f);
  Routing rec = make_engine("ftdrb")->route(f, EngineOptions::parse("deadlock=recovery"));
  EXPECT_FALSE(layered.deadlock_recovery);
  EXPECT_TRUE(rec.deadlock_recovery);
  EXPECT_EQ(rec.num_vls, 1);
  for (int n : f.switches())
    for (Lid l = 1; l <= f.max_lid(); l++) ASSERT_EQ(rec.lfts.get(n, l), layered.lfts.get(n, l)) << "LID " << l;
  for (const EndPort& s : f.end_ports())
    for (Lid l = 1; l <= f.max_lid(); l++) ASSERT_EQ(rec.sl(s.base_lid, l), 0);
  EXPECT_FALSE(expect_valid(f, rec));  // the torus rings on one VL: a CDG cycle, as the option says
  EXPECT_THROW(make_engine("ftdrb")->route(f, EngineOptions::parse("deadlock=maybe")), OptionError);
  // the pipeline: refused where the verdict must be ok, handed on otherwise
  RoutingPipeline strict("ftdrb", EngineOptions::parse("deadlock=recovery"));
  try {
    strict.run(f);
    ADD_FAILURE() << "a deadlock=recovery routing passed the plugin's pipeline";
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find("deadlock=recovery"), std::string::npos) << e.what();
  }
  PipelineOptions sim;
  sim.require_ok = false;
  RoutingPipeline lenient("ftdrb", EngineOptions::parse("deadlock=recovery"), sim);
  RoutedStep step = lenient.run(f);
  EXPECT_TRUE(step.routing.deadlock_recovery);
  EXPECT_NO_THROW(RoutingPipeline("ftdrb", {}).run(f));  // layers: accepted
}

// min_ring (docs/ftdrb.md "The 4-ary 3-tree uniform row"): intermediates from that hop distance to
// the destination switch on. On the 4-ary 3-tree ring 1 (the destination leaf's spines) keeps
// every alternative minimal; ring 3 (spines of other pods) makes them longer, still valid.
TEST(FtDrb, MinRingTakesIntermediatesFartherFromTheDestination) {
  Fabric f = topo::kary_ntree(4, 3);
  f.assign_lids(2);
  auto mean_alt_hops = [&](const Routing& r) {
    double hops = 0;
    int n = 0;
    for (const EndPort& s : f.end_ports())
      for (const EndPort& d : f.end_ports())
        if (!f.node(s.node).is_switch() && !f.node(d.node).is_switch() && f.attach(s.base_lid).sw != f.attach(d.base_lid).sw)
          for (uint32_t l = d.base_lid + 1; l <= d.last_lid(); l++) hops += static_cast<double>(walk(f, r, s.base_lid, static_cast<Lid>(l)).channels.size()), n++;
    return hops / n;
  };
  Routing near = make_engine("ftdrb")->route(f);
  Routing far = make_engine("ftdrb")->route(f, EngineOptions::parse("min_ring=3,max_vls=15"));
  EXPECT_TRUE(expect_valid(f, near));
  EXPECT_TRUE(expect_valid(f, far));
  const double h1 = mean_alt_hops(near), h3 = mean_alt_hops(far);
  EXPECT_GT(h3, h1 + 0.5) << "ring 1: " << h1 << " switch hops per alternative path, ring 3: " << h3;
  // base paths unchanged
  for (int n : f.switches())
    for (const EndPort& d : f.end_ports()) ASSERT_EQ(near.lfts.get(n, d.base_lid), far.lfts.get(n, d.base_lid));
  EXPECT_THROW(make_engine("ftdrb")->route(f, EngineOptions::parse("min_ring=0")), OptionError);
}
