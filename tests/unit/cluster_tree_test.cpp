// Cluster-shaped fat-tree generator (`ftroute gen ctree`, `campaign --gen ctree:`): counts, cabling,
// reproducibility, the same fabric from both entry points, and clear errors.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "ftroute/campaign.hpp"
#include "ftroute/cluster_tree.hpp"
#include "ftroute/error.hpp"
#include "ftroute/netfile.hpp"

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
