// The routing pipeline (ftroute/pipeline.hpp) and its verdict (ftroute/verdict.hpp): options
// checked once, one walk per routing step (the engine's self-check is reused only while the tables
// are the ones it walked), the same refusal texts as the plugin's, the simulator's start switches,
// the entry scan and digest the same for every thread count.
#include <gtest/gtest.h>

#include <functional>

#include "ftroute/pipeline.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/topology.hpp"
#include "ftroute/validate.hpp"
#include "ftroute/verdict.hpp"

namespace ftroute {
namespace {

Fabric tree() {
  Fabric f = topo::kary_ntree(4, 3);
  f.assign_lids();
  return f;
}

// An engine around ftree-misroute that counts how often its options are looked up and can spoil
// the tables after the inner engine's self-check (which stays recorded on the routing).
struct Wrapper : Engine {
  mutable int option_lookups = 0;
  int spoil = 0;  // 0 none, 1 a hole on the first switch, 2 a loop
  std::string name() const override { return "wrapper"; }
  std::vector<OptionSpec> option_specs() const override {
    option_lookups++;
    return {OptionSpec::integer("k", 0, 3, "0", "a test option")};
  }
  Routing compute(const Fabric& f, const EngineOptions&, const PreviousRouting&) override {
    Routing r = make_engine("ftree-misroute")->route(f);
    const Lid lid = f.node(f.cas().back()).port(1).base_lid;
    const int s = f.switches().front();
    if (spoil == 1) r.lfts.set(s, lid, kNoPath);
    if (spoil == 2) {  // the first switch sends it to a neighbour that sends it back
      const Node& n = f.node(s);
      for (int p = 1; p <= n.num_ports; p++) {
        const int nb = n.port(p).peer_node;
        if (nb < 0 || !f.node(nb).is_switch()) continue;
        r.lfts.set(s, lid, static_cast<uint8_t>(p));
        r.lfts.set(nb, lid, static_cast<uint8_t>(n.port(p).peer_port));
        break;
      }
    }
    return r;
  }
};

TEST(Pipeline, TheSelfCheckIsTheVerdictNoSecondWalk) {
  const Fabric f = tree();
  RoutingPipeline p("ftree-misroute", EngineOptions{});
  const RoutedStep step = p.run(f);
  ASSERT_TRUE(step.routing.self_check);
  EXPECT_EQ(step.verdict.source, "ftree-misroute self-check");
  EXPECT_TRUE(step.verdict.ok()) << step.verdict.summary();
  EXPECT_EQ(step.verdict.walks, step.routing.self_check->pairs);
  EXPECT_TRUE(step.verdict.cdg_checked);
  // without the reuse the result walk gives the same verdict
  PipelineOptions po;
  po.reuse_self_check = false;
  RoutingPipeline q("ftree-misroute", EngineOptions{}, po);
  const RoutedStep walked = q.run(f);
  EXPECT_EQ(walked.verdict.source, "result walk");
  EXPECT_TRUE(walked.verdict.ok()) << walked.verdict.summary();
  EXPECT_EQ(walked.routing.lfts, step.routing.lfts);
  EXPECT_EQ(walked.lids, step.lids);
  EXPECT_EQ(walked.entries, step.entries);
  EXPECT_GT(step.entries, 0);
  // an engine without a self-check gets the result walk
  RoutingPipeline m("ft-minhop", EngineOptions{});
  EXPECT_EQ(m.run(f).verdict.source, "result walk");
}

// The mutation this catches: reuse_self_check() not comparing the digest.
TEST(Pipeline, TablesChangedAfterTheSelfCheckAreWalkedAgain) {
  const Fabric f = tree();
  for (int spoil : {1, 2}) {
    auto w = std::make_unique<Wrapper>();
    w->spoil = spoil;
    RoutingPipeline p(std::move(w), EngineOptions{});
    try {
      p.run(f);
      ADD_FAILURE() << "spoilt tables accepted (spoil " << spoil << ")";
    } catch (const EngineError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(spoil == 1 ? "has no route to LID" : "loops through switch"), std::string::npos) << what;
      EXPECT_EQ(what.find("wrapper"), 0u) << what;
    }
    // the record is still there, and no longer matches
    auto w2 = std::make_unique<Wrapper>();
    w2->spoil = spoil;
    const Routing r = w2->route(f);
    ASSERT_TRUE(r.self_check);
    EXPECT_NE(lfts_digest(f, r.lfts), r.self_check->digest);
    EXPECT_FALSE(reuse_self_check(f, r).has_value());
  }
}

TEST(Pipeline, OptionsAreCheckedOnceWhenThePipelineIsMade) {
  const Fabric f = tree();
  auto w = std::make_unique<Wrapper>();
  Wrapper* seen = w.get();
  RoutingPipeline p(std::move(w), EngineOptions::parse("k=2"));
  EXPECT_EQ(seen->option_lookups, 1);
  for (int i = 0; i < 3; i++) p.run(f);
  EXPECT_EQ(seen->option_lookups, 1);
  // out of range or unknown: refused when made, before any fabric is routed
  EXPECT_THROW(RoutingPipeline(std::make_unique<Wrapper>(), EngineOptions::parse("k=9")), OptionError);
  EXPECT_THROW(RoutingPipeline(std::make_unique<Wrapper>(), EngineOptions::parse("x=1")), OptionError);
  EXPECT_THROW(RoutingPipeline("no-such-engine", EngineOptions{}), OptionError);
  // options checked by one engine are not another's
  auto a = make_engine("ft-minhop");
  auto b = make_engine("ftree-misroute");
  const CheckedOptions co = a->check_options(EngineOptions{});
  EXPECT_THROW(b->route(f, co, PreviousRouting{}), OptionError);
}

TEST(Pipeline, ValidationGivesTheVerdictAndKeepsTheReport) {
  const Fabric f = tree();
  PipelineOptions po;
  po.require_ok = false;
  po.validate = ValidateOptions{};
  RoutingPipeline p("ft-minhop", EngineOptions{}, po);
  RoutedStep step = p.run(f);
  ASSERT_TRUE(step.report);
  EXPECT_EQ(step.verdict.source, "validation");
  EXPECT_EQ(step.verdict.ok(), step.report->ok());
  EXPECT_EQ(step.verdict.walks, step.report->pairs);
  // a broken entry: both say so
  Routing bad = step.routing;
  bad.lfts.set(f.switches().front(), f.node(f.cas().back()).port(1).base_lid, kNoPath);
  const ValidationReport rep = validate(f, bad);
  const Verdict v = verdict_of(rep);
  EXPECT_FALSE(rep.ok());
  EXPECT_FALSE(v.ok());
  EXPECT_EQ(v.dropped(), rep.unreachable);
}

TEST(Verdict, SwitchLidsAreWalkedFromEverySwitch) {
  const Fabric f = tree();
  const Routing r = make_engine("ft-minhop")->route(f);
  ASSERT_TRUE(verify_routing(f, r).ok());
  // a route to a switch's own LID broken on another switch
  const int a = f.switches().front(), b = f.switches().back();
  const Lid lid_b = f.node(b).port(0).base_lid;
  Routing bad = r;
  bad.lfts.set(a, lid_b, kNoPath);
  const Verdict v = verify_routing(f, bad);
  EXPECT_EQ(v.per_kind[static_cast<int>(DropKind::NoRoute)], 1u) << v.summary();
  ASSERT_FALSE(v.examples.empty());
  EXPECT_NE(v.first_problem().find("has no route to LID " + std::to_string(lid_b)), std::string::npos) << v.summary();
  // the simulator's check sends to end ports only: switch LIDs are not its destinations
  VerifyOptions sim;
  sim.all_switches = false;
  sim.scan_entries = false;
  EXPECT_TRUE(verify_routing(f, bad, sim).ok());
}

TEST(Verdict, EntryScanFindsUnwalkedEntriesAndIsTheSameForEveryThreadCount) {
  const Fabric f = tree();
  Routing r = make_engine("ft-minhop")->route(f);
  // entries for a LID nobody owns are never walked; the scan decodes them
  const Lid spare = static_cast<Lid>(f.max_lid() + 1);
  const int s = f.switches()[3];
  r.lfts.set(s, spare, 99);
  r.lfts.set(f.switches()[5], spare, 0);
  VerifyOptions o;
  o.threads = 1;
  const Verdict one = verify_routing(f, r, o);
  EXPECT_EQ(one.bad_entries, 2u) << one.summary();
  EXPECT_EQ(one.dropped(), 0u);
  EXPECT_NE(one.first_problem().find("routes LID " + std::to_string(spare) + " to port 99"), std::string::npos)
      << one.summary();
  for (int t : {2, 3, 8}) {
    o.threads = t;
    const Verdict v = verify_routing(f, r, o);
    EXPECT_EQ(v.bad_entries, one.bad_entries);
    ASSERT_EQ(v.examples.size(), one.examples.size());
    for (size_t i = 0; i < v.examples.size(); i++) EXPECT_EQ(v.examples[i].text, one.examples[i].text);
    EXPECT_EQ(lfts_digest(f, r.lfts, t), lfts_digest(f, r.lfts, 1));
  }
}

// An engine that routes with ft-minhop the first time and afterwards hands back the previous
// tables with `patch` applied (as dqr patches them).
struct Patcher : Engine {
  std::function<void(const Fabric&, Routing&)> patch;
  std::string name() const override { return "patcher"; }
  Routing compute(const Fabric& f, const EngineOptions&, const PreviousRouting& prev) override {
    if (!prev.routing) return make_engine("ft-minhop")->route(f);
    Routing r = *prev.routing;
    r.self_check.reset();
    if (patch) patch(f, r);
    return r;
  }
};

// The incremental verdict walks only the LIDs whose entries changed since the routing the
// pipeline approved, and only when the fabric lost links and nothing else. The mutations this
// catches: changed_lids() marking nothing (the loop below is accepted), the entry scan skipped
// for unchanged LIDs (the entry into the removed link is accepted), a link added or a previous
// routing that is not the approved one walked incrementally (walk counts below).
TEST(Pipeline, IncrementalVerdictWalksOnlyTheChangedLids) {
  const Fabric f = tree();
  auto owned = std::make_unique<Patcher>();
  Patcher* eng = owned.get();
  RoutingPipeline p(std::move(owned), EngineOptions{});
  const RoutedStep first = p.run(f);
  ASSERT_EQ(first.verdict.source, "result walk");
  ASSERT_TRUE(first.verdict.ok()) << first.verdict.summary();
  const uint64_t full = first.verdict.walks;
  ASSERT_GT(full, 0u);

  // nothing changed: nothing walked
  const RoutedStep same = p.run(f, {&f, &first.routing});
  EXPECT_TRUE(same.verdict.ok()) << same.verdict.summary();
  EXPECT_EQ(same.verdict.walks, 0u);
  EXPECT_EQ(same.verdict.source, "result walk of the 0 LIDs changed since the approved previous routing");

  // one LID changed into a loop between a switch and its neighbour: walked and refused
  const Lid lid = f.node(f.cas().back()).port(1).base_lid;
  eng->patch = [&](const Fabric& g, Routing& r) {
    const int s = g.switches().front();
    const Node& n = g.node(s);
    for (int q = 1; q <= n.num_ports; q++) {
      const int nb = n.port(q).peer_node;
      if (nb < 0 || !g.node(nb).is_switch()) continue;
      r.lfts.set(s, lid, static_cast<uint8_t>(q));
      r.lfts.set(nb, lid, static_cast<uint8_t>(n.port(q).peer_port));
      break;
    }
  };
  try {
    p.run(f, {&f, &same.routing});
    ADD_FAILURE() << "a loop in a changed LID was accepted";
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find("loops through switch"), std::string::npos) << e.what();
  }

