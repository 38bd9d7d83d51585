// The LFT route walk, switch by switch, shared by every checker that follows routes without
// tracking VLs: the plugin's result check (plugin/adapter.cpp), the simulator's routing check
// (flitsim check_routing) and route_hops(). build_cdg() (ftroute/cdg.hpp) walks the same
// routes per (switch, input port, SL) state, because the VL of a hop depends on them; its stop
// reasons are the same DropKinds.
//
// follow() is one hop: what the LFT entry of switch `sw` for a LID does with a packet for the
// destination port (dst_node, dst_port). RouteWalker follows hops from many start switches
// towards one LID at a time, memoised: a walk stops where an earlier walk for the same LID
// passed (Joined), so checking every switch costs one visit per switch and LID.
#pragma once

#include <cstdint>
#include <vector>

#include "ftroute/cdg.hpp"
#include "ftroute/fabric.hpp"
#include "ftroute/routing.hpp"

namespace ftroute {

struct RouteHop {
  enum Kind : uint8_t {
    Forward,    // to switch `next` (entering on next_port)
    Delivered,  // to the destination port (through a link, or port 0 of the switch that owns it)
    Dropped,    // the walk stops here: `drop` says why (never Loop)
  };
  Kind kind = Dropped;
  DropKind drop = DropKind::NoRoute;
  uint8_t port = 0;   // the LFT entry of sw
  int next = -1;      // Forward: next switch; WrongEndpoint: the node reached
  int next_port = 0;  // its port
};

// One hop from switch sw for LID lid, whose owner is the port (dst_node, dst_port) (port 0 for
// a switch's own LID). Order of the checks: no route (255), port 0 (Delivered when sw owns the
// LID, else NotLocal), a port the switch lacks (BadPort), a port without link (DownPort), a
// link to a CA/router (Delivered when it is the owner's port, else WrongEndpoint).
inline RouteHop follow(const Fabric& f, const Lfts& lfts, int sw, Lid lid, int dst_node, int dst_port) {
  RouteHop h;
  const uint8_t p = lfts.get(sw, lid);
  h.port = p;
  if (p == kNoPath) return h;  // Dropped, NoRoute
  if (p == 0) {
    if (dst_node == sw) h.kind = RouteHop::Delivered;
    else h.drop = DropKind::NotLocal;
    return h;
  }
  const Node& n = f.node(sw);
  if (p > n.num_ports) {
    h.drop = DropKind::BadPort;
    return h;
  }
  const Port& x = n.port(p);
  if (!x.connected()) {
    h.drop = DropKind::DownPort;
    return h;
  }
  h.next = x.peer_node;
  h.next_port = x.peer_port;
  if (f.node(x.peer_node).is_switch()) {
    h.kind = RouteHop::Forward;
  } else if (x.peer_node == dst_node && x.peer_port == dst_port) {
    h.kind = RouteHop::Delivered;
  } else {
    h.drop = DropKind::WrongEndpoint;
  }
  return h;
}

// Memoised walks towards one LID at a time (see the file comment).
class RouteWalker {
 public:
  enum class End : uint8_t {
    Delivered,  // the walk reached the destination
    Joined,     // it met a switch walked before for this LID (whatever that walk's end was)
    Dropped,    // stopped: RouteWalk::drop (never Loop)
    Loop,       // it came back to a switch of this walk (RouteWalk::sw)
  };
  struct Walk {
    End end = End::Delivered;
    int sw = -1;     // last switch of the walk (Loop: the switch met again)
    RouteHop hop;    // the hop taken at sw (Delivered, Dropped)
  };

  RouteWalker(const Fabric& f, const Lfts& lfts)
      : f_(f), lfts_(lfts), known_(static_cast<size_t>(f.size()), 0), onpath_(static_cast<size_t>(f.size()), 0) {}
  // Starts a new LID owned by the port (dst_node, dst_port); forgets the switches walked so far.
  void begin(Lid lid, int dst_node, int dst_port) {
    lid_ = lid, dst_node_ = dst_node, dst_port_ = dst_port;
    ++lid_stamp_;
  }
  // Has a walk for the current LID passed switch s?
  bool known(int s) const { return known_[static_cast<size_t>(s)] == lid_stamp_; }
  // Follows the route from switch s; every switch it passes becomes known for this LID.
  Walk walk(int s);
  // The switches of the last walk, in order.
  const std::vector<int>& path() const { return path_; }

 private:
  const Fabric& f_;
  const Lfts& lfts_;
  Lid lid_ = 0;
  int dst_node_ = -1, dst_port_ = 0;
  std::vector<uint32_t> known_, onpath_;
  uint32_t lid_stamp_ = 0, walk_stamp_ = 0;
  std::vector<int> path_;
};

}  // namespace ftroute
