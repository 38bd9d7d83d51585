// ftree-misroute on the shapes of production clusters that ibnetdiscover shows (issue 27):
// SHARP aggregation nodes (ANs) on every switch's internal port, cores cabled to several spines
// of every pod (generalised fat trees: Selene's storage fabric, MCS8500 directors), and a
// management leaf whose hosts are all down, hanging off one spine. Each is recognised, routed on
// one VL with every switch and CA a source, no loop and an acyclic CDG, and balanced no worse
// than ft-minhop.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "ftroute/ftree_misroute/fattree.hpp"
#include "ftree_misroute/ftree_misroute.hpp"
#include "ftroute/cluster_tree.hpp"
#include "ftroute/error.hpp"
#include "ftroute/fabric_spec.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/validate.hpp"

using namespace ftroute;

namespace {

// A 3-level tree of `pods` pods, each `leaves` leaves x `spines` spines (full bipartite, one
// cable), and `groups` x `per_group` cores: core (g, c) is cabled to every spine j with
// j % groups == g of every pod, so with groups < spines a core reaches each pod through
// spines / groups spines (generalised fat tree). Switches have 41 ports; with `ans` each carries
// an aggregation node on port 41, described as ibnetdiscover shows it.
struct Pgft {
  int pods = 2, leaves = 4, spines = 4, groups = 2, per_group = 2, hosts = 4;
  bool ans = false;
  bool an_by_port_only = false;  // AN description "x": recognised by the internal port alone
};

Fabric make_pgft(const Pgft& p) {
  Fabric f;
  std::vector<int> next;
  auto sw = [&](const std::string& name) {
    int n = f.add_node(NodeType::Switch, name, 41);
    f.node(n).desc = "MF0;" + name + ":MQM8700/U1";
    next.resize(static_cast<size_t>(f.size()) + 1, 1);
    next[static_cast<size_t>(n)] = 1;
    return n;
  };
  auto port = [&](int n) { return next[static_cast<size_t>(n)]++; };
  std::vector<std::vector<int>> leaf(static_cast<size_t>(p.pods)), spine(static_cast<size_t>(p.pods));
  for (int q = 0; q < p.pods; q++)
    for (int i = 0; i < p.leaves; i++) leaf[static_cast<size_t>(q)].push_back(sw("LG" + std::to_string(q) + "-" + std::to_string(i)));
  for (int q = 0; q < p.pods; q++)
    for (int j = 0; j < p.spines; j++) spine[static_cast<size_t>(q)].push_back(sw("SP" + std::to_string(q) + "-" + std::to_string(j)));
  std::vector<std::vector<int>> core(static_cast<size_t>(p.groups));
  for (int g = 0; g < p.groups; g++)
    for (int c = 0; c < p.per_group; c++) core[static_cast<size_t>(g)].push_back(sw("CC" + std::to_string(g) + "-" + std::to_string(c)));
  int h = 0;
  for (int q = 0; q < p.pods; q++)
    for (int l : leaf[static_cast<size_t>(q)])
      for (int x = 0; x < p.hosts; x++) {
        int ca = f.add_node(NodeType::Ca, "H" + std::to_string(h++), 1);
        f.connect(ca, 1, l, port(l));
      }
  for (int q = 0; q < p.pods; q++)
    for (int l : leaf[static_cast<size_t>(q)])
      for (int s : spine[static_cast<size_t>(q)]) f.connect(l, port(l), s, port(s));
  for (int q = 0; q < p.pods; q++)
    for (int j = 0; j < p.spines; j++)
      for (int c : core[static_cast<size_t>(j % p.groups)]) {
        int s = spine[static_cast<size_t>(q)][static_cast<size_t>(j)];
        f.connect(s, port(s), c, port(c));
      }
  if (p.ans) {
    const std::vector<int> sws = f.switches();
    for (int s : sws) {
      int an = f.add_node(NodeType::Ca, "AN-" + f.node(s).id, 1);
      f.node(an).desc = p.an_by_port_only ? "x" : "Mellanox Technologies Aggregation Node";
      f.connect(an, 1, s, 41);
    }
  }
  f.assign_lids();
  return f;
}

ValidationReport check_switch_pairs(const Fabric& f, const Routing& r) {
  ValidateOptions o;
  o.switch_sources = true;
  return validate(f, r, o);
}

void expect_deadlock_free_one_vl(const Fabric& f, const Routing& r, const std::string& what) {
  EXPECT_EQ(r.num_vls, 1) << what;
  ValidationReport v = check_switch_pairs(f, r);
  EXPECT_EQ(v.unreachable, 0u) << what;
  EXPECT_EQ(v.looping, 0u) << what;
  EXPECT_TRUE(v.deadlock_checked && v.cdg_acyclic) << what << ": " << v.cycle_text;
  EXPECT_TRUE(v.ok()) << what;
}

}  // namespace

