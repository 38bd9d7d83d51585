// flitsim FT-DRB source hooks (inline, included by sim.cpp): fault notifications from the
// detecting switch and latency ACKs, delivered to the FtDrbSelector (ftdrb_select.*) in time.
#pragma once

#include "sim_impl.hpp"

namespace ftroute::flitsim {

// FT-DRB: packet pi was dropped because link (node, port) is dead; its source hears of it
// after hops x ftdrb_notify_hop_cycles (default link_latency) cycles, at least 1.
inline void Simulator::Impl::ftdrb_fault(uint32_t pi, int node, int port) {
  if (!ftdrb) return;
  const Pkt& p = pk(pi);
  if (!p.injected) return;
  int64_t per = cfg.ftdrb_notify_hop_cycles > 0 ? cfg.ftdrb_notify_hop_cycles : cfg.link_latency;
  ft_notes.push(FtNote{now + std::max<int64_t>(1, static_cast<int64_t>(p.hops) * per), p.src, node, port, p.lid_at, p.probe, false});
  if (cfg.ftdrb_notify_all && ft_bcast.insert({node, port}).second) {
    // BFS hop distance from the detecting switch to every endpoint
    std::vector<int> dist(static_cast<size_t>(f.size()), -1);
    std::deque<int> bq{node};
    dist[node] = 0;
    while (!bq.empty()) {
      int u = bq.front();
      bq.pop_front();
      if (!f.node(u).is_switch() && u != node) continue;
      for (int q = 1; q <= f.node(u).num_ports; q++) {
        const Port& pp = f.node(u).port(q);
        if (pp.connected() && dist[pp.peer_node] < 0) dist[pp.peer_node] = dist[u] + 1, bq.push_back(pp.peer_node);
      }
    }
    for (size_t e = 0; e < eps.size(); e++)
      if (dist[eps[e].node] >= 0)
        ft_notes.push(FtNote{now + std::max<int64_t>(1, dist[eps[e].node] * per), static_cast<int>(e), node, port, now, false, true});
  }
}

// Fault notifications and latency ACKs due by now reach the FT-DRB selector (start of a cycle).
inline void Simulator::Impl::ftdrb_deliver_due() {
  while (!ft_notes.empty() && ft_notes.top().t <= now) {
    FtNote n = ft_notes.top();
    ft_notes.pop();
    if (n.bcast) ftdrb->notify_broadcast(n.src, n.node, n.port, now);
    else ftdrb->notify(n.src, n.node, n.port, n.sent, n.probe, now);
  }
  while (!ft_acks.empty() && ft_acks.top().t <= now) {
    FtAck k = ft_acks.top();
    ft_acks.pop();
    ftdrb->delivered(k.src, k.dst, k.off, k.probe, k.latency);
  }
}

}  // namespace ftroute::flitsim
