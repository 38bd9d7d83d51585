// The plugin's path-SL dump (event_plugin_options path_sl_dump=FILE, plugin/osm_pathsl.cpp)
// inside a real OpenSM 3.3.23 on an ibsim 4x4 torus, 1 HCA per switch, routed by OpenSM's own
// LASH (a stock engine with per-path SLs: the plugin is loaded only for the dump):
//  * the file holds an SL for every (CA, other end-port LID) pair, 0 without path parameters, and
//    for every CA pair it equals the SL OpenSM's SA answers on the wire (saquery PathRecord), with
//    SLs above 0 among them (LASH needs more than one layer on a ring);
//  * `ftroute check` with the live LFTs (dump_fts), the dump (--sl) and OpenSM's
//    opensm-sl2vl.dump passes: deadlock free per VL with exactly the SLs the SA hands out, while
//    the same LFTs on SL 0 alone have a cycle (the SLs are what makes it deadlock free);
//  * with a partition in which the CAs are limited members, CA pairs share no partition key: the
//    dump counts them without path parameters, as the SA answers them, without asking OpenSM's SA
//    code (which would log ERR 1F1B for each) and without ERR FT05;
//  * a dump that cannot be written (no such directory) is one ERR FT05 line, no file, and OpenSM
//    routes and stays up as before;
//  * pairs the SA has no path for although they share a partition (here every CA's SL2VL table
//    sends all SLs to VL15) are one ERR FT05 line that names the first such pair by its nodes'
//    descriptions (a hostile one escaped) and LID, where the admin can start looking.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>

#include "fabric_check.hpp"
#include "ftroute/ibdmchk_io.hpp"
#include "harness.hpp"
#include "nets.hpp"
#include "plugin_itest.hpp"

using namespace ftroute;
using namespace ftroute::itest;

namespace {
const std::string kCli = std::string(FTROUTE_BINARY_DIR) + "/cli/ftroute";
}

TEST(PathSlDump, StockLashSlsEqualTheSasAnswersAndMakeTheTablesDeadlockFree) {
  REQUIRE_PLUGIN();
  SimFabric sim("path_sl_dump_lash");
  sim.start_text(torus2d_net(4, 4, 1));
  const std::string dump = sim.scratch() + "/path_sl.txt";
  sim.start_opensm_daemon(plugin_config("lash", "path_sl_dump=" + dump, {"qos TRUE"}));
  // the dump follows SUBNET UP (the plugin writes it when OpenSM reports the subnet up)
  const std::string done = "ftroute: path SLs of engine lash written to";
  const bool dumped = wait_for_log(sim, done);
  const std::string log = sim.opensm_log();
  ASSERT_EQ(sim.engine_used(), "lash") << log;
  EXPECT_EQ(log.find("ERR FT"), std::string::npos) << log;
  EXPECT_TRUE(dumped) << log;

  const std::string text = read_file(dump);
  ASSERT_FALSE(text.empty()) << "no dump at " << dump << "\n" << log;
  // 16 CAs x (16 CA LIDs + 16 switch LIDs - their own)
  EXPECT_NE(text.find("# end: 496 pairs, 0 without path parameters, 0 with an SL other"), std::string::npos) << text;
  const std::string nd = sim.scratch() + "/discovered.net";
  write_file(nd, sim.ibnetdiscover());
  Fabric f = fabric_from_ibnetdiscover(read_file(nd));
  uint16_t used = 0;
  auto sl = read_path_sl(dump, f, &used);
  int high = 0, asked = 0;
  for (const EndPort& a : f.end_ports())
    for (const EndPort& b : f.end_ports()) {
      if (f.node(a.node).is_switch() || a.node == b.node) continue;
      // every CA pair, and CA -> switch for the first CA
      if (f.node(b.node).is_switch() && asked >= 240) continue;
      const int want = sa_path_sl(sim, a.base_lid, b.base_lid);
      ASSERT_GE(want, 0) << "saquery failed";
      EXPECT_EQ(sl(a.base_lid, b.base_lid), want) << "LID " << a.base_lid << " -> " << b.base_lid;
      high += want > 0;
      asked++;
    }
  EXPECT_GE(asked, 240);
  EXPECT_GT(high, 0) << "LASH put every pair on SL 0: the comparison proves little";
  EXPECT_GT(used & ~1u, 0u);

  // the admin's check: live tables + the dump + OpenSM's SL2VL tables
  const std::string fts = sim.scratch() + "/dump_fts.txt";
  write_file(fts, sim.dump_fts());
  const std::string sl2vl = sim.dump_dir() + "/opensm-sl2vl.dump";
  ASSERT_TRUE(std::filesystem::exists(sl2vl)) << "OpenSM wrote no " << sl2vl;
  ProcResult with = run_process({kCli, "check", "-f", nd, "-l", fts, "--format", "dump_fts", "--sl", dump, "--sl2vl", sl2vl},
                                {}, sim.scratch(), 120);
  EXPECT_EQ(with.exit_code, 0) << with.out << with.err;
  EXPECT_NE(with.out.find("RESULT: PASS"), std::string::npos) << with.out;
  ProcResult without = run_process({kCli, "check", "-f", nd, "-l", fts, "--format", "dump_fts"}, {}, sim.scratch(), 120);
  EXPECT_NE(without.exit_code, 0) << "the LFTs on SL 0 alone were deadlock free: the SLs decide nothing\n" << without.out;
}

