// The simulator's routing check as `ftroute sim` runs it: the routing pipeline's verdict with the
// simulator's check options (flitsim::sim_check, sim_run.hpp: every LID from the switches end
// ports attach to, no scan of unused entries), as a Verdict for the tests.
#pragma once

#include "ftroute/pipeline.hpp"
#include "ftroute/sim_run.hpp"

inline ftroute::Verdict sim_check(const ftroute::Fabric& f, const ftroute::Routing& r, bool all_lmc_lids) {
  return ftroute::verdict_for(f, r, ftroute::flitsim::sim_check(all_lmc_lids));
}
