// The .net reader/writer and the shipped topologies against real ibsim 0.10:
//  * every shipped file loads in ibsim, and ibnetdiscover on the simulated fabric shows the same
//    nodes (by GUID, with our node id as NodeDescription), the same links and port GUIDs;
//  * files with non-default GUIDs written by write_net() are reproduced by ibsim;
//  * after OpenSM ran, ibnetdiscover output parses with OpenSM's LIDs.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "ftroute/error.hpp"
#include "ftroute/netfile.hpp"
#include "ftroute/topology.hpp"
#include "harness.hpp"

using namespace ftroute;
using namespace ftroute::itest;

namespace {

// want: our fabric; got: parsed ibnetdiscover output of the simulated fabric.
void expect_same_by_guid(const Fabric& want, const Fabric& got, const std::string& what, bool lids = false) {
  SCOPED_TRACE(what);
  ASSERT_EQ(got.size(), want.size());
  EXPECT_EQ(got.num_links(), want.num_links());
  for (int n = 0; n < want.size(); n++) {
    const Node& w = want.node(n);
    auto g = got.find_guid(w.guid);
    ASSERT_TRUE(g.has_value()) << "no node with GUID of \"" << w.id << "\"";
    const Node& d = got.node(*g);
    EXPECT_EQ(d.desc, w.desc) << w.id;
    EXPECT_EQ(d.type, w.type) << w.id;
    EXPECT_EQ(d.num_ports, w.num_ports) << w.id;
    if (lids && w.is_switch()) {
      EXPECT_EQ(d.port(0).base_lid, w.port(0).base_lid) << w.id;
    }
    for (int p = 1; p <= w.num_ports; p++) {
      const Port& wp = w.port(p);
      const Port& dp = d.port(p);
      ASSERT_EQ(dp.connected(), wp.connected()) << want.port_name(n, p);
      if (!wp.connected()) continue;
      EXPECT_EQ(got.node(dp.peer_node).guid, want.node(wp.peer_node).guid) << want.port_name(n, p);
      EXPECT_EQ(dp.peer_port, wp.peer_port) << want.port_name(n, p);
      if (!w.is_switch()) {
        EXPECT_EQ(dp.guid, wp.guid) << want.port_name(n, p);
        if (lids) {
          EXPECT_EQ(dp.base_lid, wp.base_lid) << want.port_name(n, p);
        }
      }
    }
  }
}

}  // namespace

// Every .net file under ibsim_topologies/nets (the generator table's and other generators' files).
TEST(NetfileIbsim, ShippedNetsLoadWithTheSameGuids) {
  if (auto m = missing_tools(); !m.empty()) GTEST_SKIP() << m;
  namespace fs = std::filesystem;
  const std::string dir = source_dir() + "/ibsim_topologies/nets/";
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".net") files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  for (const auto& n : topo::shipped_nets())
    EXPECT_TRUE(std::find(files.begin(), files.end(), n.file) != files.end()) << n.file;
  for (const auto& file : files) {
    SimFabric sim("netfile_" + file.substr(0, file.find('.')));
    sim.start(dir + file);
    Fabric want = read_net_file(dir + file);
    Fabric got = parse_net(sim.ibnetdiscover(), "ibnetdiscover(" + file + ")");
    expect_same_by_guid(want, got, file);
    sim.stop();
  }
}

TEST(NetfileIbsim, ExampleNetsAndRoutersHaveIbsimsGuids) {
  if (auto m = missing_tools(); !m.empty()) GTEST_SKIP() << m;
  std::vector<std::string> files = {source_dir() + "/tests/data/net/routers.net"};
  for (const char* e : {"net", "net.1", "net.2sw2path4hca", "net.2sw2path4hca2port"})
    files.push_back(std::string("/usr/share/doc/ibsim-utils/net-examples/") + e);
  int i = 0;
  for (const auto& file : files) {
    SimFabric sim("netfile_example" + std::to_string(i++));
    sim.start(file);
    Fabric want = read_net_file(file);
    Fabric got = parse_net(sim.ibnetdiscover(), "ibnetdiscover(" + file + ")");
    expect_same_by_guid(want, got, file);
  }
}

TEST(NetfileIbsim, WriterGuidDirectivesAreReproduced) {
  if (auto m = missing_tools(); !m.empty()) GTEST_SKIP() << m;
  // a faulty tree (holes in the GUID sequence) plus hand-set GUIDs
  Fabric f = topo::kary_ntree(2, 3);
  topo::FaultSpec s;
  s.random_switches = 1;
  s.random_links = 2;
  s.seed = 4;
  s.keep_connected = true;
  topo::inject_faults(f, s);
  f.node(0).guid = 0x0002c90200001234;  // a switch GUID out of sequence
  for (auto& p : f.node(0).ports) p.guid = f.node(0).guid;
  int h = f.cas().back();
  f.node(h).guid = 0x0002c90300005670;
  f.node(h).port(1).guid = 0x0002c90300005671;
  f.node(h).desc = "last host";
  SimFabric sim("netfile_writer");
  sim.start_text(write_net(f));
  Fabric got = parse_net(sim.ibnetdiscover(), "ibnetdiscover");
  expect_same_by_guid(f, got, "writer");
}

TEST(NetfileIbsim, IbnetdiscoverCarriesOpensmLids) {
  if (auto m = missing_tools(); !m.empty()) GTEST_SKIP() << m;
  SimFabric sim("netfile_lids");
  sim.start(source_dir() + "/ibsim_topologies/nets/4ary3tree.net");
  OpensmRun run = sim.run_opensm_once({});
  ASSERT_TRUE(run.subnet_up) << run.log;
  Fabric got = parse_net(sim.ibnetdiscover(), "ibnetdiscover");
  EXPECT_NO_THROW(got.validate());
  auto eps = got.end_ports();
  EXPECT_EQ(eps.size(), 48u + 64u);  // every switch and host has a LID
  std::set<Lid> lids;
  for (const auto& e : eps) lids.insert(e.base_lid);
  EXPECT_EQ(lids.size(), eps.size());
  // the LIDs stated in the file survive a write/read round trip
  Fabric again = parse_net(write_net(got), "again");
  EXPECT_EQ(fabric_diff(got, again), "");
  // and ibsim loads the written LIDs into its ports: a fresh simulator (no SM) reports them
  sim.stop();
  SimFabric sim2("netfile_lids2");
  sim2.start_text(write_net(got));
  Fabric back = parse_net(sim2.ibnetdiscover(), "ibnetdiscover(written)");
  expect_same_by_guid(got, back, "LIDs written", true);
}

TEST(NetfileIbsim, IbsimRejectsOneSidedLinks) {
  // documents why write_net() lists every link on both ends (the reader accepts one-sided ones)
  if (auto m = missing_tools(); !m.empty()) GTEST_SKIP() << m;
  const std::string text = "Switch 8 \"S1\"\n[1] \"H1\"[1]\n[2] \"S2\"[2]\n\nSwitch 8 \"S2\"\n\nHca 1 \"H1\"\n[1] \"S1\"[1]\n";
  EXPECT_EQ(parse_net(text, "onesided").num_links(), 2);
  SimFabric sim("netfile_onesided");
  EXPECT_THROW(sim.start_text(text, 10), HarnessError);
}
