// Fail-in-place campaign library (campaign/): plan, sharding, in-process runs, CSV round trip,
// resume, merge, plots; one OpenSM run when ibsim/opensm are installed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "ftroute/campaign.hpp"
#include "ftroute/flitsim.hpp"
#include "ftroute/engine.hpp"
#include "ftroute/error.hpp"
#include "ftroute/ibdmchk_io.hpp"
#include "ftroute/lft_io.hpp"
#include "ftroute/netfile.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/validate.hpp"

using namespace ftroute;
namespace fs = std::filesystem;

namespace {

std::string tmpdir(const std::string& name) {
  std::string d = fs::temp_directory_path().string() + "/campaign_test_" + std::to_string(getpid()) + "_" + name;
  fs::remove_all(d);
  return d;
}

campaign::Config small_config(const std::string& out) {
  campaign::Config c;
  c.fabrics.push_back(campaign::parse_fabric_source("fattree:4,2", false));
  c.engines = {"ftree-misroute", "ft-minhop"};
  c.link_failures = {"0", "1", "2"};
  c.seeds = 2;
  c.jobs = 2;
  c.out_dir = out;
  return c;
}

bool have_sim() { return fs::exists("/usr/sbin/opensm") && fs::exists("/usr/bin/ibsim"); }

// The only run directory a keep_scratch campaign left in <out>/scratch.
std::string only_workdir(const std::string& out) {
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(out + "/scratch")) dirs.push_back(e.path());
  EXPECT_EQ(dirs.size(), 1u);
  return dirs.empty() ? "" : dirs[0].string();
}

// One campaign run of OpenSM engine `engine` ("opensm:...") on the generated fabric `spec` with
// `link_failures` failed links (seed 1), output in `dir`; `tweak` adjusts the configuration.
campaign::RunResult opensm_run(const std::string& dir, const std::string& spec, const std::string& engine,
                               const std::string& link_failures, int timeout,
                               const std::function<void(campaign::Config&)>& tweak = {}) {
  campaign::Config c;
  c.fabrics.push_back(campaign::parse_fabric_source(spec, false));
  c.engines = {engine};
  c.out_dir = dir;
  c.opensm_timeout = timeout;
  if (tweak) tweak(c);
  Fabric f = campaign::build_fabric(c.fabrics[0]);
  return campaign::run_one(c, f, {spec, engine, link_failures, "0", 1});
}

}  // namespace

TEST(Campaign, FailureCounts) {
  EXPECT_EQ(campaign::failures_count("4", 100), 4);
  EXPECT_EQ(campaign::failures_count("1%", 1296), 13);
  EXPECT_EQ(campaign::failures_count("0.5%", 200), 1);
  EXPECT_THROW(campaign::failures_count("x", 10), OptionError);
  EXPECT_THROW(campaign::failures_count("-1", 10), OptionError);
  EXPECT_THROW(campaign::failures_count("101%", 10), OptionError);
  EXPECT_DOUBLE_EQ(campaign::failures_x("3%"), 3.0);
}

TEST(Campaign, GeneratorSpecs) {
  EXPECT_EQ(campaign::build_fabric(campaign::parse_fabric_source("fattree:4,2", false)).cas().size(), 16u);
  EXPECT_EQ(campaign::build_fabric(campaign::parse_fabric_source("torus:3x3,2", false)).switches().size(), 9u);
  EXPECT_EQ(campaign::build_fabric(campaign::parse_fabric_source("mesh:2x3", false)).cas().size(), 6u);
  EXPECT_THROW(campaign::build_fabric(campaign::parse_fabric_source("ring:4", false)), OptionError);
  EXPECT_THROW(campaign::build_fabric(campaign::parse_fabric_source("fattree:4", false)), OptionError);
  EXPECT_THROW(campaign::build_fabric(campaign::parse_fabric_source("/nonexistent.net", true)), ParseError);
}

TEST(Campaign, PlanAndShardsPartitionTheRuns) {
  auto c = small_config("unused");
  auto all = campaign::plan(c);
  ASSERT_EQ(all.size(), 2u * 3u * 2u);
  std::set<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    c.shard_index = i;
    c.shard_count = 3;
    for (const auto& k : campaign::plan(c)) EXPECT_TRUE(ids.insert(k.id()).second) << k.id();
  }
  EXPECT_EQ(ids.size(), all.size());
  c.shard_index = 3;
  EXPECT_THROW(campaign::plan(c), OptionError);
}

TEST(Campaign, RunOneFaultsAreSeededAndValidated) {
  auto c = small_config("unused");
  Fabric f = campaign::build_fabric(c.fabrics[0]);
  auto r1 = campaign::run_one(c, f, {c.fabrics[0].name, "ftree-misroute", "2", "0", 7});
  auto r2 = campaign::run_one(c, f, {c.fabrics[0].name, "ftree-misroute", "2", "0", 7});
  EXPECT_EQ(r1.status, "ok") << r1.message;
  EXPECT_EQ(r1.links_removed, 2);
  EXPECT_EQ(r1.links, f.num_links() - 2);
  EXPECT_EQ(r1.unreachable, 0u);  // misrouting tolerates 2 faults in a 4-ary 2-tree
  EXPECT_GT(r1.pairs, 0u);
  EXPECT_TRUE(r1.deadlock_checked);
  EXPECT_EQ(campaign::csv_row(r1).substr(0, 40), campaign::csv_row(r2).substr(0, 40));
  EXPECT_EQ(r1.efi_max, r2.efi_max);
  // An engine that refuses the fabric is recorded, not thrown.
  Fabric torus = campaign::build_fabric(campaign::parse_fabric_source("torus:3x3", false));
  auto r3 = campaign::run_one(c, torus, {"torus:3x3", "ftree-misroute", "0", "0", 1});
  EXPECT_EQ(r3.status, "refused");
  EXPECT_FALSE(r3.message.empty());
  EXPECT_FALSE(r3.routing_ok());
}

// --engines NAME[k=v,..]: an engine with options is a variant of its own (its runs keyed by the
// whole entry), routed with those options; bad entries stop the campaign before any run.
TEST(Campaign, EngineVariantsCarryTheirOptions) {
  EXPECT_EQ(campaign::split_engines("ftree-misroute,ftree-misroute[vls=2,max_valleys=4],opensm:updn"),
            (std::vector<std::string>{"ftree-misroute", "ftree-misroute[vls=2,max_valleys=4]", "opensm:updn"}));
  const auto v = campaign::engine_variant("ftree-misroute[vls=2,max_valleys=4]");
  EXPECT_EQ(v.name, "ftree-misroute");
  EXPECT_EQ(v.options.get("vls", ""), "2");
  EXPECT_EQ(v.options.get("max_valleys", ""), "4");
  EXPECT_TRUE(campaign::engine_variant("ft-minhop").options.all().empty());
  for (const char* bad : {"ftree-misroute[vls=99]", "ftree-misroute[nope=1]", "ftree-misroute[vls=2", "ftree-misroute[vls=2]x",
                          "opensm:updn[x=1]", "no-such-engine[a=1]", "[vls=2]"})
    EXPECT_THROW(campaign::engine_variant(bad), OptionError) << bad;
  // The variant routes with its options: with 8 cables cut (seed 1) the 4-ary 3-tree's U-turns
  // take two valley chains on two VLs with vls=2, one VL without.
  auto c = small_config("unused");
  Fabric f = campaign::build_fabric(campaign::parse_fabric_source("fattree:4,3", false));
  auto plain = campaign::run_one(c, f, {"fattree:4,3", "ftree-misroute", "8", "0", 1});
  auto two = campaign::run_one(c, f, {"fattree:4,3", "ftree-misroute[vls=2]", "8", "0", 1});
  ASSERT_EQ(plain.status, "ok") << plain.message;
  ASSERT_EQ(two.status, "ok") << two.message;
  EXPECT_EQ(two.key.engine, "ftree-misroute[vls=2]");
  EXPECT_EQ(plain.vls_used, 1);
  EXPECT_EQ(two.vls_used, 2);
}