TEST(AggregationNodes, RecognisedByInternalPortOrDescription) {
  Fabric f = make_pgft({.pods = 1, .leaves = 2, .spines = 2, .groups = 1, .per_group = 1, .hosts = 2, .ans = true,
                        .an_by_port_only = true});
  int ans = 0, hosts = 0;
  for (int n : f.cas()) (is_aggregation_node(f, n) ? ans : hosts)++;
  EXPECT_EQ(ans, static_cast<int>(f.switches().size()));  // every switch's port 41
  EXPECT_EQ(hosts, 4);
  // A host on the last port of a 9-port switch is no AN (9 is no ASIC radix + 1), nor is a host
  // on port 41 of a 48-port switch; the description alone is enough wherever it sits.
  Fabric g;
  int s9 = g.add_node(NodeType::Switch, "S9", 9), s48 = g.add_node(NodeType::Switch, "S48", 48);
  int a = g.add_node(NodeType::Ca, "A", 1), b = g.add_node(NodeType::Ca, "B", 1), c = g.add_node(NodeType::Ca, "C", 1);
  g.connect(a, 1, s9, 9);
  g.connect(b, 1, s48, 41);
  g.connect(c, 1, s48, 3);
  g.node(c).desc = "Mellanox Technologies Aggregation Node";
  EXPECT_FALSE(is_aggregation_node(g, a));
  EXPECT_FALSE(is_aggregation_node(g, b));
  EXPECT_TRUE(is_aggregation_node(g, c));
  EXPECT_FALSE(is_aggregation_node(g, s9));
}

TEST(AggregationNodes, AnOnEverySwitchMakesNoLeafAndCostsNoVl) {
  for (bool by_port : {false, true}) {
    Fabric f = make_pgft({.pods = 2, .leaves = 4, .spines = 4, .groups = 4, .per_group = 2, .hosts = 3, .ans = true,
                          .an_by_port_only = by_port});
    FatTree t = recognize_fat_tree(f);
    EXPECT_EQ(t.height, 2);
    EXPECT_EQ(t.by_rank[0].size(), 8u);  // the leaves only: spines and cores with ANs are no leaves
    EXPECT_EQ(t.num_aggregation_nodes, static_cast<int>(f.switches().size()));
    EXPECT_EQ(t.num_hosts, 2 * 4 * 3);
    Routing r = FtreeMisrouteEngine().route(f, {});
    expect_deadlock_free_one_vl(f, r, by_port ? "ANs by port" : "ANs by description");
  }
}

