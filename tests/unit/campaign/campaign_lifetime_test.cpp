// Fail-in-place lifetime (campaign/lifetime.cpp, seed 003 §V-D): the failure schedule (annual
// rates -> counts per year, the 1:13 link:switch ratio, cumulative, seeded), what a switch
// failure removes, the lifetime plan and runs, the recorded rates, and the recommendation.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "ftroute/campaign.hpp"
#include "ftroute/campaign_lifetime.hpp"
#include "ftroute/error.hpp"
#include "ftroute/fabric_spec.hpp"

using namespace ftroute;
using namespace ftroute::campaign;
namespace fs = std::filesystem;

namespace {

Fabric gen(const std::string& spec) { return topo::build_fabric_spec(spec); }

// Every link of a fabric by node ids, "A[p]-B[q]" with the ends in name order.
std::set<std::string> link_set(const Fabric& f) {
  std::set<std::string> s;
  for (int n = 0; n < f.size(); ++n)
    for (int p = 1; p <= f.node(n).num_ports; ++p) {
      const Port& x = f.node(n).port(p);
      if (!x.connected()) continue;
      std::string a = f.node(n).id + "[" + std::to_string(p) + "]";
      std::string b = f.node(x.peer_node).id + "[" + std::to_string(x.peer_port) + "]";
      s.insert(a < b ? a + "-" + b : b + "-" + a);
    }
  return s;
}
std::set<std::string> node_set(const Fabric& f) {
  std::set<std::string> s;
  for (const auto& n : f.nodes()) s.insert(n.id);
  return s;
}

std::string tmpdir(const std::string& name) {
  std::string d = fs::temp_directory_path().string() + "/lifetime_test_" + std::to_string(getpid()) + "_" + name;
  fs::remove_all(d);
  return d;
}

}  // namespace

TEST(Lifetime, YearLevelsAndRates) {
  EXPECT_EQ(year_level(3), "y3");
  int y = -1;
  EXPECT_TRUE(parse_year_level("y12", &y));
  EXPECT_EQ(y, 12);
  for (const char* bad : {"y", "3", "yx", "y1%", "Y2", ""}) EXPECT_FALSE(parse_year_level(bad, nullptr)) << bad;
  EXPECT_EQ(failures_x("y5"), 5);
  EXPECT_EQ(failures_x("4"), 4);
  EXPECT_DOUBLE_EQ(parse_rate("1%", "--link-rate"), 0.01);
  EXPECT_DOUBLE_EQ(parse_rate("0.02", "--link-rate"), 0.02);
  for (const char* bad : {"101%", "-1%", "abc", "", "1.5", "2%x"}) EXPECT_THROW(parse_rate(bad, "--x"), OptionError) << bad;
}

// Rates -> counts: every surviving component fails with the annual rate, so after y years the
// expected number of failed ones is N (1 - (1 - p)^y). 4-ary 3-tree: 48 switches, 128
// switch-to-switch links. Means over 400 seeds within 4 standard errors.
TEST(Lifetime, BinomialCountsFollowTheAnnualRates) {
  const Fabric f = gen("fattree:4,3");
  ASSERT_EQ(f.switches().size(), 48u);
  ASSERT_EQ(lifetime_candidate_links(f, false), 128);
  const int seeds = 400, years = 8;
  struct Case {
    double link_rate, switch_rate;
  };
  for (const Case c : {Case{0.05, 0}, Case{0, 0.05}}) {
    Lifetime lt;
    lt.years = years;
    lt.link_rate = c.link_rate;
    lt.switch_rate = c.switch_rate;
    std::vector<double> sum(years + 1, 0.0);
    for (int s = 1; s <= seeds; ++s) {
      LifetimeFaults lf;
      fabric_in_year(f, lt, static_cast<uint64_t>(s), years, true, false, &lf);
      ASSERT_EQ(lf.years.size(), static_cast<size_t>(years));
      int cum = 0;
      for (int yy = 1; yy <= years; ++yy) {
        const YearFaults& yf = lf.years[static_cast<size_t>(yy - 1)];
        EXPECT_EQ(yf.year, yy);
        cum += static_cast<int>(c.link_rate > 0 ? yf.links.size() : yf.switches.size());
        if (c.link_rate > 0) {
          EXPECT_TRUE(yf.switches.empty());
        }
        if (c.switch_rate > 0) {
          EXPECT_TRUE(yf.links.empty());
        }
        sum[static_cast<size_t>(yy)] += cum;
      }
    }
    const double n = c.link_rate > 0 ? 128 : 48, p = c.link_rate > 0 ? c.link_rate : c.switch_rate;
    for (int yy = 1; yy <= years; ++yy) {
      const double py = 1 - std::pow(1 - p, yy);
      const double expect = n * py, se = std::sqrt(n * py * (1 - py) / seeds);
      EXPECT_NEAR(sum[static_cast<size_t>(yy)] / seeds, expect, 4 * se + 0.01)
          << (c.link_rate > 0 ? "links" : "switches") << " year " << yy;
    }
  }
}