TEST(Campaign, SimulationFillsThroughput) {
  auto c = small_config("unused");
  c.pattern = "uniform";
  c.sim_load = 0.3;
  c.sim_warmup = 100;
  c.sim_measure = 500;
  Fabric f = campaign::build_fabric(c.fabrics[0]);
  auto r = campaign::run_one(c, f, {c.fabrics[0].name, "ftree-misroute", "1", "0", 1});
  ASSERT_EQ(r.status, "ok") << r.message;
  EXPECT_TRUE(r.simulated);
  EXPECT_GT(r.sim_accepted, 0.1);
  EXPECT_FALSE(r.sim_deadlock);
  // per-HCA consumption bandwidth: min <= q1 <= median <= q3 <= max around the mean, and the
  // five survive the CSV round trip
  ASSERT_EQ(r.sim_hca.size(), 5u);
  EXPECT_TRUE(std::is_sorted(r.sim_hca.begin(), r.sim_hca.end()));
  EXPECT_LE(r.sim_hca[0], r.sim_accepted);
  EXPECT_GE(r.sim_hca[4], r.sim_accepted);
  EXPECT_GT(r.sim_hca[0], 0.0);
  EXPECT_GT(r.sim_net_latency, 0.0);
  EXPECT_LE(r.sim_net_latency, r.sim_latency);
  auto back = campaign::parse_csv(campaign::csv_header() + "\n" + campaign::csv_row(r) + "\n", "x.csv");
  ASSERT_EQ(back.size(), 1u);
  ASSERT_EQ(back[0].sim_hca.size(), 5u);
  for (size_t i = 0; i < 5; i++) EXPECT_NEAR(back[0].sim_hca[i], r.sim_hca[i], 1e-6 * (1 + r.sim_hca[i]));
  EXPECT_NEAR(back[0].sim_net_latency, r.sim_net_latency, 1e-6 * r.sim_net_latency);
}

// The paper's shift-exchange runs to completion: every packet delivered, so offered == accepted
// (both are flits / (endpoints x runtime)); an endpoint ejects at most one flit per cycle.
TEST(Campaign, ShiftExchangeRunsToCompletion) {
  auto c = small_config("unused");
  c.pattern = "shift-exchange";
  c.sim_msg_packets = 2;
  Fabric f = campaign::build_fabric(c.fabrics[0]);  // fattree:4,2: 8 hosts
  for (const char* lf : {"0", "2"}) {
    auto r = campaign::run_one(c, f, {c.fabrics[0].name, "ftree-misroute", lf, "0", 1});
    ASSERT_EQ(r.status, "ok") << r.message;
    EXPECT_TRUE(r.simulated);
    EXPECT_FALSE(r.sim_deadlock);
    EXPECT_EQ(r.message, "");
    EXPECT_GT(r.sim_accepted, 0.2) << lf;
    EXPECT_LE(r.sim_accepted, 1.0) << lf;  // an endpoint ejects at most one flit per cycle
    EXPECT_NEAR(r.sim_offered, r.sim_accepted, 1e-9) << "not every packet was delivered";
  }
}

// The trace is an all-to-all in either order: every ordered pair `packets` times; with an
// order, position k sends to position k + s (shifts +1, -1, +2, ... over the positions).
TEST(Campaign, ShiftExchangeTraceOrders) {
  auto pairs = [](const std::string& trace) {
    std::map<std::pair<int, int>, int> m;
    std::istringstream in(trace);
    int t, a, b;
    while (in >> t >> a >> b) {
      EXPECT_EQ(t, 0);
      m[{a, b}]++;
    }
    return m;
  };
  for (int n : {7, 8}) {
    const std::vector<int> order = campaign::random_endpoint_order(n, 3);
    EXPECT_EQ(std::set<int>(order.begin(), order.end()).size(), static_cast<size_t>(n));  // a permutation
    EXPECT_EQ(*std::max_element(order.begin(), order.end()), n - 1);
    for (const auto& o : {std::vector<int>{}, order}) {
      auto m = pairs(campaign::shift_exchange_trace(n, 2, o));
      EXPECT_EQ(m.size(), static_cast<size_t>(n * (n - 1))) << n;
      for (auto [k, c] : m) {
        EXPECT_NE(k.first, k.second);
        EXPECT_EQ(c, 2);
      }
    }
    // the first shift (+1) over the positions
    std::istringstream in(campaign::shift_exchange_trace(n, 1, order));
    for (int k = 0; k < n; ++k) {
      int t, a, b;
      ASSERT_TRUE(in >> t >> a >> b);
      EXPECT_EQ(a, order[static_cast<size_t>(k)]);
      EXPECT_EQ(b, order[static_cast<size_t>((k + 1) % n)]);
    }
  }
  EXPECT_EQ(campaign::random_endpoint_order(280, 1), campaign::random_endpoint_order(280, 1));
  EXPECT_NE(campaign::random_endpoint_order(280, 1), campaign::random_endpoint_order(280, 2));
  std::vector<int> id(280);
  for (int i = 0; i < 280; ++i) id[static_cast<size_t>(i)] = i;
  EXPECT_NE(campaign::random_endpoint_order(280, 1), id);
  EXPECT_THROW(campaign::shift_exchange_trace(8, 1, {0, 1, 2}), Error);
}

// A shift-exchange run of `engine` on c's first fabric in index order and one in `order`, the
// second checked to deliver every packet without a deadlock; returns both.
std::pair<campaign::RunResult, campaign::RunResult> index_and_order(campaign::Config c, const std::string& engine,
                                                                   campaign::Config::ShiftOrder order) {
  c.pattern = "shift-exchange";
  Fabric f = campaign::build_fabric(c.fabrics[0]);
  auto plain = campaign::run_one(c, f, {c.fabrics[0].name, engine, "0", "0", 1});
  c.shift_order = order;
  auto r = campaign::run_one(c, f, {c.fabrics[0].name, engine, "0", "0", 1});
  EXPECT_EQ(r.status, "ok") << r.message;
  EXPECT_TRUE(r.simulated);
  EXPECT_FALSE(r.sim_deadlock);
  EXPECT_NEAR(r.sim_offered, r.sim_accepted, 1e-9) << "not every packet was delivered";
  EXPECT_TRUE(plain.simulated);
  return {plain, r};
}

// --shift-order random: another (seeded) order, still every packet delivered
TEST(Campaign, ShiftExchangeRandomOrderRunsToCompletion) {
  auto [plain, r] = index_and_order(small_config("unused"), "ftree-misroute", campaign::Config::ShiftOrder::Random);
  EXPECT_GT(r.sim_accepted, 0.2);
  // another pattern (deterministic: flitsim is seeded; 0.81 vs 0.53 flits/endpoint/cycle here)
  EXPECT_GT(std::abs(plain.sim_accepted - r.sim_accepted), 0.05);
}

