// `ftroute export --to ibsim` against real ibsim 0.10 + OpenSM 3.3.23 (issue 27): an ibnetdiscover
// dump of a director fabric whose chassis ASICs all report the chassis GUID as their node GUID
// (which ibsim refuses), with a SHARP aggregation node on every switch, 4xHDR links and OpenSM's
// LIDs (tests/data/net/ibnetdiscover_director.net), is exported; ibsim loads the export, OpenSM
// brings the subnet up, and ibnetdiscover through libumad2sim shows every node of the dump with
// its description, links, LIDs, width and speed. The same dump with a shell prompt pasted above
// it is a file:line error and leaves no output file. The generated replica of the HDR director
// cluster (`ctree:preset=hdr-mcs8500`: two MCS8500 chassis of 60 ASICs sharing their chassis GUID,
// aggregation nodes) goes the same way: gen, export, ibsim, OpenSM, every LID.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "ftroute/cluster_tree.hpp"
#include "ftroute/error.hpp"
#include "ftroute/netfile.hpp"
#include "harness.hpp"

using namespace ftroute;
using namespace ftroute::itest;

namespace {

const std::string kAggregationNode = "Mellanox Technologies Aggregation Node";


}  // namespace

TEST(ExportIbsim, DirectorDumpWithSharedGuidsLoadsAndComesUpWithEveryLid) {
  if (auto m = missing_tools(); !m.empty()) GTEST_SKIP() << m;
  const std::string dump_path = source_dir() + "/tests/data/net/ibnetdiscover_director.net";
  const std::string dir = fresh_scratch_dir("export_ibsim_files");
  const std::string cli = binary_dir() + "/cli/ftroute";
  std::vector<std::string> warnings;
  NetReadOptions ro;
  ro.warnings = &warnings;
  const Fabric dump = read_net_file(dump_path, ro);
  ASSERT_EQ(warnings.size(), 1u);  // 12 chassis ASICs report 2 chassis GUIDs
  int shared = 0, ans = 0;
  for (const Node& n : dump.nodes()) {
    shared += n.reported_guid != 0;
    ans += n.desc == kAggregationNode;
  }
  ASSERT_EQ(shared, 12);
  ASSERT_EQ(ans, static_cast<int>(dump.switches().size()));

  // ibsim refuses the dump itself: the chassis GUID twice
  {
    SimFabric raw("export_ibsim_raw");
    EXPECT_THROW(raw.start(dump_path, 10), HarnessError);
  }

  const std::string out = dir + "/fabric.net";
  ProcResult ex = run_process({cli, "export", dump_path, "--to", "ibsim", "-o", out}, {}, dir, 60);
  ASSERT_TRUE(ex.ok()) << ex.err;
  EXPECT_NE(ex.err.find("ftroute export: warning: " + dump_path + ":"), std::string::npos) << ex.err;
  EXPECT_NE(ex.err.find("changed for ibsim: 12 switches with a shared node GUID"), std::string::npos) << ex.err;

  SimFabric sim("export_ibsim");
  sim.start(out);
  OpensmRun run = sim.run_opensm_once({});
  ASSERT_TRUE(run.subnet_up) << run.log;
  const Fabric got = parse_net(sim.ibnetdiscover(), "ibnetdiscover(export)");
  ASSERT_EQ(got.size(), dump.size());
  EXPECT_EQ(got.num_links(), dump.num_links());
  EXPECT_EQ(got.switches().size(), dump.switches().size());
  for (int n = 0; n < dump.size(); n++) {
    const Node& w = dump.node(n);
    SCOPED_TRACE(w.id + " \"" + w.desc + "\"");
    auto g = got.find_guid(w.guid);  // the chassis ASICs by their own (port) GUIDs
    ASSERT_TRUE(g.has_value());
    const Node& d = got.node(*g);
    EXPECT_EQ(d.reported_guid, 0u);
    EXPECT_EQ(d.desc, w.desc);
    EXPECT_EQ(d.type, w.type);
    ASSERT_EQ(d.num_ports, w.num_ports);
    if (w.is_switch()) {
      EXPECT_EQ(d.port(0).base_lid, w.port(0).base_lid);  // OpenSM kept the dump's LIDs
      EXPECT_NE(d.port(0).base_lid, 0);
    }
    for (int p = 1; p <= w.num_ports; p++) {
      const Port& wp = w.port(p);
      const Port& dp = d.port(p);
      ASSERT_EQ(dp.connected(), wp.connected()) << "port " << p;
      if (!wp.connected()) continue;
      EXPECT_EQ(got.node(dp.peer_node).guid, dump.node(wp.peer_node).guid) << "port " << p;
      EXPECT_EQ(dp.peer_port, wp.peer_port) << "port " << p;
      EXPECT_EQ(dp.width, wp.width) << "port " << p;
      EXPECT_EQ(dp.speed_ext, 7) << "port " << p;  // 4xHDR, as in the dump
      if (!w.is_switch()) {
        EXPECT_EQ(dp.base_lid, wp.base_lid) << "port " << p;
        EXPECT_NE(dp.base_lid, 0) << "port " << p;
      }
    }
  }
  EXPECT_EQ(got.max_lid(), dump.max_lid());
  sim.stop();

  // a shell prompt pasted above the dump: file:line, nothing written
  const std::string prompted = dir + "/prompted.txt";
  write_file(prompted, "[admin@mgmt01 ~]$ ibnetdiscover > fabric.txt\n" + read_file(dump_path));
  const std::string none = dir + "/none.net";
  ProcResult bad = run_process({cli, "export", prompted, "--to", "ibsim", "-o", none}, {}, dir, 60);
  EXPECT_EQ(bad.exit_code, 1) << bad.err;
  EXPECT_EQ(bad.err.rfind("ftroute export: " + prompted + ":1: ", 0), 0u) << bad.err;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    EXPECT_EQ(e.path().filename().string().rfind("none.net", 0), std::string::npos) << e.path();
}

