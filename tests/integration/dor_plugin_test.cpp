// ft-dor inside a real OpenSM 3.3.23 (libftroute.so) on an ibsim 4x4 torus, 1 HCA per switch
// (E-cube with one virtual layer per path, routing_engines/engines/dor/dor.hpp, docs/dqr.md):
//  * OpenSM uses ft-dor (no fallback, no ERR FT line): the 4 layers fit, ibsim ports advertise
//    VLCap VL0-7 (8 data VLs; the plugin refuses a routing whose VLs exceed a port's VLCap);
//  * the LFTs read back from the simulated switches equal ft-dor's offline routing of the
//    discovered fabric, every pair is delivered, no loop, no entry on a missing port; read as a
//    single-VL routing they have a dependency cycle around a ring (the layers are needed);
//  * with `qos TRUE` OpenSM's SA hands out the engine's SL for every HCA pair (PathRecord, asked
//    through path_sl), all 4 layers occur, and the live LFTs with exactly those SLs are deadlock
//    free per VL (ftroute::validate, CDG over (channel, VL)); the switches' SL2VL tables map
//    SL s to VL s (identity); the plugin's path-SL dump (path_sl_dump) holds the same SL as the SA
//    for every pair.
#include <gtest/gtest.h>

#include <map>
#include <utility>

#include "dor/dor.hpp"
#include "fabric_check.hpp"
#include "ftroute/ibdmchk_io.hpp"
#include "ftroute/validate.hpp"
#include "harness.hpp"
#include "nets.hpp"
#include "plugin_itest.hpp"

using namespace ftroute;
using namespace ftroute::itest;

TEST(DorPlugin, TorusRoutedWithEcubeLayersAndSaSls) {
  REQUIRE_PLUGIN();
  SimFabric sim("dor_torus4x4");
  sim.start_text(torus2d_net(4, 4, 1));
  // with the plugin's path-SL dump (plugin/osm_pathsl.cpp): E-cube's SLs differ between a -> b
  // and b -> a for many pairs, so a dump that asked for the reverse path would show here
  const std::string dump = sim.scratch() + "/path_sl.txt";
  sim.start_opensm_daemon(plugin_config("ft-dor", "path_sl_dump=" + dump, {"qos TRUE"}));
  const std::string log = sim.opensm_log();
  ASSERT_EQ(sim.engine_used(), "ft-dor") << "fell back; log in " << sim.opensm_dir() << "\n" << log;
  EXPECT_EQ(log.find("ERR FT"), std::string::npos) << log;
  EXPECT_NE(log.find("4x4 torus"), std::string::npos) << log;
  EXPECT_EQ(logged_vls(log, "ft-dor"), 4) << log;

  Fabric f = fabric_from_ibnetdiscover(sim.ibnetdiscover());
  Lfts live = lfts_from_dump_fts(f, sim.dump_fts());
  ASSERT_EQ(f.switches().size(), 16u);
  RoutingCheck chk = check_routing(f, live);
  EXPECT_TRUE(chk.all_delivered()) << chk.summary();
  EXPECT_EQ(chk.looping, 0u) << chk.summary();
  EXPECT_EQ(chk.bad_entries, 0u) << chk.summary();
  EXPECT_FALSE(chk.cdg_acyclic) << "on one VL the E-cube tables should have a ring cycle: " << chk.summary();

  Routing off = DorEngine().route(f);
  EXPECT_EQ(off.num_vls, 4);
  std::string first;
  EXPECT_EQ(lft_differences(f, live, off.lfts, &first), 0) << first;

  // SLs from OpenSM's SA for every HCA pair
  std::map<std::pair<Lid, Lid>, int> sa;
  int per_sl[4] = {0, 0, 0, 0};
  for (const EndPort& a : f.end_ports())
    for (const EndPort& b : f.end_ports()) {
      if (f.node(a.node).is_switch() || f.node(b.node).is_switch() || a.node == b.node) continue;
      const int sl = sa_path_sl(sim, a.base_lid, b.base_lid);
      EXPECT_EQ(sl, off.sl(a.base_lid, b.base_lid)) << "SA PathRecord SL for LID " << a.base_lid << " -> " << b.base_lid;
      ASSERT_GE(sl, 0) << "saquery failed";
      ASSERT_LT(sl, 4);
      sa[{a.base_lid, b.base_lid}] = sl;
      per_sl[sl]++;
    }
  EXPECT_EQ(sa.size(), 16u * 15u);
  // the dump holds what the SA answered, pair for pair (written right after SUBNET UP: long done
  // after 240 saquery runs, but wait for its log line all the same)
  ASSERT_TRUE(wait_for_log(sim, "ftroute: path SLs of engine")) << sim.opensm_log();
  const auto dumped = read_path_sl(dump, f);
  int asymmetric = 0;
  for (const auto& [p, sl] : sa) {
    EXPECT_EQ(dumped(p.first, p.second), sl) << "path-SL dump for LID " << p.first << " -> " << p.second;
    asymmetric += sa.at({p.second, p.first}) != sl;
  }
  EXPECT_GT(asymmetric, 0) << "every pair has the SL of its reverse: the dump's direction goes untested";
  for (int sl = 0; sl < 4; sl++) EXPECT_GT(per_sl[sl], 0) << "no HCA pair on SL " << sl;

  // the live tables with the SA's SLs: deadlock free per VL (identity SL2VL, checked below)
  const ValidationReport rep = expect_live_with_sa_sls_valid(f, live, sa, 4, 16u * 15u);
  EXPECT_EQ(rep.vls_used, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(rep.cdg_vl_changes, 0u);
  for (int s : {f.switches().front(), f.switches().back()}) expect_identity_sl2vl(sim, f, s, 4, "ft-dor torus");
}