TEST(GeneralisedFatTree, CoresReachingAPodThroughSeveralSpinesRouteDeadlockFree) {
  // Selene's storage fabric in small: cores cabled to every second spine of every pod.
  for (bool ans : {false, true}) {
    Fabric f = make_pgft({.pods = 3, .leaves = 4, .spines = 4, .groups = 2, .per_group = 2, .hosts = 8, .ans = ans});
    FatTree t = recognize_fat_tree(f);
    EXPECT_TRUE(t.multi_child);
    EXPECT_EQ(t.height, 2);
    EXPECT_EQ(t.by_rank[2].size(), 4u);  // the cores are cores, not empty leaves
    Routing r = FtreeMisrouteEngine().route(f, {});
    expect_deadlock_free_one_vl(f, r, ans ? "pgft with ANs" : "pgft");
    // A leaf's hosts come down over all its spines: the cables into a leaf carry within 2.5x of
    // each other (a core's own digit would send all of them down one spine: 5x here).
    ValidationReport v = validate(f, r, {});
    std::map<int, std::pair<uint64_t, uint64_t>> into_leaf;  // leaf -> (min, max) routes on its down-cables
    for (const auto& l : v.switch_link_loads) {
      const Port& pt = f.node(l.node).port(l.port);
      if (f.node(pt.peer_node).id.rfind("LG", 0) != 0) continue;
      auto [it, fresh] = into_leaf.emplace(pt.peer_node, std::make_pair(l.routes, l.routes));
      it->second.first = std::min(it->second.first, l.routes);
      it->second.second = std::max(it->second.second, l.routes);
    }
    for (const auto& [leaf, mm] : into_leaf)
      EXPECT_LE(static_cast<double>(mm.second), 2.5 * static_cast<double>(mm.first)) << f.node(leaf).id;
    // balanced no worse than ft-minhop (which has dependency cycles here)
    Routing m = make_engine("ft-minhop")->route(f, {});
    EXPECT_LE(validate(f, r, {}).efi_max, validate(f, m, {}).efi_max) << (ans ? "with ANs" : "");
  }
}

TEST(GeneralisedFatTree, EverySingleSwitchLinkFaultIsTolerated) {
  Fabric f = make_pgft({.pods = 2, .leaves = 3, .spines = 4, .groups = 2, .per_group = 2, .hosts = 2, .ans = true});
  int tolerated = 0, total = 0;
  for (auto [n, p] : f.switch_links()) {
    Fabric g = f;
    g.disconnect(n, p);
    total++;
    try {
      Routing r = FtreeMisrouteEngine().route(g, {});
      expect_deadlock_free_one_vl(g, r, f.port_name(n, p));
      tolerated++;
    } catch (const EngineError& e) {
      ADD_FAILURE() << f.port_name(n, p) << ": " << e.what();
    }
  }
  EXPECT_EQ(tolerated, total);
}

TEST(GeneralisedFatTree, EmptyManagementLeafHangsBelowItsSpine) {
  // Selene: a management leaf whose hosts are all down, cabled (several cables) to one spine that
  // has no other leaf; the spine is cabled to cores. The leaf is ranked below the spine.
  Pgft p{.pods = 2, .leaves = 3, .spines = 3, .groups = 3, .per_group = 2, .hosts = 2};
  Fabric base = make_pgft(p);
  Fabric f;
  f = base;  // rebuild with the extra switches: add them to a copy
  int mspine = f.add_node(NodeType::Switch, "MSPINE", 41), mleaf = f.add_node(NodeType::Switch, "MLG", 41);
  for (int c = 1; c <= 4; c++) f.connect(mleaf, c, mspine, c);
  int port = 10;
  for (int s : base.switches())
    if (base.node(s).id.rfind("CC0-", 0) == 0) f.connect(mspine, port++, s, 40);
  f.assign_lids();
  FatTree t = recognize_fat_tree(f);
  EXPECT_EQ(t.height, 2);
  EXPECT_EQ(t.rank[static_cast<size_t>(t.sw_index[static_cast<size_t>(mleaf)])], 0);
  EXPECT_EQ(t.rank[static_cast<size_t>(t.sw_index[static_cast<size_t>(mspine)])], 1);
  Routing r = FtreeMisrouteEngine().route(f, {});
  expect_deadlock_free_one_vl(f, r, "management leaf");
}