// --shift-order distance: the paper's distance-matrix order. On a 3x3 mesh with 2 HCAs per switch
// in row-major generator order it is the snake: both HCAs of a switch, then the nearest switch
// with HCAs left (ties to the lower position): switches 0 1 2 5 4 3 6 7 8. On any fabric each step
// goes to a nearest endpoint not placed yet.
TEST(Campaign, DistanceOrderIsNearestNeighbourFirst) {
  Fabric f = campaign::build_fabric(campaign::parse_fabric_source("mesh:3x3,2", false));
  f.assign_lids();
  const auto eps = flitsim::endpoints_of(f);
  std::vector<int> members(eps.size());
  for (size_t i = 0; i < eps.size(); ++i) members[i] = static_cast<int>(i);
  const std::vector<int> order = campaign::distance_endpoint_order(f, members);
  ASSERT_EQ(order.size(), 18u);
  auto sw_of = [&](int pos) { return f.node(eps[static_cast<size_t>(pos)].node).port(eps[static_cast<size_t>(pos)].port).peer_node; };
  std::vector<int> switches;  // the switch of every second endpoint, as a mesh position
  const std::vector<int> all = f.switches();
  for (size_t k = 0; k < order.size(); k += 2) {
    EXPECT_EQ(sw_of(order[k]), sw_of(order[k + 1])) << "HCAs of one switch not together at " << k;
    switches.push_back(static_cast<int>(std::find(all.begin(), all.end(), sw_of(order[k])) - all.begin()));
  }
  EXPECT_EQ(switches, (std::vector<int>{0, 1, 2, 5, 4, 3, 6, 7, 8}));
  // Nearest first on a faulty fat tree, checked against BFS distances of its own.
  Fabric t = campaign::build_fabric(campaign::parse_fabric_source("fattree:4,3", false));
  t.disconnect(t.switches()[0], 3);
  t.assign_lids();
  const auto teps = flitsim::endpoints_of(t);
  std::vector<int> tm;
  for (size_t i = 1; i < teps.size(); i += 2) tm.push_back(static_cast<int>(i));  // a subset of the endpoints
  const std::vector<int> to = campaign::distance_endpoint_order(t, tm);
  ASSERT_EQ(to.size(), tm.size());
  std::vector<int> sorted = to;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) ASSERT_EQ(sorted[i], static_cast<int>(i));
  auto hops = [&](int a, int b) {  // BFS over switches from the switch of member a
    auto sw = [&](int m) { const auto& e = teps[static_cast<size_t>(tm[static_cast<size_t>(m)])]; return t.node(e.node).port(e.port).peer_node; };
    std::vector<int> dist(static_cast<size_t>(t.size()), -1);
    std::vector<int> q{sw(a)};
    dist[static_cast<size_t>(sw(a))] = 0;
    for (size_t h = 0; h < q.size(); ++h)
      for (int p = 1; p <= t.node(q[h]).num_ports; ++p) {
        const Port& pp = t.node(q[h]).port(p);
        if (!pp.connected() || !t.node(pp.peer_node).is_switch() || dist[static_cast<size_t>(pp.peer_node)] >= 0) continue;
        dist[static_cast<size_t>(pp.peer_node)] = dist[static_cast<size_t>(q[h])] + 1;
        q.push_back(pp.peer_node);
      }
    return dist[static_cast<size_t>(sw(b))];
  };
  EXPECT_EQ(to[0], 0);
  for (size_t k = 0; k + 1 < to.size(); ++k) {
    int nearest = 1 << 30;
    for (size_t j = k + 1; j < to.size(); ++j) nearest = std::min(nearest, hops(to[k], to[j]));
    EXPECT_EQ(hops(to[k], to[k + 1]), nearest) << "step " << k;
  }
}

// A campaign run in distance order delivers every packet, runs another pattern than index order,
// and campaign.conf records the order.
TEST(Campaign, ShiftExchangeDistanceOrderRunsAndIsRecorded) {
  auto c = small_config("unused");
  c.fabrics = {campaign::parse_fabric_source("mesh:3x3,2", false)};
  auto [plain, r] = index_and_order(c, "ft-dor", campaign::Config::ShiftOrder::Distance);
  EXPECT_NE(plain.sim_accepted, r.sim_accepted);
  c.pattern = "shift-exchange";
  c.shift_order = campaign::Config::ShiftOrder::Distance;
  std::map<std::string, std::string> m;
  for (const auto& [k, v] : campaign::campaign_settings(c)) m[k] = v;
  EXPECT_EQ(m["shift_order"], "distance");
}

// --sim-packet / --sim-buffer / --sim-link-latency reach flitsim, each on its own: the same
// exchange completes with another throughput with 32-flit packets (Eq. 7 counts their flits: at
// most one per endpoint and cycle) and with one-packet buffers, and 3-cycle links add 2 cycles of
// network latency per link crossed (at least the two CA links); then the seed 003 paper's model.
TEST(Campaign, SimulatorModelReachesFlitsim) {
  auto c = small_config("unused");
  c.pattern = "shift-exchange";
  c.sim_msg_packets = 2;
  Fabric f = campaign::build_fabric(c.fabrics[0]);
  const campaign::RunKey key{c.fabrics[0].name, "ftree-misroute", "0", "0", 1};
  auto run = [&](int packet, int buffer, int latency) {
    auto m = c;
    m.sim_packet_flits = packet, m.sim_buffer_flits = buffer, m.sim_link_latency = latency;
    auto r = campaign::run_one(m, f, key);
    EXPECT_EQ(r.status, "ok") << r.message;
    EXPECT_TRUE(r.simulated);
    EXPECT_FALSE(r.sim_deadlock);
    EXPECT_NEAR(r.sim_offered, r.sim_accepted, 1e-9) << "not every packet was delivered";
    EXPECT_GT(r.sim_accepted, 0.1);
    EXPECT_LE(r.sim_accepted, 1.0);
    return r;
  };
  const auto plain = run(16, 64, 1);
  const auto packets = run(32, 64, 1);
  const auto shallow = run(16, 16, 1);
  const auto slow = run(16, 64, 3);
  const auto paper = run(32, 206, 3);
  EXPECT_GT(std::abs(packets.sim_accepted - plain.sim_accepted), 1e-3);
  EXPECT_LT(shallow.sim_accepted, plain.sim_accepted - 1e-3);  // one packet per buffer: less overlap
  EXPECT_GE(slow.sim_net_latency, plain.sim_net_latency + 4);
  EXPECT_GT(std::abs(paper.sim_accepted - packets.sim_accepted), 1e-3);
  // a model flitsim refuses is a configuration mistake: it stops the campaign (OptionError)
  c.sim_packet_flits = 32, c.sim_buffer_flits = 16;
  try {
    campaign::run_one(c, f, key);
    FAIL() << "a 16-flit buffer for 32-flit packets was simulated";
  } catch (const OptionError& e) {
    EXPECT_NE(std::string(e.what()).find("cut-through"), std::string::npos) << e.what();
  }
}

// The model is recorded; a record without its keys means flitsim's defaults (16 / 64 / 1).
TEST(Campaign, SettingsRecordTheSimulatorModel) {
  auto c = small_config("unused");
  c.pattern = "uniform";
  auto def = campaign::campaign_settings(c);
  std::map<std::string, std::string> m(def.begin(), def.end());
  EXPECT_EQ(m["sim_packet"], "16");
  EXPECT_EQ(m["sim_buffer"], "64");
  EXPECT_EQ(m["sim_link_latency"], "1");
  EXPECT_EQ(campaign::setting_option("sim_link_latency"), "--sim-link-latency");
  campaign::Settings old = {{"pattern", "uniform"}, {"sim_load", "0.9"}, {"sim_cycles", "3000"}};
  campaign::SettingMismatch mm;
  EXPECT_FALSE(campaign::compare_campaign_settings(&old, def, &mm));
  c.sim_buffer_flits = 128;
  ASSERT_TRUE(campaign::compare_campaign_settings(&old, campaign::campaign_settings(c), &mm));
  EXPECT_EQ(mm.key, "sim_buffer");
  EXPECT_EQ(mm.recorded, "64");
  EXPECT_EQ(mm.requested, "128");
  EXPECT_TRUE(mm.assumed);
  c.pattern.clear();  // no simulation: the model does not apply
  m.clear();
  for (const auto& [k, v] : campaign::campaign_settings(c)) m[k] = v;
  EXPECT_EQ(m["sim_packet"], "-");
  EXPECT_EQ(m["sim_buffer"], "-");
}