  // after a refusal nothing is approved: the next step is walked in full
  eng->patch = nullptr;
  const RoutedStep again = p.run(f, {&f, &first.routing});
  EXPECT_EQ(again.verdict.source, "result walk");
  EXPECT_EQ(again.verdict.walks, full);

  // a switch link used by the tables removed, the tables unchanged: the entry scan refuses them
  Fabric cut = f;
  int a = -1, pa = 0;
  for (int s : f.switches())
    for (int q = 1; q <= f.node(s).num_ports && a < 0; q++) {
      const Port& pt = f.node(s).port(q);
      if (!pt.connected() || !f.node(pt.peer_node).is_switch()) continue;
      for (size_t l = 1; l < first.routing.lfts.table(s).size(); l++)
        if (first.routing.lfts.table(s)[l] == q) a = s, pa = q;
    }
  ASSERT_GE(a, 0);
  cut.disconnect(a, pa);
  try {
    p.run(cut, {&f, &again.routing});
    ADD_FAILURE() << "an unchanged entry into a removed link was accepted";
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find("no working link"), std::string::npos) << e.what();
  }

  // a link added since the approved routing: walked in full (new start switches, new paths)
  RoutingPipeline q(std::make_unique<Patcher>(), EngineOptions{});
  Fabric tree_cut = f;
  tree_cut.disconnect(a, pa);  // routed from scratch on it: the link is not used
  const RoutedStep on_cut = q.run(tree_cut);  // approved on the fabric without the link
  ASSERT_EQ(on_cut.verdict.source, "result walk");
  ASSERT_TRUE(on_cut.verdict.ok()) << on_cut.verdict.summary();
  const RoutedStep relinked = q.run(f, {&tree_cut, &on_cut.routing});
  EXPECT_EQ(relinked.verdict.source, "result walk");
  EXPECT_GT(relinked.verdict.walks, 0u);

  // a previous routing other than the approved one: walked in full
  Routing other = relinked.routing;
  other.lfts.set(f.switches().back(), lid, other.lfts.get(f.switches().back(), lid));  // same entries
  const RoutedStep same_tables = q.run(f, {&f, &other});
  EXPECT_EQ(same_tables.verdict.walks, 0u) << "equal tables are the approved routing";
  Fabric renamed = f;
  renamed.node(f.switches().front()).guid ^= 1;
  const RoutedStep other_fabric = q.run(f, {&renamed, &relinked.routing});
  EXPECT_EQ(other_fabric.verdict.source, "result walk");
  EXPECT_GT(other_fabric.verdict.walks, 0u);
}

TEST(Verdict, DigestSeesEveryEntry) {
  const Fabric f = tree();
  const Routing r = make_engine("ft-minhop")->route(f);
  const uint64_t d = lfts_digest(f, r.lfts);
  int changed = 0, tried = 0;
  for (int s : f.switches()) {
    const size_t n = r.lfts.table(s).size();
    for (size_t lid : {size_t{1}, n / 2, n - 1}) {  // head, middle, the tail past the last 32-byte word
      Routing x = r;
      x.lfts.set(s, static_cast<Lid>(lid), static_cast<uint8_t>(r.lfts.get(s, static_cast<Lid>(lid)) ^ 1));
      tried++;
      changed += lfts_digest(f, x.lfts) != d;
    }
  }
  EXPECT_EQ(changed, tried);
  // a longer table with the new entry kNoPath is another table too
  Routing longer = r;
  longer.lfts.set(f.switches().front(), static_cast<Lid>(f.max_lid() + 40), kNoPath);
  EXPECT_NE(lfts_digest(f, longer.lfts), d);
}

}  // namespace
}  // namespace ftroute
