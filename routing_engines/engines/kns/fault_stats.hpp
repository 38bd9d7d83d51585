// KNS fault statistics (seed 002, thesis §5.5.2 and Table 6.1; `ftroute kns-faults`): random
// sets of failed router-crossbar links, judged by the thesis criterion (Hybrid-DOR or at most
// max_in intermediate routers per router pair) and, for the first tree_samples sets, by the
// destination trees the kns engine programs (with 2^lmc LIDs per destination).
#pragma once

#include <cstdint>

#include "kns/kns_model.hpp"

namespace ftroute::kns {

struct FaultStats {
  long ok = 0;              // sets tolerated by the thesis criterion
  long tree_ok = 0;         // of the first tree_samples sets: tolerated by the base trees
  long lmc_ok = 0;          // ... by the trees with LMC alternatives
  long tree_only_fail = 0;  // tolerated by the criterion but not by the trees (with LMC if lmc > 0)
  long fail_two_bad = 0;    // sets not tolerated that contain a router with >= 2 failed links
  double p1 = 0, p2 = 0;    // sums over the sets of the fraction of pairs needing 1 / 2 INs
};

// `samples` random sets of `faults` failed links on m (m's fault marks are overwritten), drawn
// from seed + faults * 1000003.
FaultStats fault_stats(Model& m, int faults, int max_in, long samples, long tree_samples, int lmc, uint64_t seed);

}  // namespace ftroute::kns
