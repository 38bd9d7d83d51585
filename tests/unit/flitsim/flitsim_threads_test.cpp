// flitsim with Config::threads > 1 (docs/flitsim.md "Threads"): the same seed and thread count
// give the same result; the sources' packet streams do not depend on the thread count (so the
// packets generated in the measurement window, and, when everything drains, the packets
// delivered, are the same as with one thread); every packet is delivered or dropped exactly once;
// what a threaded run cannot do (faults during the run, NAC, FT-DRB sources) is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "ftroute/flitsim.hpp"
#include "ftroute/flitsim_testnets.hpp"
#include "test_scale.hpp"

using namespace ftroute;
using namespace ftroute::flitsim;

namespace {

struct SimRun {
  Result res;
  std::string text;  // every field of the result and every hook call, in order
};

// Runs with `threads`, checks conservation (each id delivered or dropped once, counts match),
// and returns the result with a full textual fingerprint for comparisons.
SimRun run_checked(const Fabric& f, const Routing& r, Config c, const TrafficSpec& t, int threads,
                   const Routing* reroute = nullptr, int64_t reroute_at = 0) {
  c.threads = threads;
  Simulator sim(f, r, c);
  if (reroute) sim.schedule_routing(reroute_at, reroute);
  std::set<uint64_t> delivered, dropped;
  std::ostringstream hooks;
  bool dup = false;
  sim.on_deliver = [&](uint64_t id, int s, int d, int64_t lat) {
    dup |= !delivered.insert(id).second;
    hooks << "D" << id << ":" << s << ">" << d << "@" << lat << "/" << sim.cycle() << "\n";
  };
  sim.on_drop = [&](uint64_t id, const std::string& why) {
    dup |= !dropped.insert(id).second;
    hooks << "X" << id << ":" << why << "\n";
  };
  SimRun out;
  out.res = sim.run(t);
  const Result& res = out.res;
  EXPECT_FALSE(dup) << "a packet id was reported twice (threads " << threads << ")";
  for (uint64_t id : delivered) EXPECT_EQ(dropped.count(id), 0u) << "packet " << id << " delivered and dropped";
  EXPECT_EQ(delivered.size(), res.delivered);
  EXPECT_EQ(dropped.size(), res.dropped);
  EXPECT_EQ(res.generated, res.delivered + res.dropped + res.in_network + res.in_source);
  EXPECT_GE(res.min_credits, 0);
  if (res.flushed) {
    EXPECT_EQ(res.in_network, 0u);
    EXPECT_EQ(res.in_source, 0u);
    EXPECT_EQ(delivered.size() + dropped.size(), res.generated);
  }
  std::ostringstream o;
  o.precision(17);
  o << format_result(res) << "\n"
    << res.cycles << " " << res.generated << " " << res.injected << " " << res.delivered << " " << res.dropped << " "
    << res.in_network << " " << res.in_source << " " << res.measured_packets << " " << res.measured_delivered << " "
    << res.offered << " " << res.accepted << " " << res.avg_latency << " " << res.p99_latency << " "
    << res.max_latency << " " << res.avg_network_latency << " " << res.avg_hops << " " << res.flits_moved << " "
    << res.min_credits << " " << res.drained << res.flushed << " " << res.deadlock.detected << "\n"
    << res.deadlock.text << "\n";
  for (const auto& [k, v] : res.drops) o << k << "=" << v << "\n";
  // per-endpoint consumption: one value per endpoint, and their mean is `accepted`
  EXPECT_EQ(res.accepted_per_endpoint.size(), static_cast<size_t>(res.endpoints));
  double sum = 0;
  for (double x : res.accepted_per_endpoint) o << x << " ", sum += x;
  o << "\n";
  if (res.endpoints > 0) {
    EXPECT_NEAR(sum / res.endpoints, res.accepted, 1e-9);
  }
  out.text = o.str() + hooks.str();
  return out;
}

TrafficSpec uniform(double load, int64_t measure) {
  TrafficSpec t;
  t.pattern = "uniform";
  t.load = load, t.warmup = 300, t.measure = measure;
  return t;
}

// What must hold between any thread counts: the sources draw the same packets.
void expect_same_sources(const Result& a, const Result& b) {
  EXPECT_EQ(a.measured_packets, b.measured_packets);
  EXPECT_DOUBLE_EQ(a.offered, b.offered);
  EXPECT_TRUE(a.drained && b.drained);
  EXPECT_EQ(a.measured_delivered, a.measured_packets);
  EXPECT_EQ(b.measured_delivered, b.measured_packets);
}

}  // namespace

