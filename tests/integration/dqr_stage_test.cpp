// DQR's staged transition inside OpenSM (issue 32, docs/PLUGIN.md "Staged DQR transition"):
// after a link fault the plugin sends DQR's changes stage by stage, waits for the switches to
// acknowledge each stage and for the drain time, and writes the tables as acknowledged after each
// stage (dqr:stage_dump=DIR, DIR/stage-K.dump). On a mesh (base ft-dor) and a fat tree (base
// ftree-misroute) under ibsim, for every stage dump:
//  * no forwarding loop;
//  * the CDG with switch-to-switch paths (switch_sources) has no cycle;
//  * what is unreachable is only what still points at the dead link;
//  * every entry goes from its value before the fault to its final value once (no third value);
//  * stage 0 = the tables read back before the fault, the last stage = the tables read back after;
//  * the switches' tables read back with dump_fts during stage 1's drain = stage-1.dump.
// Failures during a transition: a new trap (second Unlink) mid-transition -> the stages already
// checked are finished and the next sweep patches the new fault; the SM's own link cut
// mid-transition (no switch answers) -> the transition stops in the checked state and the next
// sweep routes from scratch. An unwritable stage_dump gives one log line and the repair goes on.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <set>
#include <string>
#include <thread>

#include "fabric_check.hpp"
#include "ftroute/cdg.hpp"
#include "ftroute/lft_io.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/route_walk.hpp"
#include "harness.hpp"
#include "plugin_itest.hpp"

using namespace ftroute;
using namespace ftroute::itest;