// Every file under dir (relative path -> bytes), to show a refused run wrote nothing.
std::map<std::string, std::string> dir_bytes(const std::string& dir) {
  std::map<std::string, std::string> m;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    std::ifstream in(e.path(), std::ios::binary);
    m[fs::relative(e.path(), dir).string()] = std::string((std::istreambuf_iterator<char>(in)), {});
  }
  return m;
}

// The settings outside the run key are recorded in DIR/campaign.conf (--shift-order among them),
// and "-" where they do not apply to the pattern.
TEST(Campaign, SettingsRecordShiftOrderAndRoundTrip) {
  auto c = small_config("unused");
  c.pattern = "shift-exchange";
  c.shift_order = campaign::Config::ShiftOrder::Random;
  auto s = campaign::campaign_settings(c);
  std::map<std::string, std::string> m(s.begin(), s.end());
  EXPECT_EQ(m["pattern"], "shift-exchange");
  EXPECT_EQ(m["shift_order"], "random");
  EXPECT_EQ(m["sim_msg_packets"], "1");
  EXPECT_EQ(m["sim_load"], "-");  // not for shift-exchange
  EXPECT_EQ(campaign::parse_campaign_settings(campaign::campaign_settings_text(s), "c.conf"), s);
  c.pattern = "uniform";
  m.clear();
  for (const auto& [k, v] : campaign::campaign_settings(c)) m[k] = v;
  EXPECT_EQ(m["shift_order"], "-");  // the order does not apply to uniform traffic
  EXPECT_EQ(m["sim_load"], "0.9");
  EXPECT_EQ(campaign::setting_option("shift_order"), "--shift-order");
  // damaged files name file:line
  try {
    campaign::parse_campaign_settings("pattern uniform\nshift_order\n", "d/campaign.conf");
    FAIL() << "line without a value accepted";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("d/campaign.conf:2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(campaign::parse_campaign_settings("colour blue\n", "x"), ParseError);
  EXPECT_THROW(campaign::parse_campaign_settings("pattern a\npattern b\n", "x"), ParseError);
}

TEST(Campaign, SettingsCompareMissingShiftOrderMeansIndex) {
  auto c = small_config("unused");
  c.pattern = "shift-exchange";
  auto index = campaign::campaign_settings(c);
  c.shift_order = campaign::Config::ShiftOrder::Random;
  auto random = campaign::campaign_settings(c);
  campaign::SettingMismatch m;
  EXPECT_FALSE(campaign::compare_campaign_settings(&index, index, &m));
  ASSERT_TRUE(campaign::compare_campaign_settings(&index, random, &m));
  EXPECT_EQ(m.key, "shift_order");
  EXPECT_EQ(m.recorded, "index");
  EXPECT_EQ(m.requested, "random");
  EXPECT_FALSE(m.assumed);
  // no record (old directory): index order assumed, the rest not compared
  EXPECT_FALSE(campaign::compare_campaign_settings(nullptr, index, &m));
  ASSERT_TRUE(campaign::compare_campaign_settings(nullptr, random, &m));
  EXPECT_TRUE(m.assumed);
  EXPECT_EQ(m.recorded, "index");
  // a record without the key: the same
  campaign::Settings old = {{"pattern", "shift-exchange"}};
  ASSERT_TRUE(campaign::compare_campaign_settings(&old, random, &m));
  EXPECT_EQ(m.key, "shift_order");
  // another pattern is reported as the pattern, not as the order
  c.pattern = "uniform";
  ASSERT_TRUE(campaign::compare_campaign_settings(&index, campaign::campaign_settings(c), &m));
  EXPECT_EQ(m.key, "pattern");
}

// One ft-minhop run of the shift-exchange without failures, in a fresh directory.
campaign::Config shift_exchange_config(const std::string& d) {
  auto c = small_config(d);
  c.engines = {"ft-minhop"};
  c.link_failures = {"0"};
  c.seeds = 1;
  c.pattern = "shift-exchange";
  return c;
}

// A campaign records its settings; resuming it with the other --shift-order is refused before
// anything is written (the directory stays byte-identical); with the same order it resumes.
TEST(Campaign, ResumeWithOtherShiftOrderIsRefused) {
  std::string d = tmpdir("shiftorder");
  auto c = shift_exchange_config(d);
  ASSERT_EQ(campaign::run_campaign(c).size(), 1u);
  campaign::Settings rec;
  ASSERT_TRUE(campaign::read_campaign_settings(d, &rec));
  EXPECT_EQ(rec, campaign::campaign_settings(c));
  std::ifstream sum(d + "/summary.txt");
  std::string head;
  std::getline(sum, head);
  EXPECT_NE(head.find("shift order index"), std::string::npos) << head;

  const auto before = dir_bytes(d);
  auto other = c;
  other.shift_order = campaign::Config::ShiftOrder::Random;
  other.seeds = 2;
  try {
    campaign::run_campaign(other);
    FAIL() << "resume with another shift order accepted";
  } catch (const OptionError& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find(d), std::string::npos) << w;
    EXPECT_NE(w.find("shift_order index"), std::string::npos) << w;
    EXPECT_NE(w.find("shift_order random"), std::string::npos) << w;
    EXPECT_NE(w.find("--shift-order"), std::string::npos) << w;
    EXPECT_EQ(w.find('\n'), std::string::npos) << w;
  }
  EXPECT_EQ(dir_bytes(d), before) << "a refused run changed the directory";
  // the same order extends it
  c.seeds = 2;
  EXPECT_EQ(campaign::run_campaign(c).size(), 2u);
  fs::remove_all(d);
}

// A directory written before the settings were recorded (no campaign.conf) resumes as index
// order, is refused with random, and is not given a campaign.conf it never had.
TEST(Campaign, OldDirectoryWithoutSettingsResumesAsIndex) {
  std::string d = tmpdir("oldsettings");
  auto c = shift_exchange_config(d);
  ASSERT_EQ(campaign::run_campaign(c).size(), 1u);
  fs::remove(d + "/campaign.conf");
  const auto before = dir_bytes(d);
  auto rnd = c;
  rnd.shift_order = campaign::Config::ShiftOrder::Random;
  rnd.seeds = 2;
  try {
    campaign::run_campaign(rnd);
    FAIL() << "old directory resumed with --shift-order random";
  } catch (const OptionError& e) {
    EXPECT_NE(std::string(e.what()).find("no campaign.conf"), std::string::npos) << e.what();
  }
  EXPECT_EQ(dir_bytes(d), before);
  c.seeds = 2;
  auto rows = campaign::run_campaign(c);
  EXPECT_EQ(rows.size(), 2u);
  for (const auto& r : rows) EXPECT_EQ(r.status, "ok") << r.message;
  EXPECT_FALSE(fs::exists(d + "/campaign.conf"));
  std::ifstream sum(d + "/summary.txt");
  std::string head;
  std::getline(sum, head);
  EXPECT_NE(head.find("not recorded"), std::string::npos) << head;
  fs::remove_all(d);
}

TEST(Campaign, SummaryShowsMedianAndWorstChangeVsFaultFree) {
  std::vector<campaign::RunResult> rows;
  auto add = [&](const std::string& lf, int seed, double thr) {
    campaign::RunResult r;
    r.key = {"f", "e", lf, "0", seed};
    r.simulated = true;
    r.sim_accepted = thr;
    rows.push_back(r);
  };
  add("0", 1, 0.5), add("0", 2, 0.5);
  add("2", 1, 0.45), add("2", 2, 0.35), add("2", 3, 0.40);
  std::string t = campaign::summary_table(rows);
  EXPECT_NE(t.find("-20.0%(-30.0)"), std::string::npos) << t;  // median 0.40, worst 0.35 vs 0.5
  EXPECT_NE(t.find("+0.0%(+0.0)"), std::string::npos) << t;
}

TEST(Campaign, CsvRoundTripQuotesAndRejectsDamage) {
  campaign::RunResult r;
  r.key = {"fattree:4,2", "opensm:updn", "1%", "0", 3};
  r.message = "a \"quoted\" reason";
  r.unreachable = 12;
  r.efi_avg = 1.5;
  std::string text = campaign::csv_header() + "\n" + campaign::csv_row(r) + "\n";
  auto rows = campaign::parse_csv(text, "x.csv");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].key.id(), r.key.id());
  EXPECT_EQ(rows[0].message, r.message);
  EXPECT_EQ(rows[0].unreachable, 12u);
  EXPECT_DOUBLE_EQ(rows[0].efi_avg, 1.5);
  std::string cut = text.substr(0, text.size() - 10);  // a row truncated by a crash
  try {
    campaign::parse_csv(cut, "x.csv");
    FAIL() << "truncated row accepted";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("x.csv:2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(campaign::parse_csv("fabric,engine\n", "y.csv"), ParseError);
}

TEST(Campaign, RunsResumeAndMerge) {
  std::string d = tmpdir("resume");
  auto c = small_config(d);
  c.link_failures = {"0", "1"};
  auto rows = campaign::run_campaign(c);
  ASSERT_EQ(rows.size(), 8u);
  for (const auto& r : rows) EXPECT_EQ(r.status, "ok") << r.key.id() << ": " << r.message;
  EXPECT_TRUE(fs::exists(d + "/summary.txt"));
  EXPECT_TRUE(fs::exists(d + "/plots/fattree_4_2_unreachable.svg"));
  std::ifstream svg(d + "/plots/fattree_4_2_efi_max.svg");
  std::string s((std::istreambuf_iterator<char>(svg)), {});
  EXPECT_NE(s.find("ftree-misroute"), std::string::npos);
  EXPECT_NE(s.find("</svg>"), std::string::npos);

  // Resume: a second run adds only the new failure level.
  c.link_failures = {"0", "1", "2"};
  size_t calls = 0, skipped = 0;
  rows = campaign::run_campaign(c, [&](const campaign::Progress& p) {
    ++calls;
    skipped = p.skipped;
  });
  EXPECT_EQ(rows.size(), 12u);
  EXPECT_EQ(calls, 4u);
  EXPECT_EQ(skipped, 8u);

  // Shards into two directories, merged, equal the keys of the whole campaign.
  std::string d0 = tmpdir("shard0"), d1 = tmpdir("shard1");
  auto c0 = c, c1 = c;
  c0.out_dir = d0, c0.shard_index = 0, c0.shard_count = 2;
  c1.out_dir = d1, c1.shard_index = 1, c1.shard_count = 2;
  auto p0 = campaign::run_campaign(c0), p1 = campaign::run_campaign(c1);
  EXPECT_EQ(p0.size() + p1.size(), 12u);
  int dup = -1;
  auto merged = campaign::merge({p0, p1, p0}, &dup);
  EXPECT_EQ(merged.size(), 12u);
  EXPECT_EQ(dup, static_cast<int>(p0.size()));
  std::set<std::string> a, b;
  for (const auto& r : merged) a.insert(r.key.id());
  for (const auto& r : rows) b.insert(r.key.id());
  EXPECT_EQ(a, b);
  // A crash in the middle of a row: the partial line is dropped and that run is redone.
  {
    std::ofstream o(d + "/results.csv", std::ios::app);
    o << "\"fattree:4,2\",ftree-misroute,9,0,1,ok,ftree-mis";
  }
  EXPECT_THROW(campaign::read_csv(d + "/results.csv"), ParseError);
  rows = campaign::run_campaign(c);
  EXPECT_EQ(rows.size(), 12u);
  fs::remove_all(d);
  fs::remove_all(d0);
  fs::remove_all(d1);
}

TEST(Campaign, OpenSmRunUnderIbsim) {
  if (!have_sim()) GTEST_SKIP() << "ibsim/opensm not installed";
  std::string d = tmpdir("opensm");
  auto r = opensm_run(d, "fattree:2,2", "opensm:updn", "1", 15);
  ASSERT_EQ(r.status, "ok") << r.message;
  EXPECT_EQ(r.engine_used, "updn");
  EXPECT_FALSE(r.fallback);
  EXPECT_EQ(r.links_removed, 1);
  EXPECT_GT(r.pairs, 0u);
  EXPECT_EQ(r.unreachable, 0u);
  EXPECT_TRUE(r.deadlock_checked);
  EXPECT_TRUE(r.cdg_acyclic);  // up*/down* is deadlock-free on one VL
  EXPECT_FALSE(fs::exists(d + "/scratch") && !fs::is_empty(d + "/scratch")) << "scratch not cleaned";
  fs::remove_all(d);
}


TEST(Campaign, PathSlOutputParsing) {
  size_t missing = 9;
  auto m = campaign::parse_pathsl_output("2 9 1\n- 0x0000000000100001 0x0000000000100002\n3 4 0\n", &missing);
  EXPECT_EQ(missing, 1u);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m.at((2u << 16) | 9u), 1);
  EXPECT_THROW(campaign::parse_pathsl_output("2 9\n", &missing), Error);
  EXPECT_THROW(campaign::parse_pathsl_output("2 9 16\n", &missing), Error);
}

