// ft-minhop: the reference engine. Min-hop routing balanced by per-port route counters, in the
// spirit of OpenSM's built-in minhop (but our own code, and named "ft-minhop" so it does not
// clash with OpenSM's "minhop" when registered through the plugin).
//
// Algorithm (per destination LID, per switch):
//   * the destination LID enters the fabric at its attach switch (Fabric::attach): port 0 for a
//     switch's own LID, the CA-facing port for a CA/router LID;
//   * every other switch picks, among its ports leading to a neighbour switch that is one hop
//     closer to the attach switch (BFS over working switch-switch links), the port with the
//     fewest routes assigned so far on that switch (the per-port counter OpenSM calls the port
//     profile). With LMC > 0 the LIDs of one end port are spread first: a port leading to a
//     neighbour switch not yet used by another LID of the same end port wins, then a port not
//     yet used by it, then the lowest counter, then the lowest port number.
//   * LIDs are processed in ascending order, so the result is deterministic.
// Every LID (all 2^LMC LIDs of a CA port, switch LIDs too) gets a route on every switch.
// A fabric whose switches do not form one connected component is rejected with an EngineError
// naming a switch that cannot be reached.
//
// Options (MinHopEngine::option_specs, minhop.cpp): balance, lmc_spread, count_switch_lids,
// threads (the LFTs are the same for every thread count).
//
// Implementation (docs/scale.md section 11): a switch's choices depend only on its own
// counters, so each switch is routed on its own over all LIDs in order, switches in parallel;
// its min-hop ports towards each destination switch are computed once from an all-pairs hop
// matrix (2 bytes per switch pair) and shared by every LID attached there.
// FTROUTE_SLOW_MINHOP=1 runs the previous LID-major code (the benchmark's baseline).
#pragma once

#include "ftroute/engine.hpp"

namespace ftroute {

class MinHopEngine : public Engine {
 public:
  static constexpr const char* kName = "ft-minhop";
  std::string name() const override { return kName; }
  std::vector<OptionSpec> option_specs() const override;
  using Engine::route;
 protected:
  Routing compute(const Fabric& fabric, const EngineOptions& options, const PreviousRouting& previous) override;

 public:
};

// Hop distances between switches over working switch-switch links: dist[a][b], -1 if
// unreachable. Indexed by position in Fabric::switches(). Shared helper for tests.
std::vector<std::vector<int>> switch_distances(const Fabric& fabric);

}  // namespace ftroute
