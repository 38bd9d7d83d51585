// FT-DRB source-side metapath state for flitsim (LidPolicy::FtDrb). Internal to the simulator;
// the model and all defaults are described in docs/ftdrb.md, "Simulator side".
#pragma once

#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

#include "ftroute/fabric.hpp"
#include "ftroute/flitsim.hpp"
#include "ftroute/routing.hpp"

namespace ftroute::flitsim {

class FtDrbSelector {
 public:
  FtDrbSelector(const Fabric& f, const Config& cfg) : f_(f), cfg_(cfg) {}

  struct Choice {
    uint32_t offset = 0;
    bool probe = false;
  };
  // Picks the DLID offset for the next message src -> dst (nl = 2^lmc of dst). u in [0,1).
  // src_node/src_port: the source CA port; dst_base: destination base LID.
  Choice choose(const Routing& r, int src, int dst, int src_node, int src_port, Lid dst_base, uint32_t nl, double u);
  // Latency ACK: a message sent on offset `off` was delivered after `net_latency` cycles.
  void delivered(int src, int dst, uint32_t off, bool probe, int64_t net_latency);
  // Fault notification reaching `src`: a message it injected at `sent` (a probe or not) was
  // dropped because `node` port `port` was dead.
  void notify(int src, int node, int port, int64_t sent, bool probe, int64_t now);
  // Broadcast notification (Config::ftdrb_notify_all): marks the link faulty at `src` if it
  // is not yet; does not count towards the permanent threshold twice.
  void notify_broadcast(int src, int node, int port, int64_t now);
  // The LFTs changed: cached paths are recomputed on next use.
  void routing_changed() { gen_++; }

  uint64_t notifications = 0, probes = 0, probes_delivered = 0, permanent = 0, grows = 0, shrinks = 0;
  // non-probe messages dropped on a link the source had already marked faulty when it sent
  // them (must stay 0: the selector skips faulty MSPs unless every MSP is faulty)
  uint64_t late_drops = 0;

 private:
  struct Msp {
    double lat = 0;  // EWMA of network latency; 0 = no sample yet
    std::vector<uint64_t> links;  // normalised link keys on the path
    bool path_ok = true;          // the LFT walk reached the destination
  };
  struct MetaPath {
    std::vector<Msp> msp;
    uint32_t size = 1;  // active MSPs (first `size` healthy offsets)
    uint64_t msgs = 0;  // messages sent (probe counter)
    uint32_t probe_rr = 0;
    uint64_t gen = ~0ull;  // routing generation of the cached paths
  };
  struct LinkFault {
    int count = 0;
    bool faulty = false, permanent = false;
    int64_t since = 0;  // cycle the source marked it faulty
  };
  struct SrcState {
    std::unordered_map<int, MetaPath> mp;       // by destination endpoint
    std::unordered_map<uint64_t, LinkFault> faults;  // by link key
  };

  uint64_t link_key(int node, int port) const;
  void walk(const Routing& r, int src_node, int src_port, Lid dlid, Msp& m) const;
  bool faulty(const SrcState& s, const Msp& m, bool* permanent = nullptr) const;

  const Fabric& f_;
  const Config& cfg_;
  uint64_t gen_ = 0;
  std::unordered_map<int, SrcState> src_;
};

}  // namespace ftroute::flitsim
