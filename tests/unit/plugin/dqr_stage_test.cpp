// DQR's transition as the plugin applies it (issue 32): Routing::transition carries the changes
// in stages; the plugin's TransitionPlan turns them into LFT blocks per stage; the drain time
// comes from the IB lifetimes; stage dumps. And the control: the same changes in reverse stage
// order reach a state with a loop or a CDG cycle on a fault where the order matters, while the
// forward order never does.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <map>
#include <set>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "adapter.hpp"
#include "ftroute/cdg.hpp"
#include "ftroute/dqr/dqr.hpp"
#include "ftroute/lft_io.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/topology.hpp"

using namespace ftroute;
using namespace ftroute::plugin;

namespace {

Fabric tree() {
  Fabric f = topo::kary_ntree(4, 3);
  f.assign_lids();
  return f;
}

Fabric mesh(int x, int y) {
  topo::Grid g;
  g.dims = {x, y};
  g.hosts_per_switch = 1;
  Fabric f = topo::grid(g);
  f.assign_lids();
  return f;
}

// dqr's routing of f, then its patch after the switch link (s, p) fails.
struct Patch {
  Fabric before, after;
  Routing first, second;
};
std::optional<Patch> patch(const Fabric& f, int s, int p, const EngineOptions& o = {}) {
  Patch x{f, f, {}, {}};
  x.after.disconnect(s, p);
  if (!x.after.connected()) return std::nullopt;
  auto eng = make_engine("dqr");
  x.first = eng->route(x.before, o);
  x.second = eng->route(x.after, o, PreviousRouting{&x.before, &x.first});
  return x;
}

// No forwarding loop and no CDG cycle (CA and switch sources) in `l` on fabric f.
std::string unsafe(const Fabric& f, const Lfts& l) {
  Routing r;
  r.lfts = l;
  CdgBuildOptions co;
  co.switch_sources = true;
  co.collect_loads = false;
  CdgBuild b = build_cdg(f, r, co);
  if (b.stats.looping) return "loop: " + (b.stats.loop_examples.empty() ? std::string() : b.stats.loop_examples.front());
  if (auto c = b.cdg.find_cycle()) return "CDG cycle " + b.cdg.format_cycle(*c);
  return "";
}

// Applies the stages in `order`; returns the first unsafe intermediate state ("" if none).
std::string walk(const Fabric& g, const Lfts& final_lfts, const LftTransition& t, bool reverse) {
  TransitionPlan plan(final_lfts, t, "dqr");
  Lfts state = plan.state();
  const size_t n = t.stages.size();
  for (size_t i = 0; i < n; i++) {
    const LftTransition::Stage& st = t.stages[reverse ? n - 1 - i : i];
    for (const auto& e : st.entries) state.set(e.sw, e.lid, e.new_port);
    const std::string why = unsafe(g, state);
    if (!why.empty()) return "after " + std::to_string(i + 1) + " of " + std::to_string(n) + " stages: " + why;
  }
  EXPECT_EQ(state, final_lfts);
  return "";
}

struct ControlCount {
  int faults = 0, staged = 0, reverse_unsafe = 0;
  std::string example;
};

ControlCount control(const Fabric& f, const EngineOptions& o) {
  ControlCount c;
  for (auto [s, p] : f.switch_links()) {
    auto x = patch(f, s, p, o);
    if (!x) continue;
    c.faults++;
    if (!x->second.transition || x->second.transition->stages.size() < 2) continue;
    c.staged++;
    const std::string fwd = walk(x->after, x->second.lfts, *x->second.transition, false);
    EXPECT_EQ(fwd, "") << "forward stage order, fault " << f.port_name(s, p);
    const std::string rev = walk(x->after, x->second.lfts, *x->second.transition, true);
    if (!rev.empty()) {
      if (!c.reverse_unsafe) c.example = "fault " + f.port_name(s, p) + ", reverse order " + rev;
      c.reverse_unsafe++;
    }
  }
  return c;
}

}  // namespace