TEST(GeneralisedFatTree, ShowTreeExplainsTheRecognition) {
  Fabric f = make_pgft({.pods = 2, .leaves = 2, .spines = 4, .groups = 2, .per_group = 1, .hosts = 2, .ans = true});
  FatTree t = recognize_fat_tree(f);
  const std::string x = explain_fat_tree(f, t);
  EXPECT_NE(x.find("rank 0 (leaves): 4 switches, 4 with CA ports (8 CA ports)"), std::string::npos) << x;
  EXPECT_NE(x.find("aggregation nodes (SHARP, destinations of their switch, no leaf): 14"), std::string::npos) << x;
  EXPECT_NE(x.find("generalised fat tree): yes"), std::string::npos) << x;
  EXPECT_NE(x.find("\"MF0;LG0-0:MQM8700/U1\" (LG0-0)"), std::string::npos) << x;
  // a ring: refused, and the partial recognition names the rule
  Fabric ring;
  for (int i = 0; i < 4; i++) ring.add_node(NodeType::Switch, "R" + std::to_string(i), 3);
  for (int i = 0; i < 4; i++) ring.connect(i, 1, (i + 1) % 4, 2);
  for (int i = 0; i < 4; i++) ring.connect(ring.add_node(NodeType::Ca, "H" + std::to_string(i), 1), 1, i, 3);
  ring.assign_lids();
  FatTree partial;
  EXPECT_THROW(recognize_fat_tree(ring, "ftree-misroute", {}, &partial), EngineError);
  EXPECT_NE(explain_fat_tree(ring, partial).find("not recognised: link"), std::string::npos) << explain_fat_tree(ring, partial);
}

// Director line cards and 2:1 blocking leaves with cable bundles (issue 27 item 3): the digit
// weights count distinct parents and the up-cables alternate parents, aggregation nodes and
// upper-level hosts take indices of their own. On the two director presets ftree-misroute then
// balances no worse than ft-minhop (which has dependency cycles there). Before, a leaf's hosts
// came down one spine ASIC: EFI max 13,787 against 11,747 (edr-director) and 13,512 against
// 3,958 (hdr-mcs8500).
TEST(DirectorPresets, BalancedNoWorseThanFtMinhop) {
  for (const char* preset : {"edr-director", "hdr-mcs8500"}) {
    SCOPED_TRACE(preset);
    Fabric f = topo::cluster_tree(topo::parse_cluster_tree(std::string("preset=") + preset));
    f.assign_lids();
    Routing r = make_engine("ftree-misroute")->route(f, {});
    expect_deadlock_free_one_vl(f, r, preset);
    Routing m = make_engine("ft-minhop")->route(f, {});
    const uint64_t ours = validate(f, r, {}).efi_max, theirs = validate(f, m, {}).efi_max;
    EXPECT_LE(ours, theirs);
    std::printf("%s: EFI max ftree-misroute %llu, ft-minhop %llu\n", preset, static_cast<unsigned long long>(ours),
                static_cast<unsigned long long>(theirs));
  }
}

// A two-level tree with 4-cable bundles and one cable missing (a replica of the small FDR
// cluster's dump, where this was found): before, the leaves picked the spine for a LID by their
// own digit over 8 up-cables and the LID's leaf its cable by the digit over its 7, so the spine
// could not mirror it; 6 of the short leaf's 25 LIDs came down one cable (EFI max 729 against
// ft-minhop's 588 on the dump). Now every other leaf climbs to the spine the LID's leaf climbs to
// for it, which brings the LID down the cable it leaves on: the short leaf's 7 down-cables carry
// at most ceil(25 / 7) = 4 of its LIDs' routes from the other leaves' hosts each.
// The leaves' cables re-plugged so that their bundles interleave in port order (S0, S1, S0, ...):
// a bundle is a bundle wherever its cables sit.
static void interleave_leaf_bundles(Fabric& f) {
  for (int l : f.switches()) {
    if (f.node(l).id.rfind("L", 0) != 0) continue;
    std::vector<int> ports;
    std::map<int, std::vector<std::pair<int, int>>> by_spine;  // spine -> its (spine, spine port)
    for (int p = 1; p <= f.node(l).num_ports; p++) {
      const Port& pt = f.node(l).port(p);
      if (!pt.connected() || !f.node(pt.peer_node).is_switch()) continue;
      ports.push_back(p);
      by_spine[pt.peer_node].push_back({pt.peer_node, pt.peer_port});
    }
    std::vector<std::pair<int, int>> order;
    for (size_t i = 0; order.size() < ports.size(); i++)
      for (const auto& [sp, cables] : by_spine)
        if (i < cables.size()) order.push_back(cables[i]);
    for (int p : ports) f.disconnect(l, p);
    for (size_t i = 0; i < ports.size(); i++) f.connect(l, ports[i], order[i].first, order[i].second);
  }
}

