// flitsim router (inline, included by sim.cpp): SL2VL lookup, route computation, crossbar
// connections (grant, finish, discard), flit arrival into input buffers, credits, and the per-cycle
// step that moves one flit per connection.
#pragma once

#include "sim_impl.hpp"

namespace ftroute::flitsim {

// VL of SL `sl` entering switch channel c's switch and leaving by `out_port`.
inline int Simulator::Impl::vl_at(int c, int out_port, int sl) const {
  if (vl_base.empty()) return sl;
  return vl_tabs[vl_idx[vl_base[static_cast<size_t>(c)] + static_cast<size_t>(out_port)]][static_cast<size_t>(sl & 15)];
}

inline int Simulator::Impl::vl_src(int e, int sl) const {
  if (vl_ep.empty()) return sl;
  return vl_tabs[vl_ep[static_cast<size_t>(e)]][static_cast<size_t>(sl & 15)];
}

// A packet addressed to waypoint switch sw (its LID) goes on to the next waypoint or to its
// destination, one SL higher per waypoint passed (Waypoints, flitsim.hpp).
inline void Simulator::Impl::next_waypoint(Pkt& p, int sw) {
  const Lid here = f.node(sws[sw].node).port(0).base_lid;
  const std::vector<Lid>& via = wp->w[static_cast<size_t>(p.wp)].via;
  while (p.wp >= 0 && p.dlid == here) {
    p.sl++;
    if (++p.wp_pos < via.size()) {
      p.dlid = via[p.wp_pos];
    } else {
      p.dlid = p.wp_dlid;
      p.wp = -1;
    }
  }
}

// Route the front packet of (c, v) at switch sw. Returns false if it was dropped.
inline void Simulator::Impl::route_front(int c, int v) {
  InVC& q = ivc[static_cast<size_t>(c) * V + v];
  if (!q.has_front() || q.state != kRouting) return;
  Entry& e = q.front();
  Pkt& p = pk(e.pkt);
  int s = ch[c].dst_sw;
  const char* why = nullptr;
  if (p.doomed) why = "";
  uint8_t port = kNoPath;
  if (!why) {
    if (++p.hops > cfg.hop_limit) why = "hop limit exceeded (routing loop)";
  }
  if (!why) {
    if (p.wp >= 0) next_waypoint(p, s);
    port = R->lfts.get(sws[s].node, p.dlid);
    if (port == kNoPath) why = "no route (LFT entry 255)";
    else if (port == 0) why = "LFT delivers to switch port 0";
    else if (port >= sws[s].out_by_port.size() || sws[s].out_by_port[port] < 0) why = "LFT port missing or unlinked";
  }
  if (!why && cfg.fault_policy == FaultPolicy::Escape && !ch[sws[s].out_by_port[port]].alive) {
    // Escape path (docs/ftdrb.md "Escape paths"): the detecting switch notifies the source
    // and rewrites DLID (and SL) to an escape LID of the same destination.
    const Channel& dead = ch[sws[s].out_by_port[port]];
    uint8_t nsl = 0;
    Lid l = find_escape(c, p, &nsl);
    if (l) {
      ftdrb_fault(e.pkt, dead.src_node, dead.src_port);
      p.notified = true;
      p.dlid = l, p.sl = nsl, p.escaped = true;
      res.escaped++;
      port = R->lfts.get(sws[s].node, l);
    } else {
      res.escape_fallbacks++;
    }
  }
  int oc = -1, ov = 0;
  if (!why) {
    oc = sws[s].out_by_port[port];
    ov = vl_at(c, port, p.sl) * vc_blk;  // BookSim model: first VC of the class
    if (bsm && cfg.eject_any_vc && ch[oc].dst_ep >= 0) ov = 0;  // the class is every VC (class_vcs)
    if (ov >= V) why = "VL out of range";
    else if (!ch[oc].alive && dead_port_policy() == FaultPolicy::Drop)
      why = cfg.fault_policy == FaultPolicy::Escape ? "output link down (no escape LID)" : "output link down";
    else if (!ch[oc].alive && ftdrb && !p.notified) {  // Hold: the switch still notifies the source
      p.notified = true;
      ftdrb_fault(e.pkt, ch[oc].src_node, ch[oc].src_port);
    }
  }
  if (why) {
    if (*why && oc >= 0 && !ch[oc].alive) ftdrb_fault(e.pkt, ch[oc].src_node, ch[oc].src_port);
    if (*why) finalize_drop(e.pkt, why);
    start_discard(c, v);
    return;
  }
  q.out_ch = oc, q.out_vc = static_cast<uint8_t>(ov);
  q.state = kWaiting;
  if (!q.in_req) sws[s].req.push_back(static_cast<uint32_t>(c) * V + v), q.in_req = true;
  mark_sw(s);
}

// after_tail (BookSim model): the front changed because the previous tail left in this cycle's
// switch allocation; the new head starts routing in the next cycle (BookSim2 iq_router).
inline void Simulator::Impl::front_changed(int c, int v, bool after_tail) {
  InVC& q = ivc[static_cast<size_t>(c) * V + v];
  q.conn = -1;
  if (!q.has_front()) {
    q.state = kIdle;
    return;
  }
  q.state = kRouting;
  int64_t ready = std::max(now, q.front().head_arrival + cfg.routing_delay);
  if (after_tail && bsm) ready = std::max(now + 1, q.front().head_arrival) + cfg.routing_delay;
  if (ready <= now) route_front(c, v);
  else at(ready, Ev{kEvRoute, static_cast<uint8_t>(v), 0, 0, static_cast<uint32_t>(c), 0, 0});
}

inline int32_t Simulator::Impl::new_conn() {
  int32_t id;
  if (!conn_free.empty()) id = conn_free.back(), conn_free.pop_back();
  else id = static_cast<int32_t>(conns.size()), conns.push_back({});
  conns[id].list_pos = static_cast<uint32_t>(active.size());
  active.push_back(id);
  return id;
}

inline void Simulator::Impl::drop_conn(int32_t id) {
  uint32_t pos = conns[id].list_pos;
  int32_t last = active.back();
  active[pos] = last;
  conns[last].list_pos = pos;
  active.pop_back();
  conn_free.push_back(id);
}

inline void Simulator::Impl::start_discard(int c, int v) {
  InVC& q = ivc[static_cast<size_t>(c) * V + v];
  int32_t id = new_conn();
  Conn& k = conns[id];
  Entry& e = q.front();
  k = Conn{e.pkt, c, -1, -1, static_cast<uint8_t>(v), 0, q.dab_full, e.size, e.departed, now, k.list_pos};
  q.state = kDiscard;
  q.conn = id;
}

inline void Simulator::Impl::grant(int c, int v, int ov) {  // switch input (c, v) front gets its output
  InVC& q = ivc[static_cast<size_t>(c) * V + v];
  Entry& e = q.front();
  int64_t start = now + cfg.alloc_delay + cfg.xbar_delay;
  if (bsm) {  // VC allocation: any free VC of the class; switch allocation per flit from start
    if (ov < 0) {
      ov = free_vc(q.out_ch, q.out_vc, va_rr[static_cast<size_t>(q.out_ch)]);
      FLITSIM_CHECK(ov >= 0, "VC grant without a free VC");
      va_rr[static_cast<size_t>(q.out_ch)] = static_cast<uint16_t>(ov + 1);
    }
    FLITSIM_CHECK(ovc_conn[static_cast<size_t>(q.out_ch) * V + ov] == -1, "VC grant of a VC in use");
    q.out_vc = static_cast<uint8_t>(ov);
    start = now + cfg.vc_alloc_delay;
  }
  int32_t id = new_conn();
  Conn& k = conns[id];
  k = Conn{e.pkt, c, -1, q.out_ch, static_cast<uint8_t>(v), q.out_vc, q.dab_full, e.size, 0,
           start, k.list_pos};
  q.state = kActive;
  q.conn = id;
  if (q.nac_run >= 0) close_run(q.nac_run);  // the deadlock-prone state went away
  if (cfg.nac && ch[c].src_sw >= 0) {
    int32_t& rsv = nac_rsv[static_cast<size_t>(q.out_ch) * V + q.out_vc];
    rsv = std::max(0, rsv - e.size);
  }
  ovc_conn[static_cast<size_t>(q.out_ch) * V + q.out_vc] = id;
  if (!wh) {  // VCT: the crossbar connection is held for the packet (IB never interleaves)
    ch[c].in_conn = id;
    ch[q.out_ch].out_conn = id;
  }
}

__attribute__((always_inline)) inline void Simulator::Impl::credit_return(int c, int v, int n) {
  if (ch[c].src_sw < 0 && ch[c].src_ep < 0) return;
  const int64_t t = now + (bsm ? bs_cd[static_cast<size_t>(c)] : cfg.credit_delay);
  const Ev ev{kEvCredit, static_cast<uint8_t>(v), 0, 0, static_cast<uint32_t>(c), static_cast<uint32_t>(n), 0};
  if (__builtin_expect(par != nullptr, 0)) post(t, ev, own_src[static_cast<size_t>(c)]);
  else at(t, ev);
}

// A connection finished (all `size` flits sent or discarded).
inline void Simulator::Impl::finish_conn(int32_t id) {
  Conn k = conns[id];
  drop_conn(id);
  if (k.out_ch >= 0) {
    size_t oi = static_cast<size_t>(k.out_ch) * V + k.out_vc;
    if (ovc_conn[oi] == id)  // wait_tail_credit: the VC stays taken (-2) until its buffer is empty
      ovc_conn[oi] = bsm && cfg.wait_tail_credit && credits[oi] < cfg.buffer_flits ? -2 : -1;
    if (ch[k.out_ch].out_conn == id) ch[k.out_ch].out_conn = -1;
    if (ch[k.out_ch].src_sw >= 0) mark_sw(ch[k.out_ch].src_sw);
  }
  if (k.in_ch < 0) {  // source
    mark_ep(k.ep);
    return;
  }
  InVC& q = ivc[static_cast<size_t>(k.in_ch) * V + k.in_vc];
  if (ch[k.in_ch].in_conn == id) ch[k.in_ch].in_conn = -1;
  int s = ch[k.in_ch].dst_sw;
  if (k.from_dab) {
    q.dab_full = false;
    sws[s].dab_count--;
    if (q.dab_holds_st) {
      stopped_st[static_cast<size_t>(q.st_ch) * V + q.st_vc]--;
      sws[s].stopped_fw--;
      q.dab_holds_st = false;
      if (ch[q.st_ch].src_sw >= 0) mark_sw(ch[q.st_ch].src_sw);
    }
  } else {
    q.q.pop();
  }
  mark_sw(s);
  front_changed(k.in_ch, k.in_vc, true);
}

__attribute__((always_inline)) inline void Simulator::Impl::on_flit(const Ev& e) {
  int c = static_cast<int>(e.a);
  uint32_t pi = e.b;
  Pkt& p = pk(pi);
  res.flits_moved++;
  if (ch[c].dst_ep >= 0) {  // sink
    credit_return(c, e.vc, 1);
    p.sink_arrived++;
    if (!p.doomed && p.dst != ch[c].dst_ep) finalize_drop(pi, "delivered to the wrong CA (LFT error)");
    if (now >= win_lo && now < win_hi) window_flits_ejected++, eps[static_cast<size_t>(ch[c].dst_ep)].window_ejected++;
    if (p.sink_arrived == std::min(p.deliver_size, p.size)) deliver(pi, ch[c].dst_ep);
    flit_gone(pi);
    return;
  }
  InVC& q = ivc[static_cast<size_t>(c) * V + e.vc];
  bool appended = false;
  if (!q.q.empty()) {
    Entry& b = q.q.back();
    if (b.pkt == pi && b.arrived < b.size) b.arrived++, appended = true;
  }
  if (!appended) {
    Entry n;
    n.pkt = pi;
    n.size = e.size;
    if (p.deliver_size < n.size && p.doomed) n.size = std::max(1, p.deliver_size);
    n.arrived = 1;
    n.departed = 0;
    n.head_arrival = now;
    q.q.push(n);
  }
  q.occ++;
  FLITSIM_CHECK(q.occ <= cfg.buffer_flits, "input buffer overflow at " + chan_name(c));
  if (!appended && q.q.size() == 1 && !q.dab_full) front_changed(c, e.vc);
}

inline void Simulator::Impl::on_credit(const Ev& e) { credit_arrives(e.a, e.vc, static_cast<int32_t>(e.b)); }
__attribute__((always_inline)) inline void Simulator::Impl::credit_arrives(uint32_t cid, uint8_t vc, int32_t n) {
  size_t i = static_cast<size_t>(cid) * V + vc;
  credits[i] += n;
  FLITSIM_CHECK(credits[i] <= cfg.buffer_flits, "credit counter above buffer size at " + chan_name(static_cast<int>(cid)));
  if (__builtin_expect(bsm, 0) && ovc_conn[i] == -2 && credits[i] == cfg.buffer_flits) ovc_conn[i] = -1;  // tail credit back
  // Wake the sender only if the credit can make a head feasible: its output is not streaming
  // another packet (VCT: finish_conn wakes it then) and the counter covers the smallest packet.
  const Channel& c = ch[cid];
  if (!wh && (c.out_conn >= 0 || credits[i] < min_need)) return;
  if (c.src_sw >= 0) {
    if (!sws[c.src_sw].req.empty()) mark_sw(c.src_sw);
  } else if (c.src_ep >= 0) {
    if (!eps[c.src_ep].queue.empty()) mark_ep(c.src_ep);
  }
}

inline bool Simulator::Impl::credits_ok(int oc, int ov, int size) const {
  int32_t cr = credits[static_cast<size_t>(oc) * V + ov];
  return cfg.switching == Switching::VirtualCutThrough ? cr >= size : cr >= 1;
}

// Every active connection moves at most one flit per cycle. Under wormhole several
// connections share a port, so a port moves at most one flit per cycle (rotating priority).
// A packet truncated at its source link: drops the flits not yet sent.
inline void Simulator::Impl::discard_at_source(int32_t id, Conn& k) {
  while (k.sent < k.size) k.sent++, flit_gone(k.pkt);
  last_progress = now;
  finish_conn(id);
}

// A connection to nowhere (a dead output): drops every flit of its packet that has arrived.
inline void Simulator::Impl::discard_arrived(int32_t id, Conn& k, InVC& q, Entry& e) {
  while (e.departed < e.arrived) {
    e.departed++;
    k.sent++;
    if (!k.from_dab) {
      q.occ--;
      credit_return(k.in_ch, k.in_vc, 1);
    }
    flit_gone(k.pkt);
    last_progress = now;
  }
  if (k.sent >= k.size) finish_conn(id);
}

inline void Simulator::Impl::step_conns() {
  step_tmp.assign(active.begin(), active.end());  // finish_conn edits `active`
  size_t n = step_tmp.size();
  size_t off = wh && n ? static_cast<size_t>(now) % n : 0;
  for (size_t j = 0; j < n; j++) {
    int32_t id = step_tmp[off ? (j + off) % n : j];
    Conn& k = conns[id];
    if (k.sent >= k.size) {
      finish_conn(id);
      continue;
    }
    if (now < k.start) continue;
    if (k.in_ch < 0) {  // from the source queue: all flits present
      if (k.out_ch < 0) {  // truncated at the source link
        discard_at_source(id, k);
        continue;
      }
      if (!ch[k.out_ch].alive && !k.finish_dead) continue;
      size_t ci = static_cast<size_t>(k.out_ch) * V + k.out_vc;
      if (credits[ci] <= 0) continue;
      send_flit(k, ci);
      if (k.sent >= k.size) finish_conn(id);
      continue;
    }
    InVC& q = ivc[static_cast<size_t>(k.in_ch) * V + k.in_vc];
    Entry& e = q.front();
    if (k.out_ch < 0) {
      discard_arrived(id, k, q, e);
      continue;
    }
    if (e.departed >= e.arrived || (!ch[k.out_ch].alive && !k.finish_dead)) continue;
    size_t ci = static_cast<size_t>(k.out_ch) * V + k.out_vc;
    if (credits[ci] <= 0) continue;
    if (wh) {
      if (in_stamp[k.in_ch] == now || out_stamp[k.out_ch] == now) continue;
      in_stamp[k.in_ch] = out_stamp[k.out_ch] = now;
    }
    e.departed++;
    if (!k.from_dab) {
      q.occ--;
      if (cfg.credit_delay == cfg.link_latency) {  // flit and credit in one event
        send_flit(k, ci, static_cast<uint32_t>(k.in_ch), k.in_vc);
        if (k.sent >= k.size) finish_conn(id);
        continue;
      }
      credit_return(k.in_ch, k.in_vc, 1);
    }
    send_flit(k, ci);
    if (k.sent >= k.size) finish_conn(id);
  }
}

// Threads: a flit-and-credit event whose two halves belong to different shards is split.
inline void Simulator::Impl::post_flit_credit(int64_t t, const Ev& e) {
  const int a = own_dst[e.a], b = own_src[e.c2];
  if (a == b) {
    post(t, e, a);
    return;
  }
  post(t, Ev{kEvFlit, e.vc, 0, 0, e.a, e.b, e.size}, a);
  post(t, Ev{kEvCredit, e.vc2, 0, 0, e.c2, 1, 0}, b);
}

// credit_ch >= 0: the flit's event also returns one credit of (credit_ch, credit_vc), which
// the caller guarantees is due at the same cycle (credit_delay == link_latency).
inline void Simulator::Impl::send_flit(Conn& k, size_t ci, uint32_t credit_ch, uint8_t credit_vc) {
  credits[ci]--;
  FLITSIM_CHECK(credits[ci] >= 0, "negative credits at " + chan_name(k.out_ch));
  if (credits[ci] < res.min_credits) res.min_credits = credits[ci];
  if (credit_ch != UINT32_MAX) {  // (every channel has a sender: build() skips the others)
    const Ev ev{kEvFlitCredit, k.out_vc, credit_vc, 0, static_cast<uint32_t>(k.out_ch), k.pkt, k.size, credit_ch};
    if (__builtin_expect(par != nullptr, 0)) post_flit_credit(now + cfg.link_latency, ev);
    else at(now + cfg.link_latency, ev);
  } else {
    const Ev ev{kEvFlit, k.out_vc, 0, 0, static_cast<uint32_t>(k.out_ch), k.pkt, k.size};
    if (__builtin_expect(par != nullptr, 0)) post(now + cfg.link_latency, ev, own_dst[static_cast<size_t>(k.out_ch)]);
    else at(now + cfg.link_latency, ev);
  }
  k.sent++;
  last_progress = now;
}

// ---------------- RouterModel::BookSim ----------------
// A free VC (no packet owns it) of output channel oc in the class starting at VC base
// (class_vcs(oc) VCs: vc_blk, or all V on the link to a CA with eject_any_vc), searched round
// robin from `from`; -1 if none.
inline int Simulator::Impl::class_vcs(int oc) const {
  return cfg.eject_any_vc && ch[oc].dst_ep >= 0 ? V : vc_blk;
}

inline int Simulator::Impl::free_vc(int oc, int base, uint16_t from) const {
  const int blk = class_vcs(oc);
  for (int j = 0; j < blk; j++) {
    int x = base + (from + j) % blk;
    if (ovc_conn[static_cast<size_t>(oc) * V + x] == -1) return x;
  }
  return -1;
}

// A flit won switch allocation in this cycle: it reaches the downstream buffer bs_fd cycles
// later; credit_ch >= 0: the slot it left in (credit_ch, credit_vc) is credited bs_cd cycles
// later (one event when both are due in the same cycle).
inline void Simulator::Impl::send_flit_bs(Conn& k, size_t ci, int credit_ch, uint8_t credit_vc) {
  credits[ci]--;
  FLITSIM_CHECK(credits[ci] >= 0, "negative credits at " + chan_name(k.out_ch));
  if (credits[ci] < res.min_credits) res.min_credits = credits[ci];
  const int64_t fd = bs_fd[static_cast<size_t>(k.out_ch)];
  if (credit_ch >= 0 && bs_cd[static_cast<size_t>(credit_ch)] == fd) {
    const Ev ev{kEvFlitCredit, k.out_vc, credit_vc, 0, static_cast<uint32_t>(k.out_ch), k.pkt, k.size,
                static_cast<uint32_t>(credit_ch)};
    if (par) post_flit_credit(now + fd, ev);
    else at(now + fd, ev);
  } else {
    if (credit_ch >= 0) credit_return(credit_ch, credit_vc, 1);
    const Ev ev{kEvFlit, k.out_vc, 0, 0, static_cast<uint32_t>(k.out_ch), k.pkt, k.size};
    if (par) post(now + fd, ev, own_dst[static_cast<size_t>(k.out_ch)]);
    else at(now + fd, ev);
  }
  k.sent++;
  last_progress = now;
}

// BookSim model: every cycle, each granted connection (an input VC that owns an output VC)
// whose front flit is in the buffer and whose output VC has a credit requests the switch; one
// iSLIP iteration matches inputs to outputs (per input and output, one VC by round robin;
// each output grants one input by round robin; each input accepts one grant by round robin;
// pointers move on accepts), so each input and each output port moves at most one flit per
// cycle and flits of packets on different VCs interleave on a link. Sources (one packet at a
// time per CA) send a flit whenever they hold a credit.
__attribute__((noinline)) inline void Simulator::Impl::step_conns_bs() {  // (own frame: keeps run() lean in the ib model)
  step_tmp.assign(active.begin(), active.end());  // finish_conn edits `active`
  sa_req.clear();
  for (int32_t id : step_tmp) {
    Conn& k = conns[id];
    if (k.sent >= k.size) {
      finish_conn(id);
      continue;
    }
    if (now < k.start) continue;
    if (k.in_ch < 0) {  // from the source queue: all flits present
      if (k.out_ch < 0) {  // truncated at the source link
        discard_at_source(id, k);
        continue;
      }
      if (!ch[k.out_ch].alive && !k.finish_dead) continue;
      size_t ci = static_cast<size_t>(k.out_ch) * V + k.out_vc;
      if (credits[ci] <= 0) continue;
      send_flit_bs(k, ci, -1, 0);
      if (k.sent >= k.size) finish_conn(id);
      continue;
    }
    // (credits first: a small array, while the input VC's front entry is a cache miss)
    if (k.out_ch >= 0 && credits[static_cast<size_t>(k.out_ch) * V + k.out_vc] <= 0) continue;
    InVC& q = ivc[static_cast<size_t>(k.in_ch) * V + k.in_vc];
    Entry& e = q.front();
    if (k.out_ch < 0) {
      discard_arrived(id, k, q, e);
      continue;
    }
    if (e.departed >= e.arrived || (!ch[k.out_ch].alive && !k.finish_dead)) continue;
    sa_req.push_back({id, k.in_ch, k.out_ch, static_cast<uint16_t>(ch[k.in_ch].dst_port),
                      static_cast<uint16_t>(ch[k.out_ch].src_port), k.in_vc});
  }
  if (sa_req.empty()) return;
  const int P = kAllocPorts, VV = V;
  // grant: each output picks the input next after its pointer, and of that input's VCs that
  // want it the one next after the input's VC pointer (one pass, no sort: a best slot per output)
  sa_outs.clear();
  for (int32_t i = 0; i < static_cast<int32_t>(sa_req.size()); i++) {
    const SaReq& x = sa_req[static_cast<size_t>(i)];
    const int32_t key = rr_dist(x.in_port, sa_out_rr[x.out_ch], P) * 256 + rr_dist(x.vc, sa_vc_rr[x.in_ch], VV);
    if (sa_out_stamp[x.out_ch] != now) {
      sa_out_stamp[x.out_ch] = now, sa_out_best[x.out_ch] = i, sa_out_key[x.out_ch] = key;
      sa_outs.push_back(x.out_ch);
    } else if (key < sa_out_key[x.out_ch]) {
      sa_out_best[x.out_ch] = i, sa_out_key[x.out_ch] = key;
    }
  }
  // accept: each input picks, of its grants, the output next after its pointer
  sa_ins.clear();
  for (int32_t o : sa_outs) {
    const int32_t i = sa_out_best[o];
    const SaReq& x = sa_req[static_cast<size_t>(i)];
    const int32_t key = rr_dist(x.out_port, sa_in_rr[x.in_ch], P);
    if (sa_in_stamp[x.in_ch] != now) {
      sa_in_stamp[x.in_ch] = now, sa_in_best[x.in_ch] = i, sa_in_key[x.in_ch] = key;
      sa_ins.push_back(x.in_ch);
    } else if (key < sa_in_key[x.in_ch]) {
      sa_in_best[x.in_ch] = i, sa_in_key[x.in_ch] = key;
    }
  }
  for (int32_t in : sa_ins) {
    const SaReq g = sa_req[static_cast<size_t>(sa_in_best[in])];
    sa_out_rr[g.out_ch] = static_cast<uint16_t>(g.in_port + 1);
    sa_in_rr[g.in_ch] = static_cast<uint16_t>(g.out_port + 1);
    sa_vc_rr[g.in_ch] = static_cast<uint16_t>(g.vc + 1);
    Conn& k = conns[g.id];
    InVC& q = ivc[static_cast<size_t>(k.in_ch) * V + k.in_vc];
    q.front().departed++;
    size_t ci = static_cast<size_t>(k.out_ch) * V + k.out_vc;
    if (!k.from_dab) {
      q.occ--;
      send_flit_bs(k, ci, k.in_ch, k.in_vc);
    } else {
      send_flit_bs(k, ci, -1, 0);
    }
    if (k.sent >= k.size) finish_conn(g.id);
  }
}

}  // namespace ftroute::flitsim
