// Cluster-shaped fat-tree generator (`ftroute gen ctree`, `campaign --gen ctree:`): counts, cabling,
// reproducibility, the same fabric from both entry points, and clear errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "ftroute/campaign.hpp"
#include "ftroute/cluster_tree.hpp"
#include "ftroute/error.hpp"
#include "ftroute/netfile.hpp"
#include "ftroute/topology.hpp"
#include "test_fabrics.hpp"

using namespace ftroute;

namespace {

Fabric make(const std::string& spec) { return topo::cluster_tree(topo::parse_cluster_tree(spec)); }

int hosts_on(const Fabric& f, const std::string& sw) {
  const Node& n = f.node(*f.find(sw));
  int h = 0;
  for (int p = 1; p <= n.num_ports; p++)
    if (n.port(p).connected() && !f.node(n.port(p).peer_node).is_switch()) h++;
  return h;
}

int cables(const Fabric& f, const std::string& a, const std::string& b) {
  const Node& n = f.node(*f.find(a));
  int c = 0;
  for (int p = 1; p <= n.num_ports; p++)
    if (n.port(p).connected() && f.node(n.port(p).peer_node).id == b) c++;
  return c;
}

// Switch-to-switch cables of switch `sw` (each cable once).
int up_and_down(const Fabric& f, const std::string& sw) {
  const Node& n = f.node(*f.find(sw));
  int c = 0;
  for (int p = 1; p <= n.num_ports; p++)
    if (n.port(p).connected() && f.node(n.port(p).peer_node).is_switch()) c++;
  return c;
}

int count_ids(const Fabric& f, const std::string& prefix) {
  int c = 0;
  for (const Node& n : f.nodes()) c += n.id.rfind(prefix, 0) == 0;
  return c;
}

// Every switch has one aggregation node, on its last port (radix + 1), and every AN sits on one.
void expect_aggregation_nodes(const Fabric& f, int radix_plus_one = 0) {
  int ans = 0;
  for (int s : f.switches()) {
    const Node& sw = f.node(s);
    if (radix_plus_one) {
      EXPECT_EQ(sw.num_ports, radix_plus_one) << sw.id;
    }
    const Port& p = sw.port(sw.num_ports);
    ASSERT_TRUE(p.connected()) << sw.id;
    const Node& an = f.node(p.peer_node);
    EXPECT_EQ(an.type, NodeType::Ca) << sw.id;
    EXPECT_EQ(an.num_ports, 1) << sw.id;
    EXPECT_EQ(an.id, "AN-" + sw.id);
    EXPECT_EQ(an.desc, "Mellanox Technologies Aggregation Node");
  }
  for (const Node& n : f.nodes()) ans += n.desc == topo::kAggregationNodeDesc;
  EXPECT_EQ(ans, static_cast<int>(f.switches().size()));
}

}  // namespace

TEST(ClusterTree, PatternsRepeatAndCycle) {
  EXPECT_EQ(topo::parse_count_pattern("4/4/0/2", "hosts"), (std::vector<int>{4, 4, 0, 2}));
  EXPECT_EQ(topo::parse_count_pattern("8*3/0", "hosts"), (std::vector<int>{8, 8, 8, 0}));
  EXPECT_THROW(topo::parse_count_pattern("4//2", "hosts"), OptionError);
  EXPECT_THROW(topo::parse_count_pattern("4*0", "hosts"), OptionError);
  EXPECT_THROW(topo::parse_count_pattern("x", "hosts"), OptionError);
  EXPECT_THROW(topo::parse_count_pattern("999", "hosts"), OptionError);
}

TEST(ClusterTree, TwoLevelHostCountsCablesAndEmptyLeaves) {
  Fabric f = make("leaves=6,spines=3,hosts=4/0/2,links=2");
  EXPECT_EQ(f.switches().size(), 9u);
  EXPECT_EQ(hosts_on(f, "L0"), 4);
  EXPECT_EQ(hosts_on(f, "L1"), 0);
  EXPECT_EQ(hosts_on(f, "L2"), 2);
  EXPECT_EQ(hosts_on(f, "L3"), 4);  // the pattern cycles
  EXPECT_EQ(hosts_on(f, "L4"), 0);
  for (const char* l : {"L0", "L1", "L5"})
    for (const char* s : {"S0", "S1", "S2"}) EXPECT_EQ(cables(f, l, s), 2) << l << " " << s;
  EXPECT_EQ(f.cas().size(), 12u);
  EXPECT_TRUE(f.connected());
}

