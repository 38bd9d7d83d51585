// Small hand-built fabrics shared by several unit tests.
#pragma once

#include <string>

#include "ftroute/fabric.hpp"
#include "ftroute/routing.hpp"

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

// Ring of n switches R0..R(n-1): Ri[1] -> R(i+1)[2], CA Ci on Ri[3], port 4 without link. LIDs:
// switches 1..n, CAs n+1..2n.
inline Fabric ring(int n) {
  Fabric f;
  for (int i = 0; i < n; i++) f.add_node(NodeType::Switch, "R" + std::to_string(i), 4);
  for (int i = 0; i < n; i++) f.add_node(NodeType::Ca, "C" + std::to_string(i), 1);
  for (int i = 0; i < n; i++) {
    f.connect(i, 1, (i + 1) % n, 2);
    f.connect(i, 3, n + i, 1);
  }
  f.assign_default_guids();
  f.assign_lids();
  return f;
}

// On ring(n): every switch sends every foreign LID clockwise (port 1), its own LID to port 0 and
// its CA's LIDs to port 3.
inline Routing clockwise(const Fabric& f, int n) {
  Routing r;
  r.lfts = Lfts(f);
  for (int s = 0; s < n; s++)
    for (const EndPort& e : f.end_ports()) {
      const int home = f.node(e.node).is_switch() ? e.node : e.node - n;
      const uint8_t port = home != s ? 1 : (e.node == s ? 0 : 3);
      for (uint32_t l = e.base_lid; l <= e.last_lid(); l++) r.lfts.set(s, static_cast<Lid>(l), port);
    }
  return r;
}

}  // namespace ftroute::test_fabrics
