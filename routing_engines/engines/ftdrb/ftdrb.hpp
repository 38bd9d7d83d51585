// FT-DRB, the routing (subnet manager) side: multipath through intermediate switches, one LID
// per path via LMC. From Zarza's thesis (seed 000; spec docs/specs/zarza_ftdrb_nac.md
// §2-§4 and §8.4). The thesis' source NIC picks among "multistep paths" (MSPs) through
// intermediate nodes; InfiniBand switches forward by destination LID only, so here each of a
// destination's 2^LMC LIDs is one MSP:
//
//  * LID offset 0 is the base path: balanced minimal routing (each switch picks, among its
//    minimal-hop ports, the one with the fewest routes so far, as OpenSM's minhop does).
//  * LID offset i > 0 goes through an intermediate switch I_i. Intermediates are taken from
//    rings around the destination's switch Dsw - 1 hop away first, then 2, ... ("supernode"
//    rings, thesis §3.2/Fig 3.4) - up to `max_alternatives` (thesis: 4) distinct ones, preferring
//    ones whose last leg enters Dsw through a port no other alternative uses (disjoint at the
//    destination where possible), rotated per destination so intermediates are spread.
//    Both legs are minimal: switches on I's minimal path to Dsw forward along it, every other
//    switch forwards minimally towards I. This is an in-tree rooted at Dsw, hence loop free; a
//    source whose route to I meets the I->Dsw leg early joins it there (a shortcut, still a valid
//    alternative path). Offsets beyond the alternatives found reuse them round-robin.
//  * Deadlock freedom: every (source switch, DLID) path is placed, LASH-style, on the first
//    virtual layer whose channel dependency graph stays acyclic with it (incremental topological
//    order). path_sl(slid, dlid) returns that layer; SL s travels on VL s (identity SL2VL), so the
//    routing needs `num_vls` VLs and QoS-style SL2VL programming when num_vls > 1. The thesis
//    moves to the next VL per leg; IB SL2VL is keyed by (in port, out port) and cannot tell an
//    intermediate hop from a transit hop through the same port pair, so we use one layer per
//    whole path instead (documented choice). Base paths are placed first so they prefer layer 0.
//  * After a fault (a PreviousRouting is given and the switch set is unchanged): every DLID whose
//    previous in-tree uses only links that still exist keeps its entries (the remaining multipath
//    is kept); only broken trees are recomputed (same intermediate if still usable). Paths keep
//    their previous layer where it still fits, so SLs stay stable for unaffected pairs.
//
// Options (FtDrbEngine::option_specs, ftdrb.cpp): max_alternatives, max_vls (layers allowed),
// switch_sources (also layer paths sourced at switches without CAs), spread_vls (0 = first fit,
// which packs paths onto the lowest layers; N > 0: each path first tries the layers
// 0..N-1 starting at a per-(source switch, LID) hash, so N VLs carry about equal shares - used by
// `ftroute ftdrb-eval` so fault-free and faulty fabrics use the same VLs).
#pragma once

#include "ftroute/engine.hpp"

namespace ftroute {

class FtDrbEngine : public Engine {
 public:
  std::string name() const override { return "ftdrb"; }
  std::vector<OptionSpec> option_specs() const override;
 protected:
  Routing compute(const Fabric& fabric, const EngineOptions& options, const PreviousRouting& previous) override;

 public:
  using Engine::route;
};

}  // namespace ftroute