TEST(ClusterTree, BlockingSetsTheSpines) {
  Fabric f = make("leaves=4,hosts=8,blocking=2");  // 8 hosts, 4 up-links per leaf
  EXPECT_EQ(f.switches().size(), 8u);
  EXPECT_EQ(topo::parse_cluster_tree("leaves=4,hosts=9,blocking=3,links=1").uplinks_sw, 3);
  Fabric g = make("leaves=4,spines=2,links=2,blocking=3");  // 3 x 4 up-links = 12 hosts per leaf
  EXPECT_EQ(hosts_on(g, "L3"), 12);
}

TEST(ClusterTree, UnevenPodsPartialCoresUpperHostsAndRadices) {
  Fabric f = make("pods=4*2/2,aggs=2,cores=3,hosts=2,agghosts=1/0,tophosts=0/2,radix=12/16/8");
  // 10 leaves, 6 aggregation switches, 2 x 3 cores
  EXPECT_EQ(f.switches().size(), 22u);
  EXPECT_EQ(cables(f, "L2_1", "A2_0"), 1);
  EXPECT_FALSE(f.find("L2_2").has_value());
  EXPECT_EQ(cables(f, "A2_1", "C1_2"), 1);
  EXPECT_EQ(cables(f, "A0_0", "C1_0"), 0);  // core group a only meets aggregation switch a
  EXPECT_EQ(hosts_on(f, "A0_0"), 1);
  EXPECT_EQ(hosts_on(f, "A0_1"), 0);
  EXPECT_EQ(hosts_on(f, "C0_1"), 2);
  EXPECT_EQ(f.node(*f.find("L0_0")).num_ports, 12);
  EXPECT_EQ(f.node(*f.find("A1_1")).num_ports, 16);
  EXPECT_EQ(f.node(*f.find("C0_0")).num_ports, 8);
  EXPECT_THROW(make("pods=4,aggs=4,radix=4"), OptionError);  // 4 hosts + 4 up-links need 8 ports
}

TEST(ClusterTree, DualRailHcasSitOnTwoLeaves) {
  Fabric f = make("leaves=5,spines=2,hosts=2,dual=1");
  auto d = f.find("D0_0");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(f.node(*d).num_ports, 2);
  EXPECT_EQ(f.node(f.node(*d).port(1).peer_node).id, "L0");
  EXPECT_EQ(f.node(f.node(*d).port(2).peer_node).id, "L1");
  EXPECT_TRUE(f.find("D2_0").has_value());
  EXPECT_FALSE(f.find("D4_0").has_value());  // the fifth leaf has no partner
}

TEST(ClusterTree, ReproducibleAndTheSameThroughCampaign) {
  const std::string spec = "pods=3/2,aggs=2,hosts=3/1/0,links=2,dual=1,tophosts=1";
  const std::string a = write_net(make(spec), {});
  EXPECT_EQ(a, write_net(make(spec), {}));
  Fabric c = campaign::build_fabric(campaign::parse_fabric_source("ctree:" + spec, false));
  EXPECT_EQ(a, write_net(c, {}));
  // the normalised spec gives the same fabric again
  EXPECT_EQ(a, write_net(make(topo::parse_cluster_tree(spec).spec), {}));
}

