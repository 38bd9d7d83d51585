// Small self-contained fabrics + routings used by the flitsim tests and benchmark (and by
// `ftroute sim --engine flitsim-minhop` as a last resort). Real work should use the topology
// generators (ftroute_topo) and routing engines (ftroute_engines); these exist so the simulator
// can be validated against hand-computable numbers independently of them.
#pragma once

#include <string>

#include "ftroute/fabric.hpp"
#include "ftroute/routing.hpp"

namespace ftroute::flitsim {

// kx x ky mesh or torus of switches, one CA per switch (CA i sits at x = i % kx, y = i / kx).
// Switch ports: 1 = CA, 2 = +x, 3 = -x, 4 = +y, 5 = -y. ky = 1 gives a line / ring.
// Node ids "S<x>_<y>", "H<x>_<y>". LIDs assigned (switches first).
Fabric make_mesh(int kx, int ky, bool torus);
// Dimension-order routing (x then y), minimal; torus ties go +. On a torus the SL of a path has
// bit d set when the path crosses the wrap link of dimension d and the SL2VL of dimension-d
// output ports maps that bit to the VL (2 VLs, deadlock-free). clockwise_only: ring routing that
// always goes +x on 1 VL (deadlock-prone on purpose; used by the NAC test).
Routing route_dor(const Fabric& f, int kx, int ky, bool torus, bool clockwise_only = false);
// k-ary n-tree (Petrini/Vanneschi): k^n CAs, n levels of k^(n-1) switches with 2k ports.
Fabric make_kary_ntree(int k, int n);
// Up*/down* with D-mod-k up-port choice (deterministic, deadlock-free, 1 VL).
Routing route_ntree(const Fabric& f, int k, int n);
// Min-hop BFS for any fabric, lowest port on ties, 1 VL (may deadlock on rings/tori).
Routing route_minhop(const Fabric& f);

}  // namespace ftroute::flitsim
