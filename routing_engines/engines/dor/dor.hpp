// ft-dor: reference dimension-order routing (DOR, "XY"/"XYZ" routing) for full 2-D and 3-D meshes
// and tori; on tori E-cube routing with one virtual layer per path (what DQR needs).
//
// The mesh or torus is recognised from the fabric graph alone (ftroute/grid.hpp recognise_grid:
// corners + BFS distances for meshes, frame propagation for tori, verified link by link); names
// and port numbers are never trusted. Every LID is routed on every switch: correct the first
// differing coordinate in dimension order, moving towards the destination's attach switch; at the
// attach switch, the CA-facing port (or 0 for the switch's own LID).
//
// Mesh: DOR is deadlock-free with one VL (no cyclic turns), so num_vls = 1 and SL 0.
//
// Torus (E-cube, seed 004 §V / Fig. 5): in each ring the shortest direction is taken; a tie (ring
// of even size n, distance n/2) goes towards + (decided at the switch where the dimension is
// entered; every later switch of that ring segment is strictly closer in + and keeps going +, so
// the LFTs reproduce exactly these paths). Paths are minimal (hops = torus distance).
// The path from switch a to switch b lives on virtual layer
//     L(a, b) = sum over dimensions d of 2^d * [the ring segment of d crosses d's dateline],
// the dateline of d being the wrap link between coordinates n_d-1 and 0 (either direction).
// L depends only on a's and b's coordinates (each dimension is corrected once, whatever the
// order), so path_sl(slid, dlid) = L(switch of slid, switch of dlid) for CA and switch LIDs alike
// (switch-sourced traffic included), SL2VL is the identity (Routing::sl2vl left empty = SL s on
// VL s on every port, what the plugin programs with `qos TRUE`), num_vls = 2^dims (4 or 8): every
// pattern occurs, e.g. from (n-1,..) to (0,..). A path never changes VL.
// Why every layer's channel dependency graph (CDG) is acyclic:
//  1. Along a path, channels go through the dimensions in the fixed order, so a dependency never
//     leads from a dimension to an earlier one; a cycle stays in one dimension d. Inside d, a
//     path's segment is one ring, one direction (minimal), so dependencies join consecutive
//     channels c_k = (k -> k+1) of one ring and direction: a cycle would be the whole ring
//     c_0 -> c_1 -> ... -> c_{n-1} -> c_0 (say direction +, coordinates mod n).
//  2. Layer bit d = 0: no path of the layer crosses d's dateline, the wrap channel c_{n-1} carries
//     none of its traffic: no cycle.
//  3. Layer bit d = 1: every segment in d crosses the dateline: it starts at a, ends at b, covers
//     a..n-1, 0..b with length l = n - a + b <= floor(n/2) (minimal, ties included). It passes
//     *through* (enters and leaves) only nodes > a >= n - floor(n/2) + b >= ceil(n/2) or nodes
//     < b <= floor(n/2) - 1, so no segment passes through node floor(n/2): the dependency
//     c_{floor(n/2)-1} -> c_{floor(n/2)} never exists and the ring cycle is broken. Same for
//     direction - by symmetry. So ties towards + are safe: the bound only uses l <= floor(n/2).
// Injection (CA -> switch) channels have no predecessor, ejection (switch -> CA) channels no
// successor; they close no cycle. A 3-ring alone would not need its dateline bit (segments of one
// hop create no dependency inside the ring), but the layer rule is kept uniform: 2^dims layers.
//
// Refused with EngineError (the reason names a switch when possible): anything that is not a
// full mesh or torus, which includes a mesh or torus with a failed link (DOR cannot route around
// faults; that is what `dqr` is for), and a torus needing more layers than max_vls.
//
// Options (DorEngine::option_specs, dor.cpp): order (a permutation of the dimension letters
// x,y[,z]), max_vls (VLs available for the layers: a 2-D torus needs 4, a 3-D torus 8).
#pragma once

#include <array>

#include "ftroute/engine.hpp"
#include "ftroute/grid.hpp"

namespace ftroute {

class DorEngine : public Engine {
 public:
  static constexpr const char* kName = "ft-dor";
  std::string name() const override { return kName; }
  std::vector<OptionSpec> option_specs() const override;
  using Engine::route;
 protected:
  Routing compute(const Fabric& fabric, const EngineOptions& options, const PreviousRouting& previous) override;

 public:
};

// E-cube on a torus grid: direction of the ring segment from coordinate `from` to `to` in
// dimension d (+1, -1, or 0 when equal; ties towards +1).
int torus_direction(const MeshGrid& grid, int d, int from, int to);
// Virtual layer of the DOR path between switches at coordinates a and b (bit d = crosses d's
// dateline); 0 on a mesh.
int torus_layer(const MeshGrid& grid, const std::array<int, 3>& a, const std::array<int, 3>& b);

}  // namespace ftroute
