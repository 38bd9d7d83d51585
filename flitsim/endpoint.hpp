// flitsim endpoints (inline, included by sim.cpp): packets, the synthetic source process
// (Bernoulli generation, lazy/eager sources, destinations), the source queue's injection
// (allocate_ep), ejection at the sink (deliver) and the measurement bookkeeping.
#pragma once

#include "sim_impl.hpp"

namespace ftroute::flitsim {

inline uint32_t Simulator::Impl::new_pkt() {
  if (!pkt_free.empty()) {
    uint32_t i = pkt_free.back();
    pkt_free.pop_back();
    return i;
  }
  if (pk_fill == kPkChunk) {  // a new chunk: this shard's k-th is chunk k * nsh + shard
    size_t idx = pk_chunks.size() * static_cast<size_t>(nsh) + static_cast<size_t>(shard);
    FLITSIM_CHECK(idx < kPkMaxChunks, "more than 2^31 packet slots");
    pk_chunks.emplace_back(new Pkt[kPkChunk]);
    pk_tab[idx] = pk_chunks.back().get();
    pk_cur = static_cast<uint32_t>(idx), pk_fill = 0;
  }
  return (pk_cur << kPkShift) | pk_fill++;
}

inline void Simulator::Impl::finalize_drop(uint32_t pi, const char* reason) {
  Pkt& p = pk(pi);
  if (p.doomed || p.finalized) return;
  p.doomed = true;
  p.finalized = true;
  res.dropped++;
  res.drops[reason]++;
  if (p.injected) res.in_network--;
  else res.in_source--;
  if (p.measured) res.measured_dropped++, measured_outstanding--;
  if (owner->on_drop) {
    if (par) hook_buf.push_back({p.id, p.src, p.dst, 0, reason});  // called in order at the barrier
    else owner->on_drop(p.id, reason);
  }
}

inline void Simulator::Impl::flit_gone(uint32_t pi) {  // one flit of the packet left the network for good
  Pkt& p = pk(pi);
  // (threads: after a link failure cut the packet, the part upstream is discarded in one shard
  // while the part downstream drains in another: both count down; whichever ends it frees the
  // slot, and slot numbers never change results)
  const int32_t left = __builtin_expect(par != nullptr, 0) ? __atomic_sub_fetch(&p.flits_left, 1, __ATOMIC_ACQ_REL)
                                                           : --p.flits_left;
  FLITSIM_CHECK(left >= 0, "packet flit count underflow");
  if (left == 0) {
    FLITSIM_CHECK(p.finalized, "packet vanished without being delivered or dropped");
    pkt_free.push_back(pi);
  }
}

inline void Simulator::Impl::generate(int src, int dst, int flits, int64_t gen_cycle, bool mark) {
  if (dst < 0 || (dst == src && !tr.self_traffic)) return;
  uint32_t pi = new_pkt();
  Pkt& p = pk(pi);
  p = Pkt{};
  p.id = next_id, next_id += static_cast<uint64_t>(nsh);  // (shard s: s + 1, s + 1 + nsh, ...)
  p.src = src, p.dst = dst;
  EpState& s = eps[src];
  EpState& d = eps[dst];
  p.slid = s.base;
  uint32_t nl = 1u << d.lmc, off = 0;
  switch (cfg.lid_policy) {
    case LidPolicy::Base: off = 0; break;
    case LidPolicy::Random: off = static_cast<uint32_t>(src_rng[src].below(nl)); break;
    case LidPolicy::Hash: off = static_cast<uint32_t>((static_cast<uint64_t>(src) * 2654435761u) % nl); break;
    case LidPolicy::RoundRobin: off = s.rr++ % nl; break;
    case LidPolicy::FtDrb: off = 0; break;  // chosen at the head of the source queue
  }
  p.dlid = static_cast<Lid>(d.base + off);
  p.sl = R->sl(p.slid, p.dlid);
  int legs = 1;
  if (wp) {  // source route through waypoints: address the first one
    auto it = wp->of_pair.find(static_cast<uint64_t>(src) << 32 | static_cast<uint32_t>(dst));
    if (it != wp->of_pair.end()) {
      const std::vector<Lid>& via = wp->w[static_cast<size_t>(it->second)].via;
      p.wp = it->second, p.wp_pos = 0, p.wp_dlid = p.dlid, p.dlid = via[0];
      legs += static_cast<int>(via.size());
    }
  }
  if (cfg.sl_spread > legs && p.sl < 15)  // (Config::sl_spread; SLs end at 15)
    p.sl = static_cast<uint8_t>(p.sl + sl_rng[src].below(static_cast<uint64_t>(std::min(cfg.sl_spread - legs, 15 - p.sl) + 1)));
  p.size = p.deliver_size = p.flits_left = flits;
  min_need = std::min(min_need, flits);
  p.gen = gen_cycle;
  p.measured = gen_cycle >= win_lo && gen_cycle < win_hi;
  res.generated++;
  res.in_source++;
  if (p.measured) {
    res.measured_packets++, measured_outstanding++;
    window_flits_generated += static_cast<uint64_t>(flits);
  }
  s.queue.push_back(pi);
  if (mark) mark_ep(src);
}

inline void Simulator::Impl::set_due(int s, int64_t t) {
  int64_t& d = eps[s].gen_due;
  bool owed_before = d >= 0 && d < owe_limit, owed_after = t >= 0 && t < owe_limit;
  if (owed_before && !owed_after) owing--;
  if (!owed_before && owed_after) owing++;
  d = t;
}

// Generates source s's packet due at gen_due (its true generation cycle) and draws the next.
inline void Simulator::Impl::gen_next(int s, bool mark) {
  int64_t t = eps[s].gen_due;
  generate(s, pick_dest(s), cfg.packet_flits, t, mark);
  int64_t g = next_gap(s);
  set_due(s, g > 0 ? t + g : -1);
}

// Lazy source whose queue is empty: materialise the packets already due (a backlog: their
// generation cycles are in the past) until one is queued, else wait for the next one.
inline void Simulator::Impl::refill(int s) {
  EpState& E = eps[s];
  if (eager || !E.queue.empty()) return;
  while (E.queue.empty() && E.gen_due >= 0 && E.gen_due <= gen_upto && E.gen_due < gen_limit) gen_next(s, false);
  if (E.queue.empty() && E.gen_due > gen_upto && E.gen_due < gen_limit) gen_q.push({E.gen_due, s});
}

inline void Simulator::Impl::deliver(uint32_t pi, int dst_ep) {
  Pkt& p = pk(pi);
  if (p.doomed) return;  // truncated/dropped fragments drain into the sink
  FLITSIM_CHECK(!p.finalized, "packet delivered twice");
  FLITSIM_CHECK(p.dst == dst_ep, "packet delivered to the wrong endpoint");
  p.finalized = true;
  res.delivered++;
  res.in_network--;
  int64_t latency = now - p.gen;
  if (p.measured) {
    measured_outstanding--;
    res.measured_delivered++;
    lat.push_back(static_cast<double>(latency));
    if (!hot_ep.empty() && !hot_ep[static_cast<size_t>(dst_ep)]) blat.push_back(static_cast<double>(latency));
    nlat.push_back(static_cast<double>(now - p.inject));
    hops_sum += p.hops;
  }
  if (ftdrb && !p.escaped) {  // latency ACK back to the source (escaped packets send none): hops x per-hop cycles, like notifications
    int64_t per = cfg.ftdrb_notify_hop_cycles > 0 ? cfg.ftdrb_notify_hop_cycles : cfg.link_latency;
    ft_acks.push(FtAck{now + std::max<int64_t>(1, static_cast<int64_t>(p.hops + 1) * per), p.src, p.dst,
                       p.lid_off, p.probe, now - p.inject});
  }
  if (owner->on_deliver) {
    if (par) hook_buf.push_back({p.id, p.src, p.dst, latency, nullptr});
    else owner->on_deliver(p.id, p.src, p.dst, latency);
  }
}

inline void Simulator::Impl::allocate_ep(int e) {
  EpState& E = eps[e];
  E.dirty = false;
  while (true) {
    refill(e);
    if (E.queue.empty()) return;
    if (E.out_ch < 0) {  // endpoint without a link: nothing can leave
      uint32_t pi = E.queue.front();
      E.queue.pop_front();
      finalize_drop(pi, "source not connected");
      for (int i = 0; i < pk(pi).size; i++) flit_gone(pi);
      continue;
    }
    Channel& oc = ch[E.out_ch];
    if (oc.out_conn >= 0) return;
    uint32_t pi = E.queue.front();
    Pkt& p = pk(pi);
    if (ftdrb && !p.lid_chosen) {
      const EpState& d = eps[p.dst];
      auto c = ftdrb->choose(*R, p.src, p.dst, E.node, E.port, d.base, 1u << d.lmc, rng.uniform());
      p.lid_chosen = true, p.lid_at = now, p.probe = c.probe, p.lid_off = static_cast<uint8_t>(c.offset);
      p.dlid = static_cast<Lid>(d.base + c.offset);
      p.sl = R->sl(p.slid, p.dlid);
    }
    if (!oc.alive) {  // the CA's own link: no escape LID can avoid it
      if (dead_port_policy() == FaultPolicy::Hold) return;
      if (cfg.fault_policy == FaultPolicy::Escape) res.escape_fallbacks++;
      E.queue.pop_front();
      finalize_drop(pi, "source link down");
      for (int i = 0; i < p.size; i++) flit_gone(pi);
      continue;
    }
    int vl = vl_src(e, p.sl) * vc_blk;
    if (vl >= V) {
      E.queue.pop_front();
      finalize_drop(pi, "VL out of range");
      for (int i = 0; i < p.size; i++) flit_gone(pi);
      continue;
    }
    if (bsm) {  // BookSim: any free VC with a credit, round robin from the last one used (BookSim2's
      // routing functions give a source every VC: classes such as the torus dateline's apply from
      // the first switch on, whose VC allocation picks the class of the route)
      int got = -1;
      for (int j = 0; j < V && got < 0; j++) {
        int x = (va_rr[static_cast<size_t>(E.out_ch)] + j) % V;
        size_t xi = static_cast<size_t>(E.out_ch) * V + x;
        if (ovc_conn[xi] == -1 && credits[xi] >= 1) got = x;
      }
      if (got < 0) return;
      va_rr[static_cast<size_t>(E.out_ch)] = static_cast<uint16_t>(got + 1);
      vl = got;
    }
    if (!credits_ok(E.out_ch, vl, p.size)) return;
    int32_t id = new_conn();
    Conn& k = conns[id];
    k = Conn{pi, -1, e, E.out_ch, 0, static_cast<uint8_t>(vl), false, p.size, 0, now, k.list_pos};
    oc.out_conn = id;
    ovc_conn[static_cast<size_t>(E.out_ch) * V + vl] = id;
    E.queue.pop_front();
    p.injected = true;
    p.inject = now;
    res.injected++;
    res.in_source--;
    res.in_network++;
    refill(e);
    return;
  }
}

inline int64_t Simulator::Impl::next_gap(int s) {
  const double prob = !hot_src.empty() && hot_src[static_cast<size_t>(s)] ? hot_prob : pkt_prob;
  if (prob >= 1.0) return 1;
  if (prob <= 0) return -1;
  double u = src_rng[static_cast<size_t>(s)].uniform();
  double g = std::floor(std::log1p(-u) / std::log1p(-prob));
  if (g > 1e15) return -1;
  return 1 + static_cast<int64_t>(g);
}

inline int Simulator::Impl::pick_dest(int s) {
  int N = static_cast<int>(eps.size());
  if (N < 2) return -1;
  if (tr.pattern == "hotspot") {
    static const std::vector<int> kZero{0};
    const std::vector<int>& hs = tr.hotspots.empty() ? kZero : tr.hotspots;
    if (!hot_src.empty()) {  // hot sources: only to the hot endpoints; the others: uniform over the rest
      if (hot_src[static_cast<size_t>(s)]) return hs[src_rng[s].below(hs.size())];
      while (true) {
        int d = static_cast<int>(src_rng[s].below(static_cast<uint64_t>(N)));
        if (d != s && !hot_ep[static_cast<size_t>(d)]) return d;
      }
    }
    if (src_rng[s].uniform() < tr.hotspot_fraction) return hs[src_rng[s].below(hs.size())];
  }
  if (tr.pattern == "uniform" || tr.pattern == "hotspot") {
    if (tr.self_traffic) return static_cast<int>(src_rng[s].below(static_cast<uint64_t>(N)));
    int d = static_cast<int>(src_rng[s].below(static_cast<uint64_t>(N - 1)));
    return d >= s ? d + 1 : d;
  }
  return perm[s];
}

// End of run: packets that lazy sources owe (generated, in the eager sense, up to the last
// simulated cycle but never materialised) are counted as generated and waiting at the source.
inline void Simulator::Impl::settle_sources() {
  for (size_t s = 0; s < eps.size(); s++) {
    EpState& E = eps[s];
    while (E.gen_due >= 0 && E.gen_due <= gen_upto && E.gen_due < gen_limit) {
      int64_t t = E.gen_due;
      int d = pick_dest(static_cast<int>(s));
      if (d >= 0 && (d != static_cast<int>(s) || tr.self_traffic)) {
        res.generated++, res.in_source++;
        if (t >= win_lo && t < win_hi) {
          res.measured_packets++;
          window_flits_generated += static_cast<uint64_t>(cfg.packet_flits);
        }
      }
      int64_t g = next_gap(s);
      set_due(static_cast<int>(s), g > 0 ? t + g : -1);
    }
  }
}

}  // namespace ftroute::flitsim