// The paper's TSUBAME2.0 ratio: 13 switch-to-switch links fail per failed switch. links_per_switch
// derives the link rate from the switch rate; the first year's counts keep the ratio in
// expectation. With expected_counts the counts are the rounded expectations, exactly.
TEST(Lifetime, LinkRatioGivesThirteenLinksPerFailedSwitch) {
  const Fabric f = gen("fattree:4,3");
  Lifetime lt;
  lt.years = 1;
  lt.switch_rate = 0.02;
  lt.links_per_switch = 13;
  EXPECT_DOUBLE_EQ(effective_link_rate(lt, 48, 128), 13 * 0.02 * 48 / 128);
  double links = 0, switches = 0;
  const int seeds = 1000;
  for (int s = 1; s <= seeds; ++s) {
    LifetimeFaults lf;
    fabric_in_year(f, lt, static_cast<uint64_t>(s), 1, true, false, &lf);
    links += lf.links;
    switches += lf.switches;
  }
  EXPECT_NEAR(switches / seeds, 0.96, 4 * std::sqrt(48 * 0.02 * 0.98 / seeds));
  EXPECT_NEAR(links / switches, 13.0, 1.5);  // standard error of the ratio ~0.43

  // expected counts, 1 %/1 % on 48 switches and 128 links: round(0.48 y) and round(1.28 y)
  Lifetime ex;
  ex.years = 8;
  ex.expected_counts = true;
  LifetimeFaults lf;
  const Fabric y8 = fabric_in_year(f, ex, 7, 8, true, false, &lf);
  const int sw[] = {0, 1, 1, 2, 2, 3, 3, 4}, ln[] = {1, 3, 4, 5, 6, 8, 9, 10};
  int cs = 0, cl = 0;
  for (int yy = 0; yy < 8; ++yy) {
    cs += static_cast<int>(lf.years[static_cast<size_t>(yy)].switches.size());
    cl += static_cast<int>(lf.years[static_cast<size_t>(yy)].links.size());
    EXPECT_EQ(cs, sw[yy]) << "switches, year " << yy + 1;
    EXPECT_EQ(cl, ln[yy]) << "links, year " << yy + 1;
  }
  EXPECT_EQ(y8.switches().size(), 44u);
  // 1:13 with expected counts: per year 0.96 switches and 12.48 links, rounded cumulatively
  Lifetime ratio = lt;
  ratio.years = 2;
  ratio.expected_counts = true;
  fabric_in_year(f, ratio, 1, 2, true, false, &lf);
  EXPECT_EQ(lf.years[0].switches.size(), 1u);
  EXPECT_EQ(lf.years[0].links.size(), 12u);
  EXPECT_EQ(lf.switches, 2);
  EXPECT_EQ(lf.links, 25);
}

