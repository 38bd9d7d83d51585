// The fail-in-place regression method (seed 003 Tables V-VII): hand-computed fits, crossings,
// the recommendation and `campaign-table --regression` / plot lines on synthetic campaign rows.
#include <gtest/gtest.h>

#include <cmath>

#include "ftroute/campaign.hpp"
#include "ftroute/campaign_regression.hpp"

using namespace ftroute;
using namespace ftroute::campaign;

namespace {
RunResult run(const std::string& engine, int links_removed, double thr, int seed = 1, bool ok = true) {
  RunResult r;
  r.key.fabric = "torus:5x5,11";
  r.key.engine = engine;
  r.key.link_failures = std::to_string(links_removed);
  r.key.switch_failures = "0";
  r.key.seed = seed;
  r.status = "ok";
  r.links_removed = links_removed;
  r.cas = 100;
  r.links = 150;  // incl. the 100 CA links: 50 switch-to-switch links
  r.deadlock_checked = 1;
  r.cdg_acyclic = ok;
  r.simulated = 1;
  r.sim_accepted = thr;
  return r;
}
}  // namespace

TEST(Regression, HandComputedFit) {
  // x = 0,1,2,3; y = 10,8,7,4: mean x 1.5, mean y 7.25, Sxx = 5, Sxy = -9.5 -> slope -1.9,
  // intercept 7.25 + 1.9 * 1.5 = 10.1; SS_tot = 18.75, SS_res = 18.75 - 1.9^2 * 5 = 0.7,
  // R^2 = 1 - 0.7 / 18.75 = 0.962667
  LinearFit f = linear_fit({0, 1, 2, 3}, {10, 8, 7, 4});
  ASSERT_TRUE(f.ok);
  EXPECT_EQ(f.n, 4);
  EXPECT_NEAR(f.slope, -1.9, 1e-12);
  EXPECT_NEAR(f.intercept, 10.1, 1e-12);
  EXPECT_NEAR(f.r2, 0.962666666666667, 1e-12);
  // repeated x (seeds): x = 0,0,2,2; y = 1,3,0,2 -> means 1, 1.5; Sxx = 4, Sxy = -2 -> slope -0.5,
  // intercept 2; SS_tot = 5, SS_res = 4 (each point 1 off its level mean) -> R^2 = 0.2
  f = linear_fit({0, 0, 2, 2}, {1, 3, 0, 2});
  ASSERT_TRUE(f.ok);
  EXPECT_NEAR(f.slope, -0.5, 1e-12);
  EXPECT_NEAR(f.intercept, 2, 1e-12);
  EXPECT_NEAR(f.r2, 0.2, 1e-12);
  // exact line
  f = linear_fit({1, 2, 4}, {5, 3, -1});
  EXPECT_NEAR(f.slope, -2, 1e-12);
  EXPECT_NEAR(f.intercept, 7, 1e-12);
  EXPECT_NEAR(f.r2, 1, 1e-12);
  // degenerate: one x value, one point, flat y (R^2 undefined)
  EXPECT_FALSE(linear_fit({3, 3, 3}, {1, 2, 3}).ok);
  EXPECT_FALSE(linear_fit({3}, {1}).ok);
  f = linear_fit({0, 1, 2}, {2, 2, 2});
  EXPECT_TRUE(f.ok);
  EXPECT_EQ(f.slope, 0);
  EXPECT_TRUE(std::isnan(f.r2));
}

TEST(Regression, CrossingAndRecommendation) {
  // A: 10 - x, B: 8 - 0.5 x, C: 5 - 0 x. A best now; B overtakes A at 4; C overtakes B at 6
  // (8 - 3 = 5). A line below every other one never becomes best.
  std::vector<RunResult> rows;
  for (int x : {0, 2, 4, 6}) {
    rows.push_back(run("A", x, 10 - x));
    rows.push_back(run("B", x, 8 - 0.5 * x));
    rows.push_back(run("C", x, 5));
    rows.push_back(run("D", x, 1 - 0.1 * x));
  }
  rows.push_back(run("A", 3, 99, 2, /*ok=*/false));  // deadlock-prone run: excluded, not a point
  auto fits = engine_fits(rows);
  ASSERT_EQ(fits.size(), 4u);
  EXPECT_EQ(fits[0].engine, "A");
  EXPECT_EQ(fits[0].fit.n, 4);
  EXPECT_EQ(fits[0].excluded, 1);
  EXPECT_NEAR(fits[0].fit.slope, -1, 1e-12);
  EXPECT_NEAR(fits[0].fit.intercept, 10, 1e-12);
  EXPECT_EQ(fits[0].cas, 100);
  EXPECT_NEAR(crossing(fits[0].fit, fits[1].fit), 4, 1e-12);
  auto steps = recommendation(fits, 50);
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0].engine, "A");
  EXPECT_EQ(steps[0].failures, 0);
  EXPECT_EQ(steps[1].engine, "B");
  EXPECT_NEAR(steps[1].failures, 4, 1e-12);
  EXPECT_EQ(steps[2].engine, "C");
  EXPECT_NEAR(steps[2].failures, 6, 1e-12);
  // a limit below the first crossing: A stays the answer
  EXPECT_EQ(recommendation(fits, 3).size(), 1u);

  const std::string t = regression_table(rows, {}, 4.0);
  // A: intercept 10 flits/endpoint/cycle x 100 HCAs x 4 GB/s = 4000 GB/s, slope -400 GB/s/failure
  EXPECT_NE(t.find("| torus:5x5,11 | A | 4 | 1 | 10.0000 | -1.00000 | 1.00 | 4000.00 | -400.00 | -10.00 | 0..6 |"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("best now: **A**; after 4.0 failures: **B**; after 6.0 failures: **C**"), std::string::npos) << t;
  // C is flat: R^2 undefined, printed "-"
  EXPECT_NE(t.find("| C | 4 | 0 | 5.0000 | +0.00000 | - |"), std::string::npos) << t;
}

TEST(Regression, ThroughputPlotDrawsTheLines) {
  std::vector<RunResult> rows;
  for (int x : {0, 2, 4}) rows.push_back(run("A", x, 1 - 0.1 * x));
  rows.push_back(run("A", 4, 0.9, 2, /*ok=*/false));  // CDG cycle: plotted, but not a point of the line
  const Metric* thr = nullptr;
  for (const auto& m : metrics())
    if (m.name == "throughput") thr = &m;
  ASSERT_NE(thr, nullptr);
  const std::string svg = plot_svg(rows, "torus:5x5,11", *thr);
  EXPECT_NE(svg.find("class=\"regression\""), std::string::npos);
  EXPECT_NE(svg.find("A: y = 1 - 0.1 x, R^2 = 1"), std::string::npos) << svg;
  for (const auto& m : metrics())
    if (m.name == "hops_avg") {
      EXPECT_EQ(plot_svg(rows, "torus:5x5,11", m).find("regression"), std::string::npos);
    }
}