namespace {

struct DeadEnd {
  uint64_t guid;
  int port;
};

// The properties every stage must have, on the fabric after the fault.
void check_stage(const Fabric& f, const Lfts& lfts, const std::vector<DeadEnd>& dead, const std::string& ctx,
                 uint64_t* unreachable) {
  std::set<std::pair<int, int>> dead_ports;
  for (const DeadEnd& d : dead) {
    auto n = f.find_guid(d.guid);
    ASSERT_TRUE(n.has_value()) << ctx;
    dead_ports.insert({*n, d.port});
  }
  uint64_t drops = 0;
  for (const EndPort& e : f.end_ports())
    for (uint32_t lid = e.base_lid; lid <= e.last_lid(); lid++)
      for (int s : f.switches()) {
        int cur = s;
        for (int hops = 0;; hops++) {
          ASSERT_LE(hops, f.size()) << ctx << ": LID " << lid << " loops from " << f.node_name(s);
          const RouteHop h = follow(f, lfts, cur, static_cast<Lid>(lid), e.node, e.port);
          if (h.kind == RouteHop::Delivered) break;
          if (h.kind == RouteHop::Dropped) {
            ASSERT_TRUE(h.drop == DropKind::DownPort && dead_ports.count({cur, h.port}))
                << ctx << ": LID " << lid << " from " << f.node_name(s) << " dropped at " << f.port_name(cur, h.port)
                << ", which is not the dead link";
            drops++;
            break;
          }
          cur = h.next;
        }
      }
  Routing r;
  r.lfts = lfts;
  CdgBuildOptions co;
  co.switch_sources = true;
  co.collect_loads = false;
  CdgBuild b = build_cdg(f, r, co);
  EXPECT_EQ(b.stats.looping, 0u) << ctx;
  auto cyc = b.cdg.find_cycle();
  EXPECT_FALSE(cyc.has_value()) << ctx << ": CDG cycle " << (cyc ? b.cdg.format_cycle(*cyc) : "");
  *unreachable = drops;
}

struct StagedRun {
  LiveRouting before, after;
  std::string mid_fts;  // dump_fts during stage 1's drain ("" if there was none)
  std::string log;      // the log from the fault on
  int stages = 0;
};

// Runs OpenSM with dqr on `net`, cuts node[port], and checks every stage dump.
StagedRun staged_fault(const std::string& test, const std::string& net, const std::string& node, int port,
                       const std::string& options) {
  StagedRun out;
  SimFabric sim(test);
  sim.start(net);
  const std::string dumps = sim.scratch() + "/stages";
  std::filesystem::create_directories(dumps);
  sim.start_opensm_daemon(plugin_config("dqr", "dqr:stage_dump=" + dumps + "," + options));
  EXPECT_EQ(sim.engine_used(), "dqr") << sim.opensm_log();
  out.before = read_live(sim);
  EXPECT_TRUE(out.before.check.ok()) << out.before.check.summary();
  const auto n = find_node(out.before.fabric, node);
  EXPECT_TRUE(n.has_value());
  if (!n) return out;
  const Port& pp = out.before.fabric.node(*n).port(port);
  const std::vector<DeadEnd> dead = {{out.before.fabric.node(*n).guid, port},
                                     {out.before.fabric.node(pp.peer_node).guid, pp.peer_port}};
  const size_t log0 = sim.opensm_log().size();
  sim.unlink(node, port);
  if (wait_for_log(sim, "transition stage 1/", log0, 30)) {
    const std::string log = sim.opensm_log();
    const size_t at = log.find("transition stage 1/", log0);
    const bool more = log.find("transition stage 1/1 ", log0) == std::string::npos;
    if (more && log.find("transition stage 2/", at) == std::string::npos) out.mid_fts = sim.dump_fts();
    // the read must have happened before stage 2 went out
    if (sim.opensm_log().find("transition stage 2/", at) != std::string::npos) out.mid_fts.clear();
  }
  EXPECT_TRUE(sim.wait_for_reroute()) << sim.opensm_log();
  out.log = sim.opensm_log().substr(log0);
  out.after = read_live(sim);
  EXPECT_TRUE(out.after.check.ok()) << out.after.check.summary();
  EXPECT_EQ(out.log.find("ERR FT01"), std::string::npos) << out.log;
  EXPECT_NE(out.log.find("patched the previous routing"), std::string::npos) << out.log;
  const size_t done = out.log.find("transition done: ");
  EXPECT_NE(done, std::string::npos) << out.log;
  if (done == std::string::npos) return out;
  out.stages = std::stoi(out.log.substr(done + 17));
  EXPECT_NE(out.log.find("; 0 changed blocks left for OpenSM's own push", done), std::string::npos) << out.log;

  const Fabric& f = out.after.fabric;
  std::vector<Lfts> st;
  for (int k = 0; k <= out.stages; k++) {
    const std::string path = dumps + "/stage-" + std::to_string(k) + ".dump";
    EXPECT_TRUE(std::filesystem::exists(path)) << path;
    if (!std::filesystem::exists(path)) return out;
    st.push_back(map_lfts(parse_lft(read_file(path), path, LftFormat::Opensm), f).lfts);
    uint64_t unreachable = 0;
    check_stage(f, st.back(), dead, path, &unreachable);
    if (k == out.stages) {
      EXPECT_EQ(unreachable, 0u) << path;
    }
    if (k == 0) {
      EXPECT_GT(unreachable, 0u) << path << ": the dead link carried nothing";
    }
  }
  EXPECT_FALSE(std::filesystem::exists(dumps + "/stage-" + std::to_string(out.stages + 1) + ".dump"));
  std::string first;
  EXPECT_EQ(lft_differences(f, st.front(), out.before.fabric, out.before.lfts, &first), 0) << "stage 0: " << first;
  EXPECT_EQ(lft_differences(f, st.back(), out.after.lfts, &first), 0) << "last stage: " << first;
  if (!out.mid_fts.empty()) {
    EXPECT_EQ(lft_differences(f, lfts_from_dump_fts(f, out.mid_fts), st[1], &first), 0)
        << "dump_fts during stage 1's drain vs stage-1.dump: " << first;
  }
  // every entry changes once, from its old value to its final one
  for (int s : f.switches())
    for (const EndPort& e : f.end_ports())
      for (uint32_t lid = e.base_lid; lid <= e.last_lid(); lid++) {
        const uint8_t a = st.front().get(s, static_cast<Lid>(lid)), z = st.back().get(s, static_cast<Lid>(lid));
        bool switched = false;
        for (const Lfts& l : st) {
          const uint8_t v = l.get(s, static_cast<Lid>(lid));
          if (!(v == (switched ? z : a) || (!switched && v == z))) {
            ADD_FAILURE() << f.node_name(s) << " LID " << lid << ": " << int(v) << " is neither old " << int(a)
                          << " nor final " << int(z) << " or went back";
            return out;
          }
          switched = switched || v == z;
        }
      }
  EXPECT_TRUE(sim.opensm_running());
  return out;
}

}  // namespace

