// Recognition of 2-D / 3-D meshes from the fabric graph (no names, no port conventions).
//
// Used by the reference DOR engine (routing_engines/engines/dor) and by DQR's mesh plug-in.
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
// Tori (every switch of degree 2n, no corners) are detected and reported as such, but not
// embedded: a 4x4 torus is isomorphic to a 4-cube, so ring extraction needs care; the DOR
// engine refuses tori (docs/dqr.md).
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
  bool torus = false;
  // Per node index (switches only; others {-1,-1,-1}).
  std::vector<std::array<int, 3>> coord;
  // Switch node at a linear index x + X*(y + Y*z).
  std::vector<int> node_at;
  // port[node][2*d + 0] = port towards +d, [2*d + 1] = towards -d (0 = none / border).
  std::vector<std::array<uint8_t, 6>> port;

  int num_switches() const { return size[0] * size[1] * size[2]; }
  int linear(const std::array<int, 3>& c) const { return c[0] + size[0] * (c[1] + size[1] * c[2]); }
  int node(const std::array<int, 3>& c) const { return node_at[static_cast<size_t>(linear(c))]; }
  bool is_grid_switch(int n) const { return n >= 0 && n < static_cast<int>(coord.size()) && coord[static_cast<size_t>(n)][0] >= 0; }
  std::string describe() const;  // "10x10 mesh"
};

// Recognises a full 2-D/3-D mesh. On failure returns nullopt and sets *why (if given) to the
// reason, naming a switch where possible.
std::optional<MeshGrid> recognise_mesh(const Fabric& fabric, std::string* why = nullptr);

}  // namespace ftroute
