// Recognition of 2-D / 3-D meshes and tori from the fabric graph (no names, no port conventions).
//
// Used by the reference DOR engine (routing_engines/engines/dor: meshes and tori) and by DQR's
// mesh plug-in (meshes only).
// Only switch-to-switch links count; CAs hang off any free port. Parallel links between two
// switches are allowed (the lowest port is the one used).
//
// Method (mesh): corners are the switches of minimum switch-degree n (n = 2 or 3 dims). From
// a corner c0 and n "axis corners" c_k (the corners that differ from c0 in one coordinate),
// BFS distances give every coordinate: x_k = (d(c0,v) - d(c_k,v) + d(c0,c_k)) / 2. Every
// combination of axis corners is tried and the result is verified link by link (every link
// joins coordinates that differ by 1 in exactly one dimension, every grid neighbour pair is
// linked, coordinates are unique), so a fabric that is not exactly a full mesh is rejected
// with the reason. Dimension 0 is the axis whose corner has the lowest node index (row-major
// generators put x first).
// recognise_mesh() refuses tori (every switch of degree 2n, no corners) with a reason saying so;
// DQR's mesh plug-in relies on that (it only understands meshes).
//
// Method (torus, recognise_torus): every switch must have the same number 2n (4 or 6) of distinct
// switch neighbours. The root is the switch with the lowest GUID; its 2n neighbours are paired
// into dimensions and given directions ("frame"). Because every dimension can be renumbered and
// every ring reversed, the lowest-GUID unassigned neighbour is always +e_k of the next
// dimension k and only its partner (-e_k) is chosen: 3 pairings in 2-D, 15 in 3-D. A frame then
// propagates to every switch: for a switch u = v + s*e_i reached from v, u - s*e_i = v, u + t*e_j
// (j != i) is the common neighbour of u and v + t*e_j other than v (unique in a torus whose rings
// have >= 3 switches), and u + s*e_i is the one neighbour left. Ring sizes are the lengths of the
// root's +e_d walks; coordinates follow the frames (mod ring size). The result is verified as for
// the mesh: every switch at one coordinate, every coordinate taken, every link joins ring
// neighbours (+-1 mod size) in exactly one dimension, wrap links included; with 2n distinct
// neighbours per switch that makes the switch graph exactly the torus. A true torus always
// passes with some pairing (the right one exists up to renumbering), anything else fails all of
// them and the first pairing's reason is reported, naming a switch.
// Ring sizes >= 3 (a 2-ring is a parallel link; it is not recognised). A 4x4 torus is a 4-cube and
// a 4x4x4 torus a 6-cube: these graphs have more than one torus embedding (the dimension of a
// link is not determined by the graph); the first pairing that verifies is taken. Any verified
// embedding is a correct torus, so routing on it (ft-dor) is minimal and deadlock-free - only
// which links count as "dimension 0" differs. Dimension 0 is the dimension of the root's
// lowest-GUID neighbour, + pointing at it (row-major generators: x, +x). GUIDs, not node indices
// (those only break GUID ties), so that the embedding - and the dateline, ties and layers of
// ft-dor - is the same for every numbering of the same fabric: OpenSM's node order (plugin) and
// ibnetdiscover's (offline checks) differ.
// recognise_grid() tries both and explains the failure of the one the fabric resembles: a
// torus with a missing or an extra link (almost every switch of degree 2n) is reported as such,
// naming a switch whose degree is off.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "ftroute/fabric.hpp"

namespace ftroute {

struct MeshGrid {
  int ndims = 0;
  std::array<int, 3> size{1, 1, 1};
  bool torus = false;  // every dimension is a ring (wrap links between coordinates size-1 and 0)
  // Per node index (switches only; others {-1,-1,-1}).
  std::vector<std::array<int, 3>> coord;
  // Switch node at a linear index x + X*(y + Y*z).
  std::vector<int> node_at;
  // port[node][2*d + 0] = port towards +d, [2*d + 1] = towards -d (0 = none / border; on a torus
  // the wrap link: +d at coordinate size-1 leads to 0, -d at 0 to size-1).
  std::vector<std::array<uint8_t, 6>> port;

  int num_switches() const { return size[0] * size[1] * size[2]; }
  int linear(const std::array<int, 3>& c) const { return c[0] + size[0] * (c[1] + size[1] * c[2]); }
  int node(const std::array<int, 3>& c) const { return node_at[static_cast<size_t>(linear(c))]; }
  bool is_grid_switch(int n) const { return n >= 0 && n < static_cast<int>(coord.size()) && coord[static_cast<size_t>(n)][0] >= 0; }
  std::string describe() const;  // "10x10 mesh", "4x4x4 torus"
};

// Recognises a full 2-D/3-D mesh. On failure returns nullopt and sets *why (if given) to the
// reason, naming a switch where possible.
std::optional<MeshGrid> recognise_mesh(const Fabric& fabric, std::string* why = nullptr);

// Recognises a full 2-D/3-D torus (every ring >= 3 switches), torus = true. Same contract.
std::optional<MeshGrid> recognise_torus(const Fabric& fabric, std::string* why = nullptr);

// A full mesh or a full torus, whichever the fabric is; on failure *why explains the closer one
// (a torus with a missing/extra link: "switch \"S\" has 3 switch neighbours, every switch of a
// 2-D torus has 4 (missing link?)").
std::optional<MeshGrid> recognise_grid(const Fabric& fabric, std::string* why = nullptr);

}  // namespace ftroute