// One stage per hop count (stages=hops): this fault packs into a single stage, which would leave
// nothing between two stages to look at.
TEST(DqrStage, MeshFaultAppliedStageByStage) {
  REQUIRE_PLUGIN();
  const StagedRun r = staged_fault("dqr_stage_mesh", source_dir() + "/ibsim_topologies/nets/mesh4x4.net", "S1_1", 2,
                                   "drain_ms=600,switch_sources=true,stages=hops");
  EXPECT_GE(r.stages, 2) << r.log;
  EXPECT_FALSE(r.mid_fts.empty()) << "no dump_fts during stage 1's drain:\n" << r.log;
  EXPECT_NE(r.log.find("patched the previous routing (dqr(ft-dor))"), std::string::npos) << r.log;
  std::printf("mesh: %d stages\n", r.stages);
}

// Packed stages (the default).
TEST(DqrStage, FatTreeFaultAppliedStageByStage) {
  REQUIRE_PLUGIN();
  const StagedRun r = staged_fault("dqr_stage_tree", source_dir() + "/ibsim_topologies/nets/4ary3tree.net", "S1_00", 2,
                                   "drain_ms=600,switch_sources=true");
  EXPECT_GE(r.stages, 2) << r.log;
  EXPECT_FALSE(r.mid_fts.empty()) << "no dump_fts during stage 1's drain:\n" << r.log;
  EXPECT_NE(r.log.find("patched the previous routing (dqr(ftree-misroute))"), std::string::npos) << r.log;
  std::printf("fat tree: %d stages\n", r.stages);
}

// A second link fails while the first fault's stages are going out: the plugin finishes the
// stages already checked (a lost link adds no dependency), says so, and the next sweep patches
// the second fault, staged as well. stage_dump names a file, not a directory: one log line, the
// repair goes on without dumps.
TEST(DqrStage, NewTrapMidTransitionFinishesTheCheckedStages) {
  REQUIRE_PLUGIN();
  SimFabric sim("dqr_stage_trap");
  sim.start(source_dir() + "/ibsim_topologies/nets/mesh4x4.net");
  const std::string not_dir = sim.scratch() + "/not-a-dir";
  write_file(not_dir, "x\n");
  sim.start_opensm_daemon(plugin_config("dqr", "dqr:drain_ms=700,stages=hops,stage_dump=" + not_dir));
  ASSERT_EQ(sim.engine_used(), "dqr") << sim.opensm_log();
  const size_t log0 = sim.opensm_log().size();
  sim.unlink("S1_1", 2);
  ASSERT_TRUE(wait_for_log(sim, "transition stage 1/", log0, 30)) << sim.opensm_log();
  sim.unlink("S2_3", 2);  // a second fault while stage 1 drains
  ASSERT_TRUE(wait_for_log(sim, "transition done", log0, 30)) << sim.opensm_log();
  ASSERT_TRUE(sim.wait_for_reroute()) << sim.opensm_log();
  // the second fault's transition (the trap's sweep) may still be draining: wait for its end
  const std::string l1 = sim.opensm_log();
  ASSERT_TRUE(wait_for_log(sim, "transition done", l1.find("transition done", log0) + 10, 30)) << sim.opensm_log();
  ASSERT_TRUE(sim.wait_for_reroute(30)) << sim.opensm_log();
  const std::string log = sim.opensm_log().substr(log0);
  EXPECT_NE(log.find("new trap during stage 1 of"), std::string::npos) << log;
  EXPECT_NE(log.find("finishing the"), std::string::npos) << log;
  EXPECT_NE(log.find("a new trap came during the transition"), std::string::npos) << log;
  EXPECT_EQ(count_occurrences(log, "cannot be written (not a directory): the transition goes on without stage dumps"),
            count_occurrences(log, "between stages (drain_ms=700)")) << log;
  EXPECT_GE(count_occurrences(log, "patched the previous routing"), 2) << log;
  EXPECT_EQ(log.find("ERR FT01"), std::string::npos) << log;
  EXPECT_EQ(log.find("transition stopped"), std::string::npos) << log;
  const LiveRouting l = read_live(sim);
  EXPECT_TRUE(l.check.ok()) << l.check.summary();
  for (auto [node, port] : {std::pair<std::string, int>{"S1_1", 2}, {"S2_3", 2}}) {
    const auto n = find_node(l.fabric, node);
    ASSERT_TRUE(n.has_value());
    EXPECT_EQ(entries_using_port(l.lfts, *n, port), 0) << node;
  }
  EXPECT_TRUE(sim.opensm_running());
}