TEST(Campaign, Torus2QosConfForGeneratedGrids) {
  Fabric t = campaign::build_fabric(campaign::parse_fabric_source("torus:4x4", false));
  std::string c = campaign::torus2qos_conf(t, "torus:4x4");
  EXPECT_NE(c.find("\ntorus 4 4 1\n"), std::string::npos) << c;
  // radix-4 rings need both directions of the seed
  for (const char* k : {"xp_link 0x", "xm_link 0x", "yp_link 0x", "ym_link 0x"}) EXPECT_NE(c.find(k), std::string::npos) << k;
  EXPECT_EQ(c.find("zp_link"), std::string::npos);
  Fabric m = campaign::build_fabric(campaign::parse_fabric_source("mesh:3x3x3,2", false));
  c = campaign::torus2qos_conf(m, "mesh:3x3x3,2");
  EXPECT_NE(c.find("\nmesh 3 3 3\n"), std::string::npos) << c;
  EXPECT_NE(c.find("zp_link"), std::string::npos);
  EXPECT_EQ(c.find("xm_link"), std::string::npos);  // a mesh seed needs only + links
  // A failed seed link moves the seed on: S0_0 lost +x, S1_0 the same link as -x, so S2_0.
  auto s00 = *t.find("S0_0");
  t.disconnect(s00, 2);  // +x of S0_0 (port hosts + 1)
  c = campaign::torus2qos_conf(t, "torus:4x4");
  EXPECT_NE(c.find("seed switch S2_0"), std::string::npos) << c;
  EXPECT_EQ(campaign::torus2qos_conf(t, "fattree:4,2"), "");
  // links=L: the seed's +d/-d bundles sit on ports hosts+1+2dL.. / hosts+L+1+2dL.. (topology.hpp)
  Fabric r = campaign::build_fabric(campaign::parse_fabric_source("torus:5x5,11,links=6", false));
  c = campaign::torus2qos_conf(r, "torus:5x5,11,links=6");
  EXPECT_NE(c.find("\ntorus 5 5 1\n"), std::string::npos) << c;
  EXPECT_NE(c.find("seed switch S0_0"), std::string::npos) << c;
  auto guid = [&](const char* name) {
    char b[32];
    std::snprintf(b, sizeof b, "0x%016llx", static_cast<unsigned long long>(r.node(*r.find(name)).guid));
    return std::string(b);
  };
  const std::string g00 = guid("S0_0");
  EXPECT_NE(c.find("xp_link " + g00 + " " + guid("S1_0")), std::string::npos) << c;
  EXPECT_NE(c.find("xm_link " + g00 + " " + guid("S4_0")), std::string::npos) << c;
  EXPECT_NE(c.find("yp_link " + g00 + " " + guid("S0_1")), std::string::npos) << c;
  EXPECT_NE(c.find("ym_link " + g00 + " " + guid("S0_4")), std::string::npos) << c;
  // one failed cable of a bundle keeps the seed; the whole +x bundle failed moves it on
  auto r00 = *r.find("S0_0");
  r.disconnect(r00, 12);  // the first +x cable (port 11 + 1)
  EXPECT_NE(campaign::torus2qos_conf(r, "torus:5x5,11,links=6").find("seed switch S0_0"), std::string::npos);
  for (int p = 13; p <= 17; p++) r.disconnect(r00, p);
  EXPECT_NE(campaign::torus2qos_conf(r, "torus:5x5,11,links=6").find("seed switch S2_0"), std::string::npos);
}

