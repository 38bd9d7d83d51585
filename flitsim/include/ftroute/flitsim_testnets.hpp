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
// ties_by_lmc: a torus tie (distance k/2) in dimension d goes - when bit d of the destination
// LID's offset from its CA's base LID is set, else +: with LMC >= dims and sources picking a LID
// at random per packet (LidPolicy::Random), each tie goes either way with probability 1/2, per
// packet and per dimension, as BookSim2's dim_order torus breaks it.
Routing route_dor(const Fabric& f, int kx, int ky, bool torus, bool clockwise_only = false, bool ties_by_lmc = false);
// k-ary n-tree (Petrini/Vanneschi): k^n CAs, n levels of k^(n-1) switches with 2k ports.
Fabric make_kary_ntree(int k, int n);
// Up*/down* with D-mod-k up-port choice (deterministic, deadlock-free, 1 VL): the up port at
// level l is digit l (base k) of the destination's host index. ups_by_lmc: digit l of the
// destination LID's offset from its base LID instead; with k^(n-1) dividing 2^LMC and sources
// picking a LID at random per packet (LidPolicy::Random), every up hop picks one of the k up
// ports uniformly and independently per packet, as BookSim2's nca routing does.
Routing route_ntree(const Fabric& f, int k, int n, bool ups_by_lmc = false);
// Min-hop BFS for any fabric, lowest port on ties, 1 VL (may deadlock on rings/tori).
Routing route_minhop(const Fabric& f);

}  // namespace ftroute::flitsim