// OpenSM's own link is cut while the stages go out: no switch answers the next stage. The
// transition stops (no later stage is sent), OpenSM keeps running, and once the link is back the
// next sweep routes from scratch with the base engine: every pair delivered, CDG acyclic.
TEST(DqrStage, UnansweredStageStopsAndFallsBackToAFullReroute) {
  REQUIRE_PLUGIN();
  SimFabric sim("dqr_stage_timeout");
  sim.start(source_dir() + "/ibsim_topologies/nets/4ary3tree.net");
  OpensmConfig cfg = plugin_config("dqr", "dqr:drain_ms=1500,ack_timeout_ms=3000");
  cfg.sim_host = "H000";  // OpenSM on a host port, so its link can be cut
  cfg.sweep_interval = 1;
  sim.start_opensm_daemon(cfg);
  ASSERT_EQ(sim.engine_used(), "dqr") << sim.opensm_log();
  const size_t log0 = sim.opensm_log().size();
  sim.unlink("S1_00", 2);
  ASSERT_TRUE(wait_for_log(sim, "transition stage 1/", log0, 30)) << sim.opensm_log();
  ASSERT_EQ(sim.opensm_log().find("transition stage 1/1 ", log0), std::string::npos) << "one stage only";
  sim.console("Unlink \"H000\"[1]");
  ASSERT_TRUE(wait_for_log(sim, "transition stopped at stage", log0, 30)) << sim.opensm_log();
  const size_t stop = sim.opensm_log().find("transition stopped at stage", log0);
  sim.relink("H000", 1);
  ASSERT_TRUE(wait_for_log(sim, "no previous routing; full routing with base engine 'ftree-misroute'", stop, 60))
      << sim.opensm_log().substr(stop);
  ASSERT_TRUE(sim.wait_for_reroute(60)) << sim.opensm_log().substr(stop);
  const std::string log = sim.opensm_log().substr(log0);
  EXPECT_NE(log.find("did not acknowledge LFT block"), std::string::npos) << log;
  EXPECT_NE(log.find("falling back to the full re-route path"), std::string::npos) << log;
  EXPECT_EQ(log.find("transition done"), std::string::npos) << "stages went on after the stop:\n" << log;
  EXPECT_TRUE(sim.opensm_running());
  const LiveRouting l = read_live(sim);
  EXPECT_TRUE(l.check.ok()) << l.check.summary();
  const auto n = find_node(l.fabric, "S1_00");
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(entries_using_port(l.lfts, *n, 2), 0);
}
