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
