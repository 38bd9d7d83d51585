// Fail-in-place over a cluster's lifetime (J. Domke, T. Hoefler, S. Matsuoka, "Fail-in-Place
// Network Design: Interaction between Topology, Routing Algorithm and Failures", SC14, §V-D, the
// TSUBAME2.0 and Deimos case studies): links and switches fail at constant annual rates and
// nothing is repaired, so the fabric of year Y holds every failure of the years before it. Every
// engine is routed and evaluated on the fabric of each year, and the report says which engine the
// cluster should run over its whole life.
//
// The schedule of one seed, year by year (y = 1..Y, on the fabric left by year y-1):
//  * links: k = Binomial(candidate links up at the start of the year, link rate) fail
//    (switch-to-switch links; with host_links also CA links; expected_counts:
//    k = round(y x rate x links) - failures so far);
//  * then switches: k = Binomial(surviving switches, switch_rate); a failed switch takes its
//    links with it, and the CAs that hung off it alone (hosts, aggregation nodes) leave the fabric.
// The failed components are chosen uniformly by topo::inject_faults (keep_connected: a draw that
// would disconnect the fabric is put back, as the paper's non-bisecting faults), with a seed
// derived from (seed, year); the counts come from a std::mt19937_64 of (seed, year) and a
// platform-independent Bernoulli draw per component, so every platform gives the same schedule.
// With links_per_switch > 0 the link rate is links_per_switch x switch_rate x switches / links:
// that many link failures per switch failure in expectation (1:13 for TSUBAME2.0; exactly in the
// first year, and as long as the failed parts are a small share of the fabric).
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "ftroute/campaign.hpp"
#include "ftroute/fabric.hpp"

namespace ftroute::campaign {

// The failure-level text of year y ("y3"), and back (false for other levels).
std::string year_level(int year);
bool parse_year_level(const std::string& level, int* year);

// "1%", "0.5%" or "0.01" -> 0.01; throws OptionError naming `what` outside [0, 1].
double parse_rate(const std::string& text, const std::string& what);

// The lifetime options of `campaign` (--years, --link-rate, --switch-rate, --link-ratio,
// --expected-counts; docs/campaign.md "Case study") as given (nullopt: not given).
struct LifetimeArgs {
  std::optional<std::string> years, link_rate, switch_rate, link_ratio;
  bool expected_counts = false;
};
// Sets cfg.lifetime from them: years 8 unless --years N (1..100), rates 1 % unless given. Nothing
// without --years or case_study (--case-study). OptionError naming the option: a lifetime option
// without either, together with failure levels (failure_levels: --link-failures/--switch-failures),
// --link-rate with --link-ratio, a value out of range.
void set_lifetime(Config& cfg, const LifetimeArgs& a, bool case_study, bool failure_levels);

// Candidates of the schedule in the intact fabric: switches, and switch-to-switch links (plus CA
// links with host_links).
int lifetime_candidate_links(const Fabric& intact, bool host_links);
// The per-link annual rate (links_per_switch > 0: derived, at most 1).
double effective_link_rate(const Lifetime& lt, int switches, int candidate_links);

// Number of successes among n Bernoulli(p) trials, each from one 53-bit uniform of g.
int bernoulli_count(std::mt19937_64& g, int n, double p);

struct YearFaults {
  int year = 0;
  std::vector<std::string> switches;  // switch ids that failed in this year
  std::vector<std::string> links;     // links that failed in this year ("A"[p] - "B"[q])
  std::vector<std::string> cas;       // CAs that left the fabric with a failed switch
};
struct LifetimeFaults {
  std::vector<YearFaults> years;      // years 1..Y
  int switches = 0, links = 0, cas = 0;  // totals up to Y
};

// The fabric of year `year` (0 = intact) for `seed`: the failures of years 1..year applied to a
// copy of `intact`. Throws FabricError when keep_connected leaves too few candidates.
Fabric fabric_in_year(const Fabric& intact, const Lifetime& lt, uint64_t seed, int year, bool keep_connected,
                      bool host_links, LifetimeFaults* faults = nullptr);

// ---- the case-study report (`ftroute campaign --case-study`, `campaign-table --lifetime`) ----

// Per engine over all years and seeds of one fabric's lifetime rows.
struct LifetimeEngine {
  std::string engine;
  int runs = 0, valid = 0, refused = 0, failed = 0, fallback = 0, unchecked = 0, cycles = 0;
  int first_invalid_year = -1;        // earliest year with a run that is not valid (-1: none)
  std::vector<std::string> fallback_engines;
  bool simulated = false;             // every valid run has a throughput
  double throughput = 0;              // mean over the valid simulated runs
  double throughput_y0 = 0, throughput_last = 0;  // mean of year 0 / of the last year (valid runs)
  double efi_max = 0;                 // mean over the valid runs
  int vls = 0;                        // most VLs of a valid run
  std::string refusal;                // the first refusal/failure message
};
// valid = routed every pair, no loop, no bad entry, CDG checked acyclic, and OpenSM used the
// engine asked for (a fallback is not the engine the operator chose).
bool lifetime_valid(const RunResult& r);
std::vector<LifetimeEngine> lifetime_engines(const std::vector<RunResult>& rows_of_one_fabric,
                                             const std::vector<std::string>& engine_order = {});

// Which engine this cluster should run over its life: among the engines valid in every run of
// every year, the highest mean throughput (without simulation: the lowest mean EFI max); ties:
// the higher throughput in the last year, then the order given. engine "" when none qualifies.
struct LifetimeRecommendation {
  std::string engine;
  std::string why;  // one sentence (markdown): the numbers it rests on and why the others lost
};
LifetimeRecommendation recommend_lifetime(const std::vector<LifetimeEngine>& engines, int years);

// Markdown: per fabric, the year table (failed switches/links/CAs: mean and range over seeds; per
// engine: valid runs, throughput mean and change vs year 0, EFI max, VLs, refused / fell back),
// the regression of campaign-table --regression, and the recommendation line.
std::string lifetime_report(const std::vector<RunResult>& rows, const std::vector<std::string>& engines = {},
                            double link_gbytes = 4.0);

}  // namespace ftroute::campaign