TEST(FlitsimThreads, FatTreeIsDeterministicPerThreadCountAndMatchesOneThread) {
  Fabric f = make_kary_ntree(4, 3);  // 64 CAs, 48 switches
  Routing r = route_ntree(f, 4, 3);
  Config c;
  TrafficSpec t = uniform(0.5, 2000);
  const SimRun one = run_checked(f, r, c, t, 1);
  ASSERT_GT(one.res.delivered, 3000u);
  for (int T : {2, 3, 4}) {
    SCOPED_TRACE("threads " + std::to_string(T));
    const SimRun a = run_checked(f, r, c, t, T), b = run_checked(f, r, c, t, T);
    EXPECT_EQ(a.text, b.text);
    expect_same_sources(one.res, a.res);
    // The InfiniBand model with virtual cut-through takes no decision that depends on the order
    // of events within a cycle (allocators sort by port and round-robin pointer; connections are
    // independent), so the split changes nothing at all, down to the hook calls and packet ids
    // (ids differ: shard s numbers its packets s + 1, s + 1 + T, ...; compare everything else).
    EXPECT_EQ(one.res.delivered, a.res.delivered);
    EXPECT_EQ(format_result(one.res), format_result(a.res));
    EXPECT_EQ(one.res.accepted_per_endpoint, a.res.accepted_per_endpoint);  // each shard's sinks, merged
    EXPECT_EQ(one.res.avg_latency, a.res.avg_latency);
    EXPECT_EQ(one.res.flits_moved, a.res.flits_moved);
    EXPECT_EQ(one.res.cycles, a.res.cycles);
  }
}

TEST(FlitsimThreads, BookSimModelOnATorusIsDeterministicAndMatchesOneThread) {
  Fabric f = make_mesh(6, 6, true);
  Routing r = route_dor(f, 6, 6, true);
  Config c;
  c.set_model(RouterModel::BookSim);
  c.num_vcs = 4;
  TrafficSpec t = uniform(0.3, 2000);
  t.self_traffic = true;
  const SimRun one = run_checked(f, r, c, t, 1);
  ASSERT_GT(one.res.delivered, 1000u);
  for (int T : {2, 3, 4}) {
    SCOPED_TRACE("threads " + std::to_string(T));
    const SimRun a = run_checked(f, r, c, t, T), b = run_checked(f, r, c, t, T);
    EXPECT_EQ(a.text, b.text);
    expect_same_sources(one.res, a.res);
    // (switch allocation picks per output / input by round-robin key: order-free as well)
    EXPECT_EQ(format_result(one.res), format_result(a.res));
    EXPECT_EQ(one.res.flits_moved, a.res.flits_moved);
  }
}

TEST(FlitsimThreads, WormholeIsDeterministicAndStatisticallyConsistent) {
  // Wormhole in the ib model rotates port priority over the shard's list of connections, so
  // the thread count changes the run; it must stay deterministic, draw the same packets, deliver
  // all of them, and agree with one thread on the latency at a low load.
  Fabric f = make_mesh(6, 6, true);
  Routing r = route_dor(f, 6, 6, true);
  Config c;
  c.switching = Switching::Wormhole;
  c.num_vcs = 2;
  c.buffer_flits = 8;
  TrafficSpec t = uniform(0.15, 4000);
  const SimRun one = run_checked(f, r, c, t, 1);
  ASSERT_TRUE(one.res.flushed);
  for (int T : {2, 3, 4}) {
    SCOPED_TRACE("threads " + std::to_string(T));
    const SimRun a = run_checked(f, r, c, t, T), b = run_checked(f, r, c, t, T);
    EXPECT_EQ(a.text, b.text);
    expect_same_sources(one.res, a.res);
    EXPECT_TRUE(a.res.flushed);
    EXPECT_EQ(a.res.dropped, 0u);
    EXPECT_NEAR(a.res.avg_latency, one.res.avg_latency, 0.05 * one.res.avg_latency);
    EXPECT_NEAR(a.res.accepted, one.res.accepted, 0.02 * one.res.accepted);
  }
}

TEST(FlitsimThreads, TraceWithMixedPacketSizesDeliversEverything) {
  // A trace: each shard replays the records of the sources it owns; packets smaller than
  // packet_flits must still wake every shard's senders (the credit wake-up bound).
  Fabric f = make_kary_ntree(4, 2);  // 16 CAs, 8 switches
  Routing r = route_ntree(f, 4, 2);
  std::string trace;
  for (int i = 0; i < 400; i++)
    trace += std::to_string(i / 3) + " " + std::to_string(i % 16) + " " + std::to_string((i * 7 + 3) % 16) + " " +
             std::to_string(1 + (i * 5) % 16) + "\n";
  const std::string path = std::string(FTROUTE_BINARY_DIR) + "/flitsim_threads_test.trace";
  std::ofstream(path) << trace;
  Config c;
  TrafficSpec t;
  t.pattern = "trace";
  t.trace_file = path;
  const SimRun one = run_checked(f, r, c, t, 1);
  ASSERT_GT(one.res.delivered, 300u);
  for (int T : {2, 3, 4}) {
    SCOPED_TRACE("threads " + std::to_string(T));
    const SimRun a = run_checked(f, r, c, t, T), b = run_checked(f, r, c, t, T);
    EXPECT_EQ(a.text, b.text);
    EXPECT_EQ(a.res.generated, one.res.generated);
    EXPECT_EQ(a.res.delivered, one.res.delivered);
    EXPECT_TRUE(a.res.flushed);
  }
}

