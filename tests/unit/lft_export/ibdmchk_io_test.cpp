// ibdmchk's files and the path-SL / SL2VL files of a routing (lft_export/ibdmchk_io.cpp,
// ftroute/ibdmchk_io.hpp): opensm-subnet.lst and opensm.fdbs as OpenSM 3.3.23 writes them (tests/data/lft/,
// made by tests/data/lft/capture.sh), every pair of the all-pairs path-SL file, round trips, and
// OpenSM's own SL2VL dump.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "ftroute/error.hpp"
#include "ftroute/ibdmchk_io.hpp"
#include "ftroute/lft_io.hpp"
#include "ftroute/netfile.hpp"

#include "lft_test_files.hpp"

using namespace ftroute;

namespace {

using lft_test_files::first_diff;
using lft_test_files::kDir;
using lft_test_files::slurp;

struct Fixture {
  std::string name, net;
};
const Fixture kFixtures[] = {{"2sw4hca", "2sw4hca.net"}, {"ft4x2", "ft4x2.net"}, {"ft4x2_lmc1", "ft4x2.net"},
                             {"ring4", "ring4.net"}};

}  // namespace

TEST(IbdmchkIo, SubnetLstAndFdbsMatchOpenSM) {
  for (const auto& fx : kFixtures) {
    if (std::string(fx.name) == "ft4x2_lmc1") continue;  // same subnet.lst as ft4x2
    Fabric fab = read_net_file(kDir + fx.net);
    LftFile f = read_lft_file(kDir + fx.name + ".opensm-lfts.dump");
    adopt_lids(f, fab);
    Lfts l = map_lfts(f, fab).lfts;
    SubnetLstOptions o;
    o.sm_lid = 1;       // the SM ran on the first CA, LID 1
    o.revision = 0xA1;  // what ibsim reports
    const std::string lst = write_subnet_lst(fab, o);
    const std::string want = slurp(kDir + fx.name + ".opensm-subnet.lst");
    EXPECT_EQ(lst, want) << fx.name << ": " << first_diff(lst, want);
    const std::string fdbs = write_fdbs(fab, l);
    const std::string wantf = slurp(kDir + fx.name + ".opensm.fdbs");
    EXPECT_EQ(fdbs, wantf) << fx.name << ": " << first_diff(fdbs, wantf);
    // the subnet.lst reads back into the same fabric (ids = descriptions = .net ids here)
    Fabric back = read_subnet_lst(kDir + fx.name + ".opensm-subnet.lst");
    EXPECT_EQ(back.size(), fab.size());
    EXPECT_EQ(back.num_links(), fab.num_links());
    for (int i = 0; i < fab.size(); i++) {
      auto j = back.find(fab.node(i).id);
      ASSERT_TRUE(j) << fab.node(i).id;
      EXPECT_EQ(back.node(*j).guid, fab.node(i).guid);
    }
    EXPECT_TRUE(map_lfts(f, back).warnings.empty());
  }
}

// ibdmchk needs a line for every pair it traces (a missing one is "SL unassigned", not SL 0):
// all_pairs writes every (source node, DLID) with SL 0 included, switch_sources adds the switches.
TEST(IbdmchkIo, PathSlAllPairsListsEveryNodeAndLid) {
  Fabric fab = read_net_file(kDir + "ring4.net");
  LftFile f = read_lft_file(kDir + "ring4.opensm-lfts.dump");
  adopt_lids(f, fab);
  Routing r;
  r.lfts = map_lfts(f, fab).lfts;
  r.path_sl = [](Lid s, Lid d) -> uint8_t { return static_cast<uint8_t>((s + d) % 3); };
  auto lines = [](const std::string& t) {
    std::set<std::pair<std::string, std::string>> out;  // (guid, dlid)
    std::istringstream in(t);
    std::string g, d, sl;
    for (std::string l; std::getline(in, l);)
      if (l.rfind("0x", 0) == 0) {
        std::istringstream ls(l);
        ls >> g >> d >> sl;
        out.insert({g, d});
      }
    return out;
  };
  int lids = 0, cas = 0;
  for (const EndPort& e : fab.end_ports()) lids += static_cast<int>(e.last_lid() - e.base_lid + 1);
  for (int i = 0; i < fab.size(); i++) cas += !fab.node(i).is_switch();
  PathSlWriteOptions all;
  all.all_pairs = true;
  const std::string ca_text = write_path_sl(fab, r, all);
  EXPECT_EQ(lines(ca_text).size(), static_cast<size_t>(cas * lids));
  EXPECT_NE(ca_text.find(" 0\n"), std::string::npos) << "SL-0 pairs must be listed";
  all.switch_sources = true;
  EXPECT_EQ(lines(write_path_sl(fab, r, all)).size(), static_cast<size_t>(fab.size() * lids));
  // the sparse default lists only SL != 0, and reads back the same SLs
  const std::string sparse = write_path_sl(fab, r);
  EXPECT_LT(lines(sparse).size(), lines(ca_text).size());
  auto a = parse_path_sl(ca_text, "a.sl", fab), b = parse_path_sl(sparse, "b.sl", fab);
  for (const EndPort& s : fab.end_ports())
    for (const EndPort& d : fab.end_ports())
      if (!fab.node(s.node).is_switch() && s.node != d.node) {
        EXPECT_EQ(a(s.base_lid, d.base_lid), b(s.base_lid, d.base_lid));
      }
}

