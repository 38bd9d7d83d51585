// ftree-misroute: fat-tree routing with static misrouting around link faults (seed 001,
// Sem-Jacobsen, Skeie, Lysne, Duato, "Dynamic Fault Tolerance with Misrouting in Fat Trees"),
// turned into destination-based InfiniBand LFTs on ONE virtual lane.
//
// 1. The fat tree is recognised from the graph (fattree.hpp): ranks, up/down ports, blocks.
// 2. Per destination LID (CA LIDs incl. every LID of an LMC range, switch LIDs) the engine
//    classifies every switch by the shape of the remaining path it can use, over working links:
//      P0  down*                 the switch is an ancestor of the destination's attach switch
//      P1  up+ down*             it can climb to a P0 switch (the normal up/down route)
//      P2  down+ | up+ down*     it must first descend (misroute) to a P1 switch: a U-turn
//      P3  up+ down+ | ...       it must climb to a P2 switch first
//    and picks, inside the class, the balanced d-mod-k port (the destination's index digits
//    select the up-port at every rank; LMC offsets shift the choice). Without faults every
//    CA-to-CA route is a plain up/down route (P0/P1 only). A switch whose deterministic
//    down-link towards d is gone is no longer P0: its upward choice avoids that dead subtree
//    (it climbs to another ancestor), and a switch that cannot climb (a top switch) descends
//    one hop to a sibling sub-tree and climbs again: the paper's misroute, fixed per LID.
//    U-turns (P2 descents) go towards one "valley" leaf switch (chosen to be reachable from
//    every top switch) whenever the descent can stay on switches that also descend; only when
//    a P1 switch is in the way does the U-turn happen there (the paper's misroute one hop down).
// 3. Every result is checked: full reachability of every (source switch or CA, destination
//    LID) pair, no forwarding loop, and an acyclic channel dependency graph on VL 0 with
//    switches as packet sources too (channel_list/cdg.hpp). If the first choice of U-turns
//    closes a cycle, the engine bans the U-turn on that cycle and recomputes (bounded number of
//    rounds). Failure -> EngineError with the reason (OpenSM then falls back).
//
// Options:
//   valley_leaf=<node id>   leaf switch used for U-turns (default: automatic choice)
//   check=true|false        verify reachability/loops/CDG and repair (default true)
//   max_repairs=<n>         rounds of U-turn bans before giving up (default 64)
#pragma once

#include "ftroute/engine.hpp"
#include "ftree_misroute/fattree.hpp"

namespace ftroute {

class FtreeMisrouteEngine : public Engine {
 public:
  static constexpr const char* kName = "ftree-misroute";
  std::string name() const override { return kName; }
  std::vector<std::string> option_keys() const override { return {"valley_leaf", "check", "max_valleys"}; }
  using Engine::route;
  Routing route(const Fabric& fabric, const EngineOptions& options, const PreviousRouting& previous) override;
};

}  // namespace ftroute
