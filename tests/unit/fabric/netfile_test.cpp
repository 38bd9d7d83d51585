// .net reader/writer: ibsim's example nets, ibnetdiscover output, GUID rules, errors with
// file:line, round trips.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <typeinfo>

#include "ftroute/error.hpp"
#include "ftroute/netfile.hpp"
#include "ftroute/topology.hpp"

using namespace ftroute;

namespace {

const std::string kExamples = "/usr/share/doc/ibsim-utils/net-examples/";
const std::string kData = std::string(FTROUTE_SOURCE_DIR) + "/tests/data/net/";

int id(const Fabric& f, const std::string& name) {
  auto n = f.find(name);
  EXPECT_TRUE(n.has_value()) << name;
  return n.value_or(-1);
}

// Parses `text` as "t.net" and returns the ParseError (fails the test if none is thrown).
ParseError parse_error(const std::string& text) {
  try {
    parse_net(text, "t.net");
  } catch (const ParseError& e) {
    return e;
  }
  ADD_FAILURE() << "no ParseError for:\n" << text;
  return ParseError("", 0, "");
}

std::string tmpdir() {
  auto d = std::filesystem::temp_directory_path() / ("netfile_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(d);
  return d.string();
}

// Read options whose warnings go to `w`.
NetReadOptions warnings_into(std::vector<std::string>* w) {
  NetReadOptions o;
  o.warnings = w;
  return o;
}

void write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

void expect_round_trip(const Fabric& f, const std::string& what) {
  std::string text = write_net(f);
  Fabric g = parse_net(text, what + "(written)");
  EXPECT_EQ(fabric_diff(f, g), "") << what << "\n" << text.substr(0, 2000);
  EXPECT_EQ(write_net(g), text) << what;  // writing is deterministic and stable
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// ibsim's own example nets: node/link counts and the GUIDs ibsim assigns (observed with
// ibsim 0.10 + ibroute/ibnetdiscover against ibsim's net-examples/).

TEST(NetFile, IbsimExampleNetsParse) {
  struct Expect {
    const char* file;
    int nodes, switches, links;
  };
  const Expect ex[] = {{"net", 4, 2, 4},
                       {"net.1", 3, 1, 2},
                       {"net.2sw2path", 4, 2, 4},
                       {"net.2sw2path4hca", 6, 2, 6},
                       {"net.2sw2path4hca2port", 4, 2, 6}};
  if (!std::filesystem::exists(kExamples + "net")) GTEST_SKIP() << "ibsim-utils examples not installed";
  for (const auto& e : ex) {
    SCOPED_TRACE(e.file);
    Fabric f = read_net_file(kExamples + e.file);
    EXPECT_EQ(f.size(), e.nodes);
    EXPECT_EQ(static_cast<int>(f.switches().size()), e.switches);
    EXPECT_EQ(f.num_links(), e.links);
    EXPECT_NO_THROW(f.validate());
    EXPECT_TRUE(f.connected());
    expect_round_trip(f, e.file);
  }
}

TEST(NetFile, IbsimDefaultGuids) {
  if (!std::filesystem::exists(kExamples + "net.2sw2path4hca")) GTEST_SKIP() << "ibsim-utils examples not installed";
  Fabric f = read_net_file(kExamples + "net.2sw2path4hca");
  // values observed on the simulated fabric (ibroute: Hca2 portguid 0x100004 etc.)
  EXPECT_EQ(f.node(id(f, "Switch1")).guid, 0x200000u);
  EXPECT_EQ(f.node(id(f, "Switch2")).guid, 0x200001u);
  EXPECT_EQ(f.node(id(f, "Switch2")).port(5).guid, 0x200001u);
  EXPECT_EQ(f.node(id(f, "Hca1")).guid, 0x100000u);
  EXPECT_EQ(f.node(id(f, "Hca1")).port(1).guid, 0x100001u);
  EXPECT_EQ(f.node(id(f, "Hca2")).port(1).guid, 0x100004u);
  EXPECT_EQ(f.node(id(f, "Hca3")).port(1).guid, 0x100007u);
  EXPECT_EQ(f.node(id(f, "Hca4")).port(1).guid, 0x10000au);
  EXPECT_EQ(f.node(id(f, "Hca4")).port(2).guid, 0x10000bu);
  // links as in the file
  const Port& p = f.node(id(f, "Switch1")).port(5);
  EXPECT_EQ(p.peer_node, id(f, "Switch2"));
  EXPECT_EQ(p.peer_port, 5);
  EXPECT_FALSE(f.node(id(f, "Hca1")).port(2).connected());
}

TEST(NetFile, RoutersHaveTheirOwnGuidCounterStartingAtZero) {
  // observed with ibsim 0.10: R1 -> 0x0 (port 1 = 0x1), R2 -> 0x3; the CA counter is separate
  Fabric f = parse_net(
      "Switch 8 \"S1\"\n[1] \"R1\"[1]\n[2] \"R2\"[1]\n[3] \"H1\"[1]\n\n"
      "Rt 2 \"R1\"\n[1] \"S1\"[1]\n\nRt 2 \"R2\"\n[1] \"S1\"[2]\n\nHca 1 \"H1\"\n[1] \"S1\"[3]\n",
      "r.net");
  EXPECT_EQ(f.node(id(f, "R1")).type, NodeType::Router);
  EXPECT_EQ(f.node(id(f, "R1")).guid, 0x0u);
  EXPECT_EQ(f.node(id(f, "R1")).port(1).guid, 0x1u);
  EXPECT_EQ(f.node(id(f, "R2")).guid, 0x3u);
  EXPECT_EQ(f.node(id(f, "H1")).guid, 0x100000u);
  expect_round_trip(f, "routers");
}

TEST(NetFile, GuidDirectives) {
  Fabric f = parse_net(
      "switchguid=0x1000\nSwitch 4 \"A\"\n[1] \"B\"[1]\n\nSwitch 4 \"B\"\n[1] \"A\"[1]\n[2] \"H\"[1]\n\n"
      "switchguid+0x10\nSwitch 4 \"C\"\n\n"
      "caguid=0x5000(5001)\nsysimgguid=0x77\nvendid=0x2c9\ndevid=0xbd36\nCa 2 \"H\"\n[1] \"B\"[2]\n\n"
      "hcaguids=0x6000\nHca 1 \"H2\"\n\n",
      "g.net");
  EXPECT_EQ(f.node(id(f, "A")).guid, 0x1000u);
  EXPECT_EQ(f.node(id(f, "B")).guid, 0x1001u);
  EXPECT_EQ(f.node(id(f, "C")).guid, 0x1010u);  // relative to the last absolute base
  EXPECT_EQ(f.node(id(f, "H")).guid, 0x5000u);
  EXPECT_EQ(f.node(id(f, "H")).port(2).guid, 0x5002u);
  EXPECT_EQ(f.node(id(f, "H2")).guid, 0x6000u);
  expect_round_trip(f, "directives");
}

TEST(NetFile, DoGuidSetsNodeGuids) {
  // ibsim reports CA port p as node GUID + p and switch ports as the node GUID (sim_mad.c)
  Fabric f = parse_net(
      "Switch 4 \"S\"\n[1] \"H\"[1]\n\nHca 2 \"H\"\n[1] \"S\"[1]\n\n"
      "do Guid \"H\" 0xabc\ndo Verbose 1\ndo Guid \"S\"[2] 0x999\n",
      "d.net");
  EXPECT_EQ(f.node(id(f, "H")).guid, 0xabcu);
  EXPECT_EQ(f.node(id(f, "H")).port(2).guid, 0xabeu);
  EXPECT_EQ(f.node(id(f, "S")).guid, 0x999u);
  EXPECT_EQ(f.node(id(f, "S")).port(3).guid, 0x999u);
  // the port form has no effect in ibsim: rejected
  EXPECT_THROW(parse_net("Hca 2 \"H\"\n\ndo Guid \"H\"[1] 0x5\n", "d2.net"), ParseError);
}

// ---------------------------------------------------------------------------------------------
// ibnetdiscover output (captured from ibsim 0.10 + OpenSM 3.3.23 on net.2sw2path4hca)

TEST(NetFile, IbnetdiscoverOutput) {
  Fabric f = read_net_file(kData + "ibnetdiscover_2sw2path4hca.net");
  EXPECT_EQ(f.size(), 6);
  EXPECT_EQ(f.num_links(), 6);
  int s1 = id(f, "S-0000000000200000");
  int h4 = id(f, "H-0000000000100009");
  EXPECT_EQ(f.node(s1).desc, "Switch1");
  EXPECT_EQ(f.node(s1).guid, 0x200000u);
  EXPECT_EQ(f.node(h4).desc, "Hca4");
  EXPECT_EQ(f.node(h4).guid, 0x100009u);
  EXPECT_EQ(f.node(h4).port(1).guid, 0x10000au);
  // LIDs and LMC from the file (OpenSM's assignment)
  EXPECT_EQ(f.node(s1).port(0).base_lid, 1);
  EXPECT_EQ(f.node(id(f, "S-0000000000200001")).port(0).base_lid, 3);
  EXPECT_EQ(f.node(id(f, "H-0000000000100000")).port(1).base_lid, 2);
  EXPECT_EQ(f.node(h4).port(1).base_lid, 6);
  EXPECT_EQ(f.max_lid(), 6);
  ASSERT_TRUE(f.owner(5).has_value());
  EXPECT_EQ(f.node(f.owner(5)->node).desc, "Hca3");
  EXPECT_EQ(f.attach(6).sw, id(f, "S-0000000000200001"));
  EXPECT_EQ(f.attach(6).port, 2);
  // messages name ports by description, with the GUID-based id to tell equal descriptions apart
  EXPECT_EQ(f.port_name(s1, 3), "\"Switch1\"[3] (S-0000000000200000)");
  // "4xSDR" -> width 4, speed SDR
  EXPECT_EQ(f.node(s1).port(3).width, 4);
  EXPECT_EQ(f.node(s1).port(3).speed, 1);
  expect_round_trip(f, "ibnetdiscover");
}

TEST(NetFile, IbnetdiscoverLmcAndWidths) {
  const std::string text =
      "switchguid=0x2c90200000000(2c90200000000)\n"
      "Switch\t24 \"S-0002c90200000000\"\t\t# \"MF0;sw:IS5030/U1\" enhanced port 0 lid 7 lmc 0\n"
      "[1]\t\"H-0002c90300000010\"[1](2c90300000011) \t\t# \"node1 HCA-1\" lid 8 12xQDR\n"
      "\n"
      "caguid=0x2c90300000010\n"
      "Ca\t2 \"H-0002c90300000010\"\t\t# \"node1 HCA-1\"\n"
      "[1](2c90300000011) \t\"S-0002c90200000000\"[1]\t\t# lid 8 lmc 2 \"MF0;sw:IS5030/U1\" lid 7 12xQDR\n";
  Fabric f = parse_net(text, "lmc.net");
  int h = id(f, "H-0002c90300000010");
  EXPECT_EQ(f.node(h).guid, 0x2c90300000010u);
  EXPECT_EQ(f.node(h).port(1).base_lid, 8);
  EXPECT_EQ(f.node(h).port(1).lmc, 2);
  EXPECT_EQ(f.node(h).port(1).width, 12);
  EXPECT_EQ(f.node(h).port(1).speed, 7);
  EXPECT_EQ(f.node(id(f, "S-0002c90200000000")).desc, "MF0;sw:IS5030/U1");
  EXPECT_EQ(f.node(id(f, "S-0002c90200000000")).port(0).base_lid, 7);
  EXPECT_EQ(f.owner(11)->node, h);
  EXPECT_FALSE(f.owner(12).has_value());
  expect_round_trip(f, "lmc");
}

TEST(NetFile, IbnetdiscoverRouters) {
  // ibsim 0.10 + OpenSM on tests/data/net/routers.net: routers numbered from GUID 0
  Fabric src = read_net_file(kData + "routers.net");
  Fabric f = read_net_file(kData + "ibnetdiscover_routers.net");
  EXPECT_EQ(f.size(), 4);
  EXPECT_EQ(f.num_links(), 3);
  for (int n = 0; n < src.size(); n++) {  // same GUIDs as ibsim gave the hand-written file
    auto g = f.find_guid(src.node(n).guid);
    ASSERT_TRUE(g.has_value()) << src.node(n).id;
    EXPECT_EQ(f.node(*g).desc, src.node(n).id);
    EXPECT_EQ(f.node(*g).type, src.node(n).type);
  }
  int r1 = id(f, "R-0000000000000000");
  int r2 = id(f, "R-0000000000000003");
  EXPECT_EQ(f.node(r1).guid, 0u);
  EXPECT_EQ(f.node(r2).port(1).guid, 4u);
  EXPECT_EQ(f.node(r2).port(1).base_lid, 3);
  EXPECT_EQ(f.node(r1).port(1).base_lid, 0);  // "lid 0": OpenSM gave it none
  EXPECT_EQ(f.node(id(f, "H-0000000000100000")).port(1).base_lid, 2);
  expect_round_trip(f, "ibnetdiscover routers");
}

TEST(NetFile, PortGuidsFromFileOption) {
  // a real-fabric dump where port 1 carries the node GUID (ConnectX-4 style)
  const std::string text =
      "switchguid=0x248a0703005a0000(248a0703005a0000)\n"
      "Switch\t8 \"S-248a0703005a0000\"\t\t# \"sw\" enhanced port 0 lid 1 lmc 0\n"
      "[3]\t\"H-248a070300f9b0e0\"[1](248a070300f9b0e0) \t\t# \"h1 mlx5_0\" lid 2 4xEDR\n\n"
      "caguid=0x248a070300f9b0e0\n"
      "Ca\t1 \"H-248a070300f9b0e0\"\t\t# \"h1 mlx5_0\"\n"
      "[1](248a070300f9b0e0) \t\"S-248a0703005a0000\"[3]\t\t# lid 2 lmc 0 \"sw\" lid 1 4xEDR\n";
  Fabric ibsim_view = parse_net(text, "cx.net");
  EXPECT_EQ(ibsim_view.node(1).port(1).guid, 0x248a070300f9b0e1u);  // what ibsim would report
  NetReadOptions o;
  o.port_guids_from_file = true;
  Fabric real = parse_net(text, "cx.net", o);
  EXPECT_EQ(real.node(1).port(1).guid, 0x248a070300f9b0e0u);
  EXPECT_EQ(real.node(1).guid, 0x248a070300f9b0e0u);
  EXPECT_THROW(write_net(real), FabricError);  // ibsim cannot reproduce it
  EXPECT_THROW(parse_net("Hca 1 \"H\"\n[1](12zz) \"S\"[1]\n", "bad.net", o), ParseError);
}

// ---------------------------------------------------------------------------------------------
// what ibnetdiscover writes on production fabrics (issue 27): syntax variants, aggregation nodes,
// node GUIDs shared by the ASICs of a director chassis

TEST(NetFile, IbnetdiscoverSyntaxVariantsOfProductionDumps) {
  const std::string text =
      "#\n"
      "# Topology file: generated on Mon Jan  5 10:00:00 2026\n"
      "#\n"
      "# Initiated from node 0c42a1030011cc00 port 0c42a1030011cc01\n"
      "\n"
      "vendid=0x2c9\n"
      "devid=0xd2f0\n"
      "sysimgguid=0xc42a1030011aa10\n"
      "switchguid=0xc42a1030011aa10(c42a1030011aa10)\n"
      "Switch  41 \"S-0c42a1030011aa10\"  # \"lf07.rack3.qm8790\" base port 0 lid 72 lmc 0\n"
      "[1]  \"H-0c42a1030011cc00\"[1](c42a1030011cc01)  # \"node001 mlx5_0\" lid 5 4xHDR\n"
      "[2]  \"H-0c42a1030011cd00\"[1](c42a1030011cd00)  # \"node002 mlx5_0\" lid 6 2xHDR\n"
      "[29]  \"S-0c42a1030011bb20\"[1]  # \"sp62.rack8.qm8790\" lid 35 4xHDR\n"
      "[39]  \"S-0c42a1030011bb20\"[2]  # \"sp62.rack8.qm8790\" lid 35 4xHDR\n"
      "[41]  \"H-0c42a1030011aa18\"[1](c42a1030011aa18)  # \"Mellanox Technologies Aggregation Node\" lid 80 4xHDR\n"
      "\n"
      "vendid=0x2c9\n"
      "devid=0xcb20\n"
      "switchguid=0xc42a1030011bb20(c42a1030011bb20)\n"
      "Switch\t37 \"S-0c42a1030011bb20\"\t\t# \"sp62.rack8.qm8790\" enhanced port 0 lid 35 lmc 0\n"
      "[1](1)\t\"S-0c42a1030011aa10\"[29]\t\t# \"lf07.rack3.qm8790\" lid 72 4xHDR\n"
      "[2](2)\t\"S-0c42a1030011aa10\"[39]\t\t# \"lf07.rack3.qm8790\" lid 72 4xHDR\n"
      "[3](3)\t\"S-0c42a1030011ee00\"[1]\t\t# \"sp63\" lid 0 4xEDR\n"
      "[37](25)\t\"H-0c42a1030011bb28\"[1](c42a1030011bb28)\t\t# \"Mellanox Technologies Aggregation Node\" lid 81 4xNDR\n"
      "\n"
      "switchguid=0xc42a1030011ee00(c42a1030011ee00)\n"
      "Switch\t36 \"S-0c42a1030011ee00\"\t\t# \"sp63\" base port 0 lid 0 lmc 0\n"  // skeleton: no LID
      "[1]\t\"S-0c42a1030011bb20\"[3]\t\t# \"sp62.rack8.qm8790\" lid 35 4xEDR\n"
      "\n"
      "caguid=0xc42a1030011cc00\n"
      "Ca\t1 \"H-0c42a1030011cc00\"\t\t# \"node001 mlx5_0\"\n"
      "[1](c42a1030011cc01)  \"S-0c42a1030011aa10\"[1]  # lid 5 lmc 0 \"lf07.rack3.qm8790\" lid 72 4xHDR\n"
      "\n"
      "caguid=0xc42a1030011cd00\n"
      "Ca\t1 \"H-0c42a1030011cd00\"\t\t# \"node002 mlx5_0\"\n"
      "[1](c42a1030011cd00)  \"S-0c42a1030011aa10\"[2]  # \"lf07.rack3.qm8790\" lid 72 2xHDR\n"  // no own LID
      "\n"
      "caguid=0xc42a1030011aa18\n"
      "Ca\t1 \"H-0c42a1030011aa18\"\t\t# \"Mellanox Technologies Aggregation Node\"\n"
      "[1](c42a1030011aa18) \t\"S-0c42a1030011aa10\"[41]\t\t# lid 80 lmc 0 \"lf07.rack3.qm8790\" lid 72 4xHDR\n"
      "\n"
      "caguid=0xc42a1030011bb28\n"
      "Ca\t1 \"H-0c42a1030011bb28\"\t\t# \"Mellanox Technologies Aggregation Node\"\n"
      "[1](c42a1030011bb28) \t\"S-0c42a1030011bb20\"[37]\t\t# lid 81 lmc 0 \"sp62.rack8.qm8790\" lid 35 4xNDR\n";
  Fabric f = parse_net(text, "prod.net");
  ASSERT_EQ(f.size(), 7);
  EXPECT_EQ(f.num_links(), 7);
  const int lf = id(f, "S-0c42a1030011aa10"), sp = id(f, "S-0c42a1030011bb20"), sk = id(f, "S-0c42a1030011ee00");
  EXPECT_EQ(f.node(lf).num_ports, 41);
  EXPECT_EQ(f.node(lf).desc, "lf07.rack3.qm8790");
  EXPECT_EQ(f.node(lf).guid, 0xc42a1030011aa10u);
  EXPECT_EQ(f.node(lf).port(0).base_lid, 72);  // "base port 0 lid 72"
  EXPECT_EQ(f.node(sp).port(0).base_lid, 35);  // "enhanced port 0 lid 35"
  EXPECT_EQ(f.node(sk).port(0).base_lid, 0);   // skeleton dump: the switch has no LID
  // parallel cables of a leaf-spine bundle, "[N](N)" after every switch port
  EXPECT_EQ(f.node(sp).port(1).peer_node, lf);
  EXPECT_EQ(f.node(sp).port(2).peer_port, 39);
  // widths and speeds as ibsim enables them: 4xHDR, 2xHDR (degraded cable), 4xEDR, 4xNDR
  EXPECT_EQ(f.node(lf).port(1).width, 4);
  EXPECT_EQ(f.node(lf).port(1).speed, 7);
  EXPECT_EQ(f.node(lf).port(1).speed_ext, 7);
  EXPECT_EQ(f.node(lf).port(2).width, 2);
  EXPECT_EQ(f.node(sp).port(3).speed_ext, 3);   // EDR: FDR|EDR
  EXPECT_EQ(f.node(sp).port(37).speed_ext, 7);  // NDR: ibsim 0.10's highest, HDR
  // the aggregation node on the internal port 41, with its own LID
  const int an = id(f, "H-0c42a1030011aa18");
  EXPECT_EQ(f.node(lf).port(41).peer_node, an);
  EXPECT_EQ(f.node(an).desc, "Mellanox Technologies Aggregation Node");
  EXPECT_EQ(f.node(an).port(1).base_lid, 80);
  EXPECT_EQ(f.node(id(f, "H-0c42a1030011cc00")).port(1).base_lid, 5);
  EXPECT_EQ(f.node(id(f, "H-0c42a1030011cd00")).port(1).base_lid, 0);  // "# "desc" lid 72 2xHDR": the switch's LID
  EXPECT_EQ(f.max_lid(), 81);
  expect_round_trip(f, "production syntax");
  // a shell prompt pasted above the dump is a file:line error
  ParseError e = parse_error("[admin@mgmt01 ~]$ ibnetdiscover > fabric.txt\n" + text);
  EXPECT_EQ(e.line(), 1);
  EXPECT_NE(std::string(e.what()).find("t.net:1: "), std::string::npos) << e.what();
  e = parse_error(text.substr(0, text.find("vendid")) + "admin@mgmt01:~$ ibnetdiscover\n" + text.substr(text.find("vendid")));
  EXPECT_EQ(e.line(), 6);
}

TEST(NetFile, NodeDescriptionsEndAtTheLastQuote) {
  // ibnetdiscover prints a NodeDescription as it is: quotes inside, even text that looks like a LID
  Fabric f = parse_net(
      "Switch 8 \"S1\" # \"evil\" base port 0 lid 99 lmc 0\" base port 0 lid 7 lmc 0\n"
      "[1] \"H1\"[1] # \"say \"hi\"\" lid 4 4xEDR\n"
      "\n"
      "Ca 1 \"H1\" # \"say \"hi\"\"\n"
      "[1] \"S1\"[1] # lid 4 lmc 0 \"evil\" base port 0 lid 99 lmc 0\" lid 7 4xEDR\n",
      "q.net");
  EXPECT_EQ(f.node(0).desc, "evil\" base port 0 lid 99 lmc 0");
  EXPECT_EQ(f.node(0).port(0).base_lid, 7);
  EXPECT_EQ(f.node(1).desc, "say \"hi\"");
  EXPECT_EQ(f.node(1).port(1).base_lid, 4);
  EXPECT_EQ(f.node(1).port(1).speed_ext, 3);
  EXPECT_THROW(write_net(f), FabricError);  // ibsim would cut the description at its first '"'
  make_ibsim_loadable(f);
  EXPECT_EQ(f.node(1).desc, "say 'hi'");
  EXPECT_EQ(fabric_diff(f, parse_net(write_net(f), "q2.net")), "");
  EXPECT_NE(parse_error("Switch 8 \"S1\" # \"open\n").what(), std::string());
}

namespace {

// Three ASICs of one director chassis reporting its GUID 0xc0ffee as their node GUID (their own
// GUIDs in parentheses), each with an aggregation node, and a host.
const std::string kChassis =
    "vendid=0x2c9\n"
    "sysimgguid=0xc0ffee\n"
    "switchguid=0xc0ffee(a01)\n"
    "Switch\t5 \"S-0000000000000a01\"\t\t# \"MF0;dirA:MCS8500/L01/U1\" enhanced port 0 lid 1 lmc 0\n"  // line 4
    "[1]\t\"S-0000000000000a02\"[1]\t\t# \"MF0;dirA:MCS8500/S01/U1\" lid 2 4xHDR\n"
    "[2]\t\"H-0000000000000b00\"[1](b01)\t\t# \"node001\" lid 4 4xHDR\n"
    "[5]\t\"H-0000000000000d01\"[1](d02)\t\t# \"Mellanox Technologies Aggregation Node\" lid 5 4xHDR\n"
    "\n"
    "vendid=0x2c9\n"
    "sysimgguid=0xc0ffee\n"
    "switchguid=0xc0ffee(a02)\n"
    "Switch\t5 \"S-0000000000000a02\"\t\t# \"MF0;dirA:MCS8500/S01/U1\" enhanced port 0 lid 2 lmc 0\n"  // line 12
    "[1]\t\"S-0000000000000a01\"[1]\t\t# \"MF0;dirA:MCS8500/L01/U1\" lid 1 4xHDR\n"
    "[2]\t\"S-0000000000000a03\"[1]\t\t# \"MF0;dirA:MCS8500/L02/U1\" lid 3 4xHDR\n"
    "[5]\t\"H-0000000000000d02\"[1](d03)\t\t# \"Mellanox Technologies Aggregation Node\" lid 6 4xHDR\n"
    "\n"
    "switchguid=0xc0ffee(a03)\n"
    "Switch\t5 \"S-0000000000000a03\"\t\t# \"MF0;dirA:MCS8500/L02/U1\" enhanced port 0 lid 3 lmc 0\n"  // line 18
    "[1]\t\"S-0000000000000a02\"[2]\t\t# \"MF0;dirA:MCS8500/S01/U1\" lid 2 4xHDR\n"
    "\n"
    "caguid=0xb00\n"
    "Ca\t1 \"H-0000000000000b00\"\t\t# \"node001\"\n"
    "[1](b01) \t\"S-0000000000000a01\"[2]\t\t# lid 4 lmc 0 \"MF0;dirA:MCS8500/L01/U1\" lid 1 4xHDR\n"
    "\n"
    "caguid=0xd01\n"
    "Ca\t1 \"H-0000000000000d01\"\t\t# \"Mellanox Technologies Aggregation Node\"\n"
    "[1](d02) \t\"S-0000000000000a01\"[5]\t\t# lid 5 lmc 0 \"MF0;dirA:MCS8500/L01/U1\" lid 1 4xHDR\n"
    "\n"
    "caguid=0xd02\n"
    "Ca\t1 \"H-0000000000000d02\"\t\t# \"Mellanox Technologies Aggregation Node\"\n"
    "[1](d03) \t\"S-0000000000000a02\"[5]\t\t# lid 6 lmc 0 \"MF0;dirA:MCS8500/S01/U1\" lid 2 4xHDR\n";

// The text with the `switchguid=` line of the switch on `line` replaced.
std::string with_guid_line(std::string text, int line, const std::string& guid_line) {
  size_t pos = 0;
  for (int l = 1; l < line - 1; l++) pos = text.find('\n', pos) + 1;
  const size_t end = text.find('\n', pos);
  EXPECT_EQ(text.compare(pos, 11, "switchguid="), 0) << text.substr(pos, end - pos);
  return text.replace(pos, end - pos, guid_line);
}

std::string read_error(const std::string& text) {
  try {
    parse_net(text, "c.net");
  } catch (const ParseError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(NetFile, ChassisAsicsSharingTheChassisGuidAreReadApart) {
  std::vector<std::string> warnings;
  NetReadOptions o = warnings_into(&warnings);
  Fabric f = parse_net(kChassis, "c.net", o);
  ASSERT_EQ(f.size(), 6);  // no node lost
  EXPECT_EQ(f.num_links(), 5);
  const int a = id(f, "S-0000000000000a01"), b = id(f, "S-0000000000000a02"), c = id(f, "S-0000000000000a03");
  // each ASIC is its own port GUID, the chassis GUID kept as the reported one (also the first ASIC's)
  EXPECT_EQ(f.node(a).guid, 0xa01u);
  EXPECT_EQ(f.node(b).guid, 0xa02u);
  EXPECT_EQ(f.node(c).guid, 0xa03u);
  for (int n : {a, b, c}) {
    EXPECT_EQ(f.node(n).reported_guid, 0xc0ffeeu);
    for (const Port& p : f.node(n).ports) EXPECT_EQ(p.guid, f.node(n).guid);
  }
  EXPECT_EQ(f.find_guid(0xa02), b);
  EXPECT_FALSE(f.find_guid(0xc0ffee).has_value());
  EXPECT_EQ(f.node(id(f, "H-0000000000000b00")).reported_guid, 0u);
  EXPECT_EQ(f.node(b).port(0).base_lid, 2);
  // one warning for the file: where, how many, what was done
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].rfind("c.net:12: node GUID 0xc0ffee of \"S-0000000000000a01\" and \"S-0000000000000a02\"", 0), 0u)
      << warnings[0];
  EXPECT_NE(warnings[0].find("(a node GUID reported by several switches, 3 switches"), std::string::npos) << warnings[0];
  // written as ibnetdiscover shows it, read back the same; written for ibsim: unique GUIDs only
  NetWriteOptions wo;
  wo.reported_guids = true;
  const std::string shared = write_net(f, wo);
  EXPECT_NE(shared.find("switchguid=0xc0ffee(a02)\n"), std::string::npos) << shared;
  std::vector<std::string> again;
  o.warnings = &again;
  EXPECT_EQ(fabric_diff(f, parse_net(shared, "shared.net", o)), "");
  EXPECT_EQ(again.size(), 1u);
  const std::string plain = write_net(f);
  EXPECT_EQ(plain.find("0xc0ffee"), std::string::npos) << plain;
  Fabric g = parse_net(plain, "plain.net");
  EXPECT_NE(fabric_diff(f, g).find("reported GUID 0xc0ffee vs 0x0"), std::string::npos) << fabric_diff(f, g);
  // the full parser's result, whichever reader parse_net picked
  setenv("FTROUTE_SLOW_NET_READER", "1", 1);
  EXPECT_EQ(fabric_diff(f, parse_net(shared, "shared.net", o)), "");
  unsetenv("FTROUTE_SLOW_NET_READER");
  EXPECT_FALSE(fast_parse_net(shared).has_value());  // the fast reader leaves shared GUIDs to the full parser
}

TEST(NetFile, SharedNodeGuidsWithoutPortGuidsOfTheirOwnAreErrors) {
  // the second ASIC has no port GUID of its own: the error names both nodes and both lines
  std::string e = read_error(with_guid_line(kChassis, 12, "switchguid=0xc0ffee"));
  EXPECT_EQ(e.rfind("c.net:12: node GUID 0xc0ffee of \"S-0000000000000a02\" is already used by \"S-0000000000000a01\" (c.net:4)", 0),
            0u) << e;
  e = read_error(with_guid_line(kChassis, 12, "switchguid=0xc0ffee(c0ffee)"));  // its port GUID is the shared one
  EXPECT_NE(e.find("c.net:12: node GUID 0xc0ffee"), std::string::npos) << e;
  // the third one, after two were told apart
  e = read_error(with_guid_line(kChassis, 18, "switchguid=0xc0ffee"));
  EXPECT_EQ(e.rfind("c.net:18: node GUID 0xc0ffee of \"S-0000000000000a03\" is already used by \"S-0000000000000a01\"", 0), 0u)
      << e;
  EXPECT_NE(e.find("port GUID of its own"), std::string::npos) << e;
  // a port GUID another node already has
  e = read_error(with_guid_line(kChassis, 12, "switchguid=0xc0ffee(a01)"));
  EXPECT_EQ(e.rfind("c.net:12: port GUID 0xa01", 0), 0u) << e;
  // CAs have no fallback: two CAs with one GUID stay an error
  e = read_error(kChassis + "\ncaguid=0xb00\nCa\t1 \"H-x\"\n");
  EXPECT_NE(e.find("node GUID 0xb00 of \"H-x\" is already used by \"H-0000000000000b00\" (c.net:22)"), std::string::npos) << e;
  // a bad port GUID in the parentheses
  e = read_error(with_guid_line(kChassis, 12, "switchguid=0xc0ffee(xyz)"));
  EXPECT_EQ(e.rfind("c.net:11: bad GUID '(xyz)'", 0), 0u) << e;
  // the first ASIC without parentheses keeps the GUID; the second falls back to its own
  Fabric f = parse_net(with_guid_line(kChassis, 4, "switchguid=0xc0ffee"), "c.net", NetReadOptions{});
  EXPECT_EQ(f.node(id(f, "S-0000000000000a01")).guid, 0xc0ffeeu);
  EXPECT_EQ(f.node(id(f, "S-0000000000000a01")).reported_guid, 0u);
  EXPECT_EQ(f.node(id(f, "S-0000000000000a02")).guid, 0xa02u);
  EXPECT_EQ(f.node(id(f, "S-0000000000000a03")).reported_guid, 0xc0ffeeu);
}

TEST(NetFile, MakeIbsimLoadableKeepsEveryNodeLinkAndLid) {
  Fabric f = parse_net(kChassis, "c.net", NetReadOptions{});
  f.node(id(f, "H-0000000000000b00")).desc = "a \"quoted\"\tname " + std::string(80, 'x');
  // a CA whose port GUIDs, as ibsim derives them, hit another node's: node 0xa00 -> port 0xa01 (a switch)
  int h = f.add_node(NodeType::Ca, "H-extra", 1, 0xa00);
  f.node(h).port(1).guid = 0xa01;
  f.connect(h, 1, id(f, "S-0000000000000a03"), 3);
  Fabric before = f;
  std::vector<std::string> notes = make_ibsim_loadable(f);
  ASSERT_EQ(notes.size(), 3u);
  EXPECT_NE(notes[0].find("1 node description changed"), std::string::npos) << notes[0];
  EXPECT_NE(notes[1].find("3 switches with a shared node GUID"), std::string::npos) << notes[1];
  EXPECT_NE(notes[2].find("1 node moved to a fresh GUID"), std::string::npos) << notes[2];
  EXPECT_EQ(f.node(id(f, "H-0000000000000b00")).desc, "a 'quoted'?name " + std::string(47, 'x'));
  EXPECT_EQ(f.node(h).guid, 0xd04u);  // above every GUID in use (0xd03, port GUID of the last AN)
  EXPECT_EQ(f.node(h).port(1).guid, 0xd05u);
  for (int n = 0; n < f.size(); n++) {
    EXPECT_EQ(f.node(n).reported_guid, 0u);
    EXPECT_EQ(f.node(n).id, before.node(n).id);
    for (int p = 0; p <= f.node(n).num_ports; p++) {
      EXPECT_EQ(f.node(n).port(p).peer_node, before.node(n).port(p).peer_node);
      EXPECT_EQ(f.node(n).port(p).base_lid, before.node(n).port(p).base_lid);
    }
  }
  // written and read back: the same fabric, every GUID unique, loadable text
  const std::string text = write_net(f);
  Fabric g = parse_net(text, "ibsim.net");
  EXPECT_EQ(fabric_diff(f, g), "");
  EXPECT_EQ(make_ibsim_loadable(g), std::vector<std::string>{});  // nothing left to change
}

// ---------------------------------------------------------------------------------------------
// format details

TEST(NetFile, OneSidedLinksAreAccepted) {
  // ibsim 0.10 itself rejects this at start-up; the reader accepts it (documented)
  Fabric f = parse_net("Switch 8 \"S1\"\n[2] \"S2\"[3]\n\nSwitch 8 \"S2\"\n", "o.net");
  EXPECT_EQ(f.num_links(), 1);
  EXPECT_EQ(f.node(1).port(3).peer_node, 0);
  EXPECT_EQ(f.node(1).port(3).peer_port, 2);
  // and the writer lists it on both ends
  std::string w = write_net(f);
  EXPECT_NE(w.find("[3]\t\"S1\"[2]"), std::string::npos) << w;
}

TEST(NetFile, CommentsCrLfDefaultsAndOptions) {
  Fabric f = parse_net(
      "# comment\r\n"
      "width=1\r\n"
      "Switch 8 \"S1\" # plain desc lid 4\r\n"
      "# comment inside a record\r\n"
      "[1] \"H1\"\tw=8 s=3\r\n"
      "[2] \"H2\"[1]\r\n"
      "\r\n"
      "   indented lines are ignored like ibsim does\r\n"
      "Hca 1 \"H1\"\r\n[1] \"S1\"[1]\tw=8 s=3\r\n\r\n"
      "Hca 1 \"H2\"\r\n[1] \"S1\"[2]\r\n",
      "c.net");
  int s = id(f, "S1");
  EXPECT_EQ(f.node(s).desc, "plain desc");
  EXPECT_EQ(f.node(s).port(0).base_lid, 4);
  EXPECT_EQ(f.node(s).port(1).peer_port, 1);  // missing [rp] means port 1 (ibsim default)
  EXPECT_EQ(f.node(s).port(1).width, 12);     // w=8: 12x enabled
  EXPECT_EQ(f.node(s).port(1).speed, 3);
  EXPECT_EQ(f.node(s).port(2).width, 1);      // width=1 directive
  EXPECT_EQ(parse_net("Ca 12 \"H\"\n", "x").node(0).num_ports, 12);
  EXPECT_EQ(parse_net("Rt\t12 \"R\"\n", "x").node(0).num_ports, 12);
  expect_round_trip(f, "options");
}

TEST(NetFile, IncludeResolvesBesideTheIncludingFile) {
  std::string d = tmpdir();
  write(d + "/sub.net", "Hca 1 \"H1\"\n[1] \"S1\"[1]\n");
  write(d + "/top.net", "Switch 8 \"S1\"\n[1] \"H1\"[1]\n\ninclude \"sub.net\"\n");
  Fabric f = read_net_file(d + "/top.net");
  EXPECT_EQ(f.size(), 2);
  EXPECT_EQ(f.num_links(), 1);
  // errors inside an included file name that file and its line
  write(d + "/bad.net", "Hca 1 \"H1\"\n[1] \"S1\"[x]\n");
  write(d + "/top2.net", "Switch 8 \"S1\"\n[1] \"H1\"[1]\n\ninclude \"bad.net\"\n");
  try {
    read_net_file(d + "/top2.net");
    FAIL();
  } catch (const ParseError& e) {
    EXPECT_EQ(e.file(), d + "/bad.net");
    EXPECT_EQ(e.line(), 2);
  }
  // cycles are reported
  write(d + "/loop.net", "include \"loop.net\"\n");
  try {
    read_net_file(d + "/loop.net");
    FAIL();
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("cycle"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(d);
}

TEST(NetFile, MissingFileIsAParseError) {
  try {
    read_net_file("/nonexistent/x.net");
    FAIL();
  } catch (const ParseError& e) {
    EXPECT_EQ(e.file(), "/nonexistent/x.net");
    EXPECT_EQ(e.line(), 0);
  }
}

// ---------------------------------------------------------------------------------------------
// errors carry file:line

TEST(NetFile, ErrorsNameFileAndLine) {
  struct Case {
    const char* what;
    std::string text;
    int line;
    const char* msg;
  };
  const std::string sw = "Switch 8 \"S1\"\n";
  const Case cases[] = {
      {"unknown node", sw + "[1] \"H1\"[1]\n[2] \"X\"[1]\n\nHca 1 \"H1\"\n[1] \"S1\"[1]\n", 3, "unknown node \"X\""},
      {"local port out of range", sw + "[9] \"H1\"[1]\n", 2, "out of range"},
      {"local port 0", sw + "[0] \"H1\"[1]\n", 2, "out of range"},
      {"remote port out of range", sw + "[1] \"H1\"[2]\n\nHca 1 \"H1\"\n", 2, "\"H1\"[2] out of range"},
      {"asymmetric", sw + "[1] \"S2\"[1]\n\nSwitch 8 \"S2\"\n[1] \"S3\"[1]\n\nSwitch 8 \"S3\"\n", 2, "asymmetric"},
      {"duplicate id", sw + "\nSwitch 4 \"S1\"\n", 3, "duplicate node id"},
      {"bad port count", "Switch x8 \"S1\"\n", 1, "port count"},
      {"zero ports", "Switch 0 \"S1\"\n", 1, "port count"},
      {"too many ports", "Switch 300 \"S1\"\n", 1, "port count"},
      {"bad port number", sw + "[a] \"H1\"[1]\n", 2, "port number"},
      {"bad remote port", sw + "[1] \"H1\"[z]\n", 2, "remote port"},
      {"bad guid base", "switchguid=0xzz\n", 1, "GUID"},
      {"port listed twice", sw + "[1] \"H1\"[1]\n[1] \"H2\"[1]\n", 3, "listed twice"},
      {"record without blank line", sw + "[1] \"H1\"[1]\nHca 1 \"H1\"\n", 3, "blank line"},
      {"port line outside a record", sw + "\n[1] \"H1\"[1]\n", 3, "outside a node record"},
      {"blank before remote port", sw + "[1] \"H1\" [1]\n", 2, "ibsim reads"},
      {"unterminated id", "Switch 8 \"S1\n", 1, "unterminated"},
      {"reserved char", "Switch 8 \"S#1\"\n", 1, "reserved"},
      {"alias", sw + "@[1] \"a\"\n", 2, "aliases"},
      {"unknown option", sw + "[1] \"H1\"[1] x=3\n", 2, "unknown port option"},
      {"bad width", sw + "[1] \"H1\"[1] w=40\n", 2, "width"},
      {"bad width directive", "width=0\n", 1, "width"},
      {"unknown keyword", "\n\nSwtich 8 \"S1\"\n", 3, "unrecognised line"},
      {"do unlink", sw + "\ndo Unlink \"S1\"[1]\n", 3, "not supported"},
      {"do guid unknown node", "do Guid \"Q\" 0x5\n", 1, "unknown node"},
      {"missing include", "include \"/nonexistent.net\"\n", 1, "cannot open include"},
      {"long line", "# " + std::string(300, 'x') + "\n", 1, "longer than"},
      {"duplicate guid", "switchguid=0x10\nSwitch 4 \"A\"\n\nswitchguid=0x10\nSwitch 4 \"B\"\n", 5, "already used"},
      {"self link", sw + "[1] \"S1\"[1]\n", 2, "itself"},
      {"lid overlap", "Switch 8 \"S1\" # \"s\" lid 4 lmc 0\n[1] \"H1\"[1]\n\nHca 1 \"H1\"\n[1] \"S1\"[1] # lid 4 lmc 0 \"s\" lid 4 4xSDR\n",
       5, "overlaps"},
      {"lid out of range", "Switch 8 \"S1\" # \"s\" lid 0xC000 lmc 0\n", 1, "unicast range"},
      {"port taken twice", sw + "[1] \"H1\"[1]\n[2] \"H1\"[1]\n\nHca 1 \"H1\"\n", 3, "already linked"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    ParseError e = parse_error(c.text);
    EXPECT_EQ(e.file(), "t.net");
    EXPECT_EQ(e.line(), c.line) << e.what();
    const std::string w = e.what();
    EXPECT_EQ(w.rfind("t.net:" + std::to_string(c.line) + ": ", 0), 0u) << w;
    EXPECT_NE(w.find(c.msg), std::string::npos) << w;
  }
}

// ---------------------------------------------------------------------------------------------
// writer

TEST(NetFile, WriterReproducesNonDefaultGuidsAndLids) {
  Fabric f;
  int a = f.add_node(NodeType::Switch, "A", 4, 0xaa00);
  int b = f.add_node(NodeType::Switch, "B", 4);
  int h = f.add_node(NodeType::Ca, "H", 2);
  int r = f.add_node(NodeType::Router, "R", 1);
  f.connect(a, 1, b, 1);
  f.connect(a, 2, b, 2);
  f.connect(h, 1, a, 3);
  f.connect(h, 2, b, 3);
  f.connect(r, 1, b, 4);
  f.assign_default_guids();
  f.node(h).desc = "host with blanks";
  f.node(a).port(1).width = 1;
  f.node(b).port(1).width = 1;
  f.assign_lids(1);
  std::string w = write_net(f);
  EXPECT_NE(w.find("switchguid=0xaa00"), std::string::npos) << w;
  EXPECT_NE(w.find("width=3"), std::string::npos) << w;
  EXPECT_NE(w.find("rtguid=0x300000"), std::string::npos) << w;
  Fabric g = parse_net(w, "w.net");
  EXPECT_EQ(fabric_diff(f, g), "");
  EXPECT_EQ(g.max_lid(), f.max_lid());
  // without LIDs only the LIDs differ
  NetWriteOptions o;
  o.write_lids = false;
  Fabric g2 = parse_net(write_net(f, o), "w2.net");
  EXPECT_EQ(g2.max_lid(), 0);
  EXPECT_NE(fabric_diff(f, g2).find("LID"), std::string::npos);
}

TEST(NetFile, WriterRejectsWhatIbsimCannotLoad) {
  Fabric f;
  f.add_node(NodeType::Switch, "bad\"id", 4);
  EXPECT_THROW(write_net(f), FabricError);
  Fabric g;
  g.add_node(NodeType::Switch, std::string(70, 'x'), 4);
  EXPECT_THROW(write_net(g), FabricError);
  Fabric h;
  int s = h.add_node(NodeType::Switch, "S", 4, 0x10);
  h.node(s).port(2).guid = 0x11;  // ibsim gives every switch port the node GUID
  EXPECT_THROW(write_net(h), FabricError);
  Fabric c;
  int ca = c.add_node(NodeType::Ca, "H", 2, 0x100);
  c.node(ca).port(1).guid = 0x101;
  c.node(ca).port(2).guid = 0x200;  // ibsim reports node GUID + port
  EXPECT_THROW(write_net(c), FabricError);
}

TEST(NetFile, LongCommentsAreWrapped) {
  Fabric f = topo::kary_ntree(2, 1);
  NetWriteOptions o;
  o.comment = "first\n" + std::string(600, 'c') + "\n\nlast";
  std::string w = write_net(f, o);
  EXPECT_EQ(fabric_diff(f, parse_net(w, "long.net")), "");
  std::istringstream in(w);
  std::string l;
  int lines = 0;
  while (std::getline(in, l)) {
    EXPECT_LE(l.size(), 254u);
    lines++;
  }
  EXPECT_EQ(w.rfind("# first\n#   ", 0), std::string::npos);
  EXPECT_NE(w.find("#   " + std::string(200, 'c')), std::string::npos);
  EXPECT_NE(w.find("\n#\n# last\n"), std::string::npos);
}

TEST(NetFile, FabricDiffFindsDifferences) {
  Fabric a = topo::kary_ntree(2, 2);
  Fabric b = a;
  EXPECT_EQ(fabric_diff(a, b), "");
  b.disconnect(0, 3);
  EXPECT_NE(fabric_diff(a, b), "");
  Fabric c = a;
  c.node(5).guid++;
  EXPECT_NE(fabric_diff(a, c).find("GUID"), std::string::npos);
}

TEST(NetFile, GeneratedTopologiesRoundTrip) {
  expect_round_trip(topo::kary_ntree(3, 3), "3-ary 3-tree");
  expect_round_trip(topo::fat_tree2({4, 2, 3, 2, 0}), "fat tree 2");
  expect_round_trip(topo::grid({{3, 4}, true, 2, 0}), "torus");
  Fabric f = topo::kary_ntree(4, 3);
  topo::FaultSpec s;
  s.random_switches = 2;
  s.random_links = 5;
  s.seed = 9;
  topo::inject_faults(f, s);
  expect_round_trip(f, "faulty tree");
}

// Mutated files either parse into a valid fabric or fail with a ParseError (never another
// exception type, never a half-valid fabric).
TEST(NetFile, MutatedInputFailsCleanly) {
  std::vector<std::string> bases;
  {
    std::ifstream in(kData + "ibnetdiscover_2sw2path4hca.net");
    std::stringstream ss;
    ss << in.rdbuf();
    bases.push_back(ss.str());
  }
  bases.push_back(write_net(topo::kary_ntree(2, 2)));
  bases.push_back("switchguid=0x10\nSwitch 4 \"A\" # \"a\" lid 1\n[1] \"B\"[2] w=3\n[2] \"H\"[1]\n\n"
                  "Switch 4 \"B\"\n[2] \"A\"[1]\n\nHca 1 \"H\"\n[1] \"A\"[2] # lid 2 lmc 0\n");
  for (const auto& b : bases) ASSERT_NO_THROW(parse_net(b, "base.net")) << b;
  std::mt19937_64 g(2024);
  const std::string alphabet = "[]\"#()=x0123456789 \t\nSwitchHcaRtlidmc";
  int parsed = 0, errors = 0;
  for (int i = 0; i < 3000; i++) {
    std::string t = bases[static_cast<size_t>(i) % bases.size()];
    const int edits = 1 + static_cast<int>(topo::uniform_index(g, 3));
    for (int e = 0; e < edits; e++) {
      size_t pos = static_cast<size_t>(topo::uniform_index(g, t.size()));
      switch (topo::uniform_index(g, 3)) {
        case 0: t[pos] = alphabet[topo::uniform_index(g, alphabet.size())]; break;
        case 1: t.erase(pos, 1 + topo::uniform_index(g, 8)); break;
        default: t.insert(pos, 1, alphabet[topo::uniform_index(g, alphabet.size())]); break;
      }
    }
    try {
      Fabric f = parse_net(t, "m.net");
      EXPECT_NO_THROW(f.validate());
      parsed++;
    } catch (const ParseError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("m.net", 0), 0u) << e.what();
      errors++;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "non-ParseError " << typeid(e).name() << ": " << e.what() << "\n" << t;
      break;
    }
  }
  EXPECT_GT(errors, 100);
  EXPECT_GT(parsed, 10);
}

// `lid 65535` (unassigned, as some ibnetdiscover captures show it) is read as no LID with one
// warning naming the first line; a file whose ports all lack LIDs then gets OpenSM-like LIDs
// where a command assigns them, and one with other LIDs asks for --lmc (the existing rule).
TEST(NetFile, UnassignedLid65535IsReadAsNoLidWithOneWarning) {
  const std::string text =
      "Switch\t4 \"S-0000000000000001\"\t\t# \"sw1\" base port 0 lid 65535 lmc 0\r\n"
      "[1]\t\"H-0000000000000002\"[1](2)\t\t# \"h1\" lid 65535 4xEDR\r\n"
      "[2]\t\"H-0000000000000004\"[1](4)\t\t# \"h2\" lid 65535 4xEDR\r\n"
      "\r\n"
      "Ca\t1 \"H-0000000000000002\"\t\t# \"h1\"\r\n"
      "[1](2)\t\"S-0000000000000001\"[1]\t\t# lid 65535 lmc 0 \"sw1\" lid 65535 4xEDR\r\n"
      "\r\n"
      "Ca\t1 \"H-0000000000000004\"\t\t# \"h2\"\r\n"
      "[1](4)\t\"S-0000000000000001\"[2]\t\t# lid 65535 lmc 0 \"sw1\" lid 65535 4xEDR\r\n";
  std::vector<std::string> warnings;
  NetReadOptions o = warnings_into(&warnings);
  Fabric f = parse_net(text, "u.net", o);
  EXPECT_EQ(f.size(), 3);
  EXPECT_EQ(f.max_lid(), 0);  // no LID read
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].rfind("u.net:1: LID 65535 (unassigned) read as no LID (3 ports in all)", 0), 0u) << warnings[0];
  // any other LID beyond the unicast range is still an error naming the line
  std::string bad = text;
  bad.replace(bad.find("lid 65535 lmc 0 \"sw1\""), 9, "lid 65534");
  EXPECT_THROW(parse_net(bad, "b.net"), ParseError);
}

// Traces of an editor or another encoding: a UTF-8 byte-order mark (a dump saved by a Windows
// editor) is skipped with a warning, by the file reader (fast path included) and the text parser;
// lines ended by CR alone and UTF-16 text are refused with a hint at what the file is.
TEST(NetFile, ByteOrderMarkSkippedOtherEncodingsNamed) {
  const std::string clean = "Switch\t2 \"S\"\n[1]\t\"H\"[1]\n\nHca\t1 \"H\"\n[1]\t\"S\"[1]\n";
  const std::string bom = "\xef\xbb\xbf" + clean;
  std::vector<std::string> warnings;
  NetReadOptions o = warnings_into(&warnings);
  const Fabric want = parse_net(clean, "clean.net");
  EXPECT_EQ(fabric_diff(parse_net(bom, "bom.net", o), want), "");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], "bom.net:1: a UTF-8 byte-order mark, skipped");
  const std::string path = tmpdir() + "/bom.net";
  write(path, bom);
  warnings.clear();
  EXPECT_EQ(fabric_diff(read_net_file(path, o), want), "");
  EXPECT_EQ(warnings.size(), 1u);
  std::string cr = clean;
  for (char& c : cr) c = c == '\n' ? '\r' : c;
  cr = cr + std::string(5000, ' ');
  try {
    parse_net(cr, "cr.net");
    ADD_FAILURE() << "CR-only line ends accepted";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("cr.net:1: line longer than"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("carriage returns: lines ended by CR alone?"), std::string::npos) << e.what();
  }
  std::string utf16 = "\xff\xfe";
  for (char c : clean) utf16 += std::string(1, c) + '\0';
  try {
    parse_net(utf16, "u16.net");
    ADD_FAILURE() << "UTF-16 accepted";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("UTF-16 text: convert it with `iconv -f UTF-16 -t UTF-8`"), std::string::npos) << e.what();
  }
}

// A dump an admin captured from a console (real: a PuTTY log of `ibnetdiscover` on a UFM
// appliance): PuTTY's header line, CRLF line ends, tabs lost (`Switch41`), and the shell prompt
// after the dump (after a lone CR, or on its own line). Read as the clean dump, each skip warned
// with its line; the same console text outside a capture, or between records, stays an error.
TEST(NetFile, ConsoleCapturesReadAsTheDumpTheyHold) {
  const std::string clean =
      "switchguid=0xc42a10300a9b026(c42a10300a9b026)\n"
      "Switch\t41 \"S-0c42a10300a9b026\"\t\t# \"MF0;sat11:MQM8700/U1\" enhanced port 0 lid 3894 lmc 0\n"
      "[1]\t\"H-1c34da03005503dc\"[1](1c34da03005503dc)\t\t# \"SAT1 ibp11s0f0\" lid 4049 4xHDR\n"
      "\n"
      "caguid=0x1c34da03005503dc\n"
      "Ca\t1 \"H-1c34da03005503dc\"\t\t# \"SAT1 ibp11s0f0\"\n"
      "[1](1c34da03005503dc)\t\"S-0c42a10300a9b026\"[1]\t\t# lid 4049 lmc 0 \"MF0;sat11:MQM8700/U1\" lid 3894 4xHDR\n";
  std::string putty = "=~=~=~=~=~=~=~=~=~=~=~= PuTTY log 2021.06.15 12:06:05 =~=~=~=~=~=~=~=~=~=~=~=\r\n\r\n" + clean;
  for (size_t p; (p = putty.find('\t')) != std::string::npos;) putty.replace(p, 1, p > 0 && putty[p - 1] == 'h' ? "" : " ");
  for (size_t p = 0; (p = putty.find('\n', p)) != std::string::npos; p += 2)
    if (putty[p - 1] != '\r') putty.insert(p, "\r");
  putty += "\r\n\rsat11-ufm [ mgmt-ha-active ] (config) # ";
  ASSERT_NE(putty.find("Switch41 \"S-"), std::string::npos);
  std::vector<std::string> warnings;
  NetReadOptions o = warnings_into(&warnings);
  const Fabric want = parse_net(clean, "clean.net");
  EXPECT_EQ(fabric_diff(parse_net(putty, "putty.txt", o), want), "");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].rfind("putty.txt:1: a terminal session log's header line, skipped", 0), 0u) << warnings[0];

  // script(1): its first and last lines, the prompt and command before the dump, a prompt after it
  const std::string script = "Script started on 2026-11-28 08:00:00+00:00 [COMMAND=\"bash\"]\n"
                             "[root@mgmt ~]# ibnetdiscover\n" +
                             clean + "\n[root@mgmt ~]# exit\nScript done on 2026-11-28 08:00:05+00:00\n";
  warnings.clear();
  EXPECT_EQ(fabric_diff(parse_net(script, "s.txt", o), want), "");
  ASSERT_EQ(warnings.size(), 4u);
  EXPECT_EQ(warnings[1].rfind("s.txt:2: console text before the dump skipped", 0), 0u) << warnings[1];
  EXPECT_EQ(warnings[2].rfind("s.txt:11: console text after the dump skipped", 0), 0u) << warnings[2];

  // without a capture's header the same text is an error at its line
  try {
    parse_net("[root@mgmt ~]# ibnetdiscover\n" + clean, "plain.net");
    ADD_FAILURE() << "console text outside a capture accepted";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("plain.net:1: port line outside a node record"), std::string::npos) << e.what();
  }
  // inside a capture, text between two records is still an error
  std::string between = script;
  between.insert(between.find("caguid="), "admin@mgmt:~$ oops\n");
  try {
    parse_net(between, "between.txt");
    ADD_FAILURE() << "console text between records accepted";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("between.txt:7: unrecognised line 'admin@mgmt:~$ oops'"), std::string::npos) << e.what();
  }
  // `Hca2` as ibsim reads it; `Ca2` is refused, since ibsim would read the count elsewhere
  EXPECT_EQ(parse_net("Hca2 \"H\"\n", "h.net").node(0).num_ports, 2);
  EXPECT_THROW(parse_net("Ca2 \"H\"\n", "c.net"), ParseError);
}