static void unequal_bundles(bool interleaved) {
  SCOPED_TRACE(interleaved ? "bundles interleaved in port order" : "bundles on consecutive ports");
  Fabric f = topo::build_fabric_spec("fattree2:6,2,24,4");
  if (interleaved) interleave_leaf_bundles(f);
  const int leaf = *f.find("L0"), spine = *f.find("S1");
  int cut = -1;
  for (int p = 1; p <= f.node(leaf).num_ports && cut < 0; p++)
    if (f.node(leaf).port(p).connected() && f.node(leaf).port(p).peer_node == spine) cut = p;
  ASSERT_GT(cut, 0);
  f.disconnect(leaf, cut);
  f.assign_lids();
  Routing r = make_engine("ftree-misroute")->route(f, {});
  expect_deadlock_free_one_vl(f, r, "unequal bundles");
  Routing m = make_engine("ft-minhop")->route(f, {});
  const ValidationReport v = validate(f, r, {});
  const uint64_t theirs = validate(f, m, {}).efi_max;
  EXPECT_LE(v.efi_max, theirs);
  // the short leaf's down-cables: routes from the 5 x 24 hosts of the other leaves (each LID's
  // route from each of them) to its 25 LIDs, at most 4 LIDs per cable
  uint64_t most = 0;
  for (const LinkLoad& l : v.switch_link_loads)
    if (f.node(l.node).port(l.port).peer_node == leaf) most = std::max(most, l.routes);
  EXPECT_LE(most, 4u * 5u * 24u) << "ft-minhop: " << theirs;
  std::printf("unequal bundles%s: EFI max ftree-misroute %llu, ft-minhop %llu, busiest cable into the short leaf %llu\n",
              interleaved ? " (interleaved)" : "", static_cast<unsigned long long>(v.efi_max),
              static_cast<unsigned long long>(theirs), static_cast<unsigned long long>(most));
}

TEST(TwoLevelBundles, UnequalBundlesMirrorTheDestinationLeafsCable) {
  unequal_bundles(false);
  unequal_bundles(true);
}

// A leaf's hosts spread over every (parent, spine) pair above it: with 2:1 blocking leaves (18
// hosts, 3 parents x 3 cables), the busiest core-to-line-card link carries at most 1.5x the mean
// of those links (CA-to-CA routes). Counted in cables, the 18 hosts of a leaf used 2 of the 6
// spines of each parent.
TEST(DirectorPresets, BundledBlockingLeavesSpreadOverEverySpine) {
  Fabric f = topo::cluster_tree(topo::parse_cluster_tree("pods=2*4,aggs=3,cores=6,hosts=18*8,links=3,radix=36/36/36"));
  f.assign_lids();
  Routing r = make_engine("ftree-misroute")->route(f, {});
  expect_deadlock_free_one_vl(f, r, "blocking bundles");
  ValidateOptions o;
  o.switch_destinations = false;
  const ValidationReport v = validate(f, r, o);
  uint64_t most = 0, total = 0, links = 0;
  for (const LinkLoad& l : v.switch_link_loads) {
    const Port& pt = f.node(l.node).port(l.port);
    if (f.node(l.node).id.rfind("C", 0) != 0 || f.node(pt.peer_node).id.rfind("A", 0) != 0) continue;
    most = std::max(most, l.routes);
    total += l.routes;
    links++;
  }
  ASSERT_GT(links, 0u);
  EXPECT_LE(static_cast<double>(most), 1.5 * static_cast<double>(total) / static_cast<double>(links))
      << "busiest " << most << ", " << total << " routes over " << links << " links";
}