TEST(FlitsimThreads, DeadlockIsDetectedAndReportedAsAChannelCycle) {
  // The one-VL torus lock-up of flitsim_faults_test, on 2 and 3 threads: the barrier reduction
  // sees no progress anywhere, and the wait-for graph is assembled from every shard.
  Fabric f = make_mesh(4, 4, true);
  Routing r = route_minhop(f);
  Config c;
  c.switching = Switching::Wormhole;
  c.packet_flits = 16, c.buffer_flits = 2;
  c.deadlock_timeout = 500;
  TrafficSpec t;
  t.load = 0.9, t.warmup = 0, t.measure = 20000;
  for (int T : {2, 3}) {
    SCOPED_TRACE("threads " + std::to_string(T));
    const SimRun a = run_checked(f, r, c, t, T), b = run_checked(f, r, c, t, T);
    EXPECT_EQ(a.text, b.text);
    ASSERT_TRUE(a.res.deadlock.detected) << format_result(a.res);
    EXPECT_GE(a.res.deadlock.cycle_channels.size(), 2u) << a.res.deadlock.text;
    EXPECT_EQ(a.res.deadlock.cycle - a.res.deadlock.last_progress, c.deadlock_timeout + 1);
    EXPECT_GT(a.res.in_network, 0u);
  }
}

TEST(FlitsimThreads, FaultyFabricWithReRouteWorks) {
  // A fabric with a missing switch link, first simulated with the LFTs of the intact fabric
  // (packets routed to the missing port are dropped), re-routed around it at cycle 600
  // (schedule_routing: every shard re-routes the heads at its own switches). Threads: the same
  // packets, the same drops and deliveries as one thread (virtual cut-through), deterministic.
  Fabric g = make_kary_ntree(4, 3);
  Fabric f = g;
  int cut_node = -1, cut_port = -1;
  for (int s : f.switches())
    for (int p = 1; p <= f.node(s).num_ports && cut_node < 0; p++)
      if (f.node(s).port(p).connected() && f.node(f.node(s).port(p).peer_node).is_switch())
        cut_node = s, cut_port = p;
  ASSERT_GE(cut_node, 0);
  f.disconnect(cut_node, cut_port);
  Routing before = route_ntree(g, 4, 3), after = route_minhop(f);
  Config c;
  TrafficSpec t = uniform(0.04, 1500);  // (min-hop piles up behind the cut above ~0.06)
  const SimRun one = run_checked(f, before, c, t, 1, &after, 600);
  ASSERT_TRUE(one.res.flushed);
  ASSERT_LT(one.res.cycles, 5000) << format_result(one.res);
  const uint64_t cut = one.res.drops.count("LFT port missing or unlinked") ? one.res.drops.at("LFT port missing or unlinked") : 0;
  ASSERT_GT(cut, 0u) << format_result(one.res);
  EXPECT_EQ(one.res.dropped, cut);
  for (int T : {2, 3, 4}) {
    SCOPED_TRACE("threads " + std::to_string(T));
    const SimRun a = run_checked(f, before, c, t, T, &after, 600), b = run_checked(f, before, c, t, T, &after, 600);
    EXPECT_EQ(a.text, b.text);
    EXPECT_EQ(a.res.measured_packets, one.res.measured_packets);
    EXPECT_EQ(a.res.dropped, one.res.dropped);
    EXPECT_EQ(a.res.delivered, one.res.delivered);
    EXPECT_EQ(format_result(a.res), format_result(one.res));
  }
}

