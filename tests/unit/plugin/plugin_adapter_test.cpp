// The OpenSM-independent half of libftroute.so: option syntax, validation of engine results
// before they reach OpenSM, hop counts, per-engine state across sweeps, path_sl pass-through.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <memory>
#include <optional>
#include <thread>

// adapter.cpp has no OpenSM dependency (library ftroute_plugin_adapter).
#include "adapter.hpp"
#include "ftroute/pipeline.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/topology.hpp"
#include "minhop/minhop.hpp"

using namespace ftroute;
using namespace ftroute::plugin;

namespace {

// Two switches joined by two parallel links, two CAs on each.
Fabric small(uint8_t lmc = 0) {
  Fabric f;
  int s1 = f.add_node(NodeType::Switch, "Switch1", 8), s2 = f.add_node(NodeType::Switch, "Switch2", 8);
  f.connect(s1, 3, s2, 3);
  f.connect(s1, 5, s2, 5);
  for (int i = 0; i < 4; i++) {
    int ca = f.add_node(NodeType::Ca, "Hca" + std::to_string(i + 1), 1);
    f.connect(ca, 1, i < 2 ? s1 : s2, i % 2 ? 2 : 1);
  }
  f.assign_default_guids();
  f.assign_lids(lmc);
  return f;
}

// Engine that records the PreviousRouting it is given and can be told to fail or misbehave.
struct ProbeEngine : Engine {
  int mode = 0;  // 0 ok (minhop), 1 throw EngineError, 2 leave a hole, 3 make a loop, 4 port 0 on foreign LID
  std::vector<const Routing*> seen_previous;
  std::string name() const override { return "probe"; }
  std::vector<OptionSpec> option_specs() const override { return {OptionSpec::text("k", "", "a test option")}; }
  Routing compute(const Fabric& f, const EngineOptions& o, const PreviousRouting& prev) override {
    seen_previous.push_back(prev.routing);
    if (mode == 1) throw EngineError("probe", "fabric does not fit");
    Routing r = MinHopEngine().route(f);
    r.engine = "probe";
    int s1 = *f.find("Switch1"), s2 = *f.find("Switch2");
    Lid hca3 = f.node(*f.find("Hca3")).port(1).base_lid;
    if (mode == 2) r.lfts.set(s1, hca3, kNoPath);
    if (mode == 3) {
      r.lfts.set(s1, hca3, 3);
      r.lfts.set(s2, hca3, 3);
    }
    if (mode == 4) r.lfts.set(s1, hca3, 0);
    r.path_sl = [](Lid s, Lid d) { return static_cast<uint8_t>((s + d) % 4); };
    return r;
  }
};

}  // namespace

// What the plugin and `ftroute route` do with an engine's tables (ftroute/pipeline.hpp): the
// verdict, and EngineError naming the first problem when it fails.
void refuse_bad_tables(const Fabric& f, const Routing& r, const std::string& engine) {
  PipelineOptions po;
  po.verify.stop_at_first = true;
  const Verdict v = verdict_for(f, r, po);
  if (!v.ok()) throw EngineError(engine, v.first_problem());
}

TEST(PluginOptions, EngineAndGlobalTokens) {
  auto po = PluginOptions::parse("ft-minhop:balance=0,lmc_spread=1  log=/tmp/x.log ft-minhop:count_switch_lids=false",
                                 engines());
  EXPECT_TRUE(po.errors.empty()) << po.errors.front();
  EXPECT_EQ(po.log_path, "/tmp/x.log");
  EngineOptions o = po.for_engine("ft-minhop");
  EXPECT_EQ(o.get("balance", ""), "0");
  EXPECT_EQ(o.get("lmc_spread", ""), "1");
  EXPECT_EQ(o.get("count_switch_lids", ""), "false");
  EXPECT_TRUE(po.for_engine("other").all().empty());
}

TEST(PluginOptions, ErrorsAreCollectedNotThrown) {
  auto po = PluginOptions::parse("nosuch:a=1 ft-minhop:bogus=1 color=red garbage ft-minhop:", engines());
  ASSERT_EQ(po.errors.size(), 5u);
  EXPECT_NE(po.errors[0].find("unknown engine 'nosuch'"), std::string::npos) << po.errors[0];
  EXPECT_NE(po.errors[1].find("unknown plugin option 'color'"), std::string::npos) << po.errors[1];
  EXPECT_NE(po.errors[2].find("'garbage'"), std::string::npos) << po.errors[2];
  EXPECT_NE(po.errors[3].find("ft-minhop:"), std::string::npos) << po.errors[3];
  // the engines' own checks come after every token is read
  EXPECT_NE(po.errors[4].find("unknown option 'bogus'"), std::string::npos) << po.errors[4];
  // misspelt keys are still handed to the engine, which then fails cleanly
  EXPECT_TRUE(po.for_engine("ft-minhop").has("bogus"));
}