TEST(DqrTransition, EngineHandsTheChangesInStages) {
  const Fabric f = tree();
  auto [s, p] = f.switch_links().front();
  auto x = patch(f, s, p);
  ASSERT_TRUE(x.has_value());
  EXPECT_EQ(x->first.transition, nullptr) << "a first routing has nothing to stage";
  ASSERT_NE(x->second.transition, nullptr);
  const LftTransition& t = *x->second.transition;
  ASSERT_GE(t.stages.size(), 2u);
  // packed: each LID's changes keep DqrResult's order (stage, idle last) across the stages
  {
    std::map<Lid, std::vector<int>> seen;  // LID -> stage index of each of its entries, in order
    for (size_t k = 0; k < t.stages.size(); k++)
      for (const auto& e : t.stages[k].entries) seen[e.lid].push_back(static_cast<int>(k));
    for (const auto& [lid, ks] : seen) EXPECT_TRUE(std::is_sorted(ks.begin(), ks.end())) << "LID " << lid;
    EXPECT_FALSE(seen.empty());
  }
  size_t changed = 0;
  for (int sw : f.switches())
    for (Lid l = 1; l <= f.max_lid(); l++) changed += x->first.lfts.get(sw, l) != x->second.lfts.get(sw, l);
  EXPECT_EQ(t.entries(), changed);
  TransitionPlan plan(x->second.lfts, t, "dqr");
  EXPECT_EQ(plan.state(), x->first.lfts) << "the plan starts from the previous tables";
  size_t blocks = 0;
  Lfts prev = plan.state();
  for (size_t k = 0; k < t.stages.size(); k++) {
    const auto b = plan.apply_next();
    EXPECT_FALSE(b.empty());
    // exactly the blocks whose entries changed in this stage
    std::set<std::pair<int, unsigned>> want;
    for (int sw : f.switches())
      for (Lid l = 1; l <= f.max_lid(); l++)
        if (prev.get(sw, l) != plan.state().get(sw, l)) want.insert({sw, l / TransitionPlan::kBlock});
    const std::set<std::pair<int, unsigned>> got(b.begin(), b.end());
    EXPECT_EQ(got, want) << "stage " << k + 1;
    blocks += b.size();
    prev = plan.state();
  }
  EXPECT_TRUE(plan.apply_next().empty());
  EXPECT_EQ(plan.state(), x->second.lfts);
  EXPECT_GT(blocks, 0u);
  // a transition that does not end at the routing's tables is refused
  LftTransition bad = t;
  bad.stages.back().entries.back().new_port ^= 1;
  EXPECT_THROW(TransitionPlan(x->second.lfts, bad, "dqr"), EngineError);
}

// The control: where the order matters, the reverse stage order breaks; the forward order never.
TEST(DqrTransition, ReverseStageOrderLoopsOrCyclesWhereForwardOrderIsSafe) {
  EngineOptions so;  // switch-to-switch paths are part of the routing: checked like CA paths
  so.set("switch_sources", "true");
  const ControlCount t = control(tree(), so);
  std::printf("4-ary 3-tree: %d single faults, %d with 2+ stages, %d unsafe in reverse order; e.g. %s\n", t.faults,
              t.staged, t.reverse_unsafe, t.example.c_str());
  EXPECT_GT(t.staged, 0);
  EXPECT_GT(t.reverse_unsafe, 0) << "no fault where the order matters: the control shows nothing";
  const ControlCount m = control(mesh(5, 5), so);
  std::printf("5x5 mesh: %d single faults, %d with 2+ stages, %d unsafe in reverse order; e.g. %s\n", m.faults,
              m.staged, m.reverse_unsafe, m.example.c_str());
  EXPECT_GT(m.staged, 0);
  EXPECT_GT(m.reverse_unsafe, 0);
  // the unpacked grouping (one stage per hop count, dqr:stages=hops): forward safe as well
  so.set("stages", "hops");
  const ControlCount h = control(tree(), so);
  EXPECT_GE(h.staged, t.staged);
  EXPECT_GT(h.reverse_unsafe, 0);
}