TEST(FlitsimThreads, LinkFailuresDuringTheRunWithEveryPolicy) {
  // A switch link dies under load at cycle 1000 (packets crossing it are cut, their worms
  // shortened in buffers that may belong to other shards), the fabric is re-routed at 1300 and
  // the link comes back at 2500. Threads: deterministic, conservation, and (virtual cut-through)
  // the same drops and deliveries as one thread, for drop, hold and escape-less escape policies.
  Fabric f = make_kary_ntree(4, 3);
  int cut_node = -1, cut_port = -1;
  for (int s : f.switches())
    for (int p = 1; p <= f.node(s).num_ports && cut_node < 0; p++)
      if (f.node(s).port(p).connected() && f.node(f.node(s).port(p).peer_node).is_switch())
        cut_node = s, cut_port = p;
  ASSERT_GE(cut_node, 0);
  Fabric g = f;
  g.disconnect(cut_node, cut_port);
  Routing r = route_ntree(f, 4, 3), around = route_minhop(g);
  TrafficSpec t = uniform(0.25, 3000);
  for (FaultPolicy fp : {FaultPolicy::Drop, FaultPolicy::Hold, FaultPolicy::Escape}) {
    Config c;
    c.fault_policy = fp;
    auto go = [&](int T) {
      c.threads = T;
      Simulator sim(f, r, c);
      sim.schedule_link(1000, cut_node, cut_port, false);
      sim.schedule_routing(1300, &around);
      sim.schedule_link(2500, cut_node, cut_port, true);
      sim.schedule_routing(2600, &r);
      std::set<uint64_t> seen;
      bool dup = false;
      sim.on_deliver = [&](uint64_t id, int, int, int64_t) { dup |= !seen.insert(id).second; };
      sim.on_drop = [&](uint64_t id, const std::string&) { dup |= !seen.insert(id).second; };
      Result res = sim.run(t);
      EXPECT_FALSE(dup);
      EXPECT_EQ(seen.size(), res.delivered + res.dropped);
      EXPECT_EQ(res.generated, res.delivered + res.dropped + res.in_network + res.in_source);
      EXPECT_TRUE(res.flushed) << format_result(res);
      if (fp == FaultPolicy::Drop) {  // the failure met packets: some were cut on the link
        EXPECT_GT(res.drops.count("link failed while the packet crossed it"), 0u) << format_result(res);
      }
      return format_result(res);
    };
    const std::string one = go(1);
    SCOPED_TRACE(one);
    // 2, 3 and 4 threads; the sanitizer build only 3 (test_scale.hpp)
    for (int T : test_scale::kSanitizerBuild ? std::vector<int>{3} : std::vector<int>{2, 3, 4}) {
      SCOPED_TRACE("threads " + std::to_string(T));
      const std::string a = go(T), b = go(T);
      EXPECT_EQ(a, b);
      EXPECT_EQ(a, one);
    }
  }
}

TEST(FlitsimThreads, NacAndFtDrbAreRefusedWithOneLine) {
  Fabric f = make_kary_ntree(4, 2);
  Routing r = route_ntree(f, 4, 2);
  TrafficSpec t = uniform(0.1, 100);
  auto refused = [&](Config c, const std::string& what) {
    c.threads = 2;
    Simulator sim(f, r, c);
    try {
      sim.run(t);
      ADD_FAILURE() << what << " ran on 2 threads";
    } catch (const OptionError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("--threads"), std::string::npos) << m;
      EXPECT_NE(m.find(what), std::string::npos) << m;
      EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
  };
  Config n = Config::preset("zarza-nac");
  refused(n, "NAC");
  Config d;
  d.lid_policy = LidPolicy::FtDrb;
  refused(d, "FT-DRB");
  d.threads = 1;  // and the same runs on one thread
  Simulator sim(f, r, d);
  EXPECT_NO_THROW(sim.run(t));
}

TEST(FlitsimThreads, AnExceptionInAHookEndsTheRunWithoutHanging) {
  // The hooks run in the barrier's completion step; an exception there stops every shard at its
  // next barrier and comes out of run() (no thread is left waiting).
  Fabric f = make_kary_ntree(4, 2);
  Routing r = route_ntree(f, 4, 2);
  for (int T : {2, 3}) {
    Config c;
    c.threads = T;
    Simulator sim(f, r, c);
    int calls = 0;
    sim.on_deliver = [&](uint64_t, int, int, int64_t) {
      if (++calls == 10) throw std::runtime_error("hook failed");
    };
    EXPECT_THROW(sim.run(uniform(0.3, 2000)), std::runtime_error);
    EXPECT_EQ(calls, 10);
  }
}

TEST(FlitsimThreads, ThreadCountIsValidated) {
  Config c;
  c.threads = -1;
  EXPECT_THROW(c.validate(), OptionError);
  c.threads = 65;
  EXPECT_THROW(c.validate(), OptionError);
  c.threads = 64;
  EXPECT_NO_THROW(c.validate());
  EXPECT_EQ(resolve_threads(1, 100), 1);
  EXPECT_EQ(resolve_threads(4, 3), 3);  // at most one per switch
  EXPECT_GE(resolve_threads(0, 100), 1);
  EXPECT_EQ(resolve_threads(64, 1000), 64);
}