// Cumulative (the fabric of year y+1 is the fabric of year y minus that year's failures: nothing
// is repaired), reproducible for a seed, different between seeds; year 0 is the intact fabric.
TEST(Lifetime, FailuresAccumulateAndAreSeeded) {
  const Fabric f = gen("ctree:leaves=6,hosts=3,spines=4,links=2");
  Lifetime lt;
  lt.years = 8;
  lt.link_rate = 0.06;
  lt.switch_rate = 0.04;
  EXPECT_EQ(link_set(fabric_in_year(f, lt, 5, 0, true, false)), link_set(f));
  std::set<std::string> at8;
  for (uint64_t seed : {1, 2, 3}) {
    std::set<std::string> prev_links = link_set(f), prev_nodes = node_set(f);
    for (int y = 1; y <= 8; ++y) {
      LifetimeFaults lf;
      const Fabric fy = fabric_in_year(f, lt, seed, y, true, false, &lf);
      const auto links = link_set(fy), nodes = node_set(fy);
      for (const auto& l : links) EXPECT_TRUE(prev_links.count(l)) << "link " << l << " came back in year " << y;
      for (const auto& n : nodes) EXPECT_TRUE(prev_nodes.count(n)) << "node " << n << " came back in year " << y;
      // this year's failures are exactly the difference to last year
      const YearFaults& yf = lf.years.back();
      EXPECT_EQ(prev_nodes.size() - nodes.size(), yf.switches.size() + yf.cas.size()) << "year " << y;
      for (const auto& s : yf.switches) {
        EXPECT_TRUE(prev_nodes.count(s));
        EXPECT_FALSE(nodes.count(s));
      }
      // the same seed again: the same fabric
      EXPECT_EQ(link_set(fabric_in_year(f, lt, seed, y, true, false)), links);
      prev_links = links;
      prev_nodes = nodes;
    }
    std::string sig;
    for (const auto& l : prev_links) sig += l + ";";
    at8.insert(sig);
    EXPECT_LT(prev_links.size(), link_set(f).size());  // 8 years at these rates: something failed
  }
  EXPECT_EQ(at8.size(), 3u) << "three seeds, three different lifetimes";
}

// A failed switch takes every link it had, and the CAs that hung off it alone leave the fabric
// (hosts of a leaf, its aggregation node); every other CA stays.
TEST(Lifetime, SwitchFailureRemovesItsLinksAndItsHangingCas) {
  const Fabric f = gen("ctree:leaves=6,hosts=3,spines=3,an=1");
  Lifetime lt;
  lt.years = 3;
  lt.link_rate = 0;
  lt.switch_rate = 0.2;
  bool saw_leaf = false;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    LifetimeFaults lf;
    const Fabric fy = fabric_in_year(f, lt, seed, 3, true, false, &lf);
    std::set<std::string> failed;
    for (const auto& y : lf.years) failed.insert(y.switches.begin(), y.switches.end());
    ASSERT_EQ(static_cast<int>(failed.size()), lf.switches);
    // links: exactly those of the failed switches are gone
    std::set<std::string> gone;
    for (int n = 0; n < f.size(); ++n)
      for (int p = 1; p <= f.node(n).num_ports; ++p) {
        const Port& x = f.node(n).port(p);
        if (!x.connected()) continue;
        if (failed.count(f.node(n).id) || failed.count(f.node(x.peer_node).id)) {
          std::string a = f.node(n).id + "[" + std::to_string(p) + "]";
          std::string b = f.node(x.peer_node).id + "[" + std::to_string(x.peer_port) + "]";
          gone.insert(a < b ? a + "-" + b : b + "-" + a);
        }
      }
    const auto before = link_set(f), after = link_set(fy);
    std::set<std::string> diff;
    for (const auto& l : before)
      if (!after.count(l)) diff.insert(l);
    EXPECT_EQ(diff, gone) << "seed " << seed;
    // CAs: gone exactly when all their links went to failed switches
    std::set<std::string> cas_lost;
    for (const auto& y : lf.years) cas_lost.insert(y.cas.begin(), y.cas.end());
    for (int c : f.cas()) {
      const Node& n = f.node(c);
      bool hangs = true;
      for (int p = 1; p <= n.num_ports; ++p)
        if (n.port(p).connected() && !failed.count(f.node(n.port(p).peer_node).id)) hangs = false;
      EXPECT_EQ(!fy.find(n.id).has_value(), hangs) << n.id << " seed " << seed;
      EXPECT_EQ(cas_lost.count(n.id) == 1, hangs) << n.id << " seed " << seed;
      if (hangs && n.id.rfind("H", 0) == 0) saw_leaf = true;
    }
    EXPECT_EQ(static_cast<int>(cas_lost.size()), lf.cas);
  }
  EXPECT_TRUE(saw_leaf) << "no seed failed a leaf with hosts: the test proves nothing";
}