// Packing per LID needs no more stages than one stage per hop count, and usually far fewer.
TEST(DqrTransition, PackedStagesAreFewerThanHopStages) {
  const Fabric f = mesh(8, 8);
  EngineOptions hops;
  hops.set("stages", "hops");
  size_t packed_total = 0, hops_total = 0;
  for (auto [s, p] : f.switch_links()) {
    auto a = patch(f, s, p), b = patch(f, s, p, hops);
    if (!a || !a->second.transition) continue;
    ASSERT_TRUE(b && b->second.transition);
    EXPECT_EQ(a->second.lfts, b->second.lfts);
    EXPECT_EQ(a->second.transition->entries(), b->second.transition->entries());
    EXPECT_LE(a->second.transition->stages.size(), b->second.transition->stages.size());
    packed_total += a->second.transition->stages.size();
    hops_total += b->second.transition->stages.size();
  }
  std::printf("8x8 mesh, every single fault: %zu stages packed, %zu by hops\n", packed_total, hops_total);
  EXPECT_LT(packed_total, hops_total);
  EXPECT_THROW(make_engine("dqr")->route(f, EngineOptions::parse("stages=fast")), OptionError);
}

TEST(DqrTransition, DrainTimeFromTheIbLifetimes) {
  EXPECT_NEAR(ib_lifetime_ms(0), 0.004096, 1e-9);
  EXPECT_NEAR(ib_lifetime_ms(16), 268.435456, 1e-6);
  EXPECT_NEAR(ib_lifetime_ms(18), 1073.741824, 1e-6);
  EXPECT_NEAR(ib_lifetime_ms(19), 2147.483648, 1e-6);
  EXPECT_LT(ib_lifetime_ms(20), 0);
  EXPECT_LT(ib_lifetime_ms(31), 0);
  // OpenSM's defaults: packet_life_time 0x12, head_of_queue_lifetime 0x12, leaf 0x10
  DrainTime d = drain_time(0x12, 0x12, 0x10, -1);
  EXPECT_NEAR(d.ms, 1073.741824, 1e-6);
  EXPECT_NE(d.why.find("leaf_head_of_queue_lifetime 16 = 268.4 ms"), std::string::npos) << d.why;
  d = drain_time(10, 20, 19, -1);  // HOQ infinite: the longest finite one
  EXPECT_NEAR(d.ms, 2147.483648, 1e-6);
  EXPECT_NE(d.why.find("head_of_queue_lifetime 20 = infinite"), std::string::npos) << d.why;
  d = drain_time(20, 21, 31, -1);
  EXPECT_EQ(d.ms, kDrainWhenInfiniteMs);
  EXPECT_NE(d.why.find("all infinite"), std::string::npos) << d.why;
  d = drain_time(0x12, 0x12, 0x10, 25);
  EXPECT_EQ(d.ms, 25);
  EXPECT_EQ(d.why, "drain_ms=25");
  EXPECT_EQ(drain_time(0x12, 0x12, 0x10, 0).ms, 0);
}

TEST(DqrTransition, OptionsAndTheirRanges) {
  PluginOptions ok = PluginOptions::parse("dqr:drain_ms=60000,ack_timeout_ms=100,staged=false,stage_dump=/tmp/x", engines());
  EXPECT_TRUE(ok.errors.empty()) << ok.errors.front();
  for (const char* bad : {"dqr:drain_ms=60001", "dqr:drain_ms=-1", "dqr:drain_ms=x", "dqr:ack_timeout_ms=99",
                          "dqr:staged=maybe"}) {
    PluginOptions po = PluginOptions::parse(bad, engines());
    ASSERT_EQ(po.errors.size(), 1u) << bad;
    EXPECT_NE(po.errors[0].find(std::string(bad).substr(4, 5)), std::string::npos) << po.errors[0];
  }
  EXPECT_NE(PluginOptions::parse("dqr:drain_ms=60001", engines()).errors[0].find("must be 0..60000"), std::string::npos);
}

