// ftree-misroute: fat-tree routing with static misrouting around link faults (seed 001,
// Sem-Jacobsen, Skeie, Lysne, Duato, "Dynamic Fault Tolerance with Misrouting in Fat Trees"),
// turned into destination-based InfiniBand LFTs on ONE virtual lane. Full description,
// proof sketch and measured tolerance: docs/ftree-misroute.md.
//
// 1. The fat tree is recognised from the graph (fattree.hpp): ranks, up/down ports, sub-trees.
// 2. Per destination LID (CA LIDs incl. every LID of an LMC range, switch LIDs) every switch is
//    put in a class by the shape of the route it can still use over working links:
//      0: down* (an ancestor of the destination's switch), 1: up+ then class 0 (normal route),
//      2j: down to a U-turn point of class 2j-1 (misroute), 2j+1: up to class 2j.
//    Inside its class a switch takes the balanced d-mod-k port (the destination index digits
//    select the up-port per rank; LMC offsets shift the choice). Without faults every CA-to-CA
//    route is plain up/down. With faults, up-choices avoid dead sub-trees (a switch climbs only
//    to parents that still reach the destination), and a switch that cannot climb descends one
//    hop and climbs again elsewhere: the paper's misroute, fixed per destination LID.
// 3. Deadlock freedom on one VL: U-turns are only allowed at switches inside the sub-tree (of
//    their own rank) that contains one "valley leaf" switch. With that rule every dependency
//    cycle would need a 180-degree turn, which no class-consistent table makes (proof in the
//    doc). The valley leaf is chosen to be reachable from as many switches as possible; up to
//    max_valleys candidates are tried. As a last resort U-turns anywhere are tried and kept only
//    if the CDG check finds no cycle.
// 4. check: reachability of every (switch or CA source, LID) pair, no loops, acyclic CDG on VL0
//    with switches as sources (channel_list/cdg.hpp). A fabric that cannot be routed throws
//    EngineError with the reason (OpenSM then falls back).
//
// 5. vls=N (default 1): N valley chains, one VL each. The fabric is routed with each of N valley
//    leaves, every destination LID takes the tables of one chain and that chain's SL (= VL), so
//    each VL holds a subset of one single-valley routing (acyclic by 3.) and the U-turn load is
//    split N ways.
//
// Files: ftree_misroute.cpp (classes, plans, valley chains), dest_index.cpp (the d-mod-k
// numbering of the destinations), updn_fallback.cpp (the last resort), fattree.cpp (recognition).
// 6. Trees built in planes with CAs above the leaves (aggregation nodes, hosts on spines): the
//    turns between planes at one valley leaf per plane, or spread over one pod's leaves that
//    reach each other through one plane (plane_valleys.cpp, router.hpp); `auto` routes the
//    candidates on 1 VL and keeps the lowest EFI max (docs/ftree-misroute.md section 8).
//
// Files: also plane_valleys.cpp (the planes and their turn leaves), router.hpp (the per-destination
// router). Options (FtreeMisrouteEngine::option_specs, ftree_misroute.cpp): valley_leaf,
// max_valleys, vls, plane_valleys, spare_turn_planes, free_uturns, updn_fallback, check,
// root_guid_file, io_guid_file, threads (the LFTs are the same for every thread count).
#pragma once

#include "ftroute/engine.hpp"
#include "ftroute/ftree_misroute/fattree.hpp"

namespace ftroute {

class FtreeMisrouteEngine : public Engine {
 public:
  static constexpr const char* kName = "ftree-misroute";
  std::string name() const override { return kName; }
  std::vector<OptionSpec> option_specs() const override;
  using Engine::route;
 protected:
  Routing compute(const Fabric& fabric, const EngineOptions& options, const PreviousRouting& previous) override;

 public:
};

}  // namespace ftroute