// A fault set the storm test found (3 core-side cables down in 3 pods, ANs on every switch): no
// valley chain and no free U-turns serve it on one VL, but Up*/Down* from one root does (issue 27:
// refuse only what no up/down routing on one VL can serve). With updn_fallback=false it is
// refused, naming the switch that cannot reach a LID.
TEST(GeneralisedFatTree, UpDownLastResortServesTheStormFaultSet) {
  Fabric f = topo::cluster_tree(topo::parse_cluster_tree("pods=3*3,aggs=3,cores=3,hosts=2,an=1"));
  for (const auto& [sw, port] : std::vector<std::pair<std::string, int>>{{"A0_1", 4}, {"A1_2", 6}, {"A2_0", 6}})
    f.disconnect(*f.find(sw), port);
  f.assign_lids();
  // the constructions alone (fill_holes=false: since session 19 the hole filling serves this set)
  EngineOptions no_updn;
  no_updn.set("updn_fallback", "false");
  no_updn.set("fill_holes", "false");
  try {
    make_engine("ftree-misroute")->route(f, no_updn);
    FAIL() << "the misrouting alone served it: pick another fault set";
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot reach LID"), std::string::npos) << e.what();
  }
  EngineOptions no_fill;
  no_fill.set("fill_holes", "false");
  Routing r = make_engine("ftree-misroute")->route(f, no_fill);
  expect_deadlock_free_one_vl(f, r, "Up*/Down* last resort");
  ASSERT_FALSE(r.notes.empty());
  bool up_down = false, balanced = false;
  for (const std::string& n : r.notes) {
    up_down = up_down || n.find("Up*/Down* from root") != std::string::npos;
    balanced = balanced || n.find("cable balancing") != std::string::npos;
  }
  EXPECT_TRUE(up_down) << r.notes.back();
  // the cable balancing on the last resort too: lower EFI max than without, still acyclic
  EngineOptions no_fill_no_balance = no_fill;
  no_fill_no_balance.set("balance", "false");
  const Routing rb = make_engine("ftree-misroute")->route(f, no_fill_no_balance);
  EXPECT_TRUE(balanced);
  EXPECT_LT(validate(f, r, {}).efi_max, validate(f, rb, {}).efi_max);
  // the default fills the construction's holes instead: no last resort, and lighter
  Routing d = make_engine("ftree-misroute")->route(f, {});
  expect_deadlock_free_one_vl(f, d, "hole filling");
  for (const std::string& n : d.notes) EXPECT_EQ(n.find("Up*/Down*"), std::string::npos) << n;
  EXPECT_LT(validate(f, d, {}).efi_max, validate(f, r, {}).efi_max);
}

// An aggregation node takes an index of its own: its LID and its switch's LID leave a leaf on
// different cables for most switches (sharing the index put both on the same cable everywhere).
TEST(AggregationNodes, OwnIndexSpreadsAnAndSwitchLid) {
  Fabric f = topo::cluster_tree(topo::parse_cluster_tree("preset=edr-director"));
  f.assign_lids();
  Routing r = make_engine("ftree-misroute")->route(f, {});
  long pairs = 0, same = 0;
  for (const EndPort& ep : f.end_ports()) {
    if (f.node(ep.node).is_switch() || !is_aggregation_node(f, ep.node)) continue;
    const Attach a = f.attach(ep.base_lid);
    ASSERT_TRUE(a.valid());
    const Lid sw_lid = f.node(a.sw).port(0).base_lid;
    for (int s : f.switches()) {
      if (s == a.sw || f.node(s).id.rfind("L", 0) != 0) continue;  // leaves only
      pairs++;
      same += r.lfts.get(s, ep.base_lid) == r.lfts.get(s, sw_lid);
    }
  }
  ASSERT_GT(pairs, 0);
  EXPECT_LT(static_cast<double>(same), 0.5 * static_cast<double>(pairs)) << same << " of " << pairs;
}