TEST(IbdmchkIo, PathSlAndSl2VlRoundTrip) {
  Fabric fab = read_net_file(kDir + "ring4.net");
  LftFile f = read_lft_file(kDir + "ring4.opensm-lfts.dump");
  adopt_lids(f, fab);
  Routing r;
  r.lfts = map_lfts(f, fab).lfts;
  r.path_sl = [](Lid s, Lid d) -> uint8_t { return static_cast<uint8_t>((s + d) % 3); };
  Sl2Vl::Table t{};
  t[1] = 1;
  t[2] = 0;
  r.sl2vl.set_all(fab, Sl2Vl::identity());
  r.sl2vl.set(*fab.find("R0"), 2, 1, t);
  const std::string psl = write_path_sl(fab, r);
  auto sl = parse_path_sl(psl, "p.sl", fab);
  for (const EndPort& a : fab.end_ports())
    for (const EndPort& b : fab.end_ports())
      if (!fab.node(a.node).is_switch() && a.node != b.node) {
        EXPECT_EQ(sl(a.base_lid, b.base_lid), r.sl(a.base_lid, b.base_lid));
      }
  const std::string vl = write_sl2vl(fab, r.sl2vl);
  Sl2Vl back = parse_sl2vl(vl, "v.sl2vl", fab);
  for (int s : fab.switches())
    for (int in = 0; in <= 4; in++)
      for (int o = 1; o <= 4; o++)
        if (fab.node(s).port(o).connected() && o != in && (in == 0 || fab.node(s).port(in).connected())) {
          for (int k = 0; k < 16; k++) EXPECT_EQ(back.vl(s, in, o, k), r.sl2vl.vl(s, in, o, k));
        }
  try {
    parse_path_sl("0x0000000000100000 0x0004 16\n", "p.sl", fab);
    FAIL();
  } catch (const ParseError& e) {
    EXPECT_EQ(std::string(e.what()).substr(0, 7), "p.sl:1:");
  }
  try {
    parse_sl2vl("# c\n0x0000000000200000 9 1 0 0 0 0 0 0 0 0\n", "v", fab);
    FAIL();
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("v:2: port beyond the 4 ports"), std::string::npos) << e.what();
  }
}

