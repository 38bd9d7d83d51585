// ft-dor: reference dimension-order routing (DOR, "XY"/"XYZ" routing) for full 2-D and 3-D meshes.
//
// The mesh is recognised from the fabric graph alone (ftroute/grid.hpp: corners + BFS
// distances, verified link by link); names and port numbers are never trusted. Every LID is
// routed on every switch: correct the first differing coordinate in dimension order, moving
// towards the destination's attach switch; at the attach switch, the CA-facing port (or 0 for the
// switch's own LID). DOR on a mesh is deadlock-free with one VL (no cyclic turns), so
// num_vls = 1 and SL 0.
//
// Refused with EngineError (the reason names a switch when possible): anything that is not a
// full mesh, which includes a mesh with a failed link (DOR cannot route around faults; that is
// what `dqr` is for) and tori (they need dateline VLs, not implemented: see docs/dqr.md).
//
// Options: order=xyz (a permutation of the dimension letters x,y[,z]; default x first).
#pragma once

#include "ftroute/engine.hpp"

namespace ftroute {

class DorEngine : public Engine {
 public:
  static constexpr const char* kName = "ft-dor";
  std::string name() const override { return kName; }
  std::vector<std::string> option_keys() const override { return {"order"}; }
  using Engine::route;
  Routing route(const Fabric& fabric, const EngineOptions& options, const PreviousRouting& previous) override;
};

}  // namespace ftroute
