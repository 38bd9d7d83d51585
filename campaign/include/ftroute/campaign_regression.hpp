// The fail-in-place design method of Domke et al. (seed 003 §V-B..D, Tables V-VII; spec
// docs/specs/fattree_fip_dqr.md B.5 item 5): per fabric and engine, the linear regression of
// the simulated throughput against the number of failures kept in place (intercept = fault-free
// estimate, slope = loss per failure, R^2 = how much of the loss the failures explain), and the
// recommendation derived from it: the best engine now, and after how many failures another one
// becomes better (where their regression lines cross). `ftroute campaign-table --regression`.
#pragma once

#include <string>
#include <vector>

#include "ftroute/campaign.hpp"

namespace ftroute::campaign {

// Ordinary least squares y = intercept + slope * x. ok = false with fewer than 2 points or a
// single x value. r2 = 1 - SS_res / SS_tot; NaN when every y is equal (SS_tot = 0).
struct LinearFit {
  bool ok = false;
  int n = 0;
  double intercept = 0, slope = 0, r2 = 0;
  double at(double x) const { return intercept + slope * x; }
};
LinearFit linear_fit(const std::vector<double>& x, const std::vector<double>& y);

// x where a and b are equal; NaN when parallel.
double crossing(const LinearFit& a, const LinearFit& b);

// One (fabric, engine): the points are the runs that routed (status ok, every pair reachable,
// no loop, CDG acyclic) and were simulated; x = failures kept in place in that run (links_removed
// + switches_removed: the real counts, also for "1%" levels), y = sim_accepted (flits per endpoint
// per cycle). Runs that did not route or deadlocked are counted in `excluded` (the paper gives no
// regression for an engine that deadlocked, Table VII Deimos MinHop).
struct EngineFit {
  std::string fabric, engine;
  LinearFit fit;
  int excluded = 0;
  int cas = 0;            // HCAs of the intact fabric (for the Gbyte/s conversion)
  double max_failures = 0;  // largest x measured
};
std::vector<EngineFit> engine_fits(const std::vector<RunResult>& rows);

// The hybrid the paper proposes: start with the engine whose line is highest at 0 failures, and
// switch to another engine where its line overtakes the current one. steps[0] = {0, best now};
// each further step = {failures at which `engine` becomes better, engine}. Lines are followed up
// to x_limit (crossings beyond the measured range are marked extrapolated by the caller).
struct Step {
  double failures = 0;
  std::string engine;
};
std::vector<Step> recommendation(const std::vector<EngineFit>& fits_of_one_fabric, double x_limit);

// Markdown: one row per (fabric, engine) with intercept, slope, R^2 in flits/endpoint/cycle and
// converted to the paper's whole-network Gbyte/s (x HCAs x link_gbytes; 4 for 4X QDR), the
// relative slope (% of the intercept per failure), then the recommendation per fabric.
std::string regression_table(const std::vector<RunResult>& rows, const std::vector<std::string>& engines = {},
                             double link_gbytes = 4.0);

}  // namespace ftroute::campaign
