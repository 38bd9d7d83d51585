// ftree-misroute's internals shared by its files: the destination LIDs as the engine numbers
// them (dest_index.cpp), the valley leaves by plane (plane_valleys.cpp), the cable balancing (balance.cpp), and the Up*/Down* last resort (option updn_fallback, updn_fallback.cpp). Engine-private: include only from
// routing_engines/engines/ftree_misroute/.
#pragma once

#include <cstdint>
#include <algorithm>
#include <functional>
#include <vector>

#include "ftroute/fabric.hpp"
#include "ftroute/ftree_misroute/fattree.hpp"
#include "ftroute/routing.hpp"

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

// Valley leaves by plane (option plane_valleys). The planes are the connected parts of the tree
// above its leaves (hdr-3tier: spine j of every pod with the cores cabled to them), which meet only
// at leaves, so every route from one plane into another turns at a leaf. The planes are put in an
// order (pos), and the turn between the planes at positions i and j takes place at leaf[min(i, j)]
// (the last leaf also takes every position beyond it): the turns seen as edges between planes
// coloured by their leaf then hold no cycle whose consecutive edges differ in colour (a cycle's
// lowest plane sees one colour on both its edges), the condition docs/ftree-misroute.md section 9
// derives for one VL. The U-turn load is spread over that many leaves instead of one valley leaf.
// All the leaves sit in one sub-tree below the top rank, so the U-turn points above the leaves
// are those of a single valley chain. Beyond the proof of section 4: the CDG self-check decides.
struct PlaneValleys {
  std::vector<int> plane;             // per switch: its plane, -1 for the leaves
  std::vector<int> pos;               // per plane: its position in the order
  std::vector<int> leaf;              // per position: the valley leaf of its turns (last: the tail)
  std::vector<std::vector<int>> low;  // per plane: its rank-1 switches (they descend to the leaves)
  // Spread turns: `leaf` is every leaf of the pod cabled into every plane, and a turn out of any
  // plane may take place at any of them (per destination and plane, the Router deals them out);
  // those leaves send each other's LIDs through plane `z` only. Acyclic on a fault-free tree: a
  // channel dependency chain from a turn at leaf X into plane b reaches a turn at another leaf Y
  // only through a route X -> b -> Y (no route climbs back down into the pod in plane b), so
  // every such chain runs through plane z, and a turn at Y goes out of z into another plane,
  // through which no route between these leaves runs (docs/ftree-misroute.md section 8).
  bool spread = false;
  int z = -1;
  // Turn pods by position (spread 3): the by-plane colouring with pods for leaves. The turns
  // between the planes at positions i < j take place in pod i (the last pod: every position from
  // its own on), spread over its leaves cabled to every plane (pod_leaf[i]); those leaves reach
  // each other through plane zpos[i] only (position 0's plane for i >= 1, position 1's for i = 0).
  // A dependency cycle's lowest plane m has both its turns in pod m, joined there only by a route
  // between two of its turn leaves in plane m, which is never that pod's z. `leaf` lists every
  // turn leaf, pod 0's first (the valley pod).
  bool pods = false;
  std::vector<std::vector<int>> pod_leaf;
  std::vector<int> zpos;
  std::vector<char> full;             // per entry of `leaf`: cabled into every plane
  bool by_plane() const { return !spread && !pods; }
  int planes() const { return static_cast<int>(pos.size()); }
  int slots() const { return static_cast<int>(pods ? pod_leaf.size() : leaf.size()); }
  int index(int position) const { return std::min(position, slots() - 1); }
};

// The plane valleys of `t` (empty `leaf`: not used): the planes, their order and the leaves, in
// the sub-tree of the best valley leaf candidate (valleys.front()). Used when there are 3+ planes
// and CAs above the leaves, or `forced` (plane_valleys=true); `spread` 1 or 2: turns spread over
// a pod's leaves (PlaneValleys::spread), 3: turn pods by position (PlaneValleys::pods). Details in
// plane_valleys.cpp.
// Cable balancing (option balance, balance.cpp): a local search moving entries to another cable
// of their switch whose route reaches the LID in no more hops, while the potential sum of
// (cable load / EFI max)^8 falls, no cable rises above the busiest one and the CDG with switch
// sources stays acyclic; until a round over every entry moves none, max_moves or `budget` steps
// (routes walked). Returns the entries moved and the busiest cable's load after them.
struct BalanceResult {
  size_t moves = 0;
  uint64_t efi_max = 0;
};
BalanceResult balance_cables(const Fabric& fabric, Routing& routing, size_t max_moves, uint64_t budget);
// Hole filling (balance.cpp): every switch without a route to a LID (entry kNoPath, not the LID's
// own switch) gets a path through other such switches to one that has a route, the path adding
// the fewest dependencies the CDG with switch sources does not have yet (then the fewest hops,
// then the lightest cables), every dependency checked to keep the CDG acyclic; a LID that cannot
// be filled goes first in a new attempt (up to 8). Returns the entries set, or -1 when a switch
// stays without a route or the routing given is not acyclic (nothing is promised then: the caller
// drops it), and the attempts made.
struct FillResult {
  long entries = -1;
  int attempts = 0;
};
FillResult fill_holes(const Fabric& fabric, Routing& routing);

PlaneValleys plane_valleys(const Fabric& fabric, const FatTree& t, const std::vector<std::vector<DestLid>>& dests,
                           const std::vector<long>& divisor, const std::vector<int>& valleys, bool forced,
                           int spread = 0);

// Last resort of all (option updn_fallback): Up*/Down* on the switch graph, oriented from one
// root (the top-rank switch of least eccentricity). Fills `tab` (one table per switch, indexed
// by LID) for every destination; returns the root's switch index, or -1 if some switch cannot
// reach a destination. Details in updn_fallback.cpp.
int route_updn(const Fabric& fabric, const FatTree& t, const std::vector<std::vector<DestLid>>& dests,
               std::vector<uint8_t*>& tab);

}  // namespace ftroute
