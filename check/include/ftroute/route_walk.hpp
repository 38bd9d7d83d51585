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

#include <algorithm>
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

// Memoised walks towards one LID at a time (see the file comment). The walker takes the same
// hops as follow(), from flat per-port tables, and reads the LFTs in blocks of kBlock LIDs per
// switch (one cache line per switch for kBlock consecutive LIDs, instead of one per entry):
// checking LIDs in increasing order is then as fast as reading the tables switch by switch.
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
  static constexpr int kBlock = 64;

  RouteWalker(const Fabric& f, const Lfts& lfts);
  // Starts a new LID owned by the port (dst_node, dst_port); forgets the switches walked so far.
  void begin(Lid lid, int dst_node, int dst_port) {
    lid_ = lid, dst_node_ = dst_node, dst_port_ = dst_port;
    if (++lid_stamp_ == 0) {  // wrap-around: restart the stamps
      std::fill(known_.begin(), known_.end(), 0);
      lid_stamp_ = 1;
    }
    if (static_cast<long>(lid / kBlock) != blk_id_) load_block(lid / kBlock);
  }
  // Has a walk for the current LID passed switch s?
  bool known(int s) const { return known_[static_cast<size_t>(s)] == lid_stamp_; }
  // Follows the route from switch s; every switch it passes becomes known for this LID.
  Walk walk(int s) {
    return walk(s, [](int, const RouteHop&) {});
  }
  // The same, calling on_hop(sw, hop) for every switch of the walk in order (not for the switch
  // a Joined or Loop walk ends at, which an earlier hop of this LID already reported).
  template <class OnHop>
  Walk walk(int s, OnHop&& on_hop);
  // The switches of the last walk, in order.
  const std::vector<int>& path() const { return path_; }
  // One hop of switch sw for the current LID: follow()'s result.
  RouteHop hop(int sw) const;
  // Position of switch node sw among the fabric's switches (Fabric::switches() order), -1 if none.
  int pos(int node) const { return info_[static_cast<size_t>(node)].pos; }

 private:
  void load_block(long b);

  const Lfts& lfts_;
  Lid lid_ = 0;
  int dst_node_ = -1, dst_port_ = 0;
  std::vector<uint32_t> known_, onpath_;
  uint32_t lid_stamp_ = 0, walk_stamp_ = 0;
  std::vector<int> path_;
  // flat topology of the switches: port p of switch node n is ports_[info_[n].base + p]
  struct NodeInfo {
    int32_t pos = -1;   // position among the switches (-1: no switch)
    uint32_t base = 0;
    int32_t nports = 0;
  };
  struct PortInfo {
    int32_t peer_node = -1;
    int16_t peer_port = 0;
    uint8_t peer_sw = 0;  // the peer is a switch
  };
  std::vector<int> sw_list_;            // switch nodes by position
  std::vector<NodeInfo> info_;          // by node
  std::vector<PortInfo> ports_;
  std::vector<uint8_t> blk_;            // LFT block: position * kBlock + lid % kBlock
  long blk_id_ = -1;
};

inline RouteHop RouteWalker::hop(int sw) const {
  RouteHop h;
  const NodeInfo& ni = info_[static_cast<size_t>(sw)];
  const uint8_t p = blk_[static_cast<size_t>(ni.pos) * kBlock + lid_ % kBlock];
  h.port = p;
  if (p == kNoPath) return h;  // Dropped, NoRoute
  if (p == 0) {
    if (dst_node_ == sw) h.kind = RouteHop::Delivered;
    else h.drop = DropKind::NotLocal;  // port 0 on a switch that does not own the LID
    return h;
  }
  if (p > ni.nports) {
    h.drop = DropKind::BadPort;
    return h;
  }
  const PortInfo& e = ports_[ni.base + p];
  const int pn = e.peer_node;
  if (pn < 0) {
    h.drop = DropKind::DownPort;
    return h;
  }
  h.next = pn;
  h.next_port = e.peer_port;
  if (e.peer_sw) {
    h.kind = RouteHop::Forward;
  } else if (pn == dst_node_ && h.next_port == dst_port_) {
    h.kind = RouteHop::Delivered;
  } else {
    h.drop = DropKind::WrongEndpoint;
  }
  return h;
}

template <class OnHop>
RouteWalker::Walk RouteWalker::walk(int s, OnHop&& on_hop) {
  Walk w;
  if (++walk_stamp_ == 0) {
    std::fill(onpath_.begin(), onpath_.end(), 0);
    walk_stamp_ = 1;
  }
  path_.clear();
  for (;;) {
    const size_t i = static_cast<size_t>(s);
    if (known_[i] == lid_stamp_) {
      w.end = End::Joined;
      break;
    }
    if (onpath_[i] == walk_stamp_) {
      w.end = End::Loop;
      break;
    }
    onpath_[i] = walk_stamp_;
    path_.push_back(s);
    w.hop = hop(s);
    on_hop(s, w.hop);
    if (w.hop.kind == RouteHop::Forward) {
      s = w.hop.next;
      continue;
    }
    w.end = w.hop.kind == RouteHop::Delivered ? End::Delivered : End::Dropped;
    break;
  }
  w.sw = s;
  for (int x : path_) known_[static_cast<size_t>(x)] = lid_stamp_;
  return w;
}

}  // namespace ftroute
