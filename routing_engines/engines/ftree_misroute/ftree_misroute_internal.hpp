// ftree-misroute's internals shared by its files: the destination LIDs as the engine numbers
// them (dest_index.cpp), and the Up*/Down* last resort (option updn_fallback, updn_fallback.cpp). Engine-private: include only from
// routing_engines/engines/ftree_misroute/.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "ftroute/fabric.hpp"
#include "ftroute/ftree_misroute/fattree.hpp"

namespace ftroute {

// A destination LID of an attach switch, with its d-mod-k numbering.
struct DestLid {
  Lid lid;
  uint8_t attach_port;
  long index;   // d-mod-k index
  long offset;  // LMC offset
  long local = 0;  // the attach switch's first index + position among its LIDs by (index, offset)
};

// Every destination LID (CA ports with every LID of their LMC range, switch LIDs, aggregation
// nodes) with its d-mod-k index, grouped by attach switch (dense switch index of `t`).
// `parents[s]`: switch s's distinct up-peers; `by_subtree`: the sub-tree order of the switches.
// Fills `divisor` (the digit weight of each rank: q[r] = index / divisor[r] + LMC offset).
std::vector<std::vector<DestLid>> number_destinations(const Fabric& fabric, const FatTree& t,
                                                      const std::vector<size_t>& parents,
                                                      const std::function<bool(int, int)>& by_subtree,
                                                      std::vector<long>& divisor);

// Last resort of all (option updn_fallback): Up*/Down* on the switch graph, oriented from one
// root (the top-rank switch of least eccentricity). Fills `tab` (one table per switch, indexed
// by LID) for every destination; returns the root's switch index, or -1 if some switch cannot
// reach a destination. Details in updn_fallback.cpp.
int route_updn(const Fabric& fabric, const FatTree& t, const std::vector<std::vector<DestLid>>& dests,
               std::vector<uint8_t*>& tab);

}  // namespace ftroute