TEST(PathSlDump, PartitionedPairsCountedWithoutAnErrorPerPair) {
  REQUIRE_PLUGIN();
  SimFabric sim("path_sl_dump_pkey");
  sim.start_text(torus2d_net(3, 3, 1));
  const std::string dump = sim.scratch() + "/path_sl.txt", parts = sim.scratch() + "/partitions.conf";
  write_file(parts, "Default=0x7fff, ipoib : ALL=limited, SELF=full;\n");  // only the SM's port is a full member
  sim.start_opensm_daemon(plugin_config("lash", "path_sl_dump=" + dump, {"qos TRUE", "partition_config_file " + parts}));
  const std::string done = "ftroute: path SLs of engine lash written to";
  wait_for_log(sim, done);  // the regex below requires the line
  const std::string log = sim.opensm_log();
  ASSERT_EQ(sim.engine_used(), "lash") << log;
  // 9 CAs x (9 CA LIDs + 9 switch LIDs - their own) = 153 pairs; a CA shares a full-member key
  // only with the SM's port (port 0 of the switch OpenSM attaches to): 9 x 16 pairs without
  std::smatch m;
  ASSERT_TRUE(std::regex_search(log, m, std::regex(done + "[^\n]*: 153 pairs, SL 0\\.\\.[0-9]+, ([0-9]+) without path "
                                                          "parameters \\(([0-9]+) of them sharing no partition key\\)")))
      << log;
  const int missing = std::stoi(m[1].str());
  EXPECT_EQ(missing, 9 * 16) << log;
  EXPECT_EQ(std::stoi(m[2].str()), missing);
  EXPECT_EQ(log.find("ERR 1F1B"), std::string::npos) << "OpenSM's SA code was asked for partitioned pairs";
  EXPECT_EQ(log.find("ERR FT05"), std::string::npos) << log;
  EXPECT_NE(read_file(dump).find("# end: 153 pairs, " + std::to_string(missing) + " without path parameters"), std::string::npos);
  // the SA over the wire agrees: no path between two CAs
  Fabric f = fabric_from_ibnetdiscover(sim.ibnetdiscover());
  std::vector<Lid> cas;
  for (const EndPort& e : f.end_ports())
    if (!f.node(e.node).is_switch()) cas.push_back(e.base_lid);
  ASSERT_GE(cas.size(), 2u);
  EXPECT_EQ(sa_path_sl(sim, cas[0], cas[1]), -1);
}

