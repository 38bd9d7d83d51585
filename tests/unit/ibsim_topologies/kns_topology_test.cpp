// KNS generator: sizes counted on the generated fabric against the thesis' formulas
// (Tables 3.2/3.3/4.3/4.4, spec §1.5-1.8), wiring conventions, limits.
#include <gtest/gtest.h>

#include "ftroute/error.hpp"
#include "ftroute/kns_topology.hpp"

using namespace ftroute;

namespace {

KnsParams xbar(int k, int n, int p = 1) {
  KnsParams q;
  q.k = k;
  q.n = n;
  q.p = p;
  return q;
}
KnsParams ftree(int k, int n, int ki, int p = 1) {
  KnsParams q = xbar(k, n, p);
  q.subnet = KnsSubnet::FatTree;
  q.ki = ki;
  return q;
}

void expect_counts_match(const KnsParams& prm) {
  SCOPED_TRACE(prm.name());
  Fabric f = make_kns(prm);
  KnsSize a = kns_formula_size(prm), b = kns_count_size(prm, f);
  EXPECT_EQ(a.nodes, b.nodes);
  EXPECT_EQ(a.routers, b.routers);
  EXPECT_EQ(a.subnet_switches, b.subnet_switches);
  EXPECT_EQ(a.ib_switches, b.ib_switches);
  EXPECT_EQ(a.links, b.links);
  EXPECT_EQ(a.router_links, b.router_links);
  EXPECT_EQ(a.unidir_links, b.unidir_links);
  EXPECT_EQ(a.ports, b.ports);
  EXPECT_EQ(a.switching_elements, b.switching_elements);
  EXPECT_EQ(a.router_ports, b.router_ports);
  EXPECT_EQ(a.subnet_switch_ports, b.subnet_switch_ports);
  EXPECT_EQ(a.diameter, b.diameter);
  EXPECT_EQ(a.switch_hops_diameter, b.switch_hops_diameter);
  EXPECT_TRUE(f.connected());
}

}  // namespace

TEST(KnsTopology, ThesisTable33FourAry2Direct1Indirect) {
  // Table 3.3: 16 nodes, 24 switches (incl. routers), 64 unidirectional links, 272 elements.
  KnsSize z = kns_formula_size(xbar(4, 2));
  EXPECT_EQ(z.nodes, 16);
  EXPECT_EQ(z.ib_switches, 24);
  EXPECT_EQ(z.unidir_links, 64);
  EXPECT_EQ(z.switching_elements, 272);
  EXPECT_EQ(z.diameter, 4);
  expect_counts_match(xbar(4, 2));
}

TEST(KnsTopology, ThesisExamplesFormulaOnly) {
  // §1.8(b) 8-ary 2-direct 1-indirect: 192 links incl. nodes, 256 unidirectional, 1600 elements.
  KnsSize b = kns_formula_size(xbar(8, 2));
  EXPECT_EQ(b.links, 192);
  EXPECT_EQ(b.unidir_links, 256);
  EXPECT_EQ(b.switching_elements, 1600);
  EXPECT_EQ(b.subnet_switches, 16);
  // §1.8(c) 8-ary 2-direct 3-indirect FT from 4-port switches: 192 switches, 448 links,
  // diameter 12, 3648 elements.
  KnsSize c = kns_formula_size(ftree(8, 2, 2));
  EXPECT_EQ(c.subnet_switches, 192);
  EXPECT_EQ(c.links, 448);
  EXPECT_EQ(c.diameter, 12);
  EXPECT_EQ(c.switching_elements, 3648);
  // §1.8(d) p = 2: 32 nodes, 64 links, 384 elements.
  KnsSize d = kns_formula_size(xbar(4, 2, 2));
  EXPECT_EQ(d.nodes, 32);
  EXPECT_EQ(d.links, 64);
  EXPECT_EQ(d.switching_elements, 384);
  // Table 4.4: 256-ary 2-direct 1-indirect (512 crossbars, 196,608 links) and
  // 8-indirect FT (524,288 switches, 1,114,112 links); 4-ary 2-direct 2-indirect FT: 48 switches
  // incl. routers, 656 elements, 128 unidirectional links (spec §1.5).
  KnsSize e = kns_formula_size(xbar(256, 2));
  EXPECT_EQ(e.subnet_switches, 512);
  EXPECT_EQ(e.links, 196608);
  KnsSize g = kns_formula_size(ftree(256, 2, 2));
  EXPECT_EQ(g.subnet_switches, 524288);
  EXPECT_EQ(g.links, 1114112);
  KnsSize h = kns_formula_size(ftree(4, 2, 2));
  EXPECT_EQ(h.ib_switches, 48);
  EXPECT_EQ(h.switching_elements, 656);
  EXPECT_EQ(h.unidir_links, 128);
  // Table 3.3, 4096 nodes: 64-ary 2-direct 1-indirect: 4224 switches, 16384 links, 561152 elements.
  KnsSize t = kns_formula_size(xbar(64, 2));
  EXPECT_EQ(t.ib_switches, 4224);
  EXPECT_EQ(t.unidir_links, 16384);
  EXPECT_EQ(t.switching_elements, 561152);
}