// libftroute.so's path-SL dump ends with a counted line (plugin/osm_pathsl.cpp writes it with
// path_sl_dump_end_line): found only as the file's last line and only exactly as written.
TEST(IbdmchkIo, PathSlDumpEndLine) {
  PathSlDumpEnd e;
  e.pairs = 4939200;
  e.missing = 3;
  e.disagree = 1;
  const std::string line = path_sl_dump_end_line(e);
  EXPECT_EQ(line, "# end: 4939200 pairs, 3 without path parameters, 1 with an SL other than their CA's first port\n");
  const std::string body = "# ftroute path-SL file (ibdmchk -c): src_node_guid dlid sl\n0x0000000000100000 4 1\n";
  PathSlDumpEnd back = path_sl_dump_end(body + line);
  EXPECT_TRUE(back.found);
  EXPECT_EQ(back.pairs, 4939200);
  EXPECT_EQ(back.missing, 3);
  EXPECT_EQ(back.disagree, 1);
  EXPECT_TRUE(path_sl_dump_end(line + "\r\n").found);
  EXPECT_FALSE(path_sl_dump_end(body).found);                         // cut short: no end line
  EXPECT_FALSE(path_sl_dump_end(line + "0x0000000000100000 4 1\n").found);  // not the last line
  EXPECT_FALSE(path_sl_dump_end("# end: 12 pairs, 0 without path parameters, 0 with\n").found);
  EXPECT_FALSE(path_sl_dump_end("# end: 12 pairs, 0 without path parameters, 0 with an SL other than their CA's first port!\n").found);
  EXPECT_FALSE(path_sl_dump_end("").found);

  // `ftroute check --sl` on such a dump (read_sl_files): pairs the SA had no path for are judged
  // on SL 0, and the check says so instead of passing silently
  Fabric fab = read_net_file(kDir + "ring4.net");
  LftFile lf = read_lft_file(kDir + "ring4.opensm-lfts.dump");
  adopt_lids(lf, fab);  // LIDs from the dump's portguid comments
  const EndPort* ca = nullptr;
  for (const EndPort& e : fab.end_ports())
    if (!ca && !fab.node(e.node).is_switch()) ca = &e;
  ASSERT_NE(ca, nullptr);
  char guid[32];
  std::snprintf(guid, sizeof guid, "0x%016llx", static_cast<unsigned long long>(fab.node(ca->node).guid));
  const std::string path = testing::TempDir() + "ftroute_dump_end.sl";
  PathSlDumpEnd cut;
  cut.pairs = 12;
  cut.missing = 2;
  {
    std::ofstream(path) << body.substr(0, body.find('\n') + 1) << guid << " 4 1\n" << path_sl_dump_end_line(cut);
  }
  Routing r;
  std::vector<std::string> warnings;
  read_sl_files(fab, path, "", r, &warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("counts 2 of 12 pairs without path parameters"), std::string::npos) << warnings[0];
  EXPECT_EQ(r.sl(ca->base_lid, 4), 1);
  cut.missing = 0;
  {
    std::ofstream(path) << guid << " 4 1\n" << path_sl_dump_end_line(cut);
  }
  warnings.clear();
  read_sl_files(fab, path, "", r, &warnings);
  EXPECT_TRUE(warnings.empty());
  std::remove(path.c_str());
}

TEST(IbdmchkIo, ReadsOpenSMSl2VlDump) {
  // opensm-sl2vl.dump layout (OpenSM 3.3.23 dump_sl2vl_tbl): header, two comment lines, rows, separator
  Fabric fab = read_net_file(kDir + "2sw4hca.net");
  const std::string text =
      "Switch 0x0000000000200000, base LID 2, \"Switch1\"\n"
      "#in out : 0  1  2  3  4  5  6  7  8  9  10 11 12 13 14 15\n"
      "#--------------------------------------------------------\n"
      "0   0   : 0  1  2  3  4  5  6  7  8  9  10 11 12 13 14 15\n"
      "1   3   : 0  1  1  0  0  0  0  0  0  0  0  0  0  0  0  7 \n"
      "#--------------------------------------------------------\n"
      "\n"
      "Channel Adapter 0x0000000000100001, base LID 1, \"Hca1\"\n"
      "#in out : 0  1  2  3  4  5  6  7  8  9  10 11 12 13 14 15\n"
      "#--------------------------------------------------------\n"
      "0   0   : 0  0  1  1  0  0  0  0  0  0  0  0  0  0  0  0 \n"
      "#--------------------------------------------------------\n\n";
  Sl2Vl t = parse_sl2vl(text, "opensm-sl2vl.dump", fab);
  const int s1 = *fab.find("Switch1"), h1 = *fab.find("Hca1");
  EXPECT_EQ(t.vl(s1, 1, 3, 2), 1);
  EXPECT_EQ(t.vl(s1, 1, 3, 15), 7);
  EXPECT_EQ(t.vl(h1, 0, 1, 2), 1);  // CA injection table
  EXPECT_EQ(t.vl(h1, 0, 1, 1), 0);
  try {
    parse_sl2vl("Switch 0x0000000000200000, base LID 2, \"Switch1\"\n1   3   : 0 1 2\n", "x.dump", fab);
    FAIL();
  } catch (const ParseError& e) {
    EXPECT_EQ(std::string(e.what()).substr(0, 9), "x.dump:2:");
  }
  try {
    parse_sl2vl("Switch 0x0000000000999999, base LID 2, \"X\"\n", "x.dump", fab);
    FAIL();
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("x.dump:1: GUID 0x0000000000999999 is not in the fabric"), std::string::npos)
        << e.what();
  }
}