TEST(PathSlDump, UnwritableFileIsOneErrorAndNoFile) {
  REQUIRE_PLUGIN();
  SimFabric sim("path_sl_dump_bad");
  sim.start_text(torus2d_net(3, 3, 1));
  const std::string dump = sim.scratch() + "/no-such-dir/path_sl.txt";
  sim.start_opensm_daemon(plugin_config("lash", "path_sl_dump=" + dump, {"qos TRUE"}));
  wait_for_log(sim, "ERR FT05");  // the regex below requires the line
  const std::string log = sim.opensm_log();
  EXPECT_EQ(sim.engine_used(), "lash") << log;
  EXPECT_TRUE(std::regex_search(log, std::regex("ERR FT05: ftroute: path-SL dump to '[^']*no-such-dir/path_sl.txt' failed")))
      << log;
  EXPECT_FALSE(std::filesystem::exists(sim.scratch() + "/no-such-dir")) << "created the directory";
  EXPECT_TRUE(sim.opensm_running()) << log;
}

TEST(PathSlDump, PairsWithoutPathParametersAreOneErrorNamingTheFirst) {
  REQUIRE_PLUGIN();
  SimFabric sim("path_sl_dump_vl15");
  // a host that set a hostile NodeDescription: quote, backslash, markup
  std::string net = torus2d_net(3, 3, 1);
  const std::string plain = "\"H0_0_0\"";
  for (size_t at = net.find(plain); at != std::string::npos; at = net.find(plain, at + 1))
    net.replace(at, plain.size(), "\"ev'il\\<b>H\"");
  sim.start_text(net);
  const std::string dump = sim.scratch() + "/path_sl.txt";
  // every SL of every CA port on VL15: the SA answers no CA-sourced pair ("All the SLs lead to VL15")
  sim.start_opensm_daemon(plugin_config("lash", "path_sl_dump=" + dump,
                                        {"qos TRUE", "qos_ca_sl2vl 15,15,15,15,15,15,15,15,15,15,15,15,15,15,15,15"}));
  wait_for_log(sim, "ERR FT05");  // the regex below requires the line
  const std::string log = sim.opensm_log();
  ASSERT_EQ(sim.engine_used(), "lash") << log;
  // 9 CAs x (9 CA LIDs + 9 switch LIDs - their own) = 153 pairs, none sharing no key
  const std::string q = "\"([^\"\\\\]|\\\\.)*\"";  // a quoted, escaped node description
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      log, m,
      std::regex("ERR FT05: ftroute: path SLs of engine lash written to '[^']*': 153 pairs, SL 0\\.\\.[0-9]+, 153 without "
                 "path parameters \\(0 of them sharing no partition key\\), 0 ports disagreeing [^;\n]*; first without "
                 "path parameters: (" + q + ") port 1 -> DLID ([0-9]+) \\((" + q + ") port [0-9]+\\)\n")))
      << log;
  // the first pair in the file's order: the CA of the lowest node GUID, to the lowest LID not its own
  Fabric f = fabric_from_ibnetdiscover(sim.ibnetdiscover());
  int first_ca = -1;
  for (int c : f.cas())
    if (first_ca < 0 || f.node(c).guid < f.node(first_ca).guid) first_ca = c;
  ASSERT_GE(first_ca, 0);
  Lid lowest = 0;
  for (const EndPort& e : f.end_ports())
    if (e.node != first_ca && (lowest == 0 || e.base_lid < lowest)) lowest = e.base_lid;
  EXPECT_EQ(m[3].str(), std::to_string(lowest)) << m[0];
  // the hostile description is in the log escaped, never raw
  EXPECT_NE(log.find("\"ev'il\\\\<b>H\""), std::string::npos) << log;
  EXPECT_EQ(log.find("\"ev'il\\<b>H\""), std::string::npos) << "raw backslash in the log";
  EXPECT_TRUE(sim.opensm_running()) << log;
}