TEST(KnsTopology, GeneratedCountsMatchFormulas) {
  for (auto prm : {xbar(4, 2), xbar(8, 2), xbar(4, 3), xbar(4, 2, 2), xbar(3, 3, 2), xbar(5, 1), ftree(4, 2, 2),
                   ftree(8, 2, 2), ftree(4, 3, 2), ftree(9, 2, 3)})
    expect_counts_match(prm);
}

TEST(KnsTopology, WiringConvention) {
  KnsParams prm = xbar(4, 2, 2);
  Fabric f = make_kns(prm);
  // router <r1,r0> = <2,3>: port 1 -> dimension-0 crossbar of line r1 = 2 at port 1 + r0.
  int r = *f.find("R_2_3");
  const Port& p1 = f.node(r).port(1);
  EXPECT_EQ(f.node(p1.peer_node).id, "X_0_2");
  EXPECT_EQ(p1.peer_port, 4);
  const Port& p2 = f.node(r).port(2);
  EXPECT_EQ(f.node(p2.peer_node).id, "X_1_3");
  EXPECT_EQ(p2.peer_port, 3);
  EXPECT_EQ(f.node(f.node(r).port(3).peer_node).id, "H_2_3_0");
  EXPECT_EQ(f.node(f.node(r).port(4).peer_node).id, "H_2_3_1");
  // ibsim GUID convention
  EXPECT_EQ(f.node(*f.find("R_0_0")).guid, 0x200000u);
  EXPECT_EQ(f.node(*f.find("H_0_0_0")).guid, 0x100000u);
  EXPECT_EQ(f.node(*f.find("H_0_0_0")).port(1).guid, 0x100001u);
  // LIDs: switches first, every CA port has one
  for (int c : f.cas()) EXPECT_NE(f.node(c).port(1).base_lid, 0);
}

TEST(KnsTopology, FatTreeSubnetIsDestroConsistent) {
  // 8-ary with 2-ary 3-tree subnets: from line coordinate 5 to 2 the DESTRO route goes up to
  // stage 2 and down to the router with coordinate 2 (spec §1.8(c)). Follow the wiring.
  KnsParams prm = ftree(8, 1, 2);
  Fabric f = make_kns(prm);
  auto follow = [&](int node, int port) { return f.node(node).port(port); };
  int src = *f.find("R_5");
  Port at = follow(src, 1);  // into stage-0 switch
  int sw = at.peer_node;
  EXPECT_EQ(f.node(sw).id, "F_0_0_0_2");  // t = 101b: w = t >> 1 = 2
  const int t[3] = {0, 1, 0};             // digits of 2
  // up through 2 + t_0 + 1 and 2 + t_1 + 1 (1-based ports), then down t_2, t_1, t_0
  sw = follow(sw, 2 + t[0] + 1).peer_node;
  sw = follow(sw, 2 + t[1] + 1).peer_node;
  EXPECT_EQ(f.node(sw).id.substr(0, 8), "F_0_0_2_");
  sw = follow(sw, t[2] + 1).peer_node;
  sw = follow(sw, t[1] + 1).peer_node;
  Port last = follow(sw, t[0] + 1);
  EXPECT_EQ(f.node(last.peer_node).id, "R_2");
}

TEST(KnsTopology, LimitsAndBadParameters) {
  EXPECT_THROW(make_kns(xbar(16, 2)), FabricError);  // 256 routers + 32 crossbars > 256 switches
  KnsGenLimits big;
  big.max_switches = 100000;
  big.max_nodes = 100000;
  EXPECT_NO_THROW(make_kns(xbar(16, 2), 0, big));
  EXPECT_THROW(make_kns(xbar(1, 2)), FabricError);
  EXPECT_THROW(make_kns(ftree(6, 2, 4)), FabricError);  // 6 is not a power of 4
  EXPECT_THROW(make_kns(ftree(4, 2, 4)), FabricError);  // s = 1: use a crossbar
  try {
    make_kns(xbar(16, 2));
    FAIL();
  } catch (const FabricError& e) {
    EXPECT_NE(std::string(e.what()).find("288 switches"), std::string::npos) << e.what();
  }
}