// The plan of a lifetime campaign: years 0..N per engine and seed; a run of year y has the
// failures of fabric_in_year; a "y" level outside a lifetime campaign is a configuration error.
TEST(Lifetime, PlanAndRunsUseTheSchedule) {
  Config c;
  c.fabrics.push_back(parse_fabric_source("ctree:leaves=4,hosts=2,spines=3", false));
  c.engines = {"ftree-misroute", "ft-minhop"};
  c.seeds = 2;
  c.lifetime.years = 3;
  c.lifetime.link_rate = 0.1;
  c.lifetime.switch_rate = 0.1;
  c.link_failures = {"0", "5"};  // ignored by a lifetime campaign
  const auto keys = plan(c);
  ASSERT_EQ(keys.size(), 2u * 4 * 2);
  EXPECT_EQ(keys[0].link_failures, "y0");
  EXPECT_EQ(keys[0].switch_failures, "y0");
  EXPECT_EQ(keys.back().link_failures, "y3");
  EXPECT_EQ(keys.back().seed, 2);
  const Fabric intact = build_fabric(c.fabrics[0]);
  for (const auto& k : keys) {
    if (k.engine != "ft-minhop") continue;
    const RunResult r = run_one(c, intact, k);
    int y = 0;
    ASSERT_TRUE(parse_year_level(k.link_failures, &y));
    LifetimeFaults lf;
    const Fabric fy = fabric_in_year(intact, c.lifetime, static_cast<uint64_t>(k.seed), y, true, false, &lf);
    EXPECT_EQ(r.links_removed, lf.links) << k.id();
    EXPECT_EQ(r.switches_removed, lf.switches) << k.id();
    EXPECT_EQ(r.hosts_removed, lf.cas) << k.id();
    EXPECT_EQ(r.switches, static_cast<int>(fy.switches().size()));
  }
  Config plain = c;
  plain.lifetime.years = 0;
  EXPECT_THROW(run_one(plain, intact, keys.back()), OptionError);
}

