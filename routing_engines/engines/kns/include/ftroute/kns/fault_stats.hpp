// KNS fault statistics (seed 002, thesis §5.5.2 and Table 6.1; `ftroute kns-faults`): random
// sets of failed router-crossbar links, judged by the thesis criterion (Hybrid-DOR or at most
// max_in intermediate routers per router pair) and, for the first tree_samples sets, by the
// destination trees the kns engine programs (with 2^lmc LIDs per destination).
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include "ftroute/kns/kns_model.hpp"

namespace ftroute::kns {

struct FaultStats {
  long ok = 0;              // sets tolerated by the thesis criterion
  long tree_ok = 0;         // of the first tree_samples sets: tolerated by the base trees
  long lmc_ok = 0;          // ... by the trees with LMC alternatives
  long tree_only_fail = 0;  // tolerated by the criterion but not by the trees (with LMC if lmc > 0)
  long fail_two_bad = 0;    // sets not tolerated that contain a router with >= 2 failed links
  double p1 = 0, p2 = 0;    // sums over the sets of the fraction of pairs needing 1 / 2 INs
  long redrawn = 0;         // sets rejected and drawn again (Draw::no_isolated / no_double)
  long count_isolated = 0;  // Draw::router_count: sets not tolerated because a router was drawn n times
};

// How a fault set is drawn (docs/kns.md §5, "fault model"). The thesis (§6.5.2) draws random
// link faults and counts the sets that physically disconnect a node as not tolerated: `distinct`
// (F distinct links out of the k^n * n router-crossbar links) is that model and the default.
// The others exist to measure how far other readings would move the number:
//   replace     - F draws with replacement (a link drawn twice fails once: fewer faults);
//   no_isolated - a set that fails every link of some router is drawn again;
//   no_double   - a set with a router with two or more failed links is drawn again;
//   router_count - the draws of `replace`, and a set whose F draws hit some router n times (a
//                 repeated link counted again) is not tolerated, as if a router with n faults
//                 were cut off whether or not they are n distinct links. In 2-D that is the
//                 birthday problem over the routers (docs/kns.md "fault model").
enum class Draw { distinct, replace, no_isolated, no_double, router_count };
Draw parse_draw(const std::string& s);  // "distinct" | "replace" | "no-isolated" | "no-double" | "router-count"
const char* draw_name(Draw d);

// Draws one fault set into m (link faults only, crossbars alive); returns how many candidate
// sets were rejected before it. *router_hit_n_times (if given) = some router was drawn n times
// or more (replace and router_count; false for the other draws).
long draw_link_faults(Model& m, int faults, Draw draw, std::mt19937_64& rng, bool* router_hit_n_times = nullptr);

// `samples` random sets of `faults` failed links on m (m's fault marks are overwritten), drawn
// from seed + faults * 1000003 (Draw::distinct draws exactly the sets it drew before the option).
FaultStats fault_stats(Model& m, int faults, int max_in, long samples, long tree_samples, int lmc, uint64_t seed,
                       Draw draw = Draw::distinct);

}  // namespace ftroute::kns
