// What `ftroute sim` runs (flitsim/sim_run.cpp): the routing of --engine (an ftroute engine
// through the routing pipeline, or flitsim-minhop), the --fail/--recover/--reroute schedule with
// its fault replay, and the checks of option values, named as the command prints them.
#include <gtest/gtest.h>

#include "ftroute/flitsim_testnets.hpp"
#include "ftroute/sim_run.hpp"

namespace ftroute::flitsim {
namespace {

template <class F>
std::string sim_error(F&& f) {
  try {
    f();
  } catch (const SimOptionError& e) {
    return e.what();
  }
  return "(no SimOptionError)";
}

// A re-route without a file routes the fabric as it is at its cycle: without the links failed
// and not recovered by then.
TEST(SimRun, RerouteReplaysTheFaultsUpToItsCycle) {
  const Fabric f = make_mesh(3, 3, false);
  SimEngine engine("ft-minhop", EngineOptions{}, false);
  const int s = *f.find("S0_0"), peer = *f.find("S1_0");  // port 2 of S0_0 = +x = S1_0[3]
  const Routing intact = engine.route(f);
  bool uses = false;
  for (Lid d = 1; d <= f.max_lid(); d++) uses = uses || intact.lfts.get(s, d) == 2;
  ASSERT_TRUE(uses) << "the intact routing never takes the link: nothing to replay";
  const SimSchedule sched = sim_schedule(f, {"100:\"S0_0\"[2]"}, {"300:S0_0[2]"}, {"200", "400"}, nullptr, &engine);
  ASSERT_EQ(sched.links.size(), 2u);
  ASSERT_EQ(sched.reroutes.size(), 2u);
  EXPECT_EQ(sched.reroutes[0].first, 200);
  EXPECT_EQ(sched.reroutes[1].first, 400);
  const Routing& down = *sched.reroutes[0].second;
  for (Lid d = 1; d <= f.max_lid(); d++) {
    EXPECT_NE(down.lfts.get(s, d), 2) << "LID " << d << " over the failed link";
    EXPECT_NE(down.lfts.get(peer, d), 3) << "LID " << d << " over the failed link";
  }
  EXPECT_TRUE(down.lfts == engine.route(fabric_at(f, sched.links, 200)).lfts);
  EXPECT_TRUE(sched.reroutes[1].second->lfts == intact.lfts) << "the link is back at 300";
}

TEST(SimRun, BadValuesAreNamedAsTheCommandPrintsThem) {
  const Fabric f = make_mesh(2, 2, false);
  SimEngine engine("flitsim-minhop", EngineOptions{}, false);
  auto sched = [&](std::vector<std::string> reroutes, bool file, bool eng) {
    sim_schedule(f, {}, {}, reroutes, file ? [](const std::string&) { return Routing(); } : std::function<Routing(const std::string&)>(),
                 eng ? &engine : nullptr);
  };
  EXPECT_EQ(sim_error([&] { sched({"x"}, true, true); }), "--reroute expects CYCLE[:LFTFILE], got 'x'");
  EXPECT_EQ(sim_error([&] { sched({"-5"}, true, true); }), "--reroute cycle -5 is negative");
  EXPECT_EQ(sim_error([&] { sched({"5:t.lfts"}, false, true); }), "--reroute CYCLE:LFTFILE needs the fabric as a file, not --gen");
  EXPECT_EQ(sim_error([&] { sched({"5"}, true, false); }), "--reroute CYCLE without a file needs --engine");
  EXPECT_NE(sim_error([&] { sim_schedule(f, {"5:nosuch[1]"}, {}, {}, nullptr, nullptr); }).find("nosuch"), std::string::npos);
  EXPECT_EQ(sim_error([] { check_sim_load(1.5); }), "--load 1.5 out of range: offered flits/endpoint/cycle must be 0..1");
  EXPECT_NO_THROW(check_sim_load(0));
  EXPECT_NO_THROW(check_sim_load(1));
  EXPECT_EQ(parse_int_list("4x2", 'x', "--dims"), (std::vector<int>{4, 2}));
  EXPECT_EQ(sim_error([] { parse_int_list("2xq", 'x', "--dims"); }), "--dims: bad number 'q' in '2xq'");
  Config c;
  c.threads = 2;
  EXPECT_NO_THROW(check_sim_threads(c));
  c.nac = true;
  EXPECT_EQ(sim_error([&] { check_sim_threads(c); }), "--threads > 1 does not support NAC; use --threads 1");
  try {  // an unknown engine is no usage error: it names the engines, flitsim-minhop too
    SimEngine("no-such-engine", EngineOptions{}, false);
    ADD_FAILURE() << "accepted";
  } catch (const SimOptionError&) {
    ADD_FAILURE() << "a usage error";
  } catch (const OptionError& e) {
    EXPECT_NE(std::string(e.what()).find("flitsim-minhop"), std::string::npos) << e.what();
  }
}

TEST(SimRun, EngineRoutingCarriesThePipelineVerdictAndTheLmc) {
  const Fabric f = make_mesh(3, 3, false);
  SimEngine engine("ft-minhop", EngineOptions{}, false);
  const SimInput in = route_sim_fabric(f, -1, engine);
  ASSERT_TRUE(in.verdict.has_value());
  EXPECT_TRUE(in.verdict->ok()) << in.verdict->summary();
  EXPECT_EQ(in.fabric.max_lid(), f.max_lid()) << "LIDs of the fabric kept";
  SimEngine minhop("flitsim-minhop", EngineOptions{}, true);
  const SimInput lmc = route_sim_fabric(f, 1, minhop);
  EXPECT_FALSE(lmc.verdict.has_value());
  EXPECT_GT(lmc.fabric.max_lid(), f.max_lid()) << "LMC 1: two LIDs per end port";
  EXPECT_TRUE(lmc.check(true).ok()) << lmc.check(true).summary();
  EXPECT_EQ(sim_title("nets/f.net", "", "out/x.lfts", "uniform", true), "f.net, LFTs x.lfts, uniform, NAC");
  EXPECT_EQ(sim_title("f.net", "dqr", "", "tornado", false), "f.net, engine dqr, tornado");
  EXPECT_EQ(booksim_title("cfg/mesh.cfg", "uniform"), "mesh.cfg (BookSim2 config), uniform");
}

}  // namespace
}  // namespace ftroute::flitsim