TEST(ExportIbsim, HdrDirectorPresetLoadsAndComesUp) {
  if (auto m = missing_tools(); !m.empty()) GTEST_SKIP() << m;
  const std::string dir = fresh_scratch_dir("export_ibsim_preset_files");
  const std::string cli = binary_dir() + "/cli/ftroute";
  ProcResult gen = run_process({cli, "gen", "ctree:preset=hdr-mcs8500", "-o", dir + "/mcs.net"}, {}, dir, 60);
  ASSERT_TRUE(gen.ok()) << gen.err;
  {
    SimFabric raw("export_ibsim_preset_raw");  // written as ibnetdiscover shows it: ibsim refuses
    EXPECT_THROW(raw.start(dir + "/mcs.net", 20), HarnessError);
  }
  ProcResult ex = run_process({cli, "export", dir + "/mcs.net", "--to", "ibsim", "-o", dir + "/mcs-ibsim.net"}, {}, dir, 60);
  ASSERT_TRUE(ex.ok()) << ex.err;
  const Fabric want = read_net_file(dir + "/mcs-ibsim.net");
  ASSERT_EQ(want.switches().size(), 192u);
  SimFabric sim("export_ibsim_preset");
  sim.start(dir + "/mcs-ibsim.net", 60);
  OpensmRun run = sim.run_opensm_once({.timeout_s = 150});
  ASSERT_TRUE(run.subnet_up) << run.log.substr(run.log.size() > 3000 ? run.log.size() - 3000 : 0);
  const Fabric got = parse_net(sim.ibnetdiscover(120), "ibnetdiscover(mcs)");
  EXPECT_EQ(got.size(), want.size());
  EXPECT_EQ(got.num_links(), want.num_links());
  std::set<Lid> lids;
  int ans = 0;
  for (const EndPort& e : got.end_ports()) lids.insert(e.base_lid);
  for (const Node& n : got.nodes()) ans += n.desc == kAggregationNode;
  EXPECT_EQ(lids.size(), 192u + 1182u);  // every switch and CA port has its own LID
  EXPECT_EQ(ans, 192);
  for (const Node& n : want.nodes()) {
    auto g = got.find_guid(n.guid);
    ASSERT_TRUE(g.has_value()) << n.id;
    EXPECT_EQ(got.node(*g).desc, n.desc);
  }
}