// The rates are recorded (campaign.conf): a resume with another rate is refused before anything
// is written; a campaign without --years records "-".
TEST(Lifetime, RatesAreRecordedAndAResumeWithOthersIsRefused) {
  Config c;
  c.fabrics.push_back(parse_fabric_source("ctree:leaves=4,hosts=2,spines=3", false));
  c.engines = {"ft-minhop"};
  c.seeds = 1;
  c.jobs = 1;
  std::map<std::string, std::string> m;
  for (const auto& [k, v] : campaign_settings(c)) m[k] = v;
  EXPECT_EQ(m["link_rate"], "-");
  EXPECT_EQ(m["switch_rate"], "-");
  EXPECT_EQ(m["failure_counts"], "-");
  c.lifetime.years = 2;
  c.lifetime.links_per_switch = 13;
  for (const auto& [k, v] : campaign_settings(c)) m[k] = v;
  EXPECT_EQ(m["link_rate"], "13/switch");
  EXPECT_EQ(m["switch_rate"], "0.01");
  EXPECT_EQ(m["failure_counts"], "binomial");
  EXPECT_EQ(parse_campaign_settings(campaign_settings_text(campaign_settings(c)), "x"), campaign_settings(c));
  c.lifetime.links_per_switch = 0;
  c.out_dir = tmpdir("rates");
  auto rows = run_campaign(c);
  EXPECT_EQ(rows.size(), 3u);
  EXPECT_TRUE(fs::exists(c.out_dir + "/case_study.md"));
  const auto before = fs::file_size(c.out_dir + "/results.csv");
  Config other = c;
  other.lifetime.switch_rate = 0.05;
  try {
    run_campaign(other);
    FAIL() << "a resume with another switch rate was accepted";
  } catch (const OptionError& e) {
    EXPECT_NE(std::string(e.what()).find("switch_rate 0.01"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("switch_rate 0.05"), std::string::npos) << e.what();
  }
  EXPECT_EQ(fs::file_size(c.out_dir + "/results.csv"), before);
  fs::remove_all(c.out_dir);
}

namespace {

// A lifetime row: engine, year, seed; valid unless told otherwise.
RunResult row(const std::string& engine, int year, int seed, double thr, uint64_t efi = 100) {
  RunResult r;
  r.key = {"fab", engine, year_level(year), year_level(year), seed};
  r.engine_used = engine.rfind("opensm:", 0) == 0 ? engine.substr(7) : engine;
  r.deadlock_checked = true;
  r.vls_used = 1;
  r.efi_max = efi;
  r.simulated = thr > 0;
  r.sim_accepted = thr;
  r.links_removed = 3 * year;
  r.switches_removed = year / 2;
  return r;
}

}  // namespace

// The recommendation: the best throughput among the engines valid in every run of every year;
// an engine that is faster but refused once, fell back, or could not be checked is not chosen.
TEST(Lifetime, RecommendationNeedsValidityInEveryYearThenThroughput) {
  std::vector<RunResult> rows;
  for (int y = 0; y <= 8; ++y)
    for (int s = 1; s <= 2; ++s) {
      RunResult fast = row("fast", y, s, 0.9 - 0.01 * y);
      if (y == 5 && s == 2) {  // one refusal in year 5
        fast.status = "refused";
        fast.simulated = false;
        fast.message = "too many faults";
      }
      rows.push_back(fast);
      rows.push_back(row("steady", y, s, 0.5 - 0.01 * y));
      rows.push_back(row("slow", y, s, 0.4));
      RunResult fb = row("opensm:ftree", y, s, 0.95);
      fb.fallback = true;
      fb.engine_used = "minhop";
      rows.push_back(fb);
      RunResult nc = row("opensm:dfsssp", y, s, 0);
      nc.deadlock_checked = false;
      rows.push_back(nc);
    }
  auto engines = lifetime_engines(rows);
  ASSERT_EQ(engines.size(), 5u);
  EXPECT_EQ(engines[0].engine, "fast");
  EXPECT_EQ(engines[0].valid, 17);
  EXPECT_EQ(engines[0].refused, 1);
  EXPECT_EQ(engines[0].first_invalid_year, 5);
  EXPECT_EQ(engines[1].valid, 18);
  EXPECT_NEAR(engines[1].throughput, 0.46, 1e-9);
  EXPECT_NEAR(engines[1].throughput_y0, 0.5, 1e-9);
  EXPECT_NEAR(engines[1].throughput_last, 0.42, 1e-9);
  EXPECT_EQ(engines[3].fallback, 18);
  EXPECT_EQ(engines[4].unchecked, 18);
  auto rec = recommend_lifetime(engines, 8);
  EXPECT_EQ(rec.engine, "steady") << rec.why;
  EXPECT_NE(rec.why.find("15.0 % above slow"), std::string::npos) << rec.why;
  EXPECT_NE(rec.why.find("fast (refused 1 of 18 runs, from year 5; mean throughput 0.8606 over its 17 valid runs)"),
            std::string::npos)
      << rec.why;
  EXPECT_NE(rec.why.find("opensm:ftree (OpenSM fell back to minhop in 18 of 18 runs"), std::string::npos) << rec.why;
  EXPECT_NE(rec.why.find("opensm:dfsssp (CDG not checked in 18 of 18 runs"), std::string::npos) << rec.why;

  // a CDG cycle in the last year disqualifies too
  for (auto& r : rows)
    if (r.key.engine == "steady" && r.key.link_failures == "y8" && r.key.seed == 1) r.cdg_acyclic = false;
  rec = recommend_lifetime(lifetime_engines(rows), 8);
  EXPECT_EQ(rec.engine, "slow") << rec.why;
  EXPECT_NE(rec.why.find("the only engine valid in every year"), std::string::npos) << rec.why;

  // none valid
  for (auto& r : rows)
    if (r.key.engine == "slow" && r.key.link_failures == "y0") r.unreachable = 3;
  rec = recommend_lifetime(lifetime_engines(rows), 8);
  EXPECT_EQ(rec.engine, "");
  EXPECT_NE(rec.why.find("No engine stays valid"), std::string::npos) << rec.why;
  EXPECT_NE(rec.why.find("The most often valid: steady (17 of 18 runs, first invalid in year 8)"), std::string::npos)
      << rec.why;
}

// Without simulation the lowest mean EFI max decides; equal throughput: the last year decides.
TEST(Lifetime, RecommendationWithoutSimulationAndTies) {
  std::vector<RunResult> rows;
  for (int y = 0; y <= 2; ++y) {
    rows.push_back(row("a", y, 1, 0, 500));
    rows.push_back(row("b", y, 1, 0, 300));
  }
  auto rec = recommend_lifetime(lifetime_engines(rows), 2);
  EXPECT_EQ(rec.engine, "b") << rec.why;
  EXPECT_NE(rec.why.find("mean EFI max 300.0"), std::string::npos) << rec.why;
  rows.clear();
  // the same mean (0.5); a is better in the last year
  rows.push_back(row("b", 0, 1, 0.6));
  rows.push_back(row("b", 1, 1, 0.4));
  rows.push_back(row("a", 0, 1, 0.4));
  rows.push_back(row("a", 1, 1, 0.6));
  rec = recommend_lifetime(lifetime_engines(rows), 1);
  EXPECT_EQ(rec.engine, "a") << rec.why;
  EXPECT_NE(rec.why.find("practically a tie"), std::string::npos) << rec.why;
}

// The report: one row per year and engine with the failures, the recommendation line and the
// regression; names in it cannot break the markdown table.
TEST(Lifetime, ReportHasYearsRecommendationAndRegression) {
  std::vector<RunResult> rows;
  for (int y = 0; y <= 2; ++y)
    for (int s = 1; s <= 2; ++s) {
      rows.push_back(row("ftree-misroute", y, s, 0.5 - 0.02 * y - 0.01 * s));
      RunResult o = row("opensm:updn", y, s, 0);
      o.fallback = true;
      o.engine_used = "min|hop<b>";
      o.cdg_acyclic = false;
      rows.push_back(o);
      RunResult d = row("opensm:dfsssp", y, s, 0);
      d.deadlock_checked = false;  // its path SLs were not read: VLs unknown
      d.vls_used = 1;
      rows.push_back(d);
    }
  for (auto& r : rows) r.key.fabric = "my|fabric";
  const std::string t = lifetime_report(rows);
  EXPECT_NE(t.find("### my\\|fabric: 2 years in service, 2 seeds"), std::string::npos) << t;
  EXPECT_NE(t.find("| 0 | 0.0 | 0.0 | 0.0 | ftree-misroute | 2/2 | 0.4850 | - |"), std::string::npos) << t;
  EXPECT_NE(t.find("| 2 | 1.0 | 6.0 | 0.0 | ftree-misroute | 2/2 | 0.4450 | -8.2 % |"), std::string::npos) << t;
  EXPECT_NE(t.find("| opensm:updn | 0/2 | - | - | 100 | 1 | 2 fell back → min\\|hop\\<b\\>, 2 CDG cycle |"), std::string::npos) << t;
  EXPECT_NE(t.find("| opensm:dfsssp | 0/2 | - | - | 100 | ? | 2 CDG not checked |"), std::string::npos) << t;
  EXPECT_NE(t.find("**Recommendation for my\\|fabric:** run **ftree-misroute**"), std::string::npos) << t;
  EXPECT_NE(t.find("#### Regression"), std::string::npos) << t;
  EXPECT_NE(t.find("| ftree-misroute | 6 | 0 |"), std::string::npos) << t;  // regression points: every valid run
  EXPECT_NE(lifetime_report({row("x", 0, 1, 0.1)}).find("x"), std::string::npos);
  RunResult fixed = row("x", 0, 1, 0.1);
  fixed.key.link_failures = fixed.key.switch_failures = "0";
  EXPECT_NE(lifetime_report({fixed}).find("no lifetime runs"), std::string::npos);
}

// The shift-exchange runs between the application's endpoints: the aggregation nodes of an HDR
// fabric (a CA inside every switch) get routes but send and receive no exchange, so the same
// tree with and without them has the same throughput (their LIDs come after the hosts').
TEST(Lifetime, ShiftExchangeLeavesAggregationNodesOut) {
  double thr[2] = {0, 0};
  for (int an = 0; an < 2; ++an) {
    Config c;
    c.fabrics.push_back(parse_fabric_source(std::string("ctree:leaves=4,hosts=3,spines=2") + (an ? ",an=1" : ""), false));
    c.engines = {"ftree-misroute"};
    c.pattern = "shift-exchange";
    const Fabric f = build_fabric(c.fabrics[0]);
    EXPECT_EQ(f.cas().size(), an ? 18u : 12u);
    const RunResult r = run_one(c, f, {c.fabrics[0].name, "ftree-misroute", "0", "0", 1});
    ASSERT_TRUE(r.simulated) << r.message;
    EXPECT_FALSE(r.sim_deadlock);
    thr[an] = r.sim_accepted;
  }
  EXPECT_GT(thr[0], 0);
  EXPECT_DOUBLE_EQ(thr[1], thr[0]);
}

// `campaign`'s lifetime options (set_lifetime) and --shard (parse_shard): the values they set and
// the OptionError texts the command prints as usage errors.
TEST(CampaignOptions, LifetimeAndShardValuesAndTheirErrors) {
  auto error = [](auto&& f) -> std::string {
    try {
      f();
    } catch (const OptionError& e) {
      return e.what();
    }
    return "(none)";
  };
  Config cfg;
  set_lifetime(cfg, {}, false, true);  // no lifetime: failure levels are fine
  EXPECT_EQ(cfg.lifetime.years, 0);
  set_lifetime(cfg, {}, true, false);  // --case-study alone: 8 years at 1 %
  EXPECT_EQ(cfg.lifetime.years, 8);
  EXPECT_DOUBLE_EQ(cfg.lifetime.link_rate, 0.01);
  LifetimeArgs a;
  a.years = "3";
  a.switch_rate = "0.5%";
  a.link_ratio = "13";
  a.expected_counts = true;
  set_lifetime(cfg, a, false, false);
  EXPECT_EQ(cfg.lifetime.years, 3);
  EXPECT_DOUBLE_EQ(cfg.lifetime.switch_rate, 0.005);
  EXPECT_DOUBLE_EQ(cfg.lifetime.links_per_switch, 13);
  EXPECT_TRUE(cfg.lifetime.expected_counts);
  LifetimeArgs rate_only;
  rate_only.link_rate = "2%";
  EXPECT_EQ(error([&] { set_lifetime(cfg, rate_only, false, false); }),
            "--link-rate, --switch-rate, --link-ratio and --expected-counts need --years N (or --case-study)");
  EXPECT_EQ(error([&] { set_lifetime(cfg, a, false, true); }),
            "--link-failures/--switch-failures and --years/--case-study exclude each other "
            "(a lifetime draws its failures from --link-rate/--switch-rate)");
  LifetimeArgs both = a;
  both.link_rate = "1%";
  EXPECT_EQ(error([&] { set_lifetime(cfg, both, false, false); }), "give --link-rate or --link-ratio, not both");
  LifetimeArgs years = a;
  years.years = "101";
  EXPECT_EQ(error([&] { set_lifetime(cfg, years, false, false); }), "--years expects 1..100, got '101'");
  LifetimeArgs ratio = a;
  ratio.link_ratio = "0";
  EXPECT_NE(error([&] { set_lifetime(cfg, ratio, false, false); }).find("--link-ratio expects a number > 0"), std::string::npos);

  parse_shard("2/3", cfg);
  EXPECT_EQ(cfg.shard_index, 2);
  EXPECT_EQ(cfg.shard_count, 3);
  for (const char* bad : {"3/3", "x", "1/0", "-1/2", "1"})
    EXPECT_EQ(error([&] { parse_shard(bad, cfg); }), std::string("--shard expects I/N (0 <= I < N), got '") + bad + "'");
}