// OpenSM's SL-based engines on a 4x4 torus: the per-path SLs come from libftroute.so's dump of
// OpenSM's SA code (path_sl_dump), or, without the plugin, from the SA over the wire
// (ftroute-pathsl); the CDG per VL is acyclic with them, and it is NOT acyclic with every path on
// SL 0 (so the SLs really are what makes the routing deadlock free, and the check would catch
// their absence).
TEST(Campaign, OpenSmPathSlsMakeTheCdgAcyclic) {
  if (!have_sim()) GTEST_SKIP() << "ibsim/opensm not installed";
  struct Case {
    std::string engine;
    bool plugin;  // false: FTROUTE_PLUGIN_DIR names a directory without libftroute.so
  };
  for (const Case& c : {Case{"lash", true}, Case{"dfsssp", true}, Case{"lash", false}}) {
    const std::string& engine = c.engine;
    std::string d = tmpdir("pathsl_" + engine + (c.plugin ? "" : "_wire"));
    const std::string no_plugin = d + "-no-plugin";
    fs::create_directories(no_plugin);
    const char* had = std::getenv("FTROUTE_PLUGIN_DIR");
    const std::string saved = had ? had : "";
    if (!c.plugin) setenv("FTROUTE_PLUGIN_DIR", no_plugin.c_str(), 1);
    auto r = opensm_run(d, "torus:4x4", "opensm:" + engine, "0", 30, [](campaign::Config& c) {
      c.keep_scratch = true;
      c.pattern = "shift-exchange";  // flitsim on OpenSM's SLs/VLs: nothing may be dropped
    });
    if (!c.plugin) {
      if (had) setenv("FTROUTE_PLUGIN_DIR", saved.c_str(), 1);
      else unsetenv("FTROUTE_PLUGIN_DIR");
      fs::remove_all(no_plugin);
    }
    ASSERT_EQ(r.status, "ok") << engine << ": " << r.message;
    EXPECT_EQ(r.engine_used, engine);
    EXPECT_EQ(r.unreachable, 0u);
    EXPECT_EQ(r.looping, 0u);
    EXPECT_TRUE(r.deadlock_checked) << engine << ": " << r.message;
    EXPECT_TRUE(r.cdg_acyclic) << engine;
    // 16 CAs x 31 LIDs
    EXPECT_EQ(r.message.rfind(c.plugin ? "path SLs from OpenSM's SA code (plugin dump): 496 pairs" : "path SLs from the SA: 496 paths", 0), 0u)
        << r.message;
    EXPECT_TRUE(r.simulated);
    EXPECT_EQ(r.sim_dropped, 0u) << engine << ": packets on VLs flitsim does not have?";
    EXPECT_FALSE(r.sim_deadlock);
    EXPECT_GT(r.sim_accepted, 0.05);

    // Re-check from the files the run left: OpenSM's LFTs + SL2VL dump + the SA's SLs.
    std::string w = only_workdir(d), dump = w + "/opensm-1/dump";
    LoadedRouting lr = load_routing(w + "/input.net", dump + "/opensm-lfts.dump", LftFormat::Auto, "", "", true);
    lr.routing.sl2vl = read_sl2vl(dump + "/opensm-sl2vl.dump", lr.fabric);
    EXPECT_EQ(fs::exists(w + "/path_sl.txt"), c.plugin);
    EXPECT_EQ(fs::exists(w + "/pathsl.out"), !c.plugin) << "the SA asked over the wire although the plugin dumped";
    std::ifstream in(w + (c.plugin ? "/path_sl.txt" : "/pathsl.out"));
    std::stringstream ss;
    ss << in.rdbuf();
    std::function<uint8_t(Lid, Lid)> sl_of;
    int max_sl = 0;
    if (c.plugin) {
      EXPECT_EQ(path_sl_dump_end(ss.str()).missing, 0);
      uint16_t used = 0;
      sl_of = parse_path_sl(ss.str(), "path_sl.txt", lr.fabric, &used);
      for (int sl = 0; sl < 16; sl++)
        if (used >> sl & 1) max_sl = sl;
    } else {
      size_t missing = 0;
      auto sls = campaign::parse_pathsl_output(ss.str(), &missing);
      EXPECT_EQ(missing, 0u);
      for (const auto& [k, sl] : sls) max_sl = std::max(max_sl, static_cast<int>(sl));
      sl_of = [sls](Lid s, Lid t) -> uint8_t {
        auto it = sls.find((static_cast<uint32_t>(s) << 16) | t);
        return it == sls.end() ? 0 : it->second;
      };
    }
    EXPECT_GT(max_sl, 0) << engine << " used only SL 0 on a torus";
    ValidationReport one_sl = validate(lr.fabric, lr.routing);
    EXPECT_TRUE(one_sl.deadlock_checked);
    EXPECT_FALSE(one_sl.cdg_acyclic) << engine << ": its paths on SL 0 alone should have a cycle on a 4x4 torus";
    lr.routing.path_sl = sl_of;
    ValidationReport with_sls = validate(lr.fabric, lr.routing);
    EXPECT_TRUE(with_sls.cdg_acyclic) << with_sls.cycle_text;
    EXPECT_GT(with_sls.vls_used.size(), 1u);
    fs::remove_all(d);
  }
}

// torus-2QoS gets a generated torus-2QoS.conf, routes the faulty torus itself (no fallback) and
// its SL-based routes are checked per VL.
TEST(Campaign, OpenSmTorus2QosConfiguredAndChecked) {
  if (!have_sim()) GTEST_SKIP() << "ibsim/opensm not installed";
  std::string d = tmpdir("torus2qos");
  auto r = opensm_run(d, "torus:4x4", "opensm:torus-2QoS", "1", 30);
  ASSERT_EQ(r.status, "ok") << r.message;
  EXPECT_EQ(r.engine_used, "torus-2QoS");
  EXPECT_FALSE(r.fallback);
  EXPECT_EQ(r.links_removed, 1);
  EXPECT_EQ(r.unreachable, 0u);
  EXPECT_TRUE(r.deadlock_checked) << r.message;
  EXPECT_TRUE(r.cdg_acyclic);
  fs::remove_all(d);
}