TEST(ClusterTree, BadSpecsNameTheKey) {
  auto msg = [](const std::string& s) {
    try {
      make(s);
    } catch (const OptionError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(msg("leaves=4,foo=1").find("unknown key 'foo'"), std::string::npos);
  EXPECT_NE(msg("leaves=4,leaves=5").find("given twice"), std::string::npos);
  EXPECT_NE(msg("leaves=4,pods=2").find("not both"), std::string::npos);
  EXPECT_NE(msg("leaves=4,aggs=2").find("3-level"), std::string::npos);
  EXPECT_NE(msg("leaves=4,blocking=abc").find("blocking"), std::string::npos);
  EXPECT_NE(msg("leaves").find("KEY=VALUE"), std::string::npos);
  EXPECT_THROW(campaign::build_fabric(campaign::parse_fabric_source("ctree:leaves=x", false)), OptionError);
}

// ---------------------------------------------------------------------------------------------
// features of production fabrics (issue 27): aggregation nodes, spine-core bundles, storage
// pods, director chassis (shared chassis GUIDs), missing cables, presets

TEST(ClusterTree, AggregationNodeOnEverySwitchBeyondItsRadix) {
  Fabric f = make("leaves=4,spines=2,hosts=3,radix=8,an=1");
  EXPECT_EQ(f.switches().size(), 6u);
  EXPECT_EQ(f.cas().size(), 12u + 6u);
  expect_aggregation_nodes(f, 9);  // port 9 of an 8-port switch
  EXPECT_EQ(test_fabrics::switch_links(f), 8);
  EXPECT_TRUE(f.connected());
  // without a radix: the smallest that fits (3 hosts + 2 up-links), plus the AN's port
  Fabric g = make("leaves=4,spines=2,hosts=3,an=1");
  EXPECT_EQ(g.node(*g.find("L0")).num_ports, 6);
  EXPECT_EQ(g.node(*g.find("S0")).num_ports, 5);
  expect_aggregation_nodes(g);
  // 3-level: spines and cores get one too; the hosts keep their ports
  Fabric h = make("pods=2*2,aggs=2,cores=2,hosts=2,an=1");
  expect_aggregation_nodes(h);
  EXPECT_EQ(hosts_on(h, "C1_1"), 1);
  EXPECT_EQ(hosts_on(h, "L1_1"), 3);
  EXPECT_EQ(make("leaves=4,an=0").cas().size(), make("leaves=4").cas().size());
}

TEST(ClusterTree, CoreLinksBundleAggregationToCore) {
  Fabric f = make("pods=2*3,aggs=2,cores=2,hosts=2,links=2,corelinks=3");
  for (const char* a : {"A0_0", "A2_0"})
    for (const char* c : {"C0_0", "C0_1"}) EXPECT_EQ(cables(f, a, c), 3) << a << " " << c;
  EXPECT_EQ(cables(f, "A0_1", "C0_0"), 0);
  EXPECT_EQ(cables(f, "L1_0", "A1_1"), 2);  // leaf bundles too
  EXPECT_EQ(f.node(*f.find("C1_0")).num_ports, 9);   // 3 pods x 3 cables
  EXPECT_EQ(f.node(*f.find("A0_0")).num_ports, 10);  // 2 leaves x 2 + 2 cores x 3
  // a core's pod p, cable k on port p*K+k+1
  const Node& core = f.node(*f.find("C0_1"));
  EXPECT_EQ(f.node(core.port(4).peer_node).id, "A1_0");
  EXPECT_EQ(test_fabrics::switch_links(f), 6 * 2 * 2 + 6 * 2 * 3);
  EXPECT_NE(topo::parse_cluster_tree("pods=2,corelinks=2").spec.find(",corelinks=2"), std::string::npos);
}

TEST(ClusterTree, StoragePodsHaveTheirOwnLeavesAndSpinesUnderTheSameCores) {
  Fabric f = make("pods=2*3,aggs=2,cores=2,hosts=4,storage=1,storageleaves=3,storagehosts=6/5");
  EXPECT_EQ(f.switches().size(), 9u + 8u + 4u);  // 6 + 3 leaves, 4 pods x 2 aggregation, 2 x 2 cores
  EXPECT_EQ(hosts_on(f, "L3_0"), 6);
  EXPECT_EQ(hosts_on(f, "L3_1"), 5);
  EXPECT_EQ(hosts_on(f, "L3_2"), 6);
  EXPECT_EQ(count_ids(f, "F3_"), 17);
  EXPECT_EQ(count_ids(f, "H"), 24);
  EXPECT_TRUE(f.find("F3_1_4").has_value());
  EXPECT_EQ(cables(f, "L3_2", "A3_1"), 1);
  EXPECT_EQ(cables(f, "A3_1", "C1_0"), 1);  // joined through the same cores
  EXPECT_EQ(f.node(*f.find("C1_0")).num_ports, 4);
  EXPECT_TRUE(f.connected());
  // defaults: the pods' leaf count and host count; the normalised spec gives the same fabric
  auto t = topo::parse_cluster_tree("pods=2/3,hosts=7/2,storage=2");
  EXPECT_EQ(t.pod_leaves, (std::vector<int>{2, 3, 3, 3}));
  EXPECT_EQ(t.spec, "pods=2/3,aggs=4,cores=3,hosts=7/2/7/2/7,links=1,storage=2,storageleaves=3,storagehosts=7*6");
  EXPECT_EQ(write_net(topo::cluster_tree(t)), write_net(make(t.spec)));
}

TEST(ClusterTree, DirectorChassisNameLineAndSpineAsics) {
  Fabric f = make("pods=1*4,aggs=2,cores=3,hosts=2,links=2,radix=8,director=1");
  EXPECT_EQ(f.node(*f.find("A0_0")).desc, "MF0;dirA:CS7500/L01/U1");
  EXPECT_EQ(f.node(*f.find("A1_0")).desc, "MF0;dirA:CS7500/L01/U2");
  EXPECT_EQ(f.node(*f.find("A3_1")).desc, "MF0;dirB:CS7500/L02/U2");
  EXPECT_EQ(f.node(*f.find("C1_2")).desc, "MF0;dirB:CS7500/S03/U1");
  EXPECT_EQ(f.node(*f.find("L0_0")).desc, "L0_0");
  // inside a chassis every line ASIC meets every spine ASIC; a leaf meets one line ASIC per chassis
  for (int p = 0; p < 4; p++)
    for (int c = 0; c < 3; c++) EXPECT_EQ(cables(f, "A" + std::to_string(p) + "_1", "C1_" + std::to_string(c)), 1);
  EXPECT_EQ(cables(f, "L2_0", "A2_0"), 2);
  EXPECT_EQ(cables(f, "L2_0", "A2_1"), 2);
  EXPECT_EQ(make("pods=2,aggs=1,cores=1,radix=40,director=1").node(2).desc, "MF0;dirA:MCS8500/L01/U1");
  // the same cabling as without director=1: only the descriptions differ
  Fabric g = make("pods=1*4,aggs=2,cores=3,hosts=2,links=2,radix=8");
  EXPECT_NE(fabric_diff(f, g).find("desc"), std::string::npos);
  for (int n = 0; n < g.size(); n++) g.node(n).desc = f.node(n).desc;
  EXPECT_EQ(fabric_diff(f, g), "");
}

TEST(ClusterTree, SharedChassisGuidRoundTripsThroughWriteAndRead) {
  Fabric f = make("pods=2*3,aggs=2,cores=2,hosts=2,an=1,director=1,chassisguid=shared");
  std::set<uint64_t> guids;
  int shared = 0;
  for (const Node& n : f.nodes()) {
    EXPECT_TRUE(guids.insert(n.guid).second) << n.id;  // identities stay unique
    if (n.reported_guid) {
      shared++;
      const bool chassis_b = (n.id[0] == 'A' && n.id.back() == '1') || n.id.rfind("C1_", 0) == 0;
      EXPECT_EQ(n.reported_guid, topo::kChassisGuidBase + (chassis_b ? 1 : 0)) << n.id;
    }
  }
  EXPECT_EQ(shared, 2 * (3 + 2));  // 2 chassis of 3 line + 2 spine ASICs
  NetWriteOptions o;
  o.reported_guids = true;
  const std::string text = write_net(f, o);
  EXPECT_NE(text.find("switchguid=0x300001("), std::string::npos);
  std::vector<std::string> warnings;
  NetReadOptions ro;
  ro.warnings = &warnings;
  EXPECT_EQ(fabric_diff(f, parse_net(text, "shared.net", ro)), "");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("2 node GUIDs reported by several switches, 10 switches"), std::string::npos) << warnings[0];
  // for ibsim: the shared GUIDs dropped, nothing else changes
  Fabric g = f;
  EXPECT_EQ(make_ibsim_loadable(g).size(), 1u);
  const std::string plain = write_net(g);
  EXPECT_EQ(plain.find("0x30000"), std::string::npos);
  EXPECT_EQ(fabric_diff(g, parse_net(plain, "plain.net")), "");
}

TEST(ClusterTree, MissingCablesAreSeededAndNeverDisconnect) {
  const Fabric full = make("pods=2*3,aggs=3,cores=2,hosts=2,links=2");
  const int cables_full = test_fabrics::switch_links(full);
  Fabric f = make("pods=2*3,aggs=3,cores=2,hosts=2,links=2,missing=7,seed=3");
  EXPECT_EQ(test_fabrics::switch_links(f), cables_full - 7);
  EXPECT_TRUE(f.connected());
  EXPECT_EQ(f.size(), full.size());  // cables go missing, no node does
  EXPECT_EQ(write_net(f), write_net(make("pods=2*3,aggs=3,cores=2,hosts=2,links=2,missing=7,seed=3")));
  EXPECT_NE(write_net(f), write_net(make("pods=2*3,aggs=3,cores=2,hosts=2,links=2,missing=7,seed=4")));
  // the same draw as `gen --fail-links 7 --seed 3 --keep-connected`
  Fabric g = full;
  topo::FaultSpec fs;
  fs.random_links = 7;
  fs.seed = 3;
  fs.keep_connected = true;
  topo::inject_faults(g, fs);
  EXPECT_EQ(fabric_diff(f, g), "");
  // a 2-level tree with single cables: every leaf keeps an up-link
  for (uint64_t seed = 1; seed <= 20; seed++) {
    Fabric h = make("leaves=6,spines=2,hosts=1,missing=5,seed=" + std::to_string(seed));
    EXPECT_TRUE(h.connected()) << seed;
    EXPECT_EQ(test_fabrics::switch_links(h), 12 - 5);
  }
  EXPECT_THROW(make("leaves=2,spines=1,missing=1"), FabricError);  // every cable is a bridge
}

TEST(ClusterTree, EveryFeatureAtOnce) {
  // bundles at both levels, blocking leaves, a storage pod, hosts on aggregation switches and
  // cores, aggregation nodes, director chassis sharing their GUID, missing cables
  const std::string spec =
      "pods=2*3,aggs=2,cores=3,links=2,corelinks=2,blocking=2,storage=1,storageleaves=2,storagehosts=3,"
      "agghosts=1/0,tophosts=0/1,an=1,director=1,chassisguid=shared,missing=3,seed=2";
  Fabric f = make(spec);
  // 8 leaves (6 + 2 storage), 4 pods x 2 line ASICs, 2 x 3 spine ASICs
  EXPECT_EQ(f.switches().size(), 8u + 8u + 6u);
  EXPECT_EQ(hosts_on(f, "L0_0"), 2 * 2 * 2 + 1);  // blocking 2: 2 x 4 up-links, + the AN
  EXPECT_EQ(count_ids(f, "H"), 6 * 8);
  EXPECT_EQ(count_ids(f, "F"), 2 * 3);
  EXPECT_EQ(count_ids(f, "I"), 4);  // agghosts 1/0 over 8 aggregation switches
  EXPECT_EQ(count_ids(f, "T"), 3);  // tophosts 0/1 over 6 cores
  EXPECT_EQ(count_ids(f, "AN-"), 22);
  expect_aggregation_nodes(f);
  EXPECT_EQ(static_cast<int>(f.cas().size()), 48 + 6 + 4 + 3 + 22);
  EXPECT_EQ(test_fabrics::switch_links(f), 8 * 2 * 2 + 8 * 3 * 2 - 3);
  EXPECT_TRUE(f.connected());
  EXPECT_EQ(f.node(*f.find("A3_1")).desc, "MF0;dirB:CS7500/L02/U2");
  int shared = 0;
  for (const Node& n : f.nodes()) shared += n.reported_guid != 0;
  EXPECT_EQ(shared, 8 + 6);  // every line and spine ASIC
  // the normalised spec and the written file give it back
  EXPECT_EQ(write_net(f), write_net(make(topo::parse_cluster_tree(spec).spec)));
  NetWriteOptions o;
  o.reported_guids = true;
  std::vector<std::string> w;
  NetReadOptions ro;
  ro.warnings = &w;
  EXPECT_EQ(fabric_diff(f, parse_net(write_net(f, o), "all.net", ro)), "");
}

TEST(ClusterTree, PresetsReproduceTheProductionClusters) {
  struct Want {
    const char* preset;
    size_t switches, hosts, links;
    int ports, shared;
  };
  // hosts: CAs that are not aggregation nodes; links: switch-to-switch cables
  for (const Want& w : {Want{"hdr-3tier", 206, 1125, 2240 - 6, 41, 0}, Want{"edr-director", 178, 1476, 738 + 42 * 18, 37, 0},
                        Want{"hdr-mcs8500", 192, 990, 72 * 20 + 80 * 20, 41, 120}}) {
    SCOPED_TRACE(w.preset);
    Fabric f = make(std::string("preset=") + w.preset);
    EXPECT_EQ(f.switches().size(), w.switches);
    EXPECT_EQ(f.cas().size(), w.hosts + w.switches);
    EXPECT_EQ(static_cast<size_t>(test_fabrics::switch_links(f)), w.links);
    expect_aggregation_nodes(f, w.ports);
    int shared = 0;
    std::set<uint64_t> chassis;
    for (const Node& n : f.nodes())
      if (n.reported_guid) {
        shared++;
        chassis.insert(n.reported_guid);
      }
    EXPECT_EQ(shared, w.shared);
    EXPECT_EQ(chassis.size(), w.shared ? 2u : 0u);
    EXPECT_TRUE(f.connected());
    // the preset is its keys: the same fabric from the spec it stands for
    const auto& ps = topo::cluster_tree_presets();
    auto it = std::find_if(ps.begin(), ps.end(), [&](const auto& p) { return std::string(p.name) == w.preset; });
    ASSERT_NE(it, ps.end());
    EXPECT_EQ(write_net(f), write_net(make(it->spec)));
  }
  // hdr-3tier: 2-cable bundles, 5 hosts on 2 spines, a storage pod, leaves with 19 or 20 of 20
  // up-links, spines with 26 to 28 of 28, super-spines with 15 or 16 of 16
  Fabric f = make("preset=hdr-3tier");
  int bundles = 0;  // (leaf, spine) pairs of its pod with both cables
  for (int p = 0; p < 8; p++)
    for (int i = 0; i < 7; i++)
      for (int a = 0; a < 10; a++) {
        const int c = cables(f, "L" + std::to_string(p) + "_" + std::to_string(i), "A" + std::to_string(p) + "_" + std::to_string(a));
        EXPECT_GE(c, 1);
        bundles += c == 2;
      }
  EXPECT_GE(bundles, 56 * 10 - 6);
  EXPECT_EQ(hosts_on(f, "A0_0") + hosts_on(f, "A0_1"), 5 + 2);
  EXPECT_EQ(count_ids(f, "F7_"), 7 * 20);
  std::map<std::string, int> low;  // "<level><cables>" -> switches with a missing cable
  for (int s : f.switches()) {
    const std::string& id = f.node(s).id;
    const int have = up_and_down(f, id), full = id[0] == 'L' ? 20 : id[0] == 'A' ? 28 : 16;
    if (have < full) low[id.substr(0, 1) + std::to_string(have)]++;
  }
  EXPECT_EQ(low, (std::map<std::string, int>{{"L19", 3}, {"A26", 1}, {"A27", 4}, {"C15", 3}}));
  // a preset's key overridden by a key beside it
  EXPECT_EQ(make("preset=hdr-3tier,missing=0").switches().size(), 206u);
  EXPECT_EQ(test_fabrics::switch_links(make("preset=hdr-3tier,missing=0,an=0")), 2240);
}

TEST(ClusterTree, BadRealFabricKeysNameTheKey) {
  auto msg = [](const std::string& s) {
    try {
      make(s);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(msg("leaves=4,corelinks=2").find("3-level"), std::string::npos);
  EXPECT_NE(msg("leaves=4,storage=1").find("3-level"), std::string::npos);
  EXPECT_NE(msg("leaves=4,director=1").find("3-level"), std::string::npos);
  EXPECT_NE(msg("pods=2,storagehosts=3").find("go with storage=P"), std::string::npos);
  EXPECT_NE(msg("pods=2,chassisguid=shared").find("needs director=1"), std::string::npos);
  EXPECT_NE(msg("pods=2,director=1,chassisguid=same").find("shared or unique"), std::string::npos);
  EXPECT_NE(msg("leaves=4,an=2").find("an must be 0 or 1"), std::string::npos);
  EXPECT_NE(msg("leaves=4,seed=3").find("seed of missing"), std::string::npos);
  EXPECT_NE(msg("preset=nope").find("unknown preset 'nope' (hdr-3tier, edr-director, hdr-mcs8500)"), std::string::npos);
  EXPECT_NE(msg("leaves=4,radix=254,an=1").find("more than 254"), std::string::npos);
  EXPECT_NE(msg("leaves=4,spines=4,missing=99").find("cannot fail 99 links"), std::string::npos);
  EXPECT_NE(msg("leaves=4,bogus=1").find("preset"), std::string::npos);  // the key list names every key
}
