// The one fabric spec grammar (ibsim_topologies/include/ftroute/fabric_spec.hpp): every kind of
// the table, positional and KEY=V forms, legacy names, and errors that name the offending token;
// and the one port syntax ("NODE"[PORT], port_ref.hpp).
#include <gtest/gtest.h>

#include "test_fabrics.hpp"
#include "ftroute/cluster_tree.hpp"
#include "ftroute/fabric_spec.hpp"
#include "ftroute/fip_topologies.hpp"
#include "ftroute/kns_topology.hpp"
#include "ftroute/netfile.hpp"
#include "ftroute/port_ref.hpp"
#include "ftroute/topology.hpp"

using namespace ftroute;
using namespace ftroute::topo;

using ftroute::test_fabrics::switch_links;

namespace {

std::string net(const Fabric& f) { return write_net(f, {}); }

// The error text of `spec` ("" if it parses and builds): a SpecError from the parser, or with
// E = OptionError also the generator's errors.
template <class E = SpecError>
std::string error_of(const std::string& spec) {
  try {
    build_fabric_spec(spec);
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(FabricSpec, EveryKindBuildsTheGeneratorsFabric) {
  EXPECT_EQ(net(build_fabric_spec("fattree:4,3")), net(kary_ntree(4, 3)));
  EXPECT_EQ(net(build_fabric_spec("fattree:k=4,n=3")), net(kary_ntree(4, 3)));
  EXPECT_EQ(net(build_fabric_spec("fattree:4,n=3")), net(kary_ntree(4, 3)));
  EXPECT_EQ(net(build_fabric_spec("fattree2:8,4,8")), net(fat_tree2({8, 4, 8, 1, 0})));
  EXPECT_EQ(net(build_fabric_spec("fattree2:8,4,8,2,20")), net(fat_tree2({8, 4, 8, 2, 20})));
  EXPECT_EQ(net(build_fabric_spec("fattree3:8")), net(fat_tree3(8, 8)));
  EXPECT_EQ(net(build_fabric_spec("fattree3:8,2")), net(fat_tree3(8, 2)));
  Grid g;
  g.dims = {4, 4};
  EXPECT_EQ(net(build_fabric_spec("mesh:4x4")), net(grid(g)));
  g.torus = true;
  g.dims = {3, 3, 3};
  g.hosts_per_switch = 2;
  EXPECT_EQ(net(build_fabric_spec("torus:3x3x3,2")), net(grid(g)));
  EXPECT_EQ(net(build_fabric_spec("torus:3x3x3,hosts=2")), net(grid(g)));
  g.radix = 12;
  EXPECT_EQ(net(build_fabric_spec("torus:3x3x3,2,12")), net(grid(g)));
  EXPECT_EQ(net(build_fabric_spec("torus:dims=3x3x3,radix=12,hosts=2")), net(grid(g)));
  KnsParams q;
  q.k = 4, q.n = 2, q.p = 2;
  EXPECT_EQ(net(build_fabric_spec("kns:4,2,2")), net(make_kns(q)));
  EXPECT_EQ(net(build_fabric_spec("kns:4,2,p=2")), net(make_kns(q)));
  q.p = 1, q.ki = 2, q.subnet = KnsSubnet::FatTree;
  EXPECT_EQ(net(build_fabric_spec("kns:4,2,ki=2")), net(make_kns(q)));
  // the thesis' fault-tolerance networks (32-ary 2-direct, 10-ary 3-direct: 1,088 and 1,300
  // switches) are built like every other kind, beyond ibsim's default 256 switches
  // (scripts/ftsim.sh sizes ibsim for the fabric); make_kns' own default keeps that limit
  EXPECT_EQ(build_fabric_spec("kns:32,2").switches().size(), 1088u);
  EXPECT_EQ(build_fabric_spec("kns:10,3").switches().size(), 1300u);
  KnsParams big;
  big.k = 32, big.n = 2;
  EXPECT_THROW(make_kns(big), FabricError);
  EXPECT_EQ(net(build_fabric_spec("ctree:leaves=8,spines=4,hosts=4/4/0/2,links=2")),
            net(cluster_tree(parse_cluster_tree("leaves=8,spines=4,hosts=4/4/0/2,links=2"))));
  // seed 003's Table III kinds (the paper's configurations)
  Kautz ka{2, 4, 11, 6};
  EXPECT_EQ(net(build_fabric_spec("kautz:2,4,11,6")), net(kautz(ka)));
  EXPECT_EQ(net(build_fabric_spec("kautz:2,4,redundancy=6,hosts=11")), net(kautz(ka)));
  Xgft x;
  x.m = {22};
  x.w = {11};
  x.hosts_per_leaf = 12;
  EXPECT_EQ(net(build_fabric_spec("xgft:1,22,11,12")), net(xgft(x)));  // a list kind: H,M..,W..[,HOSTS]
  EXPECT_EQ(net(build_fabric_spec("xgft:1,22,11,hosts=12")), net(xgft(x)));
  x.m = {4, 4};
  x.w = {1, 4};
  x.hosts_per_leaf = 1;
  EXPECT_EQ(net(build_fabric_spec("xgft:2,4,4,1,4")), net(xgft(x)));
  Dragonfly d{10, 5, 5, 4, 7};
  EXPECT_EQ(net(build_fabric_spec("dragonfly:10,5,5,4,7")), net(dragonfly(d)));
  d.hosts_per_switch = 5;  // default: p
  EXPECT_EQ(net(build_fabric_spec("dragonfly:10,5,5,4")), net(dragonfly(d)));
  // the global-link arrangement, a keyword after the positional values; round-robin = the default
  d.hosts_per_switch = 7;
  EXPECT_EQ(net(build_fabric_spec("dragonfly:10,5,5,4,7,arrangement=round-robin")), net(dragonfly(d)));
  d.arrangement = DragonflyArrangement::PalmTree;
  EXPECT_EQ(net(build_fabric_spec("dragonfly:10,5,5,4,7,arrangement=palmtree")), net(dragonfly(d)));
  EXPECT_NE(net(build_fabric_spec("dragonfly:10,5,5,4,7")), net(dragonfly(d)));
  d.arrangement = DragonflyArrangement::Consecutive;
  EXPECT_EQ(net(build_fabric_spec("dragonfly:a=10,p=5,h=5,g=4,hosts=7,arrangement=consecutive")), net(dragonfly(d)));
  RandomTopo r{32, 16, 8, 1};
  EXPECT_EQ(net(build_fabric_spec("random:32,16,8,1")), net(random_topology(r)));
  r.seed = 7;
  EXPECT_EQ(net(build_fabric_spec("random:32,16,8,graph-seed=7")), net(random_topology(r)));
  // every kind of the table has a name, grammar, help and at least one parameter
  for (const auto& k : fabric_kinds()) {
    EXPECT_NE(std::string(k.grammar), "") << k.name;
    EXPECT_NE(std::string(k.help), "") << k.name;
    EXPECT_FALSE(k.params.empty()) << k.name;
    EXPECT_LE(k.positional, k.params.size()) << k.name;
    EXPECT_EQ(find_fabric_kind(k.name), &k);
    EXPECT_NE(fabric_spec_summary().find(std::string(k.name) + ":" + k.grammar), std::string::npos) << k.name;
  }
}

TEST(FabricSpec, UsedTextIsTheSameForEverySpelling) {
  SpecArgs a = parse_fabric_spec("fattree:4,3"), b = parse_fabric_spec("fattree:n=3,k=4");
  build_fabric(a);
  build_fabric(b);
  EXPECT_EQ(a.used, " --k 4 --n 3");
  EXPECT_EQ(a.used, b.used);
  SpecArgs m = parse_fabric_spec("mesh:4x4");
  build_fabric(m);
  EXPECT_EQ(m.used, " --dims 4x4 --hosts 1");  // radix only when given
  SpecArgs r = parse_fabric_spec("mesh:4x4,radix=0");
  build_fabric(r);
  EXPECT_EQ(r.used, m.used);
}

TEST(FabricSpec, LegacyNames) {
  EXPECT_EQ(legacy_fabric_spec("4ary3tree"), "fattree:4,3");
  EXPECT_EQ(legacy_fabric_spec("torus8x8"), "torus:8x8");
  EXPECT_EQ(legacy_fabric_spec("mesh4x4x4"), "mesh:4x4x4");
  EXPECT_EQ(legacy_fabric_spec("torus8x"), "");
  EXPECT_EQ(legacy_fabric_spec("4ary3treex"), "");
  EXPECT_EQ(legacy_fabric_spec("fattree:4,3"), "");
  EXPECT_EQ(net(build_fabric_spec("4ary3tree")), net(build_fabric_spec("fattree:4,3")));
  EXPECT_EQ(net(build_fabric_spec("torus4x4")), net(build_fabric_spec("torus:4x4")));
  SpecArgs a = parse_fabric_spec("4ary3tree");
  EXPECT_EQ(a.kind, "fattree");
  EXPECT_EQ(a.text, "4ary3tree");
}

TEST(FabricSpec, SplitSpecList) {
  using V = std::vector<std::string>;
  EXPECT_EQ(split_spec_list("torus8x8,torus16x16,4ary3tree"), (V{"torus8x8", "torus16x16", "4ary3tree"}));
  EXPECT_EQ(split_spec_list("torus:8x8,2,fattree:4,3,4ary3tree"), (V{"torus:8x8,2", "fattree:4,3", "4ary3tree"}));
  EXPECT_EQ(split_spec_list("mesh:4x4,hosts=2,kns:4,2,p=2"), (V{"mesh:4x4,hosts=2", "kns:4,2,p=2"}));
  EXPECT_EQ(split_spec_list("ctree:leaves=8,hosts=4/0,,fattree:2,2"), (V{"ctree:leaves=8,hosts=4/0", "fattree:2,2"}));
  EXPECT_EQ(split_spec_list(""), V{});
}

TEST(FabricSpec, ErrorsNameTheOffendingToken) {
  EXPECT_EQ(error_of("fattree:4,3"), "");
  EXPECT_EQ(error_of("nope:1"), "unknown fabric kind 'nope' in 'nope:1' (fattree, fattree2, fattree3, mesh, torus, kns, ctree, kautz, xgft, dragonfly, random)");
  EXPECT_EQ(error_of("mesh:4x4,host=2"), "unknown keyword 'host' (mesh takes dims, hosts, radix, links) in 'mesh:4x4,host=2'");
  EXPECT_EQ(error_of("fattree:4"), "missing n (fattree:K,N) in 'fattree:4'");
  EXPECT_EQ(error_of("fattree:4,x"), "bad number 'x' for n in 'fattree:4,x'");
  EXPECT_EQ(error_of("fattree:4,3x"), "bad number '3x' for n in 'fattree:4,3x'");
  EXPECT_EQ(error_of("fattree:0x4,3"), "bad number '0x4' for k in 'fattree:0x4,3'");
  EXPECT_EQ(error_of("fattree:1,3"), "k must be in 2..127 (got 1) in 'fattree:1,3'");
  EXPECT_EQ(error_of("fattree:4,3,5"), "unexpected value '5' (fattree:K,N) in 'fattree:4,3,5'");
  EXPECT_EQ(error_of("fattree:4,3,k=4"), "'k' given twice in 'fattree:4,3,k=4'");
  EXPECT_EQ(error_of("fattree:4,,3"), "empty item in 'fattree:4,,3'");
  EXPECT_EQ(error_of("fattree:k="), "no value for 'k' in 'fattree:k='");
  EXPECT_EQ(error_of("mesh:4x4,hosts=2,3"),
            "value '3' after KEY=VALUE items (positional values come first) in 'mesh:4x4,hosts=2,3'");
  EXPECT_EQ(error_of("mesh:4y4"), "bad dimensions '4y4' (expected e.g. 4x4 or 4x4x4) in 'mesh:4y4'");
  EXPECT_EQ(error_of("mesh:"), "missing dims (e.g. mesh:4x4 or mesh:4x4x4) in 'mesh:'");
  EXPECT_EQ(error_of("fattree"), "'fattree': expected fattree:K,N");
  EXPECT_NE(error_of("ctree:8"), "");  // ctree takes KEY=V only
  EXPECT_NE(error_of("ctree:8").find("'8' is not KEY=VALUE"), std::string::npos) << error_of("ctree:8");
  EXPECT_NE(error_of("ctree:leaves=x").find("in 'ctree:leaves=x'"), std::string::npos) << error_of("ctree:leaves=x");
  EXPECT_NE(error_of("kns:4,2,lmc=9").find("lmc must be in 0..7"), std::string::npos);
  EXPECT_NE(error_of("4ary3treex").find("expected KIND:ARGS"), std::string::npos);
  EXPECT_NE(error_of("").find("expected KIND:ARGS"), std::string::npos);
  EXPECT_EQ(error_of("xgft:1,22,11,12,hosts=3"), "hosts given twice (in the list and as hosts=) in 'xgft:1,22,11,12,hosts=3'");
  EXPECT_NE(error_of("xgft:2,4,4").find("H = 2 needs 5 or 6 numbers, got 3"), std::string::npos) << error_of("xgft:2,4,4");
  EXPECT_NE(error_of("xgft:1,22,x").find("'x' is not a non-negative integer"), std::string::npos);
  EXPECT_EQ(error_of("random:32"), "missing degree (random:SWITCHES,DEGREE[,HOSTS[,GRAPH-SEED]]) in 'random:32'");
  EXPECT_EQ(error_of("dragonfly:10,5,5,4,7,1"),
            "unexpected value '1' (dragonfly:A,P,H,G[,HOSTS][,arrangement=NAME]) in 'dragonfly:10,5,5,4,7,1'");
  EXPECT_EQ(error_of("dragonfly:10,5,5,4,7,arrangement=absolute"),
            "unknown arrangement 'absolute' (round-robin, consecutive or palmtree) in 'dragonfly:10,5,5,4,7,arrangement=absolute'");
  EXPECT_EQ(error_of("dragonfly:10,5,5,4,7,arrangement="), "no value for 'arrangement' in 'dragonfly:10,5,5,4,7,arrangement='");
  EXPECT_EQ(error_of("kautz:2,4,arrangement=palmtree").substr(0, 29), "unknown keyword 'arrangement'");
}

// ---- the one port syntax (ibsim_topologies/include/ftroute/port_ref.hpp) ----

namespace {
std::string port_error(const std::string& text) {
  try {
    parse_port_ref(text);
  } catch (const OptionError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(PortRef, ConsoleSyntaxAndLegacyForm) {
  EXPECT_EQ(parse_port_ref("\"S1_1\"[2]"), (PortRef{"S1_1", 2}));
  EXPECT_EQ(parse_port_ref("S1_1[2]"), (PortRef{"S1_1", 2}));  // legacy
  EXPECT_EQ(parse_port_ref("\"S0_00\"[3]"), (PortRef{"S0_00", 3}));
  EXPECT_EQ(parse_port_ref("\"L0\"[0]"), (PortRef{"L0", 0}));
  EXPECT_EQ(parse_port_ref("\"sw 1 [spine]\"[17]"), (PortRef{"sw 1 [spine]", 17}));  // '[' and ' ' inside quotes
  EXPECT_EQ(parse_port_ref("a[b][3]"), (PortRef{"a[b]", 3}));                     // legacy: the last '['
  EXPECT_EQ(parse_port_ref("\"a:b\"[1]"), (PortRef{"a:b", 1}));
  EXPECT_EQ(parse_port_ref("\"q\\\"x\"[1]"), (PortRef{"q\"x", 1}));  // \" escape
  EXPECT_EQ(parse_port_ref("\"b\\\\s\"[1]"), (PortRef{"b\\s", 1}));  // \\ escape
  EXPECT_EQ(parse_port_ref("\"t\\x09ab\"[4]"), (PortRef{"t\tab", 4}));  // \xNN as escape_name() writes
  EXPECT_EQ(parse_port_ref("\"S1\"[255]").port, 255);
}

TEST(PortRef, FormatRoundTrips) {
  for (const std::string& n : std::vector<std::string>{"S1_1", "sw \"x\"", "a\\b", std::string("c\x01" "d"), "[x]"}) {
    const std::string t = format_port_ref(n, 7);
    EXPECT_EQ(parse_port_ref(t), (PortRef{n, 7})) << t;
  }
  EXPECT_EQ(format_port_ref("S1_1", 2), "\"S1_1\"[2]");  // = Fabric::port_name() for plain names
}

TEST(PortRef, BadFormsNameTheProblem) {
  EXPECT_EQ(port_error(""), "bad port '': empty (expected \"NODE\"[PORT])");
  EXPECT_EQ(port_error("S1_1"), "bad port 'S1_1': no '[PORT]' (expected \"NODE\"[PORT])");
  EXPECT_EQ(port_error("\"S1_1[2]"), "bad port '\"S1_1[2]': no closing '\"' (expected \"NODE\"[PORT])");
  EXPECT_EQ(port_error("\"S1_1\"x[2]"), "bad port '\"S1_1\"x[2]': no '[PORT]' after the quoted node name (expected \"NODE\"[PORT])");
  EXPECT_EQ(port_error("\"S1_1\"[2"), "bad port '\"S1_1\"[2': no closing ']' (expected \"NODE\"[PORT])");
  EXPECT_EQ(port_error("\"S1_1\"[x]"), "bad port '\"S1_1\"[x]': port 'x' is not a number (expected \"NODE\"[PORT])");
  EXPECT_EQ(port_error("\"S1_1\"[]"), "bad port '\"S1_1\"[]': port '' is not a number (expected \"NODE\"[PORT])");
  EXPECT_EQ(port_error("\"S1_1\"[-1]"), "bad port '\"S1_1\"[-1]': port '-1' is not a number (expected \"NODE\"[PORT])");
  EXPECT_EQ(port_error("\"S1_1\"[300]"), "bad port '\"S1_1\"[300]': port 300 is above 255 (expected \"NODE\"[PORT])");
  EXPECT_EQ(port_error("\"S1_1\"[2]x"), "bad port '\"S1_1\"[2]x': 'x' after ']' (expected \"NODE\"[PORT])");
  EXPECT_EQ(port_error("\"\"[2]"), "bad port '\"\"[2]': empty node name (expected \"NODE\"[PORT])");
  EXPECT_EQ(port_error("[2]"), "bad port '[2]': empty node name (expected \"NODE\"[PORT])");
  EXPECT_EQ(port_error("\"a\\q\"[2]"), "bad port '\"a\\q\"[2]': unknown escape '\\q' (expected \"NODE\"[PORT])");
  EXPECT_EQ(port_error("\"a\\x4\"[2]"), "bad port '\"a\\x4\"[2]': unknown escape '\\x' (expected \"NODE\"[PORT])");
  EXPECT_EQ(port_error("\"a\\"), "bad port '\"a\\': '\\' at the end (expected \"NODE\"[PORT])");
}

TEST(PortRef, GenRemoveLinkTakesBothForms) {
  Fabric a = kary_ntree(2, 2), b = kary_ntree(2, 2);
  FaultSpec q;
  q.remove_links = {"\"S0_0\"[3]"};
  inject_faults(a, q);
  q.remove_links = {"S0_0[3]"};
  inject_faults(b, q);
  EXPECT_EQ(net(a), net(b));
  EXPECT_NE(net(a), net(kary_ntree(2, 2)));
  q.remove_links = {"\"S0_0[3]"};
  try {
    inject_faults(b, q);
    ADD_FAILURE() << "bad port accepted";
  } catch (const FabricError& e) {
    EXPECT_NE(std::string(e.what()).find("no closing '\"'"), std::string::npos) << e.what();
  }
}

// ---- mesh/torus links=L: parallel cables per neighbour pair (seed 003's grids fill the radix) ----

namespace {

// Cables between switches a and b (each counted once).
int cables(const Fabric& f, const std::string& a, const std::string& b) {
  const int x = *f.find(a), y = *f.find(b);
  int n = 0;
  for (int p = 1; p <= f.node(x).num_ports; p++)
    if (f.node(x).port(p).peer_node == y) n++;
  return n;
}


}  // namespace

TEST(FabricSpec, GridLinksDefaultIsTodaysFabric) {
  Grid g;
  g.dims = {5, 5};
  g.torus = true;
  g.hosts_per_switch = 11;
  const std::string today = net(grid(g));
  EXPECT_EQ(net(build_fabric_spec("torus:5x5,11")), today);
  EXPECT_EQ(net(build_fabric_spec("torus:5x5,11,links=1")), today);
  EXPECT_EQ(net(build_fabric_spec("torus:5x5,hosts=11,links=1")), today);
  // the used-options text (campaign/gen reports) does not change for the default either
  SpecArgs a = parse_fabric_spec("torus:5x5,11"), b = parse_fabric_spec("torus:5x5,11,links=1");
  build_fabric(a);
  build_fabric(b);
  EXPECT_EQ(a.used, b.used);
  SpecArgs c = parse_fabric_spec("torus:5x5,11,links=6");
  build_fabric(c);
  EXPECT_NE(c.used.find("--links 6"), std::string::npos) << c.used;
}

TEST(FabricSpec, GridLinksCablesEveryNeighbourPairLTimes) {
  // the paper's 2-D torus (seed 003 Table III): 25 switches x 11 HCAs, 300 switch links, radix 35
  Fabric t = build_fabric_spec("torus:5x5,11,links=6");
  EXPECT_EQ(t.switches().size(), 25u);
  EXPECT_EQ(switch_links(t), 300);
  EXPECT_EQ(t.node(*t.find("S0_0")).num_ports, 35);
  EXPECT_EQ(cables(t, "S0_0", "S1_0"), 6);
  EXPECT_EQ(cables(t, "S0_0", "S4_0"), 6);  // wrap-around
  EXPECT_EQ(cables(t, "S0_0", "S0_4"), 6);
  EXPECT_EQ(cables(t, "S0_0", "S1_1"), 0);
  EXPECT_EQ(cables(t, "S0_0", "S2_0"), 0);
  Fabric t3 = build_fabric_spec("torus:3x3x3,10,links=4");  // 3-D: 27 x 10 HCAs, 324 links, radix 34
  EXPECT_EQ(switch_links(t3), 27 * 3 * 4);
  EXPECT_EQ(t3.node(*t3.find("S0_0_0")).num_ports, 34);
  EXPECT_EQ(cables(t3, "S1_1_1", "S1_1_2"), 4);
  Fabric m = build_fabric_spec("mesh:3x4,2,links=3");
  EXPECT_EQ(switch_links(m), 3 * (2 * 4 + 3 * 3));
  EXPECT_EQ(cables(m, "S0_0", "S1_0"), 3);
  EXPECT_EQ(cables(m, "S0_0", "S2_0"), 0);  // no wrap-around in a mesh
  EXPECT_EQ(cables(m, "S1_2", "S1_3"), 3);
}

TEST(FabricSpec, GridLinksPortNumbering) {
  // hosts 1..H, then per dimension d: +d cables on H+1+2dL.., -d cables on H+L+1+2dL..
  Fabric f = build_fabric_spec("torus:4x4,1,links=2");
  const Node& s = f.node(*f.find("S0_0"));
  auto peer = [&](int p) { return f.node(s.port(p).peer_node).id + "[" + std::to_string(s.port(p).peer_port) + "]"; };
  EXPECT_EQ(s.num_ports, 9);
  EXPECT_EQ(peer(1), "H0_0_0[1]");
  EXPECT_EQ(peer(2), "S1_0[4]");  // +x
  EXPECT_EQ(peer(3), "S1_0[5]");
  EXPECT_EQ(peer(4), "S3_0[2]");  // -x (wrap)
  EXPECT_EQ(peer(5), "S3_0[3]");
  EXPECT_EQ(peer(6), "S0_1[8]");  // +y
  EXPECT_EQ(peer(7), "S0_1[9]");
  EXPECT_EQ(peer(8), "S0_3[6]");  // -y (wrap)
  EXPECT_EQ(peer(9), "S0_3[7]");
  // a given radix leaves the ports above the grid ones free
  Fabric r = build_fabric_spec("mesh:2x2,1,12,links=2");
  const Node& c = r.node(*r.find("S0_0"));
  EXPECT_EQ(c.num_ports, 12);
  for (int p = 4; p <= 12; p++) {
    if (p != 6 && p != 7) {
      EXPECT_FALSE(c.port(p).connected()) << p;  // corner: no -x (4,5) / -y (8,9)
    }
  }
  EXPECT_EQ(r.node(c.port(2).peer_node).id, "S1_0");
  EXPECT_EQ(r.node(c.port(6).peer_node).id, "S0_1");
}

TEST(FabricSpec, GridLinksRingOfTwo) {
  // as with one link today: a 2-ring's pair is cabled as +d and again as the wrap-around, so a
  // torus 2-ring gets 2 L cables, a mesh 2-ring L
  EXPECT_EQ(cables(build_fabric_spec("torus:2x3"), "S0_0", "S1_0"), 2);
  EXPECT_EQ(cables(build_fabric_spec("torus:2x3,1,links=3"), "S0_0", "S1_0"), 6);
  EXPECT_EQ(cables(build_fabric_spec("torus:2x3,1,links=3"), "S0_0", "S0_1"), 3);
  EXPECT_EQ(cables(build_fabric_spec("mesh:2x3,1,links=3"), "S0_0", "S1_0"), 3);
  EXPECT_EQ(cables(build_fabric_spec("torus:2,1,links=2"), "S0", "S1"), 4);  // a 1-D 2-ring
  // a ring of 1 is refused as before
  EXPECT_NE(error_of<OptionError>("torus:1x4,links=2").find("size >= 2"), std::string::npos) << error_of<OptionError>("torus:1x4,links=2");
}

TEST(FabricSpec, GridLinksBadValues) {
  EXPECT_EQ(error_of<OptionError>("torus:5x5,11,links=0"), "links must be in 1..254 (got 0) in 'torus:5x5,11,links=0'");
  EXPECT_EQ(error_of<OptionError>("torus:5x5,11,links=-2"), "links must be in 1..254 (got -2) in 'torus:5x5,11,links=-2'");
  EXPECT_EQ(error_of<OptionError>("torus:5x5,11,links=x"), "bad number 'x' for links in 'torus:5x5,11,links=x'");
  EXPECT_EQ(error_of<OptionError>("mesh:4x4,links="), "no value for 'links' in 'mesh:4x4,links='");
  EXPECT_EQ(error_of<OptionError>("torus:5x5,11,links=6,links=2"), "'links' given twice in 'torus:5x5,11,links=6,links=2'");
  // the port check: HOSTS + 2 x dims x links <= RADIX (given or the maximum)
  EXPECT_NE(error_of<OptionError>("torus:5x5,11,34,links=6").find("radix 34 too small (needs 35 = hosts + 2 x dimensions x links"),
            std::string::npos)
      << error_of<OptionError>("torus:5x5,11,34,links=6");
  EXPECT_EQ(error_of<OptionError>("torus:5x5,11,35,links=6"), "");
  EXPECT_NE(error_of<OptionError>("torus:4x4x4,1,links=50").find("301 ports per switch needed"), std::string::npos)
      << error_of<OptionError>("torus:4x4x4,1,links=50");
}