// log=PATH inside OpenSM: a FIFO must never block the SM (with no reader, opening it for writing
// would wait for one; with a slow reader every line would), so FIFOs are refused at once; regular
// files and character devices are appended to.
TEST(PluginOptions, TraceFileNeverBlocks) {
  const std::string dir = ::testing::TempDir() + "ftroute_trace_file_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::string why;
  const std::string fifo = dir + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(open_trace_file(fifo, &why), nullptr);
  EXPECT_EQ(why, "a FIFO without a reader");
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  EXPECT_EQ(open_trace_file(fifo, &why), nullptr);
  EXPECT_EQ(why, "not a regular file (a FIFO or socket could stall OpenSM)");
  ::close(reader);
  EXPECT_EQ(open_trace_file(dir, &why), nullptr);  // a directory
  for (const std::string& ok : {dir + "/trace.log", std::string("/dev/null")}) {
    FILE* f = open_trace_file(ok, &why);
    ASSERT_NE(f, nullptr) << ok << ": " << why;
    std::fputs("line\n", f);
    std::fclose(f);
  }
  FILE* again = open_trace_file(dir + "/trace.log", &why);  // appended, not truncated
  ASSERT_NE(again, nullptr);
  std::fputs("two\n", again);
  std::fclose(again);
  std::ifstream in(dir + "/trace.log");
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(all, "line\ntwo\n");
}

TEST(DqrTransition, StageDumpDirectory) {
  const std::string dir = ::testing::TempDir() + "ftroute_stage_dump_test";
  std::filesystem::remove_all(dir);
  EXPECT_EQ(stage_dump_dir_problem(dir), "no such directory");
  std::filesystem::create_directories(dir);
  EXPECT_EQ(stage_dump_dir_problem(dir), "");
  const std::string file = dir + "/plain";
  std::ofstream(file) << "x\n";
  EXPECT_EQ(stage_dump_dir_problem(file), "not a directory");
  EXPECT_NE(stage_dump_dir_problem(dir + "/a\x1b[2Jb"), "");
  if (::geteuid() != 0) {  // root writes anywhere
    std::filesystem::create_directories(dir + "/ro");
    std::filesystem::permissions(dir + "/ro", std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
    EXPECT_NE(stage_dump_dir_problem(dir + "/ro"), "");
  }
  EXPECT_EQ(stage_dump_path(dir, 3), dir + "/stage-3.dump");
  // a dump of tables on a fabric with a hostile node name: opensm-lfts format, name escaped
  Fabric f = tree();
  f.node(f.switches().front()).desc = "evil\x1b[31mname";
  Routing r = make_engine("ft-minhop")->route(f);
  write_stage_dump(stage_dump_path(dir, 0), f, r.lfts);
  write_stage_dump(stage_dump_path(dir, 12), f, r.lfts);
  std::ofstream(dir + "/stage-x.dump") << "keep\n";
  std::ofstream(dir + "/stage-1.dump.txt") << "keep\n";
  std::ifstream in(stage_dump_path(dir, 0));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_EQ(map_lfts(parse_lft(text, "stage-0.dump", LftFormat::Opensm), f).lfts, r.lfts);
  EXPECT_EQ(remove_stage_dumps(dir), 2);
  EXPECT_FALSE(std::filesystem::exists(stage_dump_path(dir, 12)));
  EXPECT_TRUE(std::filesystem::exists(dir + "/stage-x.dump"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/stage-1.dump.txt"));
  std::filesystem::permissions(dir, std::filesystem::perms::owner_all, std::filesystem::perm_options::add);
  if (std::filesystem::exists(dir + "/ro"))
    std::filesystem::permissions(dir + "/ro", std::filesystem::perms::owner_all, std::filesystem::perm_options::add);
  std::filesystem::remove_all(dir);
}
