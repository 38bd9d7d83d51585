// Small hand-built fabrics shared by several unit tests.
#pragma once

#include <string>

#include "ftroute/fabric.hpp"

namespace ftroute::test_fabrics {

// Two switches "SA", "SB" joined by one link (a 2x1 mesh: the bisection is that link), `c` CAs
// "H<i>" on each (endpoints 0..c-1 on SA, c..2c-1 on SB); GUIDs and LIDs assigned.
inline Fabric make_dumbbell(int c) {
  Fabric f;
  int a = f.add_node(NodeType::Switch, "SA", c + 1), b = f.add_node(NodeType::Switch, "SB", c + 1);
  f.connect(a, c + 1, b, c + 1);
  for (int i = 0; i < 2 * c; i++) {
    int h = f.add_node(NodeType::Ca, "H" + std::to_string(i), 1);
    f.connect(h, 1, i < c ? a : b, i % c + 1);
  }
  f.assign_default_guids();
  f.assign_lids();
  return f;
}

// Switch-to-switch cables (each link counted once).
inline int switch_links(const Fabric& f) {
  int n = 0;
  for (int s : f.switches())
    for (int p = 1; p <= f.node(s).num_ports; p++) {
      const Port& x = f.node(s).port(p);
      if (x.connected() && f.node(x.peer_node).is_switch()) n++;
    }
  return n / 2;
}

}  // namespace ftroute::test_fabrics