// RFC 4180 (issue 33 item 6): a message with quotes, commas, line breaks (LF and CRLF) and a tab
// comes back unchanged from csv_row -> parse_csv (what campaign-merge, campaign-table and a
// resume read); a row cut inside its quoted message is an incomplete last record.
TEST(Campaign, CsvMessageWithQuotesCommasAndLineBreaksRoundTrips) {
  campaign::RunResult r;
  r.key = {"lf07,\"rack\".net", "ftdrb", "0", "0", 1};
  r.status = "refused";
  r.message = "switch \"lf07.rack3\" (S-ec0d9a0300537d00), port 3:\nfirst line, \"second\"\r\nthird\tend \"\"";
  const std::string row = campaign::csv_row(r);
  EXPECT_NE(row.find("\"switch \"\"lf07.rack3\"\" (S-ec0d9a0300537d00), port 3:\n"), std::string::npos) << row;
  const std::string text = campaign::csv_header() + "\n" + row + "\n" + row + "\n";
  auto rows = campaign::parse_csv(text, "m.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].message, r.message);
  EXPECT_EQ(rows[1].key.fabric, r.key.fabric);
  EXPECT_EQ(rows[1].status, "refused");
  EXPECT_EQ(campaign::csv_complete_prefix(text), text.size());
  // CRLF record ends (a file saved on another system) read the same; the CRLF inside stays
  const std::string crlf = campaign::csv_header() + "\r\n" + row + "\r\n";
  EXPECT_EQ(campaign::parse_csv(crlf, "c.csv").at(0).message, r.message);
  // an interrupted append: the second row cut inside its quoted message, after its first LF
  const size_t second = campaign::csv_header().size() + 1 + row.size() + 1;
  const std::string cut = text.substr(0, second + row.find('\n') + 3);
  EXPECT_EQ(campaign::csv_complete_prefix(cut), second);
  const int second_line = 3 + static_cast<int>(std::count(row.begin(), row.end(), '\n'));
  try {
    campaign::parse_csv(cut, "m.csv");
    FAIL() << "a row cut inside its message was accepted";
  } catch (const ParseError& e) {  // named by the line the record starts on
    EXPECT_NE(std::string(e.what()).find("m.csv:" + std::to_string(second_line) + ":"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("unterminated quote"), std::string::npos) << e.what();
  }
}

// run_one keeps the quotes and commas of a refusal (they used to become spaces and ';').
TEST(Campaign, RefusalMessageKeepsItsQuotes) {
  auto c = small_config("unused");
  Fabric torus = campaign::build_fabric(campaign::parse_fabric_source("torus:3x3", false));
  auto r = campaign::run_one(c, torus, {"torus:3x3", "ftree-misroute", "0", "0", 1});
  ASSERT_EQ(r.status, "refused");
  try {
    make_engine("ftree-misroute")->route([&] {
      Fabric f = torus;
      f.assign_lids(0);
      return f;
    }());
    FAIL() << "ftree-misroute routed a torus";
  } catch (const EngineError& e) {
    EXPECT_EQ(r.message, e.reason().substr(0, 300) + (e.reason().size() > 300 ? "..." : ""));
  }
  auto back = campaign::parse_csv(campaign::csv_header() + "\n" + campaign::csv_row(r) + "\n", "r.csv");
  EXPECT_EQ(back.at(0).message, r.message);
}

// A resume after a crash inside a multi-line message drops the partial record (not just its last
// line) and redoes that run.
TEST(Campaign, ResumeDropsARowCutInsideItsMessage) {
  std::string d = tmpdir("cutmsg");
  auto c = small_config(d);
  c.link_failures = {"0"};
  c.engines = {"ft-minhop"};
  ASSERT_EQ(campaign::run_campaign(c).size(), 2u);
  {
    campaign::RunResult x;
    x.key = {"fattree:4,2", "ft-minhop", "0", "0", 2};  // seed 2 again, as a crash would leave it
    x.message = "first line\nsecond, \"line\"";
    std::string row = campaign::csv_row(x);
    std::string all;
    {
      std::ifstream in(d + "/results.csv");
      all.assign(std::istreambuf_iterator<char>(in), {});
    }
    // drop the last (complete) row of seed 2, append a partial one cut after its message's LF
    all = all.substr(0, all.rfind('\n', all.size() - 2) + 1) + row.substr(0, row.find('\n') + 3);
    std::ofstream(d + "/results.csv", std::ios::trunc) << all;
  }
  EXPECT_THROW(campaign::read_csv(d + "/results.csv"), ParseError);
  auto rows = campaign::run_campaign(c);
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& r : rows) EXPECT_EQ(r.status, "ok") << r.message;
  fs::remove_all(d);
}

// "valid runs (%)": a refused engine's point is marked (hatched square + "refused R/N" + legend),
// so it is not read as a failed routing; an engine without refusals carries no mark.
TEST(Campaign, PlotMarksRefusedRuns) {
  std::vector<campaign::RunResult> rows;
  for (const char* lf : {"0", "1"})
    for (int seed = 1; seed <= 2; ++seed) {
      campaign::RunResult ok, refused;
      ok.key = {"f", "ft-minhop", lf, "0", seed};
      refused.key = {"f", "ftdrb", lf, "0", seed};
      refused.status = "refused";
      refused.engine_used = "none";
      refused.message = "too many faults";
      rows.push_back(ok);
      rows.push_back(refused);
    }
  const campaign::Metric* valid = nullptr;
  for (const auto& m : campaign::metrics())
    if (m.name == "valid") valid = &m;
  ASSERT_NE(valid, nullptr);
  const std::string svg = campaign::plot_svg(rows, "f", *valid);
  size_t marks = 0;
  for (size_t p = svg.find("<rect class=\"refused\""); p != std::string::npos; p = svg.find("<rect class=\"refused\"", p + 1))
    ++marks;
  EXPECT_EQ(marks, 2u) << svg;  // one per x of ftdrb
  EXPECT_NE(svg.find(">refused 2/2</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find("ftdrb (refused 4/4)"), std::string::npos) << svg;
  EXPECT_EQ(svg.find("ft-minhop (refused"), std::string::npos) << svg;
  EXPECT_NE(svg.find("<pattern id=\"refused"), std::string::npos) << svg;
  // without refusals: no mark at all
  std::vector<campaign::RunResult> ok_only;
  for (const auto& r : rows)
    if (r.status == "ok") ok_only.push_back(r);
  EXPECT_EQ(campaign::plot_svg(ok_only, "f", *valid).find("refused"), std::string::npos);
}

// The plots use seed 003's statistic (Fig. 4's whisker plots): the line and marker at the median
// over the seeds, a box from the first to the third quartile, whiskers to min and max.
TEST(Campaign, PlotShowsMedianQuartilesAndRange) {
  EXPECT_DOUBLE_EQ(campaign::quantile({4, 1, 3, 2}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(campaign::quantile({1, 2, 3, 4, 100}, 0.5), 3);
  EXPECT_DOUBLE_EQ(campaign::quantile({1, 2, 3, 4, 100}, 0.25), 2);
  EXPECT_DOUBLE_EQ(campaign::quantile({1, 2, 3, 4, 100}, 0.75), 4);
  EXPECT_DOUBLE_EQ(campaign::quantile({1, 2}, 0.25), 1.25);
  EXPECT_TRUE(std::isnan(campaign::quantile({}, 0.5)));
  // EFI max over 5 seeds at one point: 10, 20, 30, 40, 1000 -> median 30 (the mean would be 220)
  std::vector<campaign::RunResult> rows;
  const uint64_t efi[] = {10, 20, 30, 40, 1000};
  for (int seed = 1; seed <= 5; ++seed) {
    campaign::RunResult r;
    r.key = {"f", "ft-minhop", "1", "0", seed};
    r.efi_max = efi[seed - 1];
    rows.push_back(r);
  }
  const campaign::Metric* m = nullptr;
  for (const auto& x : campaign::metrics())
    if (x.name == "efi_max") m = &x;
  ASSERT_NE(m, nullptr);
  const std::string svg = campaign::plot_svg(rows, "f", *m);
  EXPECT_NE(svg.find("median over seeds, box: quartiles, whiskers: min..max"), std::string::npos) << svg;
  EXPECT_NE(svg.find("ft-minhop at 1: median 30, quartiles 20..40, 10..1000 over 5 runs"), std::string::npos) << svg;
  EXPECT_NE(svg.find("<rect class=\"quartiles\""), std::string::npos) << svg;
  // one run: no box, the whisker collapses to the point
  rows.resize(1);
  EXPECT_EQ(campaign::plot_svg(rows, "f", *m).find("class=\"quartiles\""), std::string::npos);
}

// The per-HCA consumption bandwidth plot (seed 003 Fig. 4): each point is the mean over the seeds
// of the runs' own boxes (min, quartiles, max over the HCAs), not quartiles over the seeds.
TEST(Campaign, HcaBandwidthPlotDrawsTheMeanBoxOverSeeds) {
  std::vector<campaign::RunResult> rows;
  for (int seed = 1; seed <= 2; ++seed) {
    campaign::RunResult r;
    r.key = {"f", "opensm:dfsssp", "2", "0", seed};
    r.status = "ok";
    r.simulated = true;
    const double d = seed == 1 ? 0.0 : 0.1;
    r.sim_hca = {0.1 + d, 0.2 + d, 0.3 + d, 0.4 + d, 0.5 + d};
    rows.push_back(r);
  }
  campaign::RunResult old = rows[0];  // a run without the columns (an older results.csv): no box
  old.key.seed = 3;
  old.sim_hca.clear();
  rows.push_back(old);
  const campaign::Metric* m = nullptr;
  for (const auto& x : campaign::metrics())
    if (x.name == "hca_bandwidth") m = &x;
  ASSERT_NE(m, nullptr);
  const std::string svg = campaign::plot_svg(rows, "f", *m);
  EXPECT_NE(svg.find("box: quartiles over the HCAs, whiskers: min..max, mean over the seeds"), std::string::npos) << svg;
  EXPECT_NE(svg.find("opensm:dfsssp at 2: median 0.35, quartiles 0.25..0.45, 0.15..0.55 over 2 runs"), std::string::npos) << svg;
  // without any box the metric has no value: write_reports writes no such plot
  rows.erase(rows.begin(), rows.begin() + 2);
  EXPECT_TRUE(std::isnan(m->value(rows[0])));
}

namespace {
// A 4-ary 3-tree whose LIDs are not 1..N in node order (as OpenSM hands them out on a real
// subnet: hosts first, with gaps), written as a .net file with those LIDs.
std::string scrambled_lid_net(const std::string& dir) {
  Fabric f = campaign::build_fabric(campaign::parse_fabric_source("fattree:4,3", false));
  std::vector<int> order(static_cast<size_t>(f.size()));
  for (int i = 0; i < f.size(); i++) order[static_cast<size_t>(i)] = i;
  for (size_t i = order.size() - 1; i > 0; i--) std::swap(order[i], order[(i * 7919 + 13) % (i + 1)]);
  Lid next = 1;
  for (int n : order) f.set_lid(n, f.node(n).is_switch() ? 0 : 1, next += static_cast<Lid>(1 + n % 3));
  fs::create_directories(dir);
  const std::string path = dir + "/scrambled.net";
  std::ofstream(path) << write_net(f);
  return path;
}
}  // namespace

// Issue 33 item 5: the campaign keeps the LIDs of a --fabric file (as route and compare do), so
// its fault-free run of every engine gives what compare's engine run on the same file gives.
TEST(Campaign, FileFabricKeepsItsLids) {
  const std::string d = tmpdir("filelids");
  const std::string net = scrambled_lid_net(d + "-in");
  const Fabric file = read_fabric_file(net);  // what compare reads
  ASSERT_GT(file.max_lid(), 0);
  campaign::Config c;
  c.fabrics.push_back(campaign::parse_fabric_source(net, true));
  c.engines = {"ftdrb", "ft-minhop", "ftree-misroute"};
  c.seeds = 1;
  c.jobs = 1;
  c.out_dir = d;
  const Fabric intact = campaign::build_fabric(c.fabrics[0]);
  bool some_differ = false;
  for (const auto& e : c.engines) {
    Routing r = make_engine(e)->route(file);
    ValidationReport v = validate(file, r);
    auto run = campaign::run_one(c, intact, {c.fabrics[0].name, e, "0", "0", 1});
    ASSERT_EQ(run.status, "ok") << e << ": " << run.message;
    EXPECT_EQ(run.efi_max, v.efi_max) << e;
    EXPECT_EQ(run.vls_used, static_cast<int>(v.vls_used.size())) << e;
    EXPECT_DOUBLE_EQ(run.hops_avg, v.hops_avg) << e;
    // --lids assign: the old renumbering (the test can tell them apart on some engine)
    auto c2 = c;
    c2.file_lids = false;
    auto old = campaign::run_one(c2, intact, {c.fabrics[0].name, e, "0", "0", 1});
    some_differ = some_differ || old.efi_max != v.efi_max || old.vls_used != run.vls_used || old.efi_avg != run.efi_avg;
  }
  EXPECT_TRUE(some_differ) << "renumbered and file LIDs route alike: the test would not see a renumbering";
  // the recorded setting and the summary say which LIDs were used
  auto s = campaign::campaign_settings(c);
  EXPECT_NE(std::find(s.begin(), s.end(), std::pair<std::string, std::string>{"lids", "file"}), s.end());
  c.engines = {"ft-minhop"};
  campaign::run_campaign(c);
  std::ifstream in(d + "/summary.txt");
  std::string summary((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(summary.find("lids file"), std::string::npos) << summary;
  // resuming with --lids assign is refused: the rows were routed with the file's LIDs
  c.file_lids = false;
  try {
    campaign::run_campaign(c);
    FAIL() << "resume with other LIDs accepted";
  } catch (const OptionError& e) {
    EXPECT_NE(std::string(e.what()).find("lids file"), std::string::npos) << e.what();
  }
  fs::remove_all(d);
  fs::remove_all(d + "-in");
}

// A file with LIDs for some ports only: refused before the first run, naming the port.
TEST(Campaign, FileWithMissingLidsIsRefused) {
  const std::string d = tmpdir("partlids");
  fs::create_directories(d);
  Fabric f = campaign::build_fabric(campaign::parse_fabric_source("fattree:2,2", false));
  f.assign_default_guids();
  f.assign_lids();
  const int h = f.cas().front();
  std::string text = write_net(f);
  const std::string needle = "# lid " + std::to_string(f.node(h).port(1).base_lid) + " ";
  // write_net puts the CA port LID in its port line comment
  ASSERT_NE(text.find(needle), std::string::npos) << text;
  text.replace(text.find(needle), needle.size(), "# ");
  std::ofstream(d + "/part.net") << text;
  campaign::Config c;
  c.fabrics.push_back(campaign::parse_fabric_source(d + "/part.net", true));
  c.engines = {"ft-minhop"};
  c.seeds = 1;
  c.out_dir = d + "/out";
  try {
    campaign::run_campaign(c);
    FAIL() << "a file with a CA port without LID was accepted";
  } catch (const FabricError& e) {
    EXPECT_NE(std::string(e.what()).find("port \"" + f.node(h).id + "\"[1] has no LID while others do (use --lids assign"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(fs::exists(d + "/out"));
  c.file_lids = false;  // renumbered: runs
  EXPECT_EQ(campaign::run_campaign(c).size(), 1u);
  fs::remove_all(d);
}