TEST(PluginOptions, AnEnginesOptionsMayComeInSeveralTokens) {
  // lft-file's file= is required: checked once every token is read, so it may come after sl=
  auto split = PluginOptions::parse("lft-file:sl=/x/sl.txt log=/tmp/t lft-file:file=/x/lfts.dump", engines());
  EXPECT_TRUE(split.errors.empty()) << split.errors.front();
  EXPECT_EQ(split.for_engine("lft-file").get("file", ""), "/x/lfts.dump");
  auto missing = PluginOptions::parse("lft-file:sl=/x/sl.txt", engines());
  ASSERT_EQ(missing.errors.size(), 1u);
  EXPECT_NE(missing.errors[0].find("engine 'lft-file' needs option file=VALUE"), std::string::npos) << missing.errors[0];
}

TEST(PluginOptions, EmptyIsFine) {
  auto po = PluginOptions::parse("   ", engines());
  EXPECT_TRUE(po.errors.empty());
  EXPECT_TRUE(po.log_path.empty());
}

TEST(CheckRouting, AcceptsMinhop) {
  Fabric f = small(1);
  Routing r = MinHopEngine().route(f);
  EXPECT_NO_THROW(refuse_bad_tables(f, r, "ft-minhop"));
}

TEST(CheckRouting, RejectsHolesLoopsForeignPortZeroAndBadPorts) {
  Fabric f = small();
  int s1 = *f.find("Switch1");
  Lid hca3 = f.node(*f.find("Hca3")).port(1).base_lid;
  auto expect_fail = [&](const Routing& r, const std::string& needle) {
    try {
      refuse_bad_tables(f, r, "x");
      ADD_FAILURE() << "expected failure containing " << needle;
    } catch (const EngineError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  Routing r = MinHopEngine().route(f);
  Routing hole = r;
  hole.lfts.set(s1, hca3, kNoPath);
  expect_fail(hole, "\"Switch1\" has no route to LID " + std::to_string(hca3));
  Routing loop = r;
  loop.lfts.set(s1, hca3, 3);
  loop.lfts.set(*f.find("Switch2"), hca3, 5);
  expect_fail(loop, "loops");
  Routing zero = r;
  zero.lfts.set(s1, hca3, 0);
  expect_fail(zero, "does not own it");
  Routing range = r;
  range.lfts.set(s1, hca3, 9);
  expect_fail(range, "port 9");
  Routing dead = r;
  dead.lfts.set(s1, hca3, 7);  // port 7 exists but has no link
  expect_fail(dead, "no working link");
  Routing wrongca = r;
  wrongca.lfts.set(s1, hca3, 1);  // Hca1
  expect_fail(wrongca, "does not own it");
  // entries for a LID no port owns are never walked: the entry scan refuses them
  const Lid spare = static_cast<Lid>(f.max_lid() + 1);
  Routing spare0 = r;
  spare0.lfts.set(s1, spare, 0);
  expect_fail(spare0, "delivers LID " + std::to_string(spare) + " to itself (port 0) but does not own it");
  Routing spare9 = r;
  spare9.lfts.set(s1, spare, 9);
  expect_fail(spare9, "routes LID " + std::to_string(spare) + " to port 9");
}

TEST(RouteHops, CountsSwitchLinks) {
  Fabric f = small();
  Routing r = MinHopEngine().route(f);
  int s1 = *f.find("Switch1"), s2 = *f.find("Switch2");
  EXPECT_EQ(route_hops(f, r.lfts, s1, f.node(s1).port(0).base_lid), 0);
  EXPECT_EQ(route_hops(f, r.lfts, s1, f.node(s2).port(0).base_lid), 1);
  EXPECT_EQ(route_hops(f, r.lfts, s1, f.node(*f.find("Hca3")).port(1).base_lid), 1);
  EXPECT_EQ(route_hops(f, r.lfts, s1, f.node(*f.find("Hca1")).port(1).base_lid), 0);
  r.lfts.set(s1, f.node(s2).port(0).base_lid, kNoPath);
  EXPECT_EQ(route_hops(f, r.lfts, s1, f.node(s2).port(0).base_lid), -1);
}

// The plugin's hop pass resolves all switches of a LID at once (memoised walk); it must give
// route_hops' answer for every switch and LID, also on misrouted tables, holes and loops.
TEST(RouteHops, AllSwitchesAtOnceEqualsPerSwitchWalk) {
  Fabric f = topo::kary_ntree(3, 3);
  topo::FaultSpec spec;
  spec.random_links = 4;
  spec.seed = 11;
  spec.keep_connected = true;
  topo::inject_faults(f, spec);
  f.assign_lids();
  Routing r = make_engine("ftree-misroute")->route(f, {});
  // damage: a hole, a two-switch loop and a dead port on a few LIDs
  const auto& sw = f.switches();
  ASSERT_GE(sw.size(), 4u);
  const Lid l1 = f.node(sw[3]).port(0).base_lid, l2 = f.node(f.cas()[5]).port(1).base_lid;
  r.lfts.set(sw[0], l1, kNoPath);
  int a = sw[1], b = -1, pa = 0;
  for (int p = 1; p <= f.node(a).num_ports && b < 0; ++p)
    if (f.node(a).port(p).connected() && f.node(f.node(a).port(p).peer_node).is_switch()) {
      b = f.node(a).port(p).peer_node;
      pa = p;
    }
  ASSERT_GE(b, 0);
  r.lfts.set(a, l2, static_cast<uint8_t>(pa));
  r.lfts.set(b, l2, static_cast<uint8_t>(f.node(a).port(pa).peer_port));
  int checked = 0, negative = 0;
  std::vector<int> all, reused;
  RouteWalker walker(f, r.lfts);  // made once for every LID, as the plugin's hop pass does
  for (Lid lid = 1; lid <= f.max_lid(); ++lid) {
    switch_hops_to(f, r.lfts, lid, all);
    ASSERT_EQ(all.size(), static_cast<size_t>(f.size()));
    switch_hops_to(walker, f, lid, reused);
    ASSERT_EQ(reused, all) << "LID " << lid;
    for (int s : sw) {
      ASSERT_EQ(all[static_cast<size_t>(s)], route_hops(f, r.lfts, s, lid)) << "switch " << f.node(s).id << " LID " << lid;
      ++checked;
      negative += all[static_cast<size_t>(s)] < 0;
    }
    for (int c : f.cas()) ASSERT_EQ(all[static_cast<size_t>(c)], -1);
  }
  EXPECT_GT(checked, 1000);
  EXPECT_GE(negative, 3);  // the hole and both loop switches at least
}

// OpenSM's hop matrices come from switch_distance_matrix (64 BFS per pass as bit masks, passes on
// threads): every entry equal to a plain BFS from every source, on fabrics larger than one word of
// sources, with parallel cables, a disconnected part, and on 1 and 3 threads.
TEST(SwitchDistances, BitParallelEqualsOneBfsPerSource) {
  std::vector<Fabric> fabrics;
  fabrics.push_back(topo::kary_ntree(5, 3));  // 75 switches: two words of sources
  {
    Fabric f = topo::kary_ntree(5, 3);
    topo::FaultSpec spec;
    spec.random_links = 6;
    spec.seed = 5;
    topo::inject_faults(f, spec);
    const int cut = f.switches()[7];  // cut off: every pair with it stays kFarSwitch
    for (int p = 1; p <= f.node(cut).num_ports; p++)
      if (f.node(cut).port(p).connected()) f.disconnect(cut, p);
    fabrics.push_back(std::move(f));
  }
  topo::Grid g;
  g.dims = {5, 13};
  g.torus = true;
  g.links = 2;  // parallel cables: a neighbour twice in adj
  fabrics.push_back(topo::grid(g));  // 65 switches, diameter 8
  size_t far = 0;
  for (const Fabric& f : fabrics) {
    const auto& sw = f.switches();
    std::vector<int> pos(static_cast<size_t>(f.size()), -1);
    for (size_t i = 0; i < sw.size(); i++) pos[static_cast<size_t>(sw[i])] = static_cast<int>(i);
    std::vector<std::vector<int>> adj(sw.size());
    for (size_t i = 0; i < sw.size(); i++)
      for (int p = 1; p <= f.node(sw[i]).num_ports; p++) {
        const Port& pt = f.node(sw[i]).port(p);
        if (pt.connected() && pos[static_cast<size_t>(pt.peer_node)] >= 0) adj[i].push_back(pos[static_cast<size_t>(pt.peer_node)]);
      }
    const size_t n = sw.size();
    ASSERT_GT(n, 64u);
    for (int threads : {1, 3}) {
      const std::vector<uint16_t> d = switch_distance_matrix(adj, threads);
      ASSERT_EQ(d.size(), n * n);
      for (size_t s = 0; s < n; s++) {
        std::vector<int> dist(n, -1), q{static_cast<int>(s)};
        dist[s] = 0;
        for (size_t h = 0; h < q.size(); h++)
          for (int v : adj[static_cast<size_t>(q[h])])
            if (dist[static_cast<size_t>(v)] < 0) dist[static_cast<size_t>(v)] = dist[static_cast<size_t>(q[h])] + 1, q.push_back(v);
        for (size_t y = 0; y < n; y++) {
          const uint16_t want = dist[y] < 0 ? kFarSwitch : static_cast<uint16_t>(dist[y]);
          ASSERT_EQ(d[y * n + s], want) << "from " << f.node(sw[s]).id << " to " << f.node(sw[y]).id << ", " << threads << " threads";
          far += want == kFarSwitch;
        }
      }
    }
  }
  EXPECT_GT(far, 0u);  // the cut-off switch: unreachable pairs were checked
}

TEST(EngineSlot, KeepsLastRoutingAndPassesItAsPrevious) {
  auto probe = std::make_unique<ProbeEngine>();
  ProbeEngine* p = probe.get();
  EngineSlot slot("probe", std::move(probe), {});
  EXPECT_EQ(slot.last(), nullptr);
  auto s1 = slot.run(small());
  ASSERT_NE(s1, nullptr);
  EXPECT_EQ(s1->switches, 2);
  EXPECT_EQ(s1->lids, 6);
  EXPECT_EQ(s1->entries, 12);
  auto s2 = slot.run(small());
  ASSERT_EQ(p->seen_previous.size(), 2u);
  EXPECT_EQ(p->seen_previous[0], nullptr);
  EXPECT_EQ(p->seen_previous[1], &s1->routing);
  EXPECT_EQ(slot.last(), s2);
  EXPECT_EQ(slot.runs(), 2u);
  EXPECT_EQ(slot.failures(), 0u);
}

TEST(EngineSlot, FailuresPropagateAndKeepPreviousSnapshot) {
  auto probe = std::make_unique<ProbeEngine>();
  ProbeEngine* p = probe.get();
  EngineSlot slot("probe", std::move(probe), {});
  auto good = slot.run(small());
  for (int mode : {1, 2, 3, 4}) {
    p->mode = mode;
    EXPECT_THROW(slot.run(small()), EngineError) << "mode " << mode;
    EXPECT_EQ(slot.last(), good) << "a failed run replaced the snapshot (mode " << mode << ")";
  }
  EXPECT_EQ(slot.failures(), 4u);
}

TEST(EngineSlot, UnknownOptionFailsTheRun) {
  EngineOptions o;
  o.set("nope", "1");
  EngineSlot slot("probe", std::make_unique<ProbeEngine>(), o);
  EXPECT_THROW(slot.run(small()), OptionError);
  EXPECT_EQ(slot.last(), nullptr);
}

TEST(EngineSlot, PathSlUsesEngineAndPassesHintOtherwise) {
  EngineSlot slot("probe", std::make_unique<ProbeEngine>(), {});
  EXPECT_EQ(slot.path_sl(7, 1, 2), 7);  // nothing routed yet
  slot.run(small());
  EXPECT_EQ(slot.path_sl(7, 1, 2), 3);
  EXPECT_EQ(slot.path_sl(7, 2, 2), 0);
  EngineSlot plain("ft-minhop", std::make_unique<MinHopEngine>(), {});
  plain.run(small());
  EXPECT_EQ(plain.path_sl(5, 1, 2), 5);  // engine sets no SLs: QoS hint passes through
}

TEST(EngineSlot, ConcurrentReadersDuringRuns) {
  EngineSlot slot("probe", std::make_unique<ProbeEngine>(), {});
  slot.run(small());
  std::atomic<bool> stop{false};
  std::atomic<long> reads{0};
  std::thread reader([&] {
    while (!stop) {
      uint8_t sl = slot.path_sl(9, 1, 3);
      EXPECT_EQ(sl, 0);
      reads++;
    }
  });
  while (reads.load() == 0) std::this_thread::yield();  // reader is running before the swaps start
  for (int i = 0; i < 200; i++) slot.run(small());
  stop = true;
  reader.join();
  EXPECT_GT(reads.load(), 0);
}

TEST(Describe, MentionsEngineAndCounts) {
  EngineSlot slot("ft-minhop", std::make_unique<MinHopEngine>(), {});
  auto s = slot.run(small());
  EventCounters c;
  c.heavy_sweeps = 3;
  c.traps = 1;
  std::string line = describe("ft-minhop", *s, c);
  EXPECT_NE(line.find("ft-minhop routed 2 switches, 6 LIDs, 12 LFT entries"), std::string::npos) << line;
  EXPECT_NE(line.find("heavy sweep 3, traps 1"), std::string::npos) << line;
}

// osm_register_external_routing_engine refuses names OpenSM 3.3.23 already has (CL_DUPLICATE),
// so an engine named like a built-in one can never be selected through the plugin.
TEST(Registry, NoEngineUsesAnOpenSmBuiltinName) {
  const std::vector<std::string> builtin = {"minhop", "updn", "dnup", "file", "ftree", "lash", "dor",
                                            "torus-2QoS", "nue", "dfsssp", "sssp", "no_fallback"};
  for (const auto& e : engines())
    for (const auto& b : builtin)
      EXPECT_NE(e.name, b) << "engine '" << e.name << "' clashes with OpenSM's built-in engine; rename it (e.g. 'ft-" << b
                           << "')";
}

// ---- the struct layout check of create() (adapter.hpp, LayoutFacts) ----
// Two OpenSMs modelled as in 3.3.23 and 3.3.24: osm_opensm_t = { osm_version, subn, sm, ..., log },
// where 3.3.24's subn is 8 bytes longer (osm_subn_opt_t gained max_rate_enum); osm_sm_init()
// stored &subn in sm.p_subn and &log in sm.p_log.
namespace {
struct Sm {
  char before[64];
  void* p_subn;
  void* p_db;
  void* p_vendor;
  void* p_log;
  char after[64];
};
template <size_t SubnBytes>
struct Osm {
  const char* osm_version;
  alignas(8) char subn[SubnBytes];
  Sm sm;
  char middle[200];
  long log;
  static Osm* make(const char* version) {
    auto* o = new Osm();
    std::memset(static_cast<void*>(o), 0x5a, sizeof *o);  // garbage everywhere else
    o->osm_version = version;
    o->sm.p_subn = &o->subn;
    o->sm.p_log = &o->log;
    return o;
  }
};
using Osm23 = Osm<1000>;
using Osm24 = Osm<1008>;

// What create() of a plugin compiled with layout P measures in a running OpenSM r.
template <typename P, typename R>
ftroute::plugin::LayoutFacts measure(R* r, const char* built_for) {
  ftroute::plugin::LayoutFacts f;
  f.built_for = built_for;
  f.running = r->osm_version;
  f.subn_bytes = sizeof(P::subn);
  const size_t off_subn = offsetof(P, sm) + offsetof(Sm, p_subn);
  const size_t off_log = offsetof(P, sm) + offsetof(Sm, p_log);
  // create() passes &osm->subn: at the same offset in every layout
  f.subn_shift = ftroute::plugin::find_pointer_word(r, off_subn, 256, reinterpret_cast<char*>(r) + offsetof(P, subn));
  if (f.subn_shift) {
    void* w;
    std::memcpy(&w, reinterpret_cast<char*>(r) + off_log + *f.subn_shift, sizeof w);
    f.log_found = w == reinterpret_cast<char*>(r) + offsetof(P, log);
  }
  f.plugin_name_found = f.subn_shift == 0L && f.log_found;
  return f;
}
}  // namespace

TEST(PluginLayout, SameLayoutPasses) {
  std::unique_ptr<Osm24> r(Osm24::make("OpenSM 3.3.24"));
  auto f = measure<Osm24>(r.get(), "OpenSM 3.3.24");
  ASSERT_TRUE(f.subn_shift.has_value());
  EXPECT_EQ(*f.subn_shift, 0);
  EXPECT_TRUE(f.log_found);
  EXPECT_EQ(ftroute::plugin::layout_refusal(f), "");
  EXPECT_NE(ftroute::plugin::layout_ok_text(f).find("built for OpenSM 3.3.24, running OpenSM 3.3.24"), std::string::npos);
}

TEST(PluginLayout, PluginFor3324In3323IsRefusedNamingBothVersions) {
  std::unique_ptr<Osm23> r(Osm23::make("OpenSM 3.3.23"));
  auto f = measure<Osm24>(r.get(), "OpenSM 3.3.24");
  ASSERT_TRUE(f.subn_shift.has_value());
  EXPECT_EQ(*f.subn_shift, -8);  // the running osm_subn_t is 8 bytes shorter
  EXPECT_TRUE(f.log_found == false);
  const std::string line = ftroute::plugin::layout_refusal(f);
  EXPECT_NE(line.find("plugin built for OpenSM 3.3.24, running OpenSM 3.3.23"), std::string::npos) << line;
  EXPECT_NE(line.find("osm_subn_t 1000 bytes in the running OpenSM, 1008 in the headers"), std::string::npos) << line;
  EXPECT_NE(line.find("no engines registered"), std::string::npos) << line;
  EXPECT_EQ(line.find('\n'), std::string::npos) << "one log line";
}

TEST(PluginLayout, PluginFor3323In3324IsRefusedNamingBothVersions) {
  std::unique_ptr<Osm24> r(Osm24::make("OpenSM 3.3.24"));
  auto f = measure<Osm23>(r.get(), "OpenSM 3.3.23");
  ASSERT_TRUE(f.subn_shift.has_value());
  EXPECT_EQ(*f.subn_shift, 8);
  const std::string line = ftroute::plugin::layout_refusal(f);
  EXPECT_NE(line.find("plugin built for OpenSM 3.3.23, running OpenSM 3.3.24"), std::string::npos) << line;
  EXPECT_NE(line.find("osm_subn_t 1008 bytes in the running OpenSM, 1000 in the headers"), std::string::npos) << line;
}

// Same version string, other layout (another configure, or osm_config.h not included first):
// OpenSM's own check passes, the layout check refuses.
TEST(PluginLayout, SameVersionOtherLayoutIsRefused) {
  std::unique_ptr<Osm23> r(Osm23::make("OpenSM 3.3.24"));
  auto f = measure<Osm24>(r.get(), "OpenSM 3.3.24");
  const std::string line = ftroute::plugin::layout_refusal(f);
  EXPECT_NE(line.find("struct layout check failed"), std::string::npos) << line;
  EXPECT_NE(line.find("osm_subn_t 1000 bytes in the running OpenSM, 1008"), std::string::npos) << line;
  // not found at all (garbage where osm_sm_t should be): refused too
  ftroute::plugin::LayoutFacts g = f;
  g.subn_shift.reset();
  EXPECT_NE(ftroute::plugin::layout_refusal(g).find("unknown layout"), std::string::npos);
  g.subn_shift = 0;
  g.log_found = false;
  EXPECT_NE(ftroute::plugin::layout_refusal(g).find("osm->log"), std::string::npos);
  g.log_found = true;
  g.plugin_name_found = false;
  EXPECT_NE(ftroute::plugin::layout_refusal(g).find("event_plugin_name"), std::string::npos);
}

TEST(PluginLayout, FindPointerWordSearchesOutwardAndStaysInWindow) {
  void* words[16] = {};
  int target = 0;
  words[8] = &target;
  EXPECT_EQ(ftroute::plugin::find_pointer_word(words, 8 * sizeof(void*), 64, &target), 0L);
  words[8] = nullptr;
  words[5] = &target;
  EXPECT_EQ(ftroute::plugin::find_pointer_word(words, 8 * sizeof(void*), 64, &target),
            -3L * static_cast<long>(sizeof(void*)));
  EXPECT_EQ(ftroute::plugin::find_pointer_word(words, 8 * sizeof(void*), 16, &target), std::nullopt);  // outside
  words[5] = nullptr;
  words[11] = &target;
  EXPECT_EQ(ftroute::plugin::find_pointer_word(words, 8 * sizeof(void*), 64, &target), 3L * static_cast<long>(sizeof(void*)));
  // never reads before the start of the object
  words[11] = nullptr;
  words[0] = &target;
  EXPECT_EQ(ftroute::plugin::find_pointer_word(words, 1 * sizeof(void*), 64, &target), -1L * static_cast<long>(sizeof(void*)));
}
