// The LFT route walk, switch by switch, shared by every checker and every tool that follows
// routes: the routing pipeline's result walk (verify_routing, ftroute/verdict.hpp: the plugin's,
// `route`'s and the simulator's check), route_hops(), and walk_path()'s users (flitsim's escape-LID search,
// FT-DRB's source paths, the ftdrb engine's leg and layer walks, KNS's layer assignment,
// dqr-eval's flow model, DQR's traffic marks). build_cdg() (ftroute/cdg.hpp) walks the same
// routes per (switch, input port, SL) state, because the VL of a hop depends on them; its stop
// reasons are the same DropKinds, which live here with RouteWalkStats (no CDG dependency).
//
// decode_hop() is one hop: what an LFT entry of switch `sw` does with a packet for the
// destination port (dst_node, dst_port); follow() reads the entry from the LFTs. walk_path()
// follows one route hop by hop, with one loop bound (more switch visits than the fabric has
// switches), calling a callback per hop. RouteWalker follows hops from many start switches
// towards one LID at a time, memoised: a walk stops where an earlier walk for the same LID
// passed (Joined), so checking every switch costs one visit per switch and LID.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ftroute/fabric.hpp"
#include "ftroute/routing.hpp"

namespace ftroute {

// Why a route from a source stopped before its destination.
enum class DropKind : uint8_t {
  NoRoute,        // LFT entry is kNoPath (255)
  BadPort,        // LFT entry names a port the switch does not have
  DownPort,       // LFT entry names a port with no link
  NotLocal,       // LFT entry 0 (this switch) for a LID the switch does not own
  WrongEndpoint,  // route ends at a CA/router that does not own the LID
  Loop,           // route revisits a (switch, in-port, SL) state: forwarding loop
};
const char* drop_kind_text(DropKind k);

struct RouteWalkStats {
  uint64_t pairs = 0;        // source/destination LID pairs walked
  uint64_t delivered = 0;
  uint64_t dropped = 0;      // NoRoute/BadPort/DownPort/NotLocal/WrongEndpoint
  uint64_t looping = 0;      // pairs caught in a forwarding loop
  uint64_t per_kind[6] = {}; // pairs per DropKind
  // "H1(5) -> H7(12) stops at \"S2\"[4]: no route (LFT entry 255)"
  std::vector<std::string> unreachable_examples;
  // "\"S1\"[2] -> \"S2\"[3] -> \"S1\" (DLID 12)"
  std::vector<std::string> loop_examples;
  std::vector<uint64_t> hop_histogram;  // delivered pairs by number of links traversed (empty without CdgBuildOptions::hop_histogram)
  // Routes (delivered pairs) per link id (Cdg::link_id); empty if !collect_loads.
  std::vector<uint64_t> link_load;
  uint16_t vl_mask = 0;      // VLs carrying traffic
  int sources = 0, destinations = 0;
};

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

// One hop from switch sw whose LFT entry for the LID is p; the LID is owned by the port
// (dst_node, dst_port) (port 0 for a switch's own LID). Order of the checks: no route (255),
// port 0 (Delivered when sw owns the LID, else NotLocal), a port the switch lacks (BadPort), a
// port without link (DownPort), a link to a CA/router (Delivered when it is the owner's port,
// else WrongEndpoint). dst_node < 0 means "owner not checked": the first CA/router reached is
// Delivered, and port 0 is Delivered on any switch.
inline RouteHop decode_hop(const Fabric& f, int sw, uint8_t p, int dst_node, int dst_port) {
  RouteHop h;
  h.port = p;
  if (p == kNoPath) return h;  // Dropped, NoRoute
  if (p == 0) {
    if (dst_node == sw || dst_node < 0) h.kind = RouteHop::Delivered;
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
  } else if (dst_node < 0 || (x.peer_node == dst_node && x.peer_port == dst_port)) {
    h.kind = RouteHop::Delivered;
  } else {
    h.drop = DropKind::WrongEndpoint;
  }
  return h;
}

// One hop from switch sw for LID lid, whose owner is the port (dst_node, dst_port): decode_hop()
// of the switch's LFT entry.
inline RouteHop follow(const Fabric& f, const Lfts& lfts, int sw, Lid lid, int dst_node, int dst_port) {
  return decode_hop(f, sw, lfts.get(sw, lid), dst_node, dst_port);
}

// How walk_path() ended.
struct PathWalk {
  enum End : uint8_t {
    Delivered,  // the last hop delivered (hop.kind == Delivered)
    Dropped,    // the last hop dropped the packet: hop.drop (never Loop)
    Loop,       // more switch visits than the fabric has switches: the route loops
    Stopped,    // on_hop returned false
  };
  End end = Dropped;
  int sw = -1;     // the last switch visited (Loop: the switch the bound was hit at)
  RouteHop hop;    // the hop taken at sw (not set for Loop)
  int switches = 0;  // switches visited, sw included
};

// Follows one route from switch `sw`, hop by hop: the LFT entry of switch s is entry(s), decoded
// by decode_hop(f, s, entry(s), dst_node, dst_port). on_hop(s, hop) is called for every switch of
// the walk in order, including the last (the one that delivers or drops); when it returns false
// (it may also return void) the walk stops there (Stopped). The one loop bound of every walk: a
// route that visits more switches than the fabric has loops. No allocation.
template <class Entry, class OnHop>
PathWalk walk_path_by(const Fabric& f, Entry&& entry, int sw, int dst_node, int dst_port, OnHop&& on_hop) {
  PathWalk w;
  const int limit = static_cast<int>(f.switches().size());
  for (int s = sw;;) {
    w.sw = s;
    if (w.switches == limit) {
      w.end = PathWalk::Loop;
      w.hop = RouteHop{};
      return w;
    }
    w.switches++;
    w.hop = decode_hop(f, s, static_cast<uint8_t>(entry(s)), dst_node, dst_port);
    if constexpr (std::is_void_v<decltype(on_hop(s, w.hop))>) {
      on_hop(s, w.hop);
    } else if (!on_hop(s, w.hop)) {
      w.end = PathWalk::Stopped;
      return w;
    }
    if (w.hop.kind == RouteHop::Forward) {
      s = w.hop.next;
      continue;
    }
    w.end = w.hop.kind == RouteHop::Delivered ? PathWalk::Delivered : PathWalk::Dropped;
    return w;
  }
}

// walk_path_by() over the LFTs for LID lid, owned by (dst_node, dst_port) (dst_node < 0: not
// checked, see decode_hop()).
template <class OnHop>
PathWalk walk_path(const Fabric& f, const Lfts& lfts, int sw, Lid lid, int dst_node, int dst_port, OnHop&& on_hop) {
  return walk_path_by(f, [&](int s) { return lfts.get(s, lid); }, sw, dst_node, dst_port, std::forward<OnHop>(on_hop));
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
