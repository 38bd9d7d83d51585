// The simulator's routing check as `ftroute sim` runs it (flitsim::sim_check, sim_run.hpp): the routing
// pipeline's verdict from the switches end ports attach to, no scan of unused entries.
#pragma once

#include "ftroute/verdict.hpp"

inline ftroute::Verdict sim_check(const ftroute::Fabric& f, const ftroute::Routing& r, bool all_lmc_lids) {
  ftroute::VerifyOptions o;
  o.all_switches = false;
  o.scan_entries = false;
  o.all_lmc_lids = all_lmc_lids;
  return ftroute::verify_routing(f, r, o);
}
